"""Speculative decoding arithmetic: is a draft model worth running?

A small draft model guesses `g` tokens; the target model checks them all in
one step and keeps the longest accepted run plus one token of its own. With
acceptance rate `a` (each guess accepted independently, the paper's
simplifying assumption) and a draft step costing `c` target steps, Leviathan,
Kalman & Matias 2022, "Fast Inference from Transformers via Speculative
Decoding" (arXiv 2211.17192) give:

- expected tokens per target step  E = (1 - a^(g+1)) / (1 - a)      (eq. 1)
- walltime improvement             S = (1 - a^(g+1)) / ((1 - a)(g*c + 1))

The paper finds the best g numerically, and so does `best_gamma`. Pure
Python on purpose: `promptlint speculate` is a calculator and must stay as
light as the lint path (no torch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
    "CAVEATS",
    "DEFAULT_DRAFT_COST",
    "FORMULA_SPEEDUP",
    "FORMULA_TOKENS",
    "MAX_GAMMA",
    "MIN_ACCEPTANCE",
    "MIN_OUTPUT_TOKENS",
    "SOURCE",
    "Recommendation",
    "best_gamma",
    "check_acceptance",
    "check_draft_cost",
    "check_gamma",
    "recommend",
    "speedup",
    "tokens_per_step",
]

SOURCE = ('Leviathan, Kalman & Matias 2022, "Fast Inference from Transformers via '
          'Speculative Decoding", arXiv 2211.17192')
FORMULA_TOKENS = "E = (1 - a^(g+1)) / (1 - a)"
FORMULA_SPEEDUP = "S = (1 - a^(g+1)) / ((1 - a)(g*c + 1))"

# Draft step cost as a fraction of a target step used when none is given: the
# value of the worked figures in /work/shared/reference/cache-rules.md
# ("Worked values for c = 0.05"), a draft roughly 20x cheaper per step.
DEFAULT_DRAFT_COST = 0.05
# How far best_gamma searches by default; with a -> 1 and c -> 0 the speedup
# keeps rising with g, so the search needs a bound.
MAX_GAMMA = 64

# "When not to speculate", cache-rules.md (Speculative decoding section):
# "acceptance below about 50%; outputs under about 20 tokens; draft does not
# fit beside the target on the GPU; a hosted API."
MIN_ACCEPTANCE = 0.5
MIN_OUTPUT_TOKENS = 20
BREAK_EVEN = 1.0  # a predicted best speedup at or below this gains nothing
# The same list's conditions that no number given here can decide.
CAVEATS = (
    "the draft model must fit beside the target on the GPU",
    "a hosted API does not let you run a draft model",
)


def check_acceptance(a) -> float:
    """`a` as a float, or ValueError: an acceptance rate is a fraction in [0, 1]."""
    if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a) or not 0 <= a <= 1:
        raise ValueError(f"acceptance must be a number from 0 to 1 (a fraction, not a percentage), got {a!r}")
    return float(a)


def check_gamma(g, name: str = "gamma") -> int:
    """`g`, or ValueError: a number of draft tokens is a whole number >= 1."""
    if isinstance(g, bool) or not isinstance(g, int) or g < 1:
        raise ValueError(f"{name} must be a whole number of draft tokens, 1 or more, got {g!r}")
    return g


def check_draft_cost(c) -> float:
    """`c` as a float, or ValueError: a cost ratio is finite and >= 0."""
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
        raise ValueError(f"draft cost must be 0 or more (a draft step / a target step, e.g. 0.05), got {c!r}")
    return float(c)


def tokens_per_step(a: float, g: int) -> float:
    """Expected tokens one target step yields: (1 - a^(g+1)) / (1 - a), and
    g + 1 at a == 1 (the limit). Computed with expm1/log1p so that it stays
    accurate as a approaches 1 and costs the same for any g."""
    a, g = check_acceptance(a), check_gamma(g)
    if a == 1:
        return float(g + 1)
    if a == 0:
        return 1.0
    log_a = math.log1p(a - 1) if a > 0.5 else math.log(a)  # a - 1 is exact for a in [0.5, 1]
    return -math.expm1((g + 1) * log_a) / (1 - a)


def speedup(a: float, g: int, c: float) -> float:
    """Expected walltime improvement over plain decoding: tokens per step
    divided by the step's cost in target steps (g draft steps at c each, plus
    one target step)."""
    c = check_draft_cost(c)
    return tokens_per_step(a, g) / (g * c + 1)


def best_gamma(a: float, c: float, max_gamma: int = MAX_GAMMA) -> tuple[int, float]:
    """(g, speedup) with the highest speedup for g in 1..max_gamma; on a tie
    the smaller g (fewer wasted draft tokens). Found by trying every g, as the
    paper does, since S has no closed-form maximum."""
    a, c, max_gamma = check_acceptance(a), check_draft_cost(c), check_gamma(max_gamma, "max gamma")
    best = (1, speedup(a, 1, c))
    for g in range(2, max_gamma + 1):
        s = speedup(a, g, c)
        if s > best[1]:
            best = (g, s)
    return best


@dataclass
class Recommendation:
    """Whether to speculate, and why. `reasons` explain the verdict (every
    rule that argues against, or what argues for); `not_checked` lists the
    rules the given numbers cannot decide."""

    verdict: str  # "speculate" or "do not speculate"
    reasons: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    best: tuple[int, float] | None = None  # (gamma, speedup) when a draft cost was given

    @property
    def speculate(self) -> bool:
        return self.verdict == "speculate"


def recommend(acceptance: float, output_tokens: int | None = None, draft_cost: float | None = None,
              gamma: int | None = None) -> Recommendation:
    """Apply cache-rules.md's "when not to speculate" rules to the numbers
    given: acceptance below MIN_ACCEPTANCE, outputs under MIN_OUTPUT_TOKENS,
    and (with a draft cost) a predicted best speedup at or below 1.0x. A rule
    whose input is missing is listed in `not_checked`, never assumed to pass.
    With `gamma`, a gamma that loses time while another gains is reported."""
    a = check_acceptance(acceptance)
    if output_tokens is not None and (isinstance(output_tokens, bool) or not isinstance(output_tokens, int)
                                      or output_tokens < 0):
        raise ValueError(f"output tokens must be a whole number, 0 or more, got {output_tokens!r}")
    if gamma is not None:
        check_gamma(gamma)
    against: list[str] = []
    not_checked: list[str] = []
    if a < MIN_ACCEPTANCE:
        against.append(f"acceptance {a:.0%} is below about {MIN_ACCEPTANCE:.0%}: most draft tokens are thrown away")
    if output_tokens is None:
        not_checked.append(f"output length (speculation rarely pays under about {MIN_OUTPUT_TOKENS} tokens)")
    elif output_tokens < MIN_OUTPUT_TOKENS:
        against.append(f"outputs of {output_tokens} tokens are under about {MIN_OUTPUT_TOKENS}: "
                       "too few steps to gain from")
    best = None
    if draft_cost is None:
        not_checked.append("net speedup (no draft cost given)")
    else:
        c = check_draft_cost(draft_cost)
        best = best_gamma(a, c)
        if best[1] <= BREAK_EVEN:
            against.append(f"predicted best speedup {best[1]:.2f}x (gamma {best[0]}) is not above "
                           f"{BREAK_EVEN:.1f}x: the draft costs more than it saves")
    not_checked.extend(CAVEATS)
    if against:
        return Recommendation("do not speculate", against, not_checked, best)
    reasons = [f"acceptance {a:.0%} is at least {MIN_ACCEPTANCE:.0%}"]
    if output_tokens is not None:
        reasons.append(f"outputs of {output_tokens} tokens are long enough (about {MIN_OUTPUT_TOKENS} or more)")
    if best is not None:
        reasons.append(f"predicted best speedup {best[1]:.2f}x at gamma {best[0]}")
        if gamma is not None:
            at = speedup(a, gamma, c)
            if at <= BREAK_EVEN:
                reasons.append(f"but not at gamma {gamma} ({at:.2f}x): use gamma {best[0]}")
    return Recommendation("speculate", reasons, not_checked, best)
