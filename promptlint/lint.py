"""`promptlint check`: the audit's analysis, then the catalogue's rules,
rule selection, per-file ignores and suppression comments."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from promptlint import catalogue
from promptlint.audit import AuditResult, run_audit
from promptlint.checks import run_prompt_rules
from promptlint.checks.base import CheckContext, Finding
from promptlint.checks.pl007_unused_suppression import RULE as UNUSED_SUPPRESSION, unused_suppressions
from promptlint.config import Config
from promptlint.ir import SourceError, SourceFile
from promptlint import suppress

@dataclass
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    suppressed: int = 0
    files: int = 0
    prompts: int = 0
    rules: list = field(default_factory=list)  # the catalogue rules that were run
    notes: list[str] = field(default_factory=list)  # why each file was read or skipped (-v)
    missing: int = 0  # named paths that do not exist (the command line reports each)
    baselined: int = 0  # findings left out because --baseline lists them


def _matches(code: str, patterns) -> bool:
    """ruff-style selectors: a full code, a prefix (PL00), or ALL."""
    return any(p == "ALL" or code.startswith(p) for p in patterns)


def selected_rules(config: Config, select=None, ignore=None) -> list[catalogue.Rule]:
    rules = catalogue.load()
    chosen = [r for r in rules.values() if _matches(r.id, select or config.select or ("ALL",))]
    ignored = tuple(ignore or ()) + tuple(config.ignore)
    return [r for r in chosen if not _matches(r.id, ignored)]


def _per_file_ignored(finding: Finding, config: Config) -> bool:
    for pattern, codes in config.per_file_ignores.items():
        if pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(finding.path) and _matches(finding.rule, codes):
            return True
    return False


def run_check(paths: list[Path], config: Config, models, select=None, ignore=None,
              audit: AuditResult | None = None) -> CheckResult:
    """`audit`: the run_audit result for these paths when the caller has it
    already (`promptlint diff` audits and lints each side once)."""
    rules = selected_rules(config, select, ignore)
    if audit is None:
        audit = run_audit(paths, config, models)
    result = CheckResult(errors=list(audit.errors), files=audit.files, prompts=len(audit.prompts), rules=rules,
                         notes=list(audit.notes))
    findings: list[Finding] = []
    files: dict[str, SourceFile] = {}
    for prompt in audit.prompts:
        ctx = CheckContext(prompt.template, prompt, config)
        findings.extend(run_prompt_rules(ctx, rules))
        files.setdefault(prompt.template.source.display_path, prompt.template.source)
        for _, part, _ in prompt.template.iter_parts():
            span = getattr(part, "span", None)
            if span is not None:
                files.setdefault(span.file.display_path, span.file)
    findings = [f for f in _one_per_place(findings) if not _per_file_ignored(f, config)]
    kept, suppressed, directives = suppress.apply(findings, files)
    result.suppressed = len(suppressed)
    rule_ids = {r.id for r in rules}
    if UNUSED_SUPPRESSION in rule_ids:
        kept.extend(f for f in unused_suppressions(directives, rule_ids) if not _per_file_ignored(f, config))
    result.findings = sorted(kept, key=Finding.sort_key)
    return result


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and source position: a slot that two prompts
    reach (a builder also inlined at a call, a partial two templates include)
    is reported once, with the most tokens at stake."""
    best: dict[tuple, Finding] = {}
    for f in findings:
        key = (f.rule, f.path, f.line_col)
        kept = best.get(key)
        if kept is None or (f.tokens or 0) > (kept.tokens or 0):
            best[key] = f
    return list(best.values())


def merge_results(results: list[CheckResult]) -> CheckResult:
    """One result from runs under different configs."""
    merged = CheckResult()
    for r in results:
        merged.findings += r.findings
        merged.errors += r.errors
        merged.suppressed += r.suppressed
        merged.files += r.files
        merged.prompts += r.prompts
        merged.notes += r.notes
        merged.rules += [rule for rule in r.rules if rule not in merged.rules]
    merged.findings.sort(key=Finding.sort_key)
    return merged
