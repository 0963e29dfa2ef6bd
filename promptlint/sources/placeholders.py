"""Templated strings whose syntax is not known from the file type: a message
content in YAML/JSON, a `.txt` prompt. One entry point,
`parse_template_string`, picks Jinja, Handlebars or Python `str.format`
syntax and returns IR parts with spans mapped back into the file.

The `str.format` parser is deliberately conservative: prompts are full of
JSON examples, so only `{identifier...}` is a placeholder and any brace
that does not form one is literal text, never an error.
"""

from __future__ import annotations

import re

from promptlint.ir import Part, SourceError, SourceFile, Text
from promptlint.sources.base import SourceContext
from promptlint.sources.slots import span_of, text_part, variable_slot

# {name}, {name.attr}, {name[0]}, {name!r}, {name:>10}, {when:%Y-%m-%d}. The spec
# must look like a real format spec so `{answer: string}` in an example stays text.
# Nested fields in the spec ({x:{width}}) are not supported.
_SPEC = r"(?::(?:(?:.?[<>=^])?[+\- ]?z?#?0?\d*[,_]?(?:\.\d+)?[bcdeEfFgGnosxX%]?|[^{}\s]*%[^{}]*))?"
_FIELD = re.compile(
    r"\{(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\[\]{}]*\])*)"
    r"(?:![rsa])?" + _SPEC + r"\}"
)
_JINJA_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.S)
_HANDLEBARS_TAG = re.compile(r"\{\{~?\s*(?:[#/^>!]|else\b)|\{\{\{~?\s*[A-Za-z_@]")
_DOUBLE_VAR = re.compile(r"\{\{-?\s*[A-Za-z_]")

STYLES = ("auto", "jinja", "handlebars", "format", "text")


def detect_style(text: str) -> str:
    """The template syntax a string most likely uses: `jinja` for `{% %}`,
    `{# #}` or `{{ name ... }}`; `handlebars` for `{{#block}}`, `{{/x}}`,
    `{{! }}`, `{{> }}` or `{{{x}}}`; `format` for `{name}` placeholders
    (with `{{`/`}}` as escaped braces); otherwise `text`. See also
    fallback_style."""
    if _JINJA_TAG.search(text):
        return "jinja"
    if _HANDLEBARS_TAG.search(text):
        return "handlebars"
    if _DOUBLE_VAR.search(text):
        return "jinja"
    if _FIELD.search(text):
        return "format"
    return "text"


def fallback_style(text: str, style: str) -> str | None:
    """The style to try when `style` fails to parse: `{{"a": {x}}}` is an
    escaped-brace format string, not Jinja, so a string that also has
    `{name}` fields is read as `format` when Jinja rejects it."""
    return "format" if style == "jinja" and _FIELD.search(text) else None


def is_syntax_error(exc: SourceError) -> bool:
    """A template that does not parse (not a missing include or the like)."""
    return "syntax error" in exc.message.lower()


def parse_template_string(text: str, file: SourceFile, index_map: list[int] | None,
                          ctx: SourceContext, style: str = "auto") -> list[Part]:
    """IR parts of a templated string whose character i sits at file offset
    index_map[i] (len(text) + 1 entries; None: text is the file from 0)."""
    if style == "auto":
        style = detect_style(text)
        fallback = fallback_style(text, style)
        if fallback:
            try:
                return parse_template_string(text, file, index_map, ctx, style)
            except SourceError as exc:
                if not is_syntax_error(exc):
                    raise
                return parse_template_string(text, file, index_map, ctx, fallback)
    if style == "jinja":
        from promptlint.sources.jinja import parse_jinja_fragment

        # a templated string keeps its line ends: the app substitutes values, it
        # does not re-render the literal text through Jinja's newline handling
        return parse_jinja_fragment(text, file, index_map, ctx, keep_newlines=True)
    if style == "handlebars":
        from promptlint.sources.dotprompt import parse_handlebars_fragment

        return parse_handlebars_fragment(text, file, index_map, ctx)
    if style == "format":
        return parse_format_fragment(text, file, index_map, ctx)
    if style == "text":
        return [text_part(text, file, index_map, 0, len(text))] if text else []
    raise ValueError(f"unknown template style {style!r} (expected one of: {', '.join(STYLES)})")


def parse_format_fragment(text: str, file: SourceFile, index_map: list[int] | None,
                          ctx: SourceContext) -> list[Part]:
    """`str.format` placeholders as slots; `{{`/`}}` become one literal brace
    (the span keeps both source characters); other braces stay text."""
    parts: list[Part] = []
    buf_start = 0  # start of pending literal text
    i = 0
    n = len(text)

    def flush(end: int) -> None:
        if end > buf_start:
            parts.append(text_part(text, file, index_map, buf_start, end))

    while i < n:
        ch = text[i]
        if ch in "{}" and text.startswith(ch * 2, i):
            flush(i)
            parts.append(Text(ch, span_of(file, index_map, i, i + 2)))
            i += 2
            buf_start = i
            continue
        if ch == "{":
            m = _FIELD.match(text, i)
            if m:
                flush(i)
                parts.append(variable_slot(m.group("name"), m.group(0), span_of(file, index_map, i, m.end()), ctx))
                i = buf_start = m.end()
                continue
        i += 1
    flush(n)
    return parts


__all__ = ["parse_template_string", "parse_format_fragment", "detect_style", "fallback_style",
           "is_syntax_error", "STYLES"]
