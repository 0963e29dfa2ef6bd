"""What a rule sees and what it returns.

A rule is a module in promptlint/checks/ with `RULE = "PLnnn"` and
`check(ctx) -> Iterable[Finding]`; its documentation and examples live in
rules/PLnnn-name.toml, and the examples are its tests.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from promptlint.ir import PromptTemplate, Span


class Severity(enum.IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (expected error, warning or info)") from None


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` (in the file the user edits) with `text`."""

    span: Span
    text: str


BRIEF = 28  # characters of a slot's label a concise line shows


def brief(label: str, width: int = BRIEF) -> str:
    """A label cut to `width` characters for a concise line (the full message keeps it whole)."""
    label = " ".join(label.split())
    return label if len(label) <= width else label[:width - 1].rstrip() + "…"


@dataclass
class Finding:
    rule: str  # "PL001"
    severity: Severity
    message: str
    span: Span
    tokens: int | None = None  # stable tokens the fault costs (each request re-prefills them)
    usd_per_month: float | None = None  # what those tokens cost at the configured traffic
    model: str | None = None  # the model the money is computed for
    fix: str | None = None  # one line: what to change
    prompt: str | None = None  # prompt name, for files holding several
    edits: tuple[Edit, ...] = ()  # what `promptlint fix` applies
    unsafe: bool = False  # the edits may change what the prompt says; only with --unsafe-fixes
    gated: str | None = None  # the setting that would give this finding a safe fix ("timestamp-precision")
    summary: str | None = None  # the message in one short clause (concise output); `message` says why in full
    prompt_path: str | None = None  # the file of the prompt (the finding may sit in an include it reads)

    @property
    def path(self) -> str:
        return self.span.file.display_path

    @property
    def line_col(self) -> tuple[int, int]:
        return self.span.line_col

    def sort_key(self):
        line, col = self.line_col
        return (self.path, line, col, self.rule)


@dataclass
class CheckContext:
    """One prompt with everything the audit computed for it."""

    template: PromptTemplate
    result: "object"  # promptlint.audit.PromptResult (typed loosely to keep imports light)
    config: "object"  # promptlint.config.Config
    options: dict = field(default_factory=dict)

    @property
    def primary(self):
        return self.result.primary

    @property
    def models(self):
        return self.result.models
