"""Baselines, for adopting the linter on a repository that already has
findings: `check --write-baseline FILE` records today's findings by their
SARIF fingerprint (rule, path from the repository root, the finding's source
text and its occurrence: moving unrelated lines keeps it), and
`check --baseline FILE` reports only findings whose fingerprint is not in it.

The file is JSON, sorted, one entry per finding with the path, line and rule
beside the fingerprint for the reader (only the fingerprint is compared);
written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from promptlint.report import atomic_write
from promptlint.report.sarif import FINGERPRINT_KEY, display_path, fingerprints, repo_root

VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be used (the message names the file)."""


def write(path: Path, findings, root: Path | None = None) -> int:
    root = root or repo_root()
    entries = sorted(({"fingerprint": fp, "rule": f.rule, "path": display_path(f.span.file.path, root),
                       "line": f.line_col[0]} for f, fp in zip(findings, fingerprints(findings, root))),
                     key=lambda e: (e["path"], e["line"], e["rule"], e["fingerprint"]))
    body = {"version": VERSION, "fingerprint": FINGERPRINT_KEY, "findings": entries}
    atomic_write(path, json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    return len(entries)


def load(path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file (write one with --write-baseline {path})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: not a promptlint baseline ({exc})") from None
    if not isinstance(data, dict) or data.get("fingerprint") != FINGERPRINT_KEY or \
            not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a promptlint baseline of {FINGERPRINT_KEY} fingerprints "
                            "(write it again with --write-baseline)")
    if data.get("version") != VERSION:
        raise BaselineError(f"{path}: baseline version {data.get('version')!r}; this promptlint reads version "
                            f"{VERSION} (write it again with --write-baseline)")
    return {e["fingerprint"] for e in data["findings"] if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)}


def new_only(findings, known: set[str], root: Path | None = None) -> tuple[list, int]:
    """(findings not in the baseline, how many were in it)."""
    root = root or repo_root()
    kept = [f for f, fp in zip(findings, fingerprints(findings, root)) if fp not in known]
    return kept, len(findings) - len(kept)
