"""Measure speculative decoding on replayed prompts, beside the prediction
from the measured acceptance and draft cost.

For each prompt its first request is decoded greedily by the target (the
reference output and the target's decode time), then with each drafter:
prompt lookup (n-gram, no model) and, unless `--draft none`, a draft model.
Speedups compare decode time only (after the shared prefill). The draft
cost ratio c is one draft token's time over one target decode step: for a
draft model measured by `draft_cost_ratio` on the prompt, for prompt lookup
its lookup time per drafted token over the target's median step.
"""

from __future__ import annotations

from dataclasses import dataclass

from promptlint.economics.speculation import Recommendation, best_gamma, recommend, speedup, tokens_per_step
from promptlint.verify.engine import Engine, PromptTooLong
from promptlint.verify.models import ModelError
from promptlint.verify.replay import PromptReplay
from promptlint.verify.speculative import (
    Generation, ModelDrafter, PromptLookupDrafter, decode_step_seconds, draft_cost_ratio, greedy, speculative_greedy,
)


@dataclass
class SpeculationReport:
    drafter: str
    gamma: int
    new_tokens: int
    target_steps: int
    drafted: int
    accepted: int
    tokens_per_step: float  # measured: tokens emitted per target verification step
    draft_cost: float  # c
    verify_cost: float  # one verification pass over gamma+1 tokens, in target decode steps (the paper assumes 1)
    plain_decode_seconds: float
    speculative_decode_seconds: float
    identical: bool  # the speculative output equals plain greedy decoding
    recommendation: Recommendation

    @property
    def acceptance(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def measured_speedup(self) -> float:
        return self.plain_decode_seconds / self.speculative_decode_seconds

    @property
    def predicted_tokens_per_step(self) -> float:
        return tokens_per_step(self.acceptance, self.gamma)

    @property
    def predicted_speedup(self) -> float:
        return speedup(self.acceptance, self.gamma, self.draft_cost)

    @property
    def adjusted_speedup(self) -> float:
        """The paper's speedup with the measured verification cost in place
        of its assumption that a pass over gamma+1 tokens costs one step:
        E / (gamma*c + v). On a GPU decoding is memory-bound and v is near 1;
        on a CPU a wider pass costs visibly more."""
        return self.predicted_tokens_per_step / (self.gamma * self.draft_cost + self.verify_cost)

    @property
    def best(self) -> tuple[int, float]:
        return best_gamma(self.acceptance, self.draft_cost)

    def as_json(self) -> dict:
        best_g, best_s = self.best
        return {
            "drafter": self.drafter, "gamma": self.gamma, "new_tokens": self.new_tokens,
            "target_steps": self.target_steps, "drafted_tokens": self.drafted, "accepted_tokens": self.accepted,
            "acceptance_rate": round(self.acceptance, 6), "tokens_per_step": round(self.tokens_per_step, 6),
            "predicted_tokens_per_step": round(self.predicted_tokens_per_step, 6),
            "draft_cost_ratio": round(self.draft_cost, 6), "verify_cost_ratio": round(self.verify_cost, 6),
            "adjusted_predicted_speedup": round(self.adjusted_speedup, 6),
            "plain_decode_seconds": round(self.plain_decode_seconds, 6),
            "speculative_decode_seconds": round(self.speculative_decode_seconds, 6),
            "measured_speedup": round(self.measured_speedup, 6), "predicted_speedup": round(self.predicted_speedup, 6),
            "best_gamma": best_g, "best_predicted_speedup": round(best_s, 6),
            "identical_to_greedy": self.identical,
            "recommendation": {"verdict": self.recommendation.verdict, "reasons": self.recommendation.reasons,
                               "not_checked": self.recommendation.not_checked},
        }


def load_draft(engine: Engine, draft: str):
    """The draft model for `--draft`: none, q4 (the target re-quantised to
    4 bits, see verify/quantize.py), or a model folder with the same vocabulary."""
    if draft == "none":
        return None, ""
    if draft == "q4":
        from promptlint.verify.quantize import requantize_4bit

        return requantize_4bit(engine.loaded.model), f"draft: {engine.loaded.name} re-quantised to 4 bits"
    from promptlint.verify.models import load

    loaded = load(draft, engine.loaded.device, engine.loaded.dtype)
    if len(loaded.tokenizer) != len(engine.loaded.tokenizer) or \
            loaded.tokenizer.get_vocab() != engine.loaded.tokenizer.get_vocab():
        raise ModelError(f"{draft}: the draft's vocabulary differs from the target's; speculation needs the same tokenizer")
    return loaded.model, f"draft: {draft}"


def _decode(seconds: float, prefill: float) -> float:
    return max(seconds - prefill, 1e-9)


def measure(engine: Engine, tokens: list[int], draft_model, draft_label: str, gamma: int,
            max_new_tokens: int) -> list[SpeculationReport]:
    target = engine.loaded.model
    eos = engine.loaded.eos_ids
    engine.check_length(tokens, max_new_tokens + gamma + 1)
    plain: Generation = greedy(target, tokens, max_new_tokens, eos)
    plain_decode = _decode(plain.seconds, plain.prefill_seconds)
    # one target decode step (measured apart when the output ended at once)
    step = plain.step_seconds_median if plain.step_seconds else decode_step_seconds(target, tokens)
    reports = []
    drafters = [("prompt lookup (n-gram 1-3)", PromptLookupDrafter(max_ngram=3, min_ngram=1), None)]
    if draft_model is not None:
        drafters.append((draft_label, ModelDrafter(draft_model), draft_model))
    for label, drafter, model in drafters:
        run = speculative_greedy(target, drafter, tokens, max_new_tokens, gamma, eos)
        if model is not None:
            c = draft_cost_ratio(target, model, tokens)
        else:
            c = (run.draft_seconds / run.drafted if run.drafted else 0.0) / step
        accepted, drafted = run.accepted, run.drafted
        a = accepted / drafted if drafted else 0.0
        verify_seconds = run.seconds - run.prefill_seconds - run.draft_seconds
        v = verify_seconds / max(run.target_steps, 1) / step
        reports.append(SpeculationReport(
            label, gamma, len(run.tokens), run.target_steps, drafted, accepted, run.tokens_per_step, c, v,
            plain_decode, _decode(run.seconds, run.prefill_seconds), run.tokens == plain.tokens,
            recommend(a, output_tokens=len(plain.tokens), draft_cost=c, gamma=gamma)))
    return reports


def measure_all(engine: Engine, groups, results: list[PromptReplay], draft: str, gamma: int,
                max_new_tokens: int) -> None:
    """Speculation reports for each prompt's first replayable request."""
    from promptlint.ir import SourceError

    draft_model, label = load_draft(engine, draft)
    loaded = engine.loaded
    for (_, _, requests), result in zip(groups, results):
        if not result.requests:  # nothing replayed: replay has reported why
            continue
        for request in requests[:1]:
            try:
                tokens = loaded.encode(loaded.chat_text(request.messages))
                result.speculation = measure(engine, tokens, draft_model, label, gamma, max_new_tokens)
            except PromptTooLong as exc:
                result.errors.append(SourceError(request.path, request.line, f"speculation: {exc}"))
