"""Safe fixes the source reader spells out (Slot.fix): the Python reader
marks `json.dumps(...)` without `sort_keys=True` and iteration over a set,
`os.listdir` or `glob` without `sorted`. Both keep the same data and only
make its order stable, so they are safe."""

from __future__ import annotations

from promptlint.checks.base import Edit
from promptlint.ir import Slot, Span


def source_edits(slot: Slot) -> tuple[Edit, ...]:
    if not slot.fix or slot.span is None or "span" not in slot.fix:
        return ()  # {"kind": "manual", "advice": ...}: a fix only a person can make
    start, end = slot.fix["span"]
    file = slot.span.file
    expr = file.text[start:end]
    if slot.fix.get("kind") == "json_sort_keys":
        close = expr.rstrip().rfind(")")
        if close < 0 or "sort_keys" in expr:
            return ()
        head = expr[:close].rstrip()
        insert = start + len(head)
        text = " sort_keys=True" if head.endswith(",") else ", sort_keys=True"
        return (Edit(Span(file, insert, insert), text),)
    if slot.fix.get("kind") == "sorted_iteration":
        return (Edit(Span(file, start, end), f"sorted({expr})"),)
    return ()


def describe(slot: Slot) -> str | None:
    """The fix in words, for the finding's message."""
    kind = (slot.fix or {}).get("kind")
    if kind == "json_sort_keys":
        return "pass sort_keys=True to json.dumps"
    if kind == "sorted_iteration":
        return "wrap the iterable in sorted(...)"
    if kind == "manual":
        return slot.fix.get("advice")
    return None
