"""Plain prompt files (`.txt`, `.md`) into the IR.

A text prompt is sent as written, so the file is one template whose
placeholders follow whichever syntax it uses (Jinja/mustache `{{ x }}`,
Handlebars blocks, or `str.format` `{x}`; see placeholders.detect_style).
Lines that are exactly `system:` / `user:` / `assistant:` / `developer:`
(any case) split it into messages, as Prompty-style chat files do; each
message is then trimmed. Markdown comments are sent to the model, so they
stay text. A Markdown file may open with YAML front matter (prompt files of
editors and agents do); it is metadata, not prompt, and is skipped when it
parses as a mapping.
"""

from __future__ import annotations

import re
from dataclasses import replace

from promptlint.ir import PromptTemplate, Section, SourceError, SourceFile, Span
from promptlint.sources.base import SourceContext
from promptlint.sources.frontmatter import DeclaredInputs, markdown_inputs, split_front_matter
from promptlint.sources.placeholders import detect_style, is_syntax_error, parse_template_string, style_chain

ROLES = ("system", "user", "assistant", "developer")
_ROLE_LINE = re.compile(r"^(" + "|".join(ROLES) + r")[ \t]*:[ \t]*(?:\r?\n|\r?$)", re.I | re.M)
_MARKDOWN = {".md", ".markdown", ".mdx", ".mdc"}


def is_markdown(path) -> bool:
    """`x.md`, and Markdown kept as a template (`SKILL.md.template`)."""
    suffix = path.suffix.lower()
    return suffix in _MARKDOWN or (suffix in (".template", ".tmpl", ".tpl") and
                                   path.with_suffix("").suffix.lower() in _MARKDOWN)


def _body_start(file: SourceFile) -> tuple[int, DeclaredInputs]:
    """Where the prompt starts: after Markdown front matter, if there is any."""
    if not is_markdown(file.path):
        return 0, DeclaredInputs()
    try:
        data, _, body_start = split_front_matter(file)
    except SourceError:  # a leading `---` rule, not front matter
        return 0, DeclaredInputs()
    if data is None:
        return 0, DeclaredInputs()
    return body_start, markdown_inputs(data, file)


def _trimmed(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _segments(file: SourceFile, start: int, default_role: str) -> list[tuple[str, int, int, int]]:
    """(role, section start, content start, content end) for each message."""
    text = file.text
    markers = list(_ROLE_LINE.finditer(text, start))
    if not markers:
        return [(default_role, start, start, len(text))]
    out = []
    a, b = _trimmed(text, start, markers[0].start())
    if b > a:
        out.append((default_role, a, a, b))
    for n, m in enumerate(markers):
        end = markers[n + 1].start() if n + 1 < len(markers) else len(text)
        a, b = _trimmed(text, m.end(), end)
        out.append((m.group(1).lower(), m.start(), a, b))
    return out


_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$|`[^`\r\n]+`", re.M | re.S)  # code blocks and spans


def sniffed_style(file: SourceFile, start: int, ctx: SourceContext) -> str:
    """The file's template style: set in config, else sniffed. In Markdown,
    braces inside code blocks and `code spans` are code (JSON, JSX,
    f-strings): the style is sniffed from the prose, so a file whose only
    braces are in code is plain text."""
    style = ctx.dialect_for(file.path)
    if style != "auto":
        return style
    body = file.text[start:]
    if is_markdown(file.path):
        return detect_style(_FENCE.sub("", body))
    return detect_style(body)


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """One text file is one prompt named after the file."""
    start, declared = _body_start(file)
    fctx = replace(ctx, variables=declared.table(ctx.variables))
    style = sniffed_style(file, start, ctx)
    # a style set in config is the user's word: its errors are errors; a sniffed
    # one that does not parse gives way to the next guess
    chain = [style] if ctx.dialect_for(file.path) != "auto" else style_chain(file.text[start:], style)
    for attempt in chain:
        try:
            sections = _sections(file, start, fctx, attempt, ctx.default_role)
            break
        except SourceError as exc:
            if attempt == chain[-1] or not is_syntax_error(exc):
                raise
    return [PromptTemplate(file.path.stem, file, "text", sections, declared.variables())]


def _sections(file: SourceFile, start: int, ctx: SourceContext, style: str, default_role: str) -> list[Section]:
    """Every message parsed with one style, chosen for the whole file."""
    sections = []
    for role, sec_start, a, b in _segments(file, start, default_role):
        index_map = None if (a, b) == (0, len(file.text)) else list(range(a, b + 1))
        parts = parse_template_string(file.text[a:b], file, index_map, ctx, style)
        sections.append(Section(role, parts, Span(file, sec_start, b)))
    return sections


__all__ = ["read", "ROLES"]
