"""The safe fix for a clock in the prompt when the config says the day is
enough (`[tool.promptlint.fix] timestamp-precision = "day"`): rewrite the
format so the text changes once a day instead of every request.

Jinja: `now().strftime('%Y-%m-%d %H:%M')` -> `now().strftime('%Y-%m-%d')`,
and a bare `now()` call gets `.strftime("%Y-%m-%d")`. Python: the same for
`.strftime(...)`, and an f-string field `{datetime.now()}` gets the format
spec `:%Y-%m-%d`. Only literal formats and clock calls are rewritten: a
variable holding the time may be a string, and calling strftime on it would
break the render.
"""

from __future__ import annotations

import re

from promptlint.checks.base import Edit
from promptlint.ir import Slot, Span

DAY_FORMAT = "%Y-%m-%d"
_STRFTIME = re.compile(r"""strftime\(\s*(?P<q>['"])(?P<fmt>.*?)(?P=q)\s*\)""")
_CLOCK_CALL = re.compile(r"\b(?:now|utcnow)\(\s*\)")
_TIME_DIRECTIVE = re.compile(r"%[-_0^#]?[HIMSpfXcTsrRzZkl]")


def day_format(fmt: str) -> str | None:
    """`fmt` cut before its first time-of-day directive, or None if nothing
    of the date is left (or there was no time in it)."""
    m = _TIME_DIRECTIVE.search(fmt)
    if m is None:
        return None
    head = fmt[: m.start()].rstrip(" T,:-@/")
    return head if "%" in head else None


def precision_edits(slot: Slot, precision: str | None) -> tuple[Edit, ...]:
    if precision != "day" or slot.span is None:
        return ()
    source = slot.span.source_text
    m = _STRFTIME.search(source)
    if m is not None:
        new = day_format(m.group("fmt"))
        if new is None:
            return ()
        start = slot.span.start + m.start("fmt")
        return (Edit(Span(slot.span.file, start, start + len(m.group("fmt"))), new),)
    calls = list(_CLOCK_CALL.finditer(source))
    if slot.span.file.path.suffix == ".py":
        # an f-string field holding just the clock call: add a format spec
        after = slot.span.file.text[slot.span.end:slot.span.end + 1]
        if len(calls) == 1 and calls[0].end() == len(source) and after == "}":
            return (Edit(Span(slot.span.file, slot.span.end, slot.span.end), f":{DAY_FORMAT}"),)
        return ()
    if len(calls) == 1 and source.startswith("{{"):
        end = slot.span.start + calls[0].end()
        return (Edit(Span(slot.span.file, end, end), f'.strftime("{DAY_FORMAT}")'),)
    return ()
