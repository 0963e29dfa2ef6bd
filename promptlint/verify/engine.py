"""The built-in engine: prefill a prompt through a transformers model,
reusing the longest block-aligned prefix from the paged prefix cache and
computing only the rest.

Time to first token is the time from the lookup to the first generated
token (lookup, KV assembly, prefill of the uncached tokens, argmax); storing
the new blocks happens after it, as a real engine writes them during
prefill. At least one prompt token is always prefilled, even on a full hit,
because its logits give the first output token (vLLM does the same).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from promptlint.verify import torchcompat
from promptlint.verify.models import LoadedModel
from promptlint.verify.prefix_cache import PrefixCache


class PromptTooLong(ValueError):
    """The prompt does not fit in the model's context window."""


@dataclass
class Prefill:
    prompt_tokens: int
    cached_tokens: int  # reused from the prefix cache
    evicted_tokens: int  # would have been reused, but their blocks were evicted
    ttft_seconds: float
    first_token: int
    logits: torch.Tensor  # last position's logits (float32, on the CPU)
    cache: object  # the DynamicCache after prefill (for generation)

    @property
    def prefilled_tokens(self) -> int:
        return self.prompt_tokens - self.cached_tokens


def synchronize(device: str) -> None:
    """Wait for queued GPU work, so a timer reads real time."""
    if device.startswith("cuda"):
        torch.cuda.synchronize()


class Engine:
    def __init__(self, loaded: LoadedModel, block_size: int = 16, capacity_blocks: int = 4096):
        self.loaded = loaded
        self.cache = PrefixCache(block_size, capacity_blocks)

    @torch.inference_mode()
    def warm_up(self) -> None:
        """One small forward pass outside any measurement: the first call
        in a process pays for kernel selection and memory allocation."""
        ids = torch.zeros((1, 8), dtype=torch.long, device=self.loaded.device)
        torchcompat.forward(self.loaded.model, ids, torchcompat.new_cache(self.loaded.model))
        synchronize(self.loaded.device)

    @property
    def block_size(self) -> int:
        return self.cache.block_size

    def check_length(self, tokens: list[int], new_tokens: int = 0) -> None:
        limit = self.loaded.context_length
        if len(tokens) + new_tokens > limit:
            raise PromptTooLong(f"prompt is {len(tokens):,} tokens"
                                + (f" plus {new_tokens} to generate" if new_tokens else "")
                                + f"; {self.loaded.name} has a context of {limit:,} tokens")
        if not tokens:
            raise PromptTooLong("prompt is empty")

    @torch.inference_mode()
    def prefill(self, tokens: list[int], use_cache: bool = True, store: bool = True) -> Prefill:
        """Prefill `tokens`; with `use_cache` reuse cached blocks, with
        `store` add this prompt's blocks to the cache afterwards."""
        self.check_length(tokens)
        model = self.loaded.model
        device = self.loaded.device
        synchronize(device)
        started = time.perf_counter()
        match = self.cache.match(tokens, limit=len(tokens) - 1) if use_cache else None
        reused = match.tokens if match else 0
        if reused:
            cache = torchcompat.new_cache(model, PrefixCache.gather(match.blocks))
        else:
            cache = torchcompat.new_cache(model)
        rest = torch.tensor([tokens[reused:]], dtype=torch.long, device=device)
        logits = torchcompat.forward(model, rest, cache, last_only=True)[-1]
        first = int(torch.argmax(logits))
        synchronize(device)
        ttft = time.perf_counter() - started
        if store:
            self.cache.insert(tokens, torchcompat.layers(cache))  # blocks stay on the model's device
        return Prefill(len(tokens), reused, match.evicted_tokens if match else 0, ttft, first,
                       logits.detach().cpu(), cache)

    @torch.inference_mode()
    def generate(self, tokens: list[int], max_new_tokens: int, use_cache: bool = True) -> tuple[Prefill, list[int]]:
        """Greedy decoding after a (cached) prefill: the first-token result
        and every generated token (stops at an end-of-sequence token)."""
        self.check_length(tokens, max_new_tokens)
        pre = self.prefill(tokens, use_cache=use_cache)
        out = [pre.first_token]
        cache = pre.cache
        device = self.loaded.device
        while len(out) < max_new_tokens and out[-1] not in self.loaded.eos_ids:
            step = torch.tensor([[out[-1]]], dtype=torch.long, device=device)
            out.append(int(torch.argmax(torchcompat.forward(self.loaded.model, step, cache)[-1])))
        return pre, out
