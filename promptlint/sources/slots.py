"""Building slots the same way in every source format, so a `{{ user_name }}`
in Jinja, a `{user_name}` in a text prompt and a `{{user_name}}` in Handlebars
get the same volatility, reason and samples."""

from __future__ import annotations

from promptlint.ir import Slot, SlotKind, Span, Text, Volatility
from promptlint.sources.base import SourceContext


def variable_slot(name: str, label: str, span: Span | None, ctx: SourceContext,
                  kind: SlotKind = SlotKind.VARIABLE) -> Slot:
    """A slot for one input, classified through the context's variable table
    (config override, then front-matter declaration, then name)."""
    verdict = ctx.variables.resolve(name)
    return Slot(
        label=label,
        kind=kind,
        volatility=verdict.volatility,
        reason=verdict.reason,
        span=span,
        names=(name,),
        samples=ctx.variables.samples_for(name),
    )


def text_part(text: str, file, index_map: list[int] | None, start: int, end: int) -> Text:
    """Literal text[start:end] with its span mapped through `index_map`
    (index_map[i] = file offset of text[i]; None means identity)."""
    if index_map is None:
        return Text(text[start:end], Span(file, start, end))
    return Text(text[start:end], Span(file, index_map[start], index_map[end]))


def span_of(file, index_map: list[int] | None, start: int, end: int) -> Span:
    if index_map is None:
        return Span(file, start, end)
    return Span(file, index_map[start], index_map[end])


__all__ = ["variable_slot", "text_part", "span_of", "Volatility"]
