"""Suppression comments, in each host format's own comment syntax:

    {# promptlint: ignore[PL001] #}          Jinja, Prompty bodies
    {{! promptlint: ignore[PL001] }}         Handlebars (dotprompt)
    # promptlint: ignore[PL001]              YAML (message files, front matter)
    <!-- promptlint: ignore[PL001] -->       Markdown

`ignore` applies to findings on its own line, and to the next line when the
comment stands alone on its line; `ignore-file` applies to the whole file.
Without a rule list it applies to every rule. A suppression that suppresses
nothing is reported (PL007), as ruff reports unused `noqa`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from promptlint.ir import SourceFile, Span

_DIRECTIVE = re.compile(r"promptlint:\s*(?P<kind>ignore-file|ignore)\b(?:\[(?P<codes>[^\]]*)\])?")

_JINJA = re.compile(r"\{#-?(?P<body>.*?)-?#\}", re.S)
_HANDLEBARS = re.compile(r"\{\{~?!(?:--)?(?P<body>.*?)(?:--)?~?\}\}", re.S)
_HASH = re.compile(r"(?:^|(?<=\s))#(?P<body>[^\n]*)")
_HTML = re.compile(r"<!--(?P<body>.*?)-->", re.S)

# comment syntaxes per file suffix (Prompty and dotprompt front matter is YAML)
SYNTAX = {
    ".j2": (_JINJA,), ".jinja": (_JINJA,), ".jinja2": (_JINJA,),
    ".prompty": (_JINJA, _HASH),
    ".prompt": (_HANDLEBARS, _HASH),
    ".yaml": (_HASH,), ".yml": (_HASH,),
    ".md": (_HTML, _JINJA),
    ".py": (_HASH,),
}


@dataclass
class Directive:
    span: Span
    codes: frozenset[str] | None  # None: every rule
    file_level: bool
    lines: frozenset[int]  # lines it covers (empty for file level)
    used: set[str] = field(default_factory=set)

    @property
    def text(self) -> str:
        return self.span.source_text

    def covers(self, rule: str, line: int) -> bool:
        if self.codes is not None and rule not in self.codes:
            return False
        return self.file_level or line in self.lines


def _alone_on_line(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    return not text[line_start:start].strip() and not text[end:line_end].strip()


def directives(file: SourceFile) -> list[Directive]:
    """Every suppression comment in a file."""
    found: list[Directive] = []
    text = file.text
    if "promptlint" not in text:  # most files have none: no comment scan
        return found
    for syntax in SYNTAX.get(file.path.suffix.lower(), ()):
        for comment in syntax.finditer(text):
            m = _DIRECTIVE.search(comment.group("body"))
            if m is None:
                continue
            codes = None
            if m.group("codes") is not None:
                codes = frozenset(c.strip().upper() for c in m.group("codes").split(",") if c.strip())
            line, _ = file.position(comment.start())
            lines = {line}
            if _alone_on_line(text, comment.start(), comment.end()):
                end_line, _ = file.position(comment.end())
                lines.add(end_line + 1)
            found.append(Directive(Span(file, comment.start(), comment.end()), codes,
                                   m.group("kind") == "ignore-file", frozenset(lines)))
    return found


def apply(findings, files: dict[str, SourceFile]):
    """Split findings into (kept, suppressed) and return every directive seen,
    each marked with the rules it suppressed."""
    by_path: dict[str, list[Directive]] = {path: directives(f) for path, f in files.items()}
    kept, suppressed = [], []
    for finding in findings:
        line, _ = finding.line_col
        hit = next((d for d in by_path.get(finding.path, ()) if d.covers(finding.rule, line)), None)
        if hit is None:
            kept.append(finding)
        else:
            hit.used.add(finding.rule)
            suppressed.append(finding)
    return kept, suppressed, [d for ds in by_path.values() for d in ds]
