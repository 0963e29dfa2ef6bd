"""What the audit predicts an engine reuses, request by request.

The audit's differential tokenization, run on the requests verify replays:
tokenize each request with the engine's tokenizer and chat template, take
the longest common token prefix with every earlier request the engine has
seen, and round it down to the engine's block size (only full blocks are
cached), keeping at least one token to prefill. This is computed from the
token streams alone, without the engine, so the engine's measured reuse
checks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.analysis.prefix import common_prefix


@dataclass
class Prediction:
    shared_tokens: int  # longest common token prefix with an earlier request
    cached_tokens: int  # of which an engine with this block size reuses


@dataclass
class Predictor:
    block_size: int
    history: list[list[int]] = field(default_factory=list)

    def predict(self, tokens: list[int]) -> Prediction:
        """Prediction for the next request, which then joins the history."""
        shared = max((common_prefix(tokens, seen) for seen in self.history), default=0)
        usable = min(shared, len(tokens) - 1)
        self.history.append(tokens)
        return Prediction(shared, usable // self.block_size * self.block_size)
