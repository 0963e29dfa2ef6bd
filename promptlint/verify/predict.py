"""What the audit predicts an engine reuses, request by request.

The audit's differential tokenization, run on the requests verify replays:
tokenize each request with the engine's tokenizer and chat template, take
the longest common token prefix with every earlier request the engine has
seen (a token radix tree: linear in the tokens of the stream), and round
it down to the engine's block size (only full blocks are cached), keeping
at least one token to prefill. This is computed from the
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
from promptlint.verify.radix import TokenRadixTree


@dataclass
class Prediction:
    shared_tokens: int  # longest common token prefix with an earlier request
    cached_tokens: int  # of which an engine with this block size reuses


POLICIES = ("any", "previous")


@dataclass
class Predictor:
    """Predictions over a stream of requests: "any" walks a token radix tree
    of every earlier request (linear in each request's tokens), "previous"
    compares with the last one."""

    block_size: int
    policy: str = "any"
    _tree: TokenRadixTree = field(default_factory=TokenRadixTree, repr=False)
    _last: list[int] | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"unknown cache policy {self.policy!r} (expected one of: {', '.join(POLICIES)})")

    def _shared(self, tokens: list[int]) -> int:
        if self.policy == "previous":
            return common_prefix(tokens, self._last) if self._last is not None else 0
        return self._tree.longest_prefix(tokens)

    def _prediction(self, tokens: list[int], shared: int) -> Prediction:
        usable = min(shared, len(tokens) - 1)
        return Prediction(shared, max(0, usable) // self.block_size * self.block_size)

    def peek(self, tokens: list[int]) -> Prediction:
        """The prediction for `tokens` given the history so far."""
        return self._prediction(tokens, self._shared(tokens))

    def add(self, tokens: list[int]) -> None:
        self._last = tokens
        if self.policy == "any":
            self._tree.add(tokens)

    def predict(self, tokens: list[int]) -> Prediction:
        """Prediction for the next request, which then joins the history."""
        if self.policy == "any":
            self._last = tokens
            return self._prediction(tokens, self._tree.add(tokens))
        prediction = self.peek(tokens)
        self.add(tokens)
        return prediction
