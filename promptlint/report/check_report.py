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


def line(f, show_fixes: bool = False) -> str:
    """`path:line:col: PLxxx summary (~$/month, model)`: the concise line, the
    full message being --output-format full's; with `show_fixes`, `[*]` after
    the code where `promptlint fix` has a safe fix and `[unsafe fix]` where
    only --unsafe-fixes applies one (ruff marks fixable findings the same way)."""
    return _located(f, *_body_and_money(f), show_fixes)


def _located(f, body: str, money: str, show_fixes: bool) -> str:
    row, col = f.line_col
    return f"{f.path}:{row}:{col}: {f.rule}{fix_mark(f) if show_fixes else ''} {body}{money}"


def _body_and_money(f) -> tuple[str, str]:
    """The concise line's text after the code, and its cost in parentheses (dimmed in a terminal)."""
    if f.summary is None:
        return f.message, _cost(f)
    # the model without its provider (`gpt-4.1`): the full output and JSON name the key
    model = (f.model or "").split("/", 1)[-1]
    money = f" (~${f.usd_per_month:,.0f}/mo, {model})" if f.usd_per_month and f.usd_per_month >= 0.5 else ""
    return f.summary, money


def long_line(f, show_fixes: bool = False) -> str:
    """The finding with its whole message (the reason and the effect in full)."""
    return _located(f, f.message, _cost(f), show_fixes)


def fix_mark(f) -> str:
    if not f.edits:
        return ""
    return " [unsafe fix]" if f.unsafe else " [*]"


def _fixable(result) -> str | None:
    safe = sum(1 for f in result.findings if f.edits and not f.unsafe)
    unsafe = sum(1 for f in result.findings if f.edits and f.unsafe)
    if not safe and not unsafe:
        return None
    more = f" ({unsafe:,} more with --unsafe-fixes)" if unsafe else ""
    return f"{safe:,} fixable with `promptlint fix`{more}"


def full(f) -> str:
    """`--output-format full`: the finding with its whole message, the source
    line with a caret under the span (as ruff's full output shows it), the fix hint."""
    out = [long_line(f, show_fixes=True)]
    row, col = f.line_col
    lines = f.span.file.text.splitlines()
    if 0 < row <= len(lines):
        source = lines[row - 1].expandtabs(1)
        end_row, end_col = f.span.end_line_col
        width = max(1, (end_col if end_row == row else len(source) + 1) - col)
        gutter = f"{row:>4} | "
        out += [gutter + source, " " * (len(gutter) + col - 1) + "^" * min(width, max(1, len(source) - col + 2))]
    if f.fix:
        safety = " (fixable with --unsafe-fixes)" if f.edits and f.unsafe else " (fixable)" if f.edits else ""
        out.append(f"  help: {f.fix}{safety}")
    return "\n".join(out) + "\n"


def statistics(result) -> str:
    """`--statistics`: findings per rule, most first (ruff's layout: count, code, name)."""
    from collections import Counter

    rules = catalogue.load()
    counts = Counter(f.rule for f in result.findings)
    fixable = Counter(f.rule for f in result.findings if f.edits and not f.unsafe)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    width = max((len(f"{n}") for _, n in rows), default=1)
    out = "".join(f"{n:>{width}}\t{code}\t{'[*] ' if fixable[code] else ''}"
                  f"{rules[code].name if code in rules else ''}\n" for code, n in rows)
    return out + ("[*] fixable with `promptlint fix`\n" if fixable else "")


def summary(result, hidden: bool = False, fixes: bool = False) -> str:
    """The last line: findings by severity, then what went wrong (input
    errors, missing paths, files a reader stopped in); "All checks passed"
    only when prompt files were read and nothing went wrong."""
    from promptlint.report.words import nothing_read, plural, problems, scope, skipped

    counts = {s: 0 for s in ("error", "warning", "info")}
    for f in result.findings:
        counts[f.severity.label] += 1
    kept_out = [f"{result.suppressed:,} suppressed"] if result.suppressed else []
    if result.baselined:
        kept_out.append(f"{result.baselined:,} in the baseline")
    if result.older:
        kept_out.append(f"{result.older:,} older than {result.since}")
    suppressed = f" ({', '.join(kept_out)})" if kept_out else ""
    trouble = problems(len(result.errors), result.missing, _partly_analysed(result))
    where = scope(result.prompts, result.files)
    if result.findings:
        parts = ", ".join(plural(n, k) for k, n in counts.items() if n)
        head = f"Found {plural(len(result.findings), 'finding')} ({parts}): {where}{suppressed}"
    elif not trouble and (empty := nothing_read(result.prompts, result.files)):
        head = empty + suppressed
    elif trouble:
        head = f"No findings: {where}{suppressed}"
    else:
        head = f"All checks passed: {where}{suppressed}"
    if hidden and counts["info"]:
        trouble.insert(0, f"{counts['info']:,} info not listed (--show-info)")
    fixable = _fixable(result) if fixes else None
    if fixable:
        trouble.insert(0, fixable)
    return "; ".join([head, *trouble, *skipped(getattr(result, "notes", ()))]) + "."


def _partly_analysed(result) -> int:
    """Files a reader stopped in (a limit reached): their findings may be incomplete."""
    from promptlint.sources.base import Incomplete

    return len({n.split(":", 1)[0] for n in getattr(result, "notes", ()) if isinstance(n, Incomplete)})


def to_json(result) -> dict:
    from promptlint.report.sarif import rule_help_uri

    rules = catalogue.load()
    findings = []
    for f in result.findings:
        line_no, col = f.line_col
        end_line, end_col = f.span.end_line_col
        findings.append({
            "code": f.rule,
            "name": rules[f.rule].name if f.rule in rules else None,
            "url": rule_help_uri(rules[f.rule]) if f.rule in rules else None,
            "severity": f.severity.label,
            "message": f.message,
            "summary": f.summary or f.message,
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


def color_wanted(color: str, environ=None, stream=None) -> bool:
    """--color auto|always|never; auto follows NO_COLOR (any value: off) and
    FORCE_COLOR (any non-empty value: on), then whether stdout is a terminal."""
    environ = os.environ if environ is None else environ
    stream = sys.stdout if stream is None else stream
    if color != "auto":
        return color == "always"
    if environ.get("NO_COLOR") is not None and environ.get("NO_COLOR") != "":
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def write_check_report(result, fmt: str, output: Path | None, quiet: bool = False, stats: bool = False,
                       color: str = "auto", show_info: bool = True, show_fixes: bool = False,
                       fail_on: str = "warning") -> None:
    """`quiet`: the findings only, no summary line; `stats`: counts per rule
    instead of the findings (ruff's --statistics); `show_info`: list info
    findings in the text formats (they are always counted, and always in
    json, json-lines, sarif and github)."""
    fmt = {"text": "concise"}.get(fmt, fmt)
    if fmt == "auto":
        fmt = resolve_format(fmt, output)
        fmt = {"text": "concise"}.get(fmt, fmt)
        if fmt in ("concise", "rich") and output is None:
            fmt = "rich" if color_wanted(color) else "concise"
    elif fmt == "concise" and output is None and color == "always":
        fmt = "rich"
    tail = "" if quiet else summary(result, hidden=not show_info, fixes=show_fixes) + "\n"
    shown = [f for f in result.findings if show_info or f.severity.label != "info"]
    if stats and fmt in ("concise", "full", "rich"):
        text = statistics(result) + tail
        _emit(text, output)
        return
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

        console = Console(highlight=False, soft_wrap=True, force_terminal=True if color == "always" else None,
                          no_color=color == "never")
        for f in shown:
            row, col = f.line_col
            t = Text(f"{f.path}:{row}:{col}: ", style="bold")
            t.append(f.rule, style=STYLE[f.severity.label])
            if show_fixes:
                t.append(fix_mark(f), style="bold")
            body, money = _body_and_money(f)
            t.append(f" {body}")
            t.append(money, style="dim")
            console.print(t)
        if tail:
            console.print(Text(tail.rstrip("\n"), style="bold"))
        return
    elif fmt in ("gitlab", "junit"):
        from promptlint.report import ci_formats

        text = ci_formats.to_gitlab(result) if fmt == "gitlab" else ci_formats.to_junit(result, fail_on=fail_on)
    elif fmt == "json-lines":
        text = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in to_json(result)["findings"])
    elif fmt == "full":
        text = "".join(full(f) + "\n" for f in shown) + tail
    else:
        text = "".join(line(f, show_fixes) + "\n" for f in shown) + tail
    _emit(text, output)


def _emit(text: str, output: Path | None) -> None:
    if output is not None:
        atomic_write(output, text, errors="backslashreplace")  # a report: a lone surrogate escaped
    else:
        sys.stdout.write(text)
