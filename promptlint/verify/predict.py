"""What the audit predicts an engine reuses, request by request.

The audit's differential tokenization, run on the requests verify replays:
tokenize each request with the engine's tokenizer and chat template, take
the longest common token prefix with every earlier request the engine has
seen, and round it down to the engine's block size (only full blocks are
cached), keeping at least one token to prefill. This is computed from the
token streams alone, without the engine, so the engine's measured reuse
checks it.

Which earlier requests count depends on the engine: vLLM, SGLang and the
built-in engine keep every cached block until evicted ("any"); llama.cpp's
server reuses the common prefix with the prompt its slot last processed
("previous", with one slot and no host prompt cache: `-np 1 --cache-ram 0`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.analysis.prefix import common_prefix


@dataclass
class Prediction:
    shared_tokens: int  # longest common token prefix with an earlier request
    cached_tokens: int  # of which an engine with this block size reuses


POLICIES = ("any", "previous")


@dataclass
class Predictor:
    block_size: int
    policy: str = "any"
    history: list[list[int]] = field(default_factory=list)

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"unknown cache policy {self.policy!r} (expected one of: {', '.join(POLICIES)})")

    def peek(self, tokens: list[int]) -> Prediction:
        """The prediction for `tokens` given the history so far."""
        seen = self.history[-1:] if self.policy == "previous" else self.history
        shared = max((common_prefix(tokens, s) for s in seen), default=0)
        usable = min(shared, len(tokens) - 1)
        return Prediction(shared, usable // self.block_size * self.block_size)

    def add(self, tokens: list[int]) -> None:
        self.history.append(tokens)

    def predict(self, tokens: list[int]) -> Prediction:
        """Prediction for the next request, which then joins the history."""
        prediction = self.peek(tokens)
        self.add(tokens)
        return prediction
