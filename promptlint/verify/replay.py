"""Replay request streams through the engine and set what it measured
beside what the audit predicted, request by request.

All prompts go through one engine, in order, as they would on one server:
a prompt can reuse blocks another prompt cached (a system prompt shared by
two files), and the prediction sees the same history. Time to first token
is measured for every request with the cache; for up to `cold_samples`
requests per prompt that hit the cache, the same prompt is prefilled again
with the cache off, right after, for the cold time. The ideal ratio
cold/warm is prompt tokens / prefilled tokens (prefill time grows at least
linearly with the tokens computed).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

from promptlint.ir import SourceError
from promptlint.verify.predict import Predictor
from promptlint.verify.requests import Request

if TYPE_CHECKING:  # torch: the simulated engine (sim) uses these results without it
    from promptlint.verify.engine import Engine


@dataclass
class RequestResult:
    label: str
    prompt_tokens: int
    shared_tokens: int  # common token prefix with an earlier request
    predicted: int  # cached tokens the audit predicts
    measured: int  # cached tokens the engine reused
    evicted: int  # tokens the engine had cached once and evicted since
    ttft_warm: float | None  # None: simulated, nothing timed
    ttft_cold: float | None = None
    cold_first_token_matches: bool | None = None  # cached and cold prefill chose the same first token
    cold_max_logit_diff: float | None = None
    engine_rule: str = ""  # a simulated engine's own reason for reusing other than the prediction

    @property
    def agrees(self) -> bool:
        return self.predicted == self.measured

    @property
    def ideal_ratio(self) -> float:
        return self.prompt_tokens / (self.prompt_tokens - self.measured)

    def explanation(self, capacity_blocks: int) -> str:
        if self.agrees:
            return ""
        if self.measured < self.predicted and self.evicted:
            return (f"{self.evicted:,} tokens were cached by an earlier request and evicted since "
                    f"(capacity {capacity_blocks:,} blocks; raise --cache-blocks)")
        if self.engine_rule:
            return self.engine_rule
        if self.measured < self.predicted:
            return "the engine missed blocks the token streams share (an engine defect: please report)"
        return "the engine reused blocks the token streams do not share (an engine defect: please report)"


@dataclass
class PromptReplay:
    prompt: str
    location: str
    requests: list[RequestResult] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    speculation: list = field(default_factory=list)  # verify.speculate.SpeculationReport

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.requests)

    @property
    def predicted(self) -> int:
        return sum(r.predicted for r in self.requests)

    @property
    def measured(self) -> int:
        return sum(r.measured for r in self.requests)

    @property
    def agreeing(self) -> int:
        return sum(r.agrees for r in self.requests)

    @property
    def hit_rate(self) -> float:
        return self.measured / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def timed(self) -> list[RequestResult]:
        """The cache hits that were also prefilled cold (TTFT both ways)."""
        return [r for r in self.requests if r.ttft_cold is not None]

    @property
    def ttft_warm(self) -> float | None:
        timed = self.timed
        return statistics.median(r.ttft_warm for r in timed) if timed else None

    @property
    def ttft_cold(self) -> float | None:
        timed = self.timed
        return statistics.median(r.ttft_cold for r in timed) if timed else None

    @property
    def measured_ratio(self) -> float | None:
        timed = self.timed
        return statistics.median(r.ttft_cold / r.ttft_warm for r in timed) if timed else None

    @property
    def ideal_ratio(self) -> float | None:
        timed = self.timed
        return statistics.median(r.ideal_ratio for r in timed) if timed else None


def template_failed(request: Request, exc: Exception) -> SourceError:
    """The error of a request whose messages the chat template rejects."""
    return SourceError(request.path, request.line, f"{request.label}: chat template failed: {str(exc).splitlines()[0]}")


def replay(engine: Engine, groups: list[tuple[str, str, list[Request]]], cold_samples: int = 2,
           on_request: Callable[[str, RequestResult], None] | None = None,
           predictor: Predictor | None = None) -> list[PromptReplay]:
    """Replay each group (prompt name, location, requests) in order."""
    from promptlint.verify.engine import PromptTooLong

    loaded = engine.loaded
    predictor = predictor or Predictor(engine.block_size)
    results: list[PromptReplay] = []
    for prompt, location, requests in groups:
        result = PromptReplay(prompt, location)
        results.append(result)
        for request in requests:
            try:
                tokens = loaded.encode(loaded.chat_text(request.messages))
                engine.check_length(tokens)
            except PromptTooLong as exc:
                result.errors.append(SourceError(request.path, request.line, f"{request.label}: {exc}"))
                continue
            except Exception as exc:  # a chat template that rejects these messages
                result.errors.append(template_failed(request, exc))
                continue
            prediction = predictor.predict(tokens)
            warm = engine.prefill(tokens)
            measured = RequestResult(request.label, len(tokens), prediction.shared_tokens, prediction.cached_tokens,
                                     warm.cached_tokens, warm.evicted_tokens, warm.ttft_seconds)
            if warm.cached_tokens and len(result.timed) < cold_samples:
                cold = engine.prefill(tokens, use_cache=False, store=False)
                measured.ttft_cold = cold.ttft_seconds
                measured.cold_first_token_matches = cold.first_token == warm.first_token
                measured.cold_max_logit_diff = float((cold.logits - warm.logits).abs().max())
            result.requests.append(measured)
            if on_request is not None:
                on_request(prompt, measured)
    return results
