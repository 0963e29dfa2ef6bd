"""The few transformers calls the engine needs, in one place.

transformers renamed the forward argument that carries the KV cache
(`past_key_values` -> `cache`) and changed how a cache is cropped; the rest
of verify/ goes through these helpers so it works with either spelling.
A cache here is a DynamicCache; its per-layer tensors are (batch, kv_heads,
positions, head_dim).
"""

from __future__ import annotations

import inspect
from functools import lru_cache

import torch
from transformers import DynamicCache

KV = list[tuple[torch.Tensor, torch.Tensor]]  # per layer: (keys, values)


@lru_cache(maxsize=None)
def _cache_argument(forward_type: type) -> str:
    params = inspect.signature(forward_type.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


@lru_cache(maxsize=None)
def _last_only_argument(forward_type: type) -> dict:
    """The argument that makes the LM head score only the last position."""
    params = inspect.signature(forward_type.forward).parameters
    for name in ("logits_to_keep", "num_logits_to_keep"):
        if name in params:
            return {name: 1}
    return {}


def new_cache(model, kv: KV | None = None) -> DynamicCache:
    """A DynamicCache for `model`, optionally filled with per-layer tensors."""
    if kv:
        return DynamicCache(ddp_cache_data=kv, config=model.config)
    return DynamicCache(config=model.config)


def forward(model, input_ids: torch.Tensor, cache: DynamicCache, last_only: bool = False) -> torch.Tensor:
    """Run `input_ids` (1, n) after what `cache` holds; the cache grows in
    place. Returns the logits for the n positions, (n, vocab), in float32;
    with `last_only` just the last position's, (1, vocab): a prefill needs
    no more, and scoring every position of a long prompt against the whole
    vocabulary would add work and memory a real engine never spends."""
    extra = _last_only_argument(type(model)) if last_only else {}
    out = model(input_ids=input_ids, use_cache=True, **{_cache_argument(type(model)): cache}, **extra)
    logits = out.logits[0].float()
    return logits[-1:] if last_only else logits


def layers(cache: DynamicCache) -> KV:
    """The per-layer (keys, values) a cache holds."""
    if hasattr(cache, "layers"):
        return [(layer.keys, layer.values) for layer in cache.layers]
    return list(zip(cache.key_cache, cache.value_cache))  # transformers < 4.56


def length(cache: DynamicCache) -> int:
    return cache.get_seq_length()


def crop(cache: DynamicCache, keep: int) -> None:
    """Drop every position from `keep` on (speculation rolls back rejected
    draft tokens this way)."""
    drop = length(cache) - keep
    if drop > 0:
        cache.crop(-drop)
