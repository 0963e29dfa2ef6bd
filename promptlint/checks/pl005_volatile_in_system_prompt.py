"""PL005: a per-request or per-session value sits in the system (or
developer) prompt although a user message follows, where it could go: the
volatile-suffix layout keeps the system block identical between requests.

Slots PL001 reports (at least MIN_BREAKER_GAIN stable tokens after them) are
left to PL001, so the two never report the same slot. What is left is a
volatile value with little or nothing stable after it in the system prompt:
an `info` at the very end of it (fewer than LABEL_TOKENS stable tokens
follow, a label or two), a `warning` when some stable system text follows
and a conversation history after the system prompt would be thrown away
with it (else an `info`: fewer than MIN_BREAKER_GAIN tokens are all it costs).
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.analysis.render import varies_in
from promptlint.checks.base import CheckContext, Finding, Severity, brief
from promptlint.checks import pl001_volatile_before_stable as pl001
from promptlint.analysis.conversation import is_history
from promptlint.checks.measure import MIN_BREAKER_GAIN, candidates, widest_scope
from promptlint.ir import Slot, Volatility
from promptlint.tokenizers import get_tokenizer

RULE = "PL005"
SYSTEM_ROLES = ("system", "developer")
# Fewer stable tokens than this after a slot, up to the end of the system
# prompt, are labels of the values around it ("Session: ", ".\n"): the slot is
# at the end of the system prompt.
LABEL_TOKENS = 16


def _system_run(template, index: int) -> int:
    """Index of the last section of the run of system/developer sections
    that starts at or before `index`."""
    end = index
    while end + 1 < len(template.sections) and template.sections[end + 1].role in SYSTEM_ROLES:
        end += 1
    return end


def _stable_after_in(ctx: CheckContext, slot: Slot, scope, end: int) -> int:
    """Tokens of stable text after `slot` and before character offset `end`
    (the end of the system prompt) in the reference render."""
    render = ctx.primary.reference
    ends = [p.end for p in render.pieces if any(s is slot for s in p.slots)]
    if not ends:
        return 0
    after = max(ends)

    def vary(s: Slot) -> bool:
        return scope.varies(s.volatility) or s is slot

    text = "".join(render.text[p.start:p.end] for p in render.pieces
                   if after <= p.start and p.end <= end and not any(varies_in(s, vary) for s in p.slots))
    if not text.strip():
        return 0
    return len(get_tokenizer(ctx.primary.tokenizer).encode(text))


def _conversation_after(sections, run_end: int) -> bool:
    """Whether a section after the system prompt holds the conversation so
    far (a history slot: reused turn after turn while the prefix holds)."""
    return any(is_history(s) for section in sections[run_end + 1:] for s in _slots(section.parts))


def _slots(parts):
    for part in parts:
        if isinstance(part, Slot):
            yield part
            yield from _slots(part.children)
            yield from _slots(part.else_children)


def check(ctx: CheckContext) -> Iterator[Finding]:
    template = ctx.template
    sections = template.sections
    render = ctx.primary.reference
    for index, section in enumerate(sections):
        if section.role not in SYSTEM_ROLES:
            continue
        if not any(s.role == "user" for s in sections[index + 1:]):
            continue
        run_end = _system_run(template, index)
        end = render.sections[run_end][1] if run_end < len(render.sections) else len(render.text)
        for slot in candidates(section.parts):
            if slot.span is None or slot.volatility < Volatility.SESSION:
                continue
            scope = widest_scope(slot.volatility)
            if pl001.reports(ctx, slot):
                continue  # PL001 reports it, with the tokens it costs
            tokens = _stable_after_in(ctx, slot, scope, end)
            per = "session" if slot.volatility is Volatility.SESSION else "request"
            role = section.role
            if per == "request":
                effect = (f"the {role} block changes with every request, so a cache breakpoint at its end is never "
                          "read and a conversation's earlier turns are never reused")
            else:
                effect = (f"the {role} block differs per session, so a cache breakpoint at its end is never "
                          "shared across sessions")
            if tokens < LABEL_TOKENS:
                severity = Severity.INFO
                where = f"at the end of the {role} prompt: nothing stable follows it there, but {effect}"
            elif tokens < MIN_BREAKER_GAIN and not _conversation_after(sections, run_end):
                # no conversation follows to lose (a single request, or a window of its last turns
                # that shifts on every turn anyway): what it costs is those few tokens
                severity = Severity.INFO
                where = (f"in the {role} prompt ahead of {tokens:,} stable tokens of it (under {MIN_BREAKER_GAIN}, "
                         f"and no conversation history follows to lose); moved out, the {role} block would stay "
                         f"the same for every request")
            else:
                severity = Severity.WARNING
                lost = "re-sent uncached" if per == "request" else "never shared by all users"
                where = (f"in the {role} prompt ahead of {tokens:,} stable tokens of it, although a user message "
                         f"follows: {effect}, and those tokens are {lost}")
            yield Finding(
                RULE, severity,
                f"{slot.label} changes {pl001.changes(slot)} ({slot.reason}) {where}; moved after the {role} prompt "
                f"(the volatile-suffix layout: the last user message, or the conversation's own messages) it "
                f"would leave the {role} block the same for every request",
                slot.span, tokens=tokens if severity is Severity.WARNING else None,
                summary=f"{brief(slot.label)} changes {pl001.changes(slot)} inside the {role} prompt"
                        + (f", ahead of {tokens:,} of its stable tokens" if severity is Severity.WARNING else
                           " (a user message follows)"),
                fix="move it to the last user message (history: to the messages before it) and keep the "
                    "system prompt identical for every request",
            )
