"""`promptlint diff`: what a change to the prompts does to the cacheable
prefix, the monthly cost and the findings, against a git revision
(`--base REF`) or an earlier JSON audit report (`--compare-to base.json`).

The base revision is read from git objects, never checked out: its prompt
files, the files they include and its .gitignore files are written into a
temporary directory with the repository's layout, and audited there (the
source readers resolve includes on disk). Both sides are audited and linted
with *today's* configuration (the one governing each path in the working
tree; its root is mapped into the base's copy, so includes that fall back to
the project root resolve against the base's files): the diff prices the
change to the prompt files under one set of assumptions (traffic, models,
variables, rule selection). A change to the configuration itself is not
priced; `--compare-to` a report written under the old configuration does
that, and the diff says when the two reports' traffic or provider tables
differ.

Exit codes: 0; 1 with --fail-on-increase when the monthly cost rises, or
over a --fail-above-usd / --fail-above-pct threshold; 2 on
bad input (not a git repository, unknown REF, a bad or unsupported report,
a bad config, a path in neither side, a working-tree file that cannot be read).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import click

from promptlint import gitfiles
from promptlint.commands.options import _jobs

EXIT_CLEAN, EXIT_INCREASE, EXIT_ERROR = 0, 1, 2


def _fail(message: str):
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _groups(paths: list[Path], config_path, providers):
    """Paths grouped by the config that governs them today (found upward from
    each path, or from its nearest existing folder when the working tree no
    longer has it), with the selected models."""
    from promptlint import config as config_mod
    from promptlint.economics.providers import select_models

    groups: dict = {}
    try:
        for path in paths:
            config = config_mod.load(_existing(path), config_path)
            key = config.path or config.root
            if key not in groups:
                groups[key] = (config, select_models(config, tuple(providers) or None), [])
            groups[key][2].append(path)
    except (config_mod.ConfigError, ValueError) as exc:
        _fail(str(exc))
    return list(groups.values())


def _audit(groups, *, lint: bool, display_root: Path | None = None, jobs: int = 1):
    """Audit (and lint) each group; the merged JSON report and the findings."""
    from promptlint.audit import AuditResult, merge_results, run_audit
    from promptlint.lint import merge_results as merge_checks
    from promptlint.lint import run_check
    from promptlint.report import json_report

    audits, checks = [], []
    for config, models, paths in groups:
        if not paths:
            audits.append(AuditResult(models=models))
            continue
        result = run_audit(paths, config, models, display_root=display_root, jobs=jobs)
        audits.append(result)
        if lint:
            checks.append(run_check(paths, config, models, audit=result))
    merged = merge_results(audits)
    report = json_report.build(merged, groups[0][0])
    findings = merge_checks(checks).findings if lint else None
    return report, findings, merged.errors


def _rebase(report: dict, fix) -> dict:
    """Every path in a JSON audit report passed through `fix`."""
    def loc(d):
        if isinstance(d, dict) and isinstance(d.get("path"), str):
            d["path"] = fix(d["path"])

    for p in report["prompts"]:
        p["path"] = fix(p["path"])
        loc(p.get("location"))
        if p.get("first_breaker"):
            loc(p["first_breaker"].get("location"))
        for t in p.get("tokenizers", {}).values():
            for b in (t.get("breakers") or {}).values():
                loc(b.get("location"))
    for e in report.get("errors", []):
        loc(e)
    return report


def audit_against_git(paths, groups, ref: str, lint_head: bool, jobs: int = 1):
    """The diff of the working tree against git revision `ref`: (Diff, the
    working tree's input errors, whether a path was missing on both sides).
    `lint_head`: also lint both sides and compare their findings."""
    from promptlint.diff import compare, finding_records

    cwd = Path.cwd().resolve()
    try:
        top = gitfiles.toplevel(cwd)
        commit = gitfiles.resolve_commit(top, ref)
    except gitfiles.GitError as exc:
        _fail(str(exc))
    targets: dict[Path, str] = {}
    for path in paths:
        try:
            targets[path] = Path(os.path.normpath(path.resolve())).relative_to(top).as_posix() or "."
        except ValueError:
            _fail(f"{path} is outside the git repository at {top}")
    cwd_rel = cwd.relative_to(top)

    def rel_root(config) -> str | None:
        try:
            return config.root.resolve().relative_to(top).as_posix()
        except ValueError:
            return None

    with tempfile.TemporaryDirectory(prefix="promptlint-diff-") as tmp:
        tree = Path(tmp).resolve() / "tree"
        include = tuple(p for config, _, _ in groups for p in config.include)
        roots = tuple(dict.fromkeys(r for config, _, _ in groups if (r := rel_root(config)) is not None))
        try:
            entries = gitfiles.materialise(top, commit, tree, [t if t != "." else "" for t in targets.values()],
                                           include, roots or ("",))
            renames = gitfiles.renames(top, commit)
        except gitfiles.GitError as exc:
            _fail(str(exc))
        known = set(entries)

        def at_base(rel: str) -> bool:
            return rel == "." or rel in known or any(k.startswith(rel.rstrip("/") + "/") for k in known)

        missing = [p for p in paths if not p.exists() and not at_base(targets[p])]
        for p in missing:
            click.echo(f"{p}:1:1: no such file or directory in the working tree or at {ref}", err=True)
        if missing and len(missing) == len(paths):
            sys.exit(EXIT_ERROR)
        base_groups = []
        head_groups = []
        for config, models, group_paths in groups:
            root = rel_root(config)
            base_config = replace(config, root=tree / root if root is not None else tree)
            base_paths = [tree / targets[p] for p in group_paths if at_base(targets[p])]
            base_groups.append((base_config, models, base_paths))
            head_groups.append((config, models, [p for p in group_paths if p.exists()]))
        base_report, base_findings, _ = _audit(base_groups, lint=lint_head, display_root=tree / cwd_rel, jobs=jobs)
        head_report, head_findings, head_errors = _audit(head_groups, lint=lint_head, jobs=jobs)

        def scrub(message: str) -> str:  # a path outside the working folder is shown absolute
            return message.replace(str(tree) + os.sep, "")

        _rebase(base_report, lambda d: gitfiles.repo_path(d, tree / cwd_rel, tree))
        _rebase(head_report, lambda d: gitfiles.repo_path(d, cwd, top))
        base_records = head_records = None  # findings are compared only where both sides were linted
        if lint_head:
            base_records = finding_records(base_findings, lambda d: gitfiles.repo_path(d, tree / cwd_rel, tree), scrub)
            head_records = finding_records(head_findings, lambda d: gitfiles.repo_path(d, cwd, top))
    diff = compare(base_report, head_report, base_label=f"{ref} ({commit[:7]})", base_kind="git",
                   renames=renames, base_findings=base_records, head_findings=head_records, base_commit=commit)
    return diff, head_errors, bool(missing)


def _from_report(paths, groups, report_path: Path, jobs: int = 1):
    from promptlint.diff import ReportError, compare, validate_report

    try:
        text = report_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {report_path}: {getattr(exc, 'strerror', None) or exc}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"{report_path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})")
    try:
        base_report = validate_report(data, str(report_path))
    except ReportError as exc:
        _fail(str(exc))
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        click.echo(f"{p}:1:1: no such file or directory", err=True)
    head_groups = [(c, m, [p for p in ps if p.exists()]) for c, m, ps in groups]
    head_report, _, head_errors = _audit(head_groups, lint=False, jobs=jobs)
    diff = compare(base_report, head_report, base_label=str(report_path), base_kind="report")
    return diff, head_errors, bool(missing)


@click.command("diff", short_help="Cost change against a base revision (for a PR comment).")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--base", "base_ref", metavar="REF",
              help="Git revision to compare the working tree with (read from git objects, no checkout).")
@click.option("--compare-to", "compare_to", type=click.Path(path_type=Path, dir_okay=False), metavar="REPORT",
              help="An earlier `promptlint audit --format json` report to compare with, instead of --base.")
@click.option("-p", "--provider", "providers", multiple=True, metavar="MODEL",
              help="Provider/model (repeatable); the first one is the diff's model.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Config file for both sides (default: found upward from each path in the working tree).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="markdown is the body of a pull-request comment (first line: <!-- promptlint-report -->).")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the diff to a file (atomically) instead of stdout.")
@click.option("--fail-on-increase", is_flag=True, help="Exit 1 when the monthly cost rises.")
@click.option("--fail-above-usd", type=click.FloatRange(min=0), metavar="USD",
              help="Exit 1 when the monthly cost rises by more than USD (the report says so).")
@click.option("--fail-above-pct", type=click.FloatRange(min=0), metavar="PCT",
              help="Exit 1 when the monthly cost rises by more than PCT percent of the base's (or from $0).")
@click.option("--min-change-usd", type=click.FloatRange(min=0), metavar="USD",
              help="A change under USD a month (and under --min-change-pct, if given) gets no comment: the "
                   "Markdown body says so, and `comment github` posts nothing and removes its earlier comment.")
@click.option("--min-change-pct", type=click.FloatRange(min=0), metavar="PCT",
              help="As --min-change-usd, in percent of the base's monthly cost.")
@_jobs
def diff(paths, base_ref, compare_to, providers, config_path, fmt, output, fail_on_increase, fail_above_usd,
         fail_above_pct, min_change_usd, min_change_pct, jobs):
    """Compare the working tree's audit with a base: stable prefix, cached
    tokens and $/month per prompt (first selected model), and the findings
    introduced and resolved. Both sides use today's config."""
    from promptlint.fsutil import atomic_write
    from promptlint.report.diff_report import render

    if (base_ref is None) == (compare_to is None):
        raise click.UsageError("give exactly one of --base REF or --compare-to REPORT")
    paths = list(paths) or [Path(".")]
    groups = _groups(paths, config_path, providers)
    if base_ref is not None:
        result, errors, missing = audit_against_git(paths, groups, base_ref, lint_head=True, jobs=jobs)
    else:
        result, errors, missing = _from_report(paths, groups, compare_to, jobs=jobs)
    for error in errors:
        click.echo(str(error), err=True)
    from promptlint.diff import Gates

    gates = Gates(fail_above_usd, fail_above_pct, min_change_usd, min_change_pct)
    if gates.given:
        result.gate = gates.verdict(result)
        for line in result.gate.failed:
            click.echo(f"promptlint diff: fails the cost gate: {line}", err=True)
        if result.gate.quiet_reason:
            click.echo(f"promptlint diff: {result.gate.quiet_reason}: no comment", err=True)
    text = render(result, fmt, [{"path": e.path, "line": e.line, "column": e.col, "message": e.message}
                                for e in errors])
    if output is not None:
        atomic_write(output, text, errors="backslashreplace")  # a report: a lone surrogate escaped
    else:
        sys.stdout.write(text)
    if missing or errors:
        sys.exit(EXIT_ERROR)
    if (fail_on_increase and result.cost_rises) or (result.gate is not None and result.gate.failed):
        sys.exit(EXIT_INCREASE)
    sys.exit(EXIT_CLEAN)
