"""PL001: a slot that changes more often than the content after it sits
ahead of that content, so the provider's prefix cache stops at the slot."""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.checks import pl002_unstable_loop_order as pl002
from promptlint.checks import pl006_whitespace_drift as pl006
from promptlint.checks.base import CheckContext, Finding, Severity
from promptlint.checks.move_to_user import move_edits
from promptlint.checks.precision import precision_edits
from promptlint.checks.source_fixes import describe, source_edits
from promptlint.checks.measure import (
    MIN_BREAKER_GAIN, SEVERITY_BY_CLASS, candidates, monthly_cost, stable_tokens_after, widest_scope,
)
from promptlint.ir import Volatility

SCOPE_WORDS = {"global": "all users", "user": "one user's sessions", "session": "one session's requests"}


def check(ctx: CheckContext) -> Iterator[Finding]:
    for section in ctx.template.sections:
        for slot in candidates(section.parts):
            if slot.span is None or pl002.owns(ctx, slot) or pl006.owns(ctx, slot):
                continue  # the specific rule reports it, with the specific fix
            scope = widest_scope(slot.volatility)
            tokens = stable_tokens_after(ctx, slot, scope)
            if tokens < MIN_BREAKER_GAIN:
                continue
            usd, model = monthly_cost(ctx, tokens, scope)
            period = {Volatility.DAY: "once a day", Volatility.DEPLOY: "on every release"}.get(slot.volatility)
            if period:
                effect = f"the cache of the {tokens:,} stable tokens after it is rebuilt {period}"
                usd = 0.0
            else:
                effect = f"it keeps {tokens:,} stable tokens after it from being shared by {SCOPE_WORDS[scope.key]}"
            edits, unsafe = source_edits(slot), False
            if not edits:
                edits = precision_edits(slot, getattr(ctx.config, "timestamp_precision", None))
            if not edits:
                edits, unsafe = move_edits(ctx, slot), True
            yield Finding(
                "PL001", Severity.parse(SEVERITY_BY_CLASS[slot.volatility]),
                f"{slot.label} is {slot.volatility.label} ({slot.reason}): {effect}",
                slot.span, tokens=tokens, usd_per_month=usd, model=model,
                fix=describe(slot) or "move it after the stable content (the end of the last user message), "
                    "or declare its real volatility in [tool.promptlint.variables]",
                edits=edits, unsafe=unsafe,
            )
