"""`promptlint check --format sarif`: SARIF 2.1.0 for GitHub code scanning.

One run; `tool.driver.rules` describes every rule that was selected (or, when
the result does not say which were, the whole catalogue) plus any rule that
produced a result. Paths are relative to the repository root (the git
top level above the working directory, else the working directory) under the
`%SRCROOT%` base id; regions are 1-based, with the end column exclusive and
columns counted in Unicode code points (`columnKind`).

`partialFingerprints["promptlint/v1"]` is the SHA-256 of the rule id, the
path, the finding's source text and which occurrence of that text in the file
it is, so moving unrelated lines does not change it. A finding with no source
text (a whole-prompt finding at 1:1) uses the prompt's name and its ordinal
among such findings instead. Change the key's version if the recipe changes.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import quote

from promptlint import __version__, catalogue

PROJECT_URL = "https://github.com/promptlint/promptlint"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "promptlint/v1"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
TAGS = ("prompt-cache", "cost", "performance")
MAX_DESCRIPTION = 1024  # GitHub's limit for shortDescription and fullDescription


# -- locations shared with the GitHub format ---------------------------------


def repo_root(cwd: Path | None = None) -> Path:
    """The git top level containing the working directory (a `.git` folder,
    or a `.git` file for worktrees and submodules), else the working directory."""
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def relative_path(path: str | Path, root: Path) -> str | None:
    """`path` (absolute, or relative to the working directory) as a POSIX path
    relative to `root`, or None when it lies outside it."""
    p = Path(path)
    absolute = (p if p.is_absolute() else Path.cwd() / p).resolve()
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return None


def display_path(path: str | Path, root: Path) -> str:
    """Relative to the repository root when inside it, else as absolute."""
    rel = relative_path(path, root)
    if rel is not None:
        return rel
    p = Path(path)
    return (p if p.is_absolute() else Path.cwd() / p).resolve().as_posix()


def region(span) -> tuple[int, int, int, int]:
    """(startLine, startColumn, endLine, endColumn), 1-based, end exclusive.
    A line break at the end of the span is left out, so a span that ends a
    line stays on that line (GitHub only keeps columns on one-line regions)."""
    text = span.file.text
    start, end = span.start, max(span.end, span.start)
    while end > start + 1 and text[end - 1] in "\r\n":
        end -= 1
    sl, sc = span.file.position(start)
    el, ec = span.file.position(end)
    if el > sl and ec == 1:  # the span is a single line break
        el, ec = sl, sc + 1
    return sl, sc, el, ec


def finding_text(f) -> str:
    """The message with the tokens and money the fault costs, as `check` prints it."""
    from promptlint.report.check_report import _cost

    return f"{f.message}{_cost(f)}"


def rule_help_uri(rule) -> str:
    return f"{RULES_DOC_URL}#{rule.id.lower()}-{rule.name}"


# -- fingerprints --------------------------------------------------------------


def _occurrence(text: str, needle: str, start: int) -> int:
    """How many times `needle` occurs in `text` before offset `start`."""
    count, at = 0, text.find(needle)
    while 0 <= at < start:
        count += 1
        at = text.find(needle, at + 1)
    return count


def fingerprints(findings, root: Path) -> list[str]:
    """One stable fingerprint per finding (see the module docstring)."""
    out, ordinals, seen = [], {}, {}
    for f in findings:
        path = display_path(f.span.file.path, root)
        source = f.span.source_text
        if source:
            context = "text\x00" + source
            index = _occurrence(f.span.file.text, source, f.span.start)
        else:
            context = "prompt\x00" + (f.prompt or "")
            key = (f.rule, path, context)
            index = ordinals[key] = ordinals.get(key, -1) + 1
        h = hashlib.sha256()
        for part in (f.rule, path, context, str(index)):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        digest = h.hexdigest()
        dup = seen.get(digest, 0)  # two findings on the same text (different messages): keep them apart
        seen[digest] = dup + 1
        out.append(digest if not dup else f"{digest}:{dup}")
    return out


# -- the log ---------------------------------------------------------------------


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _unwrap(text: str) -> str:
    """Catalogue prose is hard-wrapped: join the lines of each paragraph or
    list item, keep paragraph breaks and list items on lines of their own."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for raw in paragraph.splitlines():
            if lines and not _LIST_ITEM.match(raw):
                lines[-1] += " " + raw.strip()
            else:
                lines.append(raw.strip())
        out.append("\n".join(lines))
    return "\n\n".join(out)


def _clip(text: str, limit: int = MAX_DESCRIPTION) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _plain_message(text: str) -> str:
    """SARIF reads `[text](target)` in a message as a link; escape brackets when that could happen."""
    return re.sub(r"([\[\]])", r"\\\1", text) if "](" in text else text


def rule_descriptor(rule) -> dict:
    """The rule as a SARIF reportingDescriptor. help carries why it costs and
    the fix (and what it finds, when that is too long for fullDescription)."""
    what, why, fix = _unwrap(rule.what), _unwrap(rule.why), _unwrap(rule.fix)
    sections = [("What it finds", what)] if len(what) > MAX_DESCRIPTION else []
    sections += [("Why it costs", why), ("Fix", fix)]
    link = f"[{rule.id} {rule.name}]({rule_help_uri(rule)})"
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": _clip(rule.summary)},
        "fullDescription": {"text": _clip(what)},
        "help": {
            "text": "\n\n".join(f"{title}: {body}" for title, body in sections) + f"\n\n{rule_help_uri(rule)}",
            "markdown": "\n\n".join(f"## {title}\n\n{body}" for title, body in sections) + f"\n\n{link}",
        },
        "helpUri": rule_help_uri(rule),
        "defaultConfiguration": {"level": LEVEL[rule.severity.label]},
        "properties": {"tags": list(TAGS)},
    }


def _artifact(path: str | Path, root: Path) -> dict:
    rel = relative_path(path, root)
    if rel is not None:
        return {"uri": quote(rel, safe="/"), "uriBaseId": SRCROOT}
    p = Path(path)
    return {"uri": (p if p.is_absolute() else Path.cwd() / p).resolve().as_uri()}


def _selected_ids(result, rules) -> set[str] | None:
    chosen = rules if rules is not None else getattr(result, "rules", None)
    if chosen is None:
        return None
    return {getattr(r, "id", r) for r in chosen}


def to_sarif(result, rules=None, root: Path | None = None) -> dict:
    """The SARIF log for a CheckResult. `rules`: the selected rules (ids or
    catalogue Rules); by default `result.rules` if it has them, else every
    rule in the catalogue."""
    root = root or repo_root()
    known = catalogue.load()
    selected = _selected_ids(result, rules)
    wanted = set(known) if selected is None else selected
    wanted |= {f.rule for f in result.findings}
    ids = sorted(wanted)
    index = {rule_id: i for i, rule_id in enumerate(ids)}
    descriptors = [rule_descriptor(known[i]) if i in known else {"id": i} for i in ids]

    results = []
    for f, fingerprint in zip(result.findings, fingerprints(result.findings, root)):
        sl, sc, el, ec = region(f.span)
        results.append({
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVEL[f.severity.label],
            "message": {"text": _plain_message(finding_text(f))},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact(f.span.file.path, root),
                "region": {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec},
            }}],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
            "properties": {
                "tokens": f.tokens,
                "usd_per_month": round(f.usd_per_month, 6) if f.usd_per_month is not None else None,
                "model": f.model,
                "prompt": f.prompt,
                "fix": f.fix,
            },
        })

    notifications = [{
        "level": "error",
        "message": {"text": _plain_message(e.message)},
        "locations": [{"physicalLocation": {
            "artifactLocation": _artifact(e.path, root),
            "region": {"startLine": max(1, e.line), "startColumn": max(1, e.col)},
        }}],
    } for e in result.errors]

    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "promptlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": PROJECT_URL,
                "rules": descriptors,
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": not result.errors,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
            "properties": {"files": result.files, "prompts": result.prompts, "suppressed": result.suppressed},
        }],
    }
