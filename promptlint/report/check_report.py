"""Output of `promptlint check`: one line per finding,
`path:line:col: PLxxx message`, coloured by severity in a terminal, a JSON
form with the same facts, SARIF 2.1.0 (report/sarif.py) and GitHub workflow
commands with a job summary (report/github.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from promptlint import catalogue
from promptlint.report import atomic_write

SCHEMA_VERSION = "1.0"
STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _cost(f) -> str:
    if f.tokens is None:
        return ""
    money = f"; ~${f.usd_per_month:,.2f}/month on {f.model}" if f.usd_per_month else ""
    return f" ({f.tokens:,} tokens{money})"


def line(f) -> str:
    row, col = f.line_col
    return f"{f.path}:{row}:{col}: {f.rule} {f.message}{_cost(f)}"


def summary(result) -> str:
    """The last line: findings by severity, then what went wrong (input
    errors, missing paths, files a reader stopped in); "All checks passed"
    only when prompt files were read and nothing went wrong."""
    from promptlint.report.words import plural, problems, scope

    counts = {s: 0 for s in ("error", "warning", "info")}
    for f in result.findings:
        counts[f.severity.label] += 1
    suppressed = f" ({result.suppressed} suppressed)" if result.suppressed else ""
    trouble = problems(len(getattr(result, "errors", ())), getattr(result, "missing", 0),
                       _partly_analysed(result))
    where = scope(result.prompts, result.files)
    if result.findings:
        parts = ", ".join(plural(n, k) for k, n in counts.items() if n)
        head = f"Found {plural(len(result.findings), 'finding')} ({parts}): {where}{suppressed}"
    elif not result.files and not trouble:
        head = "No prompt files found"
    elif not result.prompts and not trouble:
        head = f"No prompts found in {plural(result.files, 'file')}{suppressed}"
    elif trouble:
        head = f"No findings: {where}{suppressed}"
    else:
        head = f"All checks passed: {where}{suppressed}"
    return "; ".join([head, *trouble]) + "."


def _partly_analysed(result) -> int:
    """Files a reader stopped in (a limit reached): their findings may be incomplete."""
    from promptlint.sources.base import Incomplete

    return len({n.split(":", 1)[0] for n in getattr(result, "notes", ()) if isinstance(n, Incomplete)})


def to_json(result) -> dict:
    rules = catalogue.load()
    findings = []
    for f in result.findings:
        line_no, col = f.line_col
        end_line, end_col = f.span.end_line_col
        findings.append({
            "code": f.rule,
            "name": rules[f.rule].name if f.rule in rules else None,
            "severity": f.severity.label,
            "message": f.message,
            "location": {"path": f.path, "line": line_no, "column": col, "end_line": end_line, "end_column": end_col},
            "prompt": f.prompt,
            "tokens": f.tokens,
            "usd_per_month": round(f.usd_per_month, 6) if f.usd_per_month is not None else None,
            "model": f.model,
            "fix": f.fix,
        })
    return {
        "schema_version": SCHEMA_VERSION,
        "findings": findings,
        "errors": [{"path": e.path, "line": e.line, "column": e.col, "message": e.message} for e in result.errors],
        "summary": {"files": result.files, "prompts": result.prompts, "findings": len(result.findings),
                    "suppressed": result.suppressed},
    }


def resolve_format(fmt: str, output: Path | None, environ=None, stream=None) -> str:
    """`auto`: GitHub workflow commands inside GitHub Actions (GITHUB_ACTIONS=true),
    rich text in a terminal, plain text otherwise. With --output, auto is plain text."""
    if fmt != "auto":
        return fmt
    environ = os.environ if environ is None else environ
    stream = sys.stdout if stream is None else stream
    if output is not None:
        return "text"
    if environ.get("GITHUB_ACTIONS") == "true":
        return "github"
    return "rich" if stream.isatty() else "text"


def write_check_report(result, fmt: str, output: Path | None) -> None:
    fmt = resolve_format(fmt, output)
    if fmt == "json":
        text = json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "sarif":
        from promptlint.report.sarif import to_sarif

        text = json.dumps(to_sarif(result), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "github":
        from promptlint.report import github

        text = github.render(result)
        if os.environ.get("GITHUB_STEP_SUMMARY"):
            github.append_step_summary(result, os.environ["GITHUB_STEP_SUMMARY"])
    elif fmt == "rich":
        from rich.console import Console
        from rich.text import Text

        console = Console(highlight=False)
        for f in result.findings:
            row, col = f.line_col
            t = Text(f"{f.path}:{row}:{col}: ", style="bold")
            t.append(f.rule, style=STYLE[f.severity.label])
            t.append(f" {f.message}")
            t.append(_cost(f), style="dim")
            console.print(t)
        console.print(Text(summary(result), style="bold"))
        return
    else:
        text = "".join(line(f) + "\n" for f in result.findings) + summary(result) + "\n"
    if output is not None:
        atomic_write(output, text)
    else:
        sys.stdout.write(text)
