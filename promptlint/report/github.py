"""`promptlint check --format github`: GitHub Actions workflow commands, one
per finding (`::error` / `::warning` / `::notice` for error / warning / info),
and a Markdown job summary appended to `$GITHUB_STEP_SUMMARY`.

GitHub shows at most 10 annotations of each type per step inline, so the job
summary lists every finding. Paths are relative to the repository root, as in
the SARIF report. Columns are kept only on one-line regions (the checks API
drops them otherwise); the end column is exclusive, as in SARIF.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from promptlint import catalogue
from promptlint.report.sarif import display_path, finding_text, region, repo_root, rule_help_uri

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
ANNOTATION_LIMIT = 10  # per type per step, shown inline by GitHub
SUMMARY_LIMIT = 1024 * 1024  # GitHub refuses a step summary over 1 MiB


def escape_data(text: str) -> str:
    """A workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (file, title, ...)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **props) -> str:
    """`::kind k=v,k=v::message`, properties in the order given, None left out."""
    fields = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{kind}{' ' + fields if fields else ''}::{escape_data(message)}"


def _title(rule_id: str) -> str:
    rule = catalogue.load().get(rule_id)
    return rule.title if rule else rule_id


def annotation_text(f) -> str:
    """check's concise line first (what the collapsed annotation shows), then
    the whole reason with its tokens and money."""
    from promptlint.report.check_report import _body_and_money

    if f.summary is None:
        return finding_text(f)
    body, money = _body_and_money(f)
    return f"{body}{money}\n\n{finding_text(f)}"


def annotation(f, root: Path) -> str:
    sl, sc, el, ec = region(f.span)
    one_line = sl == el
    return command(COMMAND[f.severity.label], annotation_text(f),
                   file=display_path(f.span.file.path, root), line=sl,
                   col=sc if one_line else None, endLine=el,
                   endColumn=ec if one_line else None, title=_title(f.rule))


def error_annotation(e, root: Path) -> str:
    return command("error", e.message, file=display_path(e.path, root), line=max(1, e.line), col=max(1, e.col))


def render(result, root: Path | None = None) -> str:
    """Every finding and input error as a workflow command, then the one-line summary."""
    from promptlint.report.check_report import summary

    root = root or repo_root()
    lines = [annotation(f, root) for f in result.findings]
    lines += [error_annotation(e, root) for e in result.errors]
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


# -- job summary ---------------------------------------------------------------

_MD_SPECIAL = set("\\`*_[]<>|&~#$!")


def md(text: str) -> str:
    """Text for a Markdown table cell: punctuation that Markdown (or GitHub's
    `$` math) would read is backslash-escaped, line breaks become <br>."""
    out = "".join("\\" + c if c in _MD_SPECIAL else c for c in text)
    return out.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def _row(f, root: Path) -> str:
    line, col = f.line_col
    where = f"{display_path(f.span.file.path, root)}:{line}:{col}"
    rule = catalogue.load().get(f.rule)
    code = f"[{f.rule}]({rule_help_uri(rule)})" if rule else md(f.rule)
    tokens = f"{f.tokens:,}" if f.tokens is not None else ""
    money = md(f"${f.usd_per_month:,.2f}" + (f" ({f.model})" if f.model else "")) if f.usd_per_month is not None else ""
    cells = [md(where), code, f.severity.label, md(f.message), tokens, money]
    return "| " + " | ".join(cells) + " |"


def step_summary(result, root: Path | None = None, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown job summary: a headline with counts, a table of every
    finding, the input errors, and a note on GitHub's annotation cap. Rows
    that would take it over `limit` bytes are counted instead of shown."""
    from promptlint.report.check_report import summary

    root = root or repo_root()
    head = ["## promptlint check", "", md(summary(result))]
    if result.errors:
        n = len(result.errors)
        head[-1] += f" **{n} input error{'s' if n != 1 else ''}** (files not checked)."
    head.append("")
    tail: list[str] = []
    if result.errors:
        tail += ["### Input errors", ""]
        tail += [f"- {md(display_path(e.path, root))}:{max(1, e.line)}:{max(1, e.col)}: {md(e.message)}"
                 for e in result.errors]
        tail.append("")
    if result.findings:
        tail += [f"GitHub shows only the first {ANNOTATION_LIMIT} annotations of each type (error, warning, "
                 "notice) per step inline; this table lists every finding.", ""]
    body: list[str] = []
    if result.findings:
        body = ["| location | code | severity | message | tokens | $/month |".replace("$", "\\$"),
                "|---|---|---|---|---:|---:|"]
        used = sum(len(s.encode()) + 1 for s in head + body + tail) + 512
        for i, f in enumerate(result.findings):
            row = _row(f, root)
            used += len(row.encode()) + 1
            if used > limit:
                left = len(result.findings) - i
                body += ["", f"{left:,} more finding{'s' if left != 1 else ''} not shown: the step summary is "
                             f"limited to {limit // 1024:,} KiB; use `--format sarif` or `--format json` for all."]
                break
            body.append(row)
        body.append("")
    return "\n".join(head + body + tail).rstrip("\n") + "\n"


def append_step_summary(result, path: str | Path, root: Path | None = None) -> None:
    """Append the job summary to `path` (never truncating what earlier steps
    or commands wrote). A failure to write is a warning, not an error."""
    path = Path(path)
    try:
        existing = path.stat().st_size if path.exists() else 0
        text = step_summary(result, root, limit=max(0, SUMMARY_LIMIT - existing))
        prefix = ""
        if existing:
            with open(path, "rb") as fh:
                fh.seek(-1, os.SEEK_END)
                prefix = "" if fh.read(1) == b"\n" else "\n"
            prefix += "\n"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(prefix + text)
    except OSError as exc:
        print(f"warning: cannot write the step summary to {path}: {exc}", file=sys.stderr)
