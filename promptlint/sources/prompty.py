"""Prompty files: YAML front matter (model, inputs with samples), then a Jinja
body whose `system:` / `user:` / `assistant:` lines (optionally `# system:`)
start the messages, as Prompty's own parser splits them."""

from __future__ import annotations

import re
from dataclasses import replace

from promptlint.ir import Part, PromptTemplate, Section, Slot, Span, Text
from promptlint.sources.base import SourceContext
from promptlint.sources.frontmatter import prompty_inputs, split_front_matter
from promptlint.sources.jinja import parse_jinja_fragment

ROLE_LINE = re.compile(r"^[ \t]*#?[ \t]*(system|user|assistant|developer|function|tool)[ \t]*:[ \t]*(?:\r?\n|$)",
                       re.IGNORECASE | re.MULTILINE)


def split_roles(parts: list[Part], default_role: str) -> list[Section]:
    """Split top-level parts into sections at role lines found in literal text.
    Role lines inside loops or conditionals stay where they are (they render
    per item, and the template's own structure decides them)."""
    sections: list[Section] = []
    current = Section(default_role, [])

    def start(role: str, span: Span | None):
        nonlocal current
        if current.parts and any(not (isinstance(p, Text) and not p.text.strip()) for p in current.parts):
            sections.append(current)
        current = Section(role.lower(), [], span)

    for part in parts:
        if not isinstance(part, Text) or part.span is None:
            current.parts.append(part)
            continue
        pos = 0
        for m in ROLE_LINE.finditer(part.text):
            if m.start() > pos:
                current.parts.append(_slice(part, pos, m.start()))
            start(m.group(1), _slice(part, m.start(), m.end()).span)
            pos = m.end()
        if pos < len(part.text):
            current.parts.append(_slice(part, pos, len(part.text)))
    if current.parts or not sections:
        sections.append(current)
    return [_strip_edges(s) for s in sections]


def _slice(text: Text, start: int, end: int) -> Text:
    """A piece of a literal whose span maps 1:1 to its text (no CRLF folding
    beyond what the lexer did; offsets are clamped to the original span)."""
    span = text.span
    assert span is not None
    s = min(span.start + start, span.end)
    e = min(span.start + end, span.end)
    return Text(text.text[start:end], Span(span.file, s, e))


def _strip_edges(section: Section) -> Section:
    """Prompty trims each message's content."""
    parts = list(section.parts)
    if parts and isinstance(parts[0], Text):
        first = parts[0]
        stripped = first.text.lstrip()
        cut = len(first.text) - len(stripped)
        parts[0] = Text(stripped, replace(first.span, start=min(first.span.start + cut, first.span.end))
                        if first.span else None)
    if parts and isinstance(parts[-1], Text):
        last = parts[-1]
        parts[-1] = Text(last.text.rstrip(), last.span)
    parts = [p for p in parts if not (isinstance(p, Text) and not p.text)]
    return Section(section.role, parts, section.span)


def read(file, ctx: SourceContext) -> list[PromptTemplate]:
    data, _, body_start = split_front_matter(file, diagnostics=ctx.diagnostics)
    declared = prompty_inputs(data, file)
    file_ctx = replace(ctx, variables=declared.table(ctx.variables))
    body = file.text[body_start:]
    index_map = list(range(body_start, len(file.text) + 1))
    parts = parse_jinja_fragment(body, file, index_map, file_ctx, base_dir=file.path.parent)
    sections = split_roles(parts, "system")
    model = None
    if data:
        m = data.get("model")
        if isinstance(m, dict):
            conf = m.get("configuration") or {}
            model = (conf.get("model") or conf.get("azure_deployment") or conf.get("name")) if isinstance(conf, dict) else None
        elif isinstance(m, str):
            model = m
    name = str(data.get("name")) if data and data.get("name") else file.path.stem
    return [PromptTemplate(name, file, "prompty", sections, declared.variables(), model)]


__all__ = ["read", "split_roles", "ROLE_LINE", "Slot"]
