"""PL008: inputs with no evidence of how often they change sit ahead of
stable content.

A finding needs evidence, so PL001 and PL005 hold an unknown input fixed.
When such an input sits ahead of at least MIN_BREAKER_GAIN stable tokens,
whether the prompt is cached depends on what the caller passes: this hint
(one per prompt, at the first of them) names the inputs to declare in
`[tool.promptlint.variables]`, and the stable tokens at stake if the first
one changed per request.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.analysis.render import CONTAINERS
from promptlint.checks.base import CheckContext, Finding, Severity, brief
from promptlint.checks.measure import MIN_BREAKER_GAIN, as_written, stable_tokens_after
from promptlint.ir import Scope, Slot, Volatility

RULE = "PL008"
NAMES_SHOWN = 6


def unknown_slots(parts) -> Iterator[Slot]:
    """Outermost slots of unknown volatility, in prompt order: containers
    and static regions are looked into; a region with evidence is not (an
    unknown inside something that changes anyway changes nothing more)."""
    for part in parts:
        if not isinstance(part, Slot):
            continue
        if part.kind in CONTAINERS or part.volatility is Volatility.STATIC:
            yield from unknown_slots(part.children)
            yield from unknown_slots(part.else_children)
        elif part.volatility is Volatility.UNKNOWN:
            yield part


def _name(slot: Slot) -> str:
    """The name to declare: a dotted name as written (`asyncio.gather`, `user.plan`;
    the table matches it whole, or by its first part), without subscripts."""
    return slot.names[0].split("[")[0] if slot.names else slot.label


def brief_inputs(names: list[str]) -> str:
    """`input x has` / `3 inputs (a, b, …) have`, the names cut to fit a concise line."""
    if len(names) == 1:
        return f"input {brief(names[0])} has"
    return f"{len(names)} inputs ({brief(', '.join(names), 24)}) have"


def check(ctx: CheckContext) -> Iterator[Finding]:
    at_stake: list[tuple[Slot, int]] = []
    for section in ctx.template.sections:
        for slot in unknown_slots(section.parts):
            if slot.span is None:
                continue
            tokens = stable_tokens_after(ctx, slot, Scope.GLOBAL)
            if tokens >= MIN_BREAKER_GAIN:
                at_stake.append((slot, tokens))
    if not at_stake:
        return
    first, tokens = at_stake[0]
    names = list(dict.fromkeys(_name(s) for s, _ in at_stake))
    shown = ", ".join(names[:NAMES_SHOWN]) + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")
    inputs = f"input {shown} has" if len(names) == 1 else f"{len(names)} inputs ({shown}) have"
    yield Finding(
        RULE, Severity.INFO,
        f"{inputs} no evidence of how often {'it changes' if len(names) == 1 else 'they change'}, so promptlint "
        f"holds {'it' if len(names) == 1 else 'them'} fixed; were {as_written(first)} to change per request, the "
        f"{tokens:,} stable tokens after it would not be cached: declare "
        f"{'it' if len(names) == 1 else 'them'} in [tool.promptlint.variables]",
        first.span, tokens=tokens,
        summary=f"{brief_inputs(names)} no volatility evidence: if per request, {tokens:,} stable tokens go "
                "uncached",
        fix='declare each input\'s volatility, e.g. `[tool.promptlint.variables] name = "static"` '
            '(or "deploy", "day", "user", "session", "request")',
    )
