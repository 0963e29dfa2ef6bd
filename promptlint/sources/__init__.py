"""Source readers: one module per file format, each turning a file into
PromptTemplates with exact spans. `load` picks the reader."""

from __future__ import annotations

import importlib

from promptlint.ir import PromptTemplate, SourceError
from promptlint.sources.base import SourceContext, read_source

# format name (from discover.format_for) -> module with read(file, ctx)
READERS = {
    "jinja": "promptlint.sources.jinja",
    "text": "promptlint.sources.text",
    "prompty": "promptlint.sources.prompty",
    "dotprompt": "promptlint.sources.dotprompt",
    "messages": "promptlint.sources.messages",
    "python": "promptlint.sources.python",
}


def load(path, fmt: str, ctx: SourceContext) -> list[PromptTemplate]:
    """Read one file into prompts; SourceError (or NotAPrompt) on bad input."""
    if fmt not in READERS:
        raise SourceError(ctx.display_path(path), 1,
                          "not a prompt file type promptlint reads (.j2 .jinja .jinja2 .prompty .prompt "
                          ".json .yaml .yml .toml .txt .md .mdx .tmpl .template .py)")
    return parse(read_source(path, ctx), fmt, ctx)


def parse(file, fmt: str, ctx: SourceContext) -> list[PromptTemplate]:
    """Prompts of a file whose text is already in hand (a fix being checked,
    a base revision read from git)."""
    return importlib.import_module(READERS[fmt]).read(file, ctx)
