"""`promptlint fix`: apply the edits findings carry, file by file, and keep a
change only if the result still parses and no longer raises what it fixed.

Edits are applied to the text as read (so encoding, BOM and line endings are
kept) from the end of the file backwards; overlapping edits are left for the
next run. Writes are atomic. Running fix twice changes nothing the second
time, because a fixed file no longer has the finding.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from promptlint import sources
from promptlint.audit import audit_template, source_context
from promptlint.checks import run_prompt_rules
from promptlint.checks.base import CheckContext, Finding
from promptlint.discover import format_for
from promptlint.fsutil import atomic_write_bytes, within
from promptlint.ir import SourceError, SourceFile
from promptlint.lint import CheckResult, run_check, selected_rules


@dataclass
class FileFix:
    path: Path
    display: str
    before: str
    after: str
    fixed: list[Finding] = field(default_factory=list)
    skipped: str | None = None  # why the file was left untouched

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True),
                                            self.after.splitlines(keepends=True),
                                            f"a/{self.display}", f"b/{self.display}"))


@dataclass
class FixResult:
    check: CheckResult
    files: list[FileFix] = field(default_factory=list)
    # findings left once the fixes are written, from a fresh check (a fix can
    # reveal a finding of another rule); None when nothing was written (--diff)
    remaining: int | None = None

    @property
    def fixed(self) -> int:
        return sum(len(f.fixed) for f in self.files if f.skipped is None)

    def unfixable(self, unsafe: bool) -> list[Finding]:
        """Findings with a fix in words but none this run applies (no edit that
        is mechanical and safe): each is said, with why, instead of silence."""
        return [f for f in self.check.findings if f.fix and (not f.edits or f.unsafe and not unsafe)]

    @staticmethod
    def why_not(finding: Finding, unsafe: bool) -> str:
        if finding.gated == "timestamp-precision":
            return (f"a safe fix exists once the day is precise enough: set {GATES['timestamp-precision']} "
                    f"(the text then changes once a day); otherwise {finding.fix}")
        if finding.edits and finding.unsafe and not unsafe:
            return f"its fix may change what the prompt says (--unsafe-fixes applies it): {finding.fix}"
        return f"no automatic fix; {finding.fix}"

    def gated(self, unsafe: bool) -> dict[str, int]:
        """Findings left for want of a flag or a setting, by what enables their fix."""
        out: dict[str, int] = {}
        for f in self.unfixable(unsafe):
            key = GATES[f.gated] if f.gated else "--unsafe-fixes" if f.edits and f.unsafe else None
            if key:
                out[key] = out.get(key, 0) + 1
        return out


# What enables a fix a run does not apply, as the user writes it.
GATES = {"timestamp-precision": '[tool.promptlint.fix] timestamp-precision = "day"'}


def _apply(text: str, findings: list[Finding]) -> tuple[str, list[Finding]]:
    """Apply non-overlapping edits from the end backwards."""
    # from the end backwards; of two insertions at one place the later comes
    # first, so they end up in the order of their findings
    numbered = [(e, f, n) for n, (e, f) in enumerate((e, f) for f in findings for e in f.edits)]
    edits = sorted(numbered, key=lambda efn: (efn[0].span.start, efn[2]), reverse=True)
    applied: list[Finding] = []
    limit = len(text) + 1
    for edit, finding, _ in edits:
        if edit.span.end > limit:
            continue  # overlaps an edit already applied: next run
        if text[edit.span.start:edit.span.end] != edit.span.source_text:
            continue
        text = text[:edit.span.start] + edit.text + text[edit.span.end:]
        limit = edit.span.start
        if finding not in applied:
            applied.append(finding)
    return text, applied


def _still_raised(path: Path, text: str, fixed: list[Finding], config, models) -> str | None:
    """Re-read the fixed text with its source reader and re-run the rules;
    None when it parses and the fixed findings are gone, else the reason."""
    ctx = source_context(config)
    fmt = format_for(path) or "text"
    file = SourceFile(path, text, ctx.display_path(path))
    try:
        templates = sources.parse(file, fmt, ctx)
    except SourceError as exc:
        return f"the fixed file would not parse: {exc.message} (line {exc.line})"
    rules = [r for r in selected_rules(config) if r.id in {f.rule for f in fixed}]
    remaining = []
    for template in templates:
        result = audit_template(template, models, config)
        remaining += run_prompt_rules(CheckContext(template, result, config), rules)
    before = {(f.rule, f.message.split(":", 1)[0]) for f in fixed}
    still = [f for f in remaining if (f.rule, f.message.split(":", 1)[0]) in before]
    if still:
        return f"the fix did not clear {still[0].rule} at line {still[0].line_col[0]}"
    return None


def _outside(path: Path, named: list[Path], config) -> str | None:
    """Why `path` may not be written: a file (or a link's target) outside
    the project root and the paths the command named. None when it may."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return "the file cannot be resolved (a link that leads nowhere or loops): not written"
    bases = [Path(config.root).resolve()]
    for p in named:  # a folder named on the command line; a file named as itself, not through a link
        try:
            if p.is_dir() or (p.is_file() and not p.is_symlink()):
                bases.append(p.resolve())
        except (OSError, RuntimeError):
            continue
    if within(target, bases):
        return None
    how = "a link to a file" if path.is_symlink() else "a file"
    return f"{how} outside the project ({target}): not written"


def run_fix(paths: list[Path], config, models, *, unsafe: bool = False, write: bool = True,
            select=None, ignore=None, jobs: int = 1) -> FixResult:
    check = run_check(paths, config, models, select=select, ignore=ignore, jobs=jobs)
    result = FixResult(check)
    by_file: dict[Path, list[Finding]] = {}
    for finding in check.findings:
        if finding.edits and (unsafe or not finding.unsafe):
            by_file.setdefault(finding.span.file.path, []).append(finding)
    for path, findings in by_file.items():
        raw = path.read_bytes()
        bom = raw.startswith(b"\xef\xbb\xbf")
        before = raw.decode("utf-8-sig")
        after, applied = _apply(before, findings)
        fix = FileFix(path, findings[0].path, before, after, applied)
        if after == before:
            continue
        fix.skipped = _outside(path, paths, config) or _still_raised(path, after, applied, config, models)
        if fix.skipped is None and write:
            atomic_write_bytes(path, (b"\xef\xbb\xbf" if bom else b"") + after.encode("utf-8"))
        result.files.append(fix)
    if write:
        written = any(f.skipped is None for f in result.files)
        after = run_check(paths, config, models, select=select, ignore=ignore, jobs=jobs) if written else check
        result.remaining = len(after.findings)
    return result
