"""The unsafe fix for PL001 in template files: move the line that carries a
volatile slot from the system part of the prompt to the end of the last user
message (the volatile-suffix layout).

It is unsafe because the model then reads the value later, in another role.
It applies only where the move is plain text surgery in one file: the slot
sits in a system/developer section whose file also holds the last section, a
user message (Prompty, dotprompt, text prompts with role lines); the slot's
line holds nothing else that is stable beyond a short label ("Current time:");
and the slot is not inside a loop or conditional. JSON strings (escaped line
breaks) and Python are left alone.
"""

from __future__ import annotations

from promptlint.checks.base import CheckContext, Edit
from promptlint.ir import Slot, Span, Text

MAX_LABEL = 40  # characters of literal text the moved line may carry with the slot
MOVABLE_FORMATS = frozenset({"prompty", "dotprompt", "text"})


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """[line start, end including its line break) of the lines around a span."""
    line_start = text.rfind("\n", 0, start) + 1
    nl = text.find("\n", end)
    return line_start, (len(text) if nl == -1 else nl + 1)


def _top_level(ctx: CheckContext, slot: Slot) -> bool:
    return any(part is slot for section in ctx.template.sections for part in section.parts)


def move_edits(ctx: CheckContext, slot: Slot) -> tuple[Edit, ...]:
    template = ctx.template
    if template.format not in MOVABLE_FORMATS or slot.span is None or not _top_level(ctx, slot):
        return ()
    section = next(s for s in template.sections if any(p is slot for p in s.parts))
    last = template.sections[-1]
    if section.role not in ("system", "developer") or last.role != "user" or last is section:
        return ()
    anchor = next((p for p in reversed(last.parts) if getattr(p, "span", None) is not None), None)
    file = slot.span.file
    if anchor is None or anchor.span.file is not file:
        return ()
    text = file.text
    start, end = _line_bounds(text, slot.span.start, slot.span.end)
    line = text[start:end]
    others = [p for p in section.parts if p is not slot and getattr(p, "span", None) is not None
              and p.span.file is file and p.span.start < end and p.span.end > start]
    if any(not isinstance(p, Text) for p in others):
        return ()  # another slot shares the line
    if len(line.strip()) - len(slot.span.source_text) > MAX_LABEL:
        return ()  # the line carries stable text of its own
    insert = anchor.span.end
    while insert > 0 and text[insert - 1] in " \t\r\n":
        insert -= 1
    if insert <= end:
        return ()
    newline = "\r\n" if line.endswith("\r\n") else "\n"
    moved = line.rstrip("\r\n")
    return (Edit(Span(file, start, end), ""), Edit(Span(file, insert, insert), newline + moved))
