"""`promptlint check`: the audit's analysis, then the catalogue's rules,
rule selection, per-file ignores and suppression comments."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pathspec

from promptlint import catalogue
from promptlint import stdin_text
from promptlint.checks.base import Finding
from promptlint.checks.pl007_unused_suppression import RULE as UNUSED_SUPPRESSION, unused_suppressions
from promptlint.checks.pl009_locked_prefix_changed import RULE as LOCKED_PREFIX
from promptlint.config import Config
from promptlint.discover import Candidate, find_candidates
from promptlint.ir import SourceError, SourceFile
from promptlint.result_cache import FileResult, ResultCache

if TYPE_CHECKING:  # the analysis is imported where a file is analysed: a run served by the cache never loads it
    from promptlint.audit import AuditResult
    from promptlint.sources.base import SourceContext
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
    older: int = 0  # findings left out by --since: on lines the change did not touch
    since: str | None = None  # the --since revision


def _matches(code: str, patterns) -> bool:
    """ruff-style selectors: a full code, a prefix (PL00), or ALL."""
    return any(p == "ALL" or code.startswith(p) for p in patterns)


def selected_rules(config: Config, select=None, ignore=None) -> list[catalogue.Rule]:
    rules = catalogue.load()
    chosen = [r for r in rules.values() if _matches(r.id, select or config.select or ("ALL",))]
    ignored = tuple(ignore or ()) + tuple(config.ignore)
    return [r for r in chosen if not _matches(r.id, ignored)]


def per_file_ignored(finding: Finding, config: Config) -> bool:
    for pattern, codes in config.per_file_ignores.items():
        if pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(finding.path) and _matches(finding.rule, codes):
            return True
    return False


def run_check(paths: list[Path], config: Config, models, select=None, ignore=None,
              audit: AuditResult | None = None, cache: "ResultCache | bool | None" = None,
              display_root: Path | None = None, jobs: int = 1, locked=None) -> CheckResult:
    """`audit`: the run_audit result for these paths when the caller has it
    already (`promptlint diff` audits and lints each side once). `cache`:
    a ResultCache, or True for the default one (see result_cache). `jobs`:
    processes to analyse the files in (0: one per core). `locked`: (the
    lock, its folder) to compare the audit's prompts with (PL009, `check
    --locked`); its findings are suppressed and ignored as any other."""
    rules = selected_rules(config, select, ignore)
    findings: list[Finding] = []
    files: dict[str, SourceFile] = {}
    if audit is not None:
        from promptlint.checks import run_prompt_rules
        from promptlint.checks.base import CheckContext

        result = CheckResult(errors=list(audit.errors), files=audit.files, prompts=len(audit.prompts), rules=rules,
                             notes=list(audit.notes))
        for prompt in audit.prompts:
            findings.extend(run_prompt_rules(CheckContext(prompt.template, prompt, config), rules))
            for f in _prompt_files(prompt.template):
                files.setdefault(f.display_path, f)
    else:
        result = CheckResult(rules=rules)
        candidates = find_candidates(paths, config, result.notes, display_root)
        result.files = len(candidates)
        if stdin_text.any_provided():
            cache = None  # text from standard input is not what the disk holds
        elif cache is True:
            cache = ResultCache.for_run(None, config, models, rules, display_root)
        reused = [cache.get(c.path) if cache else None for c in candidates]
        todo = [c for c, r in zip(candidates, reused) if r is None]
        fresh = iter(check_files(todo, config, models, rules, display_root, jobs))
        for candidate, found in zip(candidates, reused):
            if found is None:
                found = next(fresh)
                if cache:
                    cache.put(candidate.path, found)
            findings += found.findings
            result.errors += found.errors
            result.notes += found.notes
            result.prompts += found.prompts
            for f in found.files:
                files.setdefault(f.display_path, f)
        if cache and candidates:
            result.notes.append(f"result cache: {cache.hits:,} of {len(candidates):,} files unchanged since an "
                                f"earlier run, reused ({cache.folder})")
    rule_ids = {r.id for r in rules}
    findings = _one_per_place(findings)
    if locked is not None and audit is not None and LOCKED_PREFIX in rule_ids:
        from promptlint.checks.pl009_locked_prefix_changed import locked_findings

        findings += locked_findings(locked[0], audit.prompts, locked[1])  # one per prompt: each has its entry
    elif LOCKED_PREFIX in rule_ids:
        rule_ids.discard(LOCKED_PREFIX)  # no lock to compare with: its suppressions are not "unused"
    findings = [f for f in findings if not per_file_ignored(f, config)]
    kept, suppressed, directives = suppress.apply(findings, files)
    result.suppressed = len(suppressed)
    if UNUSED_SUPPRESSION in rule_ids:
        kept.extend(f for f in unused_suppressions(directives, rule_ids) if not per_file_ignored(f, config))
    result.findings = sorted(kept, key=Finding.sort_key)
    return result


def check_files(candidates: list[Candidate], config: Config, models, rules, display_root: Path | None,
                jobs: int = 1) -> list[FileResult]:
    """check_file for each candidate, in order, in `jobs` processes (see parallel)."""
    if not candidates:
        return []
    from promptlint.parallel import map_files

    return list(map_files(check_file, candidates, config, models, rules, display_root, jobs))


def check_file(candidate: Candidate, ctx: SourceContext, config: Config, models, rules) -> FileResult:
    """One file's prompts, audited and linted, with what the result depends on."""
    from promptlint.audit import audit_template, internal_error, load_file
    from promptlint.checks import run_prompt_rules
    from promptlint.checks.base import CheckContext

    out = FileResult()
    ctx.deps, ctx.absent, ctx.trees = set(), set(), set()
    for template in load_file(candidate, ctx, out.errors, out.notes):
        out.prompts += 1
        try:
            prompt = audit_template(template, config=config, models=models)
        except Exception as exc:  # noqa: BLE001 - one prompt's bug must not stop the run
            out.errors.append(internal_error(template.source.display_path, f"auditing {template.name} of", exc))
            continue
        out.findings.extend(run_prompt_rules(CheckContext(template, prompt, config), rules))
        for f in _prompt_files(template):
            if f not in out.files:
                out.files.append(f)
    out.deps = {Path(p).resolve() for p in ctx.deps} | {f.path.resolve() for f in out.files}
    project = ctx.shared.get("python.project")
    if project is not None:
        out.deps |= project.depended_on(out.deps)
    out.absent = {Path(p) for p in ctx.absent}
    out.trees = {Path(p) for p in ctx.trees}
    return out


def _prompt_files(template) -> list[SourceFile]:
    """The files a prompt's text comes from: its own, and those of its parts."""
    out = [template.source]
    for _, part, _ in template.iter_parts():
        span = getattr(part, "span", None)
        if span is not None and span.file not in out:
            out.append(span.file)
    return out


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
