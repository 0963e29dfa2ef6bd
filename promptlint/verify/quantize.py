"""A 4-bit draft derived from the target itself.

Speculative decoding needs a draft that agrees with the target often. The
closest draft a deployment can build without training is the target
quantised to 4 bits (the self-speculation / "quantised draft" setup): same
tokenizer, same architecture, nearly the same function. `requantize_4bit`
makes one:

* a deep copy of the model (the original is left untouched);
* every `nn.Linear` weight -- the attention and MLP projections of every
  decoder layer, and `lm_head` -- is split, row by row, into groups of
  `group_size` consecutive input columns (the last group of a row may be
  shorter); each group gets a scale `absmax / 7` and its values are rounded
  to the nearest integer level in -7..7 (symmetric, 15 levels, zero exact;
  -8 is not used so the grid is symmetric), then multiplied back by the
  scale and stored in the weight's original dtype ("fake quantisation",
  round-to-nearest, no calibration: no GPTQ/AWQ error correction). Each
  value moves by at most half a step, scale / 2;
* biases, norms and the token embeddings stay in full precision: the
  embedding is a table lookup, not a matmul, and 4-bit schemes (GPTQ, AWQ)
  usually keep it unquantised. When `lm_head` is tied to the embeddings
  (SmolLM2 ties them) the copy unties it: `lm_head` gets its own quantised
  weight and the embeddings keep the original values.

What this measures and what it does not. The copy computes what a 4-bit
draft would compute (up to the dequantisation kernels' rounding), so
speculative decoding with it shows the acceptance rate a 4-bit draft of this
target gets. It does NOT make the draft faster: the weights are still dense
float tensors of the original size, and a draft step costs the same as a
target step. The draft cost ratio c must therefore be measured separately
(`speculative.draft_cost_ratio`) -- for this fake-quantised draft it comes
out at about 1 on CPU -- or taken from a real 4-bit kernel's timings;
acceptance from here, cost from there.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

LEVELS = 7  # symmetric integer levels -7..7


def fake_quantize(weight: torch.Tensor, group_size: int = 32) -> torch.Tensor:
    """`weight` (out, in) quantised round-to-nearest to 4-bit signed levels
    -7..7 per group of `group_size` input columns with an absmax scale, and
    dequantised back to its dtype."""
    if group_size < 1:
        raise ValueError("group_size must be >= 1")
    w = weight.detach().float()
    rows, cols = w.shape
    pad = (-cols) % group_size
    if pad:
        w = torch.nn.functional.pad(w, (0, pad))  # zeros change no absmax
    groups = w.reshape(rows, -1, group_size)
    scale = groups.abs().amax(dim=-1, keepdim=True) / LEVELS
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # an all-zero group stays zero
    q = torch.clamp(torch.round(groups / scale), -LEVELS, LEVELS)
    out = (q * scale).reshape(rows, -1)[:, :cols]
    return out.to(weight.dtype)


def requantize_4bit(model, group_size: int = 32):
    """A deep copy of `model` whose every nn.Linear weight (decoder layers
    and lm_head) is fake-quantised to 4 bits per group of `group_size` input
    columns (see the module docstring); in eval mode."""
    draft = copy.deepcopy(model)
    embeddings = draft.get_input_embeddings()
    embedding_weight = embeddings.weight if embeddings is not None else None
    with torch.no_grad():
        for module in draft.modules():
            if not isinstance(module, nn.Linear):
                continue
            quantised = fake_quantize(module.weight, group_size)
            if module.weight is embedding_weight:
                # tied lm_head: give it its own weight, keep the embeddings as they are
                module.weight = nn.Parameter(quantised, requires_grad=False)
            else:
                module.weight.copy_(quantised)
    if embedding_weight is not None and getattr(draft.config, "tie_word_embeddings", False):
        output = draft.get_output_embeddings()
        if output is not None and output.weight is not embedding_weight:
            draft.config.tie_word_embeddings = False  # so a later tie_weights() keeps them apart
    return draft.eval()
