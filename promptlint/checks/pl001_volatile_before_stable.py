"""PL001: a slot that changes more often than the content after it sits
ahead of that content, so the provider's prefix cache stops at the slot."""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.checks import pl002_unstable_loop_order as pl002
from promptlint.checks import pl006_whitespace_drift as pl006
from promptlint.checks.base import CheckContext, Finding, Severity, brief
from promptlint.checks.move_to_user import move_edits
from promptlint.checks.precision import precision_edits
from promptlint.checks.source_fixes import describe, source_edits
from promptlint.checks.measure import (
    MIN_BREAKER_GAIN, SEVERITY_BY_CLASS, as_written, candidates, conversation_loss, monthly_cost,
    stable_tokens_after, tokens_after, widest_scope,
)
from promptlint.analysis.volatility import from_command_line, read_at_import
from promptlint.ir import SlotKind, Volatility

SCOPE_WORDS = {"global": "all users", "user": "one user's sessions", "session": "one session's requests"}
# what a concise line adds to "uncached": nothing for the usual case (shared by every user)
SHORT_SCOPE = {"global": "", "user": " across a user's sessions", "session": " across a session's requests"}
CHANGES = {Volatility.NONDETERMINISTIC: "on every render", Volatility.REQUEST: "per request",
           Volatility.SESSION: "per session", Volatility.USER: "per user", Volatility.DAY: "once a day",
           Volatility.DEPLOY: "per release", Volatility.UNKNOWN: "as its input does",
           Volatility.STATIC: "never"}


def changes(slot) -> str:
    """How often a slot changes, in words: a value computed once when a Python
    module is imported changes per process start, whatever its class; a
    command-line argument per run of the program."""
    if read_at_import(slot.reason):
        return "per process start"
    if from_command_line(slot.reason) and slot.volatility is Volatility.SESSION:
        return "per run of the program"
    return CHANGES[slot.volatility]


def _uncached(slot, scope) -> str:
    """What the concise line says of the stable tokens after a breaker: never
    cached after a per-request value; cached per user or session, but not
    shared, after a per-user or per-session one."""
    if scope.key == "global" and slot.volatility < Volatility.REQUEST:
        return "unshared across users"
    return f"uncached{SHORT_SCOPE[scope.key]}"


def _at(slot) -> str:
    line, col = slot.span.line_col if slot.span else (1, 1)
    return f"{line}:{col}"


def _entry(ctx: CheckContext, slot):
    """Where a slot's volatile value enters the text: for a loop of code
    (Python; a template's `{% for %}` is text of its own) over items
    that change (not over an unstable order), the first value of an item
    written inside it, below the loop's head (or in a comprehension's
    element, before it), that changes as often (`{memory}` in the f-string
    a loop appends), else the slot itself (a loop placed by a format
    argument is reported at the argument)."""
    if slot.kind is not SlotKind.LOOP or slot.order_varies or slot.insertion_order or slot.span is None \
            or ctx.template.format != "python" or not slot.label.startswith("for "):
        return slot  # (a loop the reader placed where its text enters is labelled by that place)

    def inside(span) -> bool:
        if slot.written is not None:
            return slot.written.start <= span.start < slot.span.start
        return span.start > slot.span.start
    return next((s for s in candidates(slot.children) if s.volatility >= slot.volatility and s.span is not None
                 and s.span.file is slot.span.file and inside(s.span)), slot)


def _worth_reporting(tokens: int, turn) -> bool:
    """Enough stable tokens follow the slot, or (a per-request value ahead
    of the conversation history) each turn re-sends enough: the history is
    thrown away on every turn, however little stable text follows it."""
    return tokens >= MIN_BREAKER_GAIN or (turn is not None and turn[0].lost_per_turn >= MIN_BREAKER_GAIN)


def reports(ctx: CheckContext, slot) -> bool:
    """Whether PL001 reports this slot (PL005 leaves such slots to it)."""
    return _worth_reporting(stable_tokens_after(ctx, slot, widest_scope(slot.volatility)),
                            conversation_loss(ctx, slot))


def _breakers(ctx: CheckContext, parts, variant=None) -> Iterator:
    """The candidates, and inside a branch chosen per request that has too
    little stable text after it to report (`prompt = plot_prompt(q) if
    wants_plot else table_prompt(q)` as the message's end), the values in
    the branch: each branch is a variant of its own, cached apart, so what
    changes inside it breaks the cache of the branch's own text."""
    for slot in candidates(parts):
        yield slot, variant
        if slot.kind is SlotKind.CONDITIONAL and variant is None and not reports(ctx, slot):
            for inner, _ in _breakers(ctx, slot.children + slot.else_children, slot):
                yield inner, slot


def _most_volatile_by_place(ctx: CheckContext) -> dict:
    """(start, end) of a place -> the most volatile candidate there: values
    that enter the prompt at one expression (a date and a time formatted
    into one argument, an imported template's fields at the import) are
    reported once, by the one that changes most often."""
    best: dict = {}
    for section in ctx.template.sections:
        for slot in candidates(section.parts):
            if slot.span is not None:
                key = (id(slot.span.file), slot.span.start, slot.span.end)
                best[key] = max(best.get(key, slot.volatility), slot.volatility)
    return best


def check(ctx: CheckContext) -> Iterator[Finding]:
    strongest = _most_volatile_by_place(ctx)
    for section in ctx.template.sections:
        for slot, variant in _breakers(ctx, section.parts):
            if slot.span is None or pl002.owns(ctx, slot) or pl006.owns(ctx, slot):
                continue  # the specific rule reports it, with the specific fix
            if slot.volatility < strongest.get((id(slot.span.file), slot.span.start, slot.span.end), slot.volatility):
                continue  # a more volatile value enters at the same place: it is the one reported
            scope = widest_scope(slot.volatility)
            if variant is None:
                tokens, turn = stable_tokens_after(ctx, slot, scope), conversation_loss(ctx, slot)
            else:
                tokens, turn = tokens_after(ctx.primary, slot, scope, variant), None
            if not _worth_reporting(tokens, turn):
                continue
            usd, model = monthly_cost(ctx, tokens, scope)
            period = {Volatility.DAY: "once a day", Volatility.DEPLOY: "on every release"}.get(slot.volatility)
            if period:
                effect = f"the cache of the {tokens:,} stable tokens after it is rebuilt {period}"
                usd = 0.0
            else:
                effect = f"it keeps {tokens:,} stable tokens after it from being shared by {SCOPE_WORDS[scope.key]}"
            label = brief(slot.label)
            short = f"{label} changes {changes(slot)}, ahead of {tokens:,} stable tokens " + (
                "re-cached each time" if period else _uncached(slot, scope))
            if turn is not None and tokens < MIN_BREAKER_GAIN:  # what is lost is the conversation
                short = (f"{label} changes {changes(slot)} before the history: "
                         f"~{turn[0].lost_per_turn:,.0f} tokens/turn uncached")
            if turn is not None:
                chat, turn_usd = turn
                effect += (f"; it also sits ahead of the conversation history ({as_written(chat.history)} at "
                           f"{_at(chat.history)}), so every turn of a session re-sends about "
                           f"{chat.lost_per_turn:,.0f} tokens uncached: the {chat.stable_after:,} stable tokens "
                           f"after it and the conversation so far ({chat.mean_history:,.0f} on average at "
                           f"{chat.tokens_per_turn:,.0f} tokens a turn over {chat.turns:.1f} turns, "
                           f"[tool.promptlint.traffic])")
                usd += turn_usd
                tokens = max(tokens, round(chat.lost_per_turn))
            edits, unsafe, gated = source_edits(slot), False, None
            if not edits:
                edits = precision_edits(slot, getattr(ctx.config, "timestamp_precision", None))
                if not edits and precision_edits(slot, "day"):
                    gated = "timestamp-precision"  # a safe fix once the config says the day is enough
            if not edits:
                edits, unsafe = move_edits(ctx, slot), True
            yield Finding(
                "PL001", Severity.parse(SEVERITY_BY_CLASS[slot.volatility]),
                f"{slot.label} changes {changes(slot)} ({slot.reason}): {effect}",
                _entry(ctx, slot).span, tokens=tokens, usd_per_month=usd, model=model,
                fix=describe(slot) or "move it after the stable content (the end of the last user message), "
                    "or declare its real volatility in [tool.promptlint.variables]",
                edits=edits, unsafe=unsafe, gated=gated, summary=short,
            )
