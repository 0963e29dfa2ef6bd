"""`promptlint check`: lint prompt files for cache breakers (pre-commit, CI)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from promptlint.commands.options import (
    EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, _codes, _common, _jobs, _prepare, _said, _stdin_paths,
)


@click.command(short_help="Lint prompt files for cache breakers (pre-commit, CI).")
@_common
@click.option("--output-format", "--format", "fmt",
              type=click.Choice(["auto", "concise", "full", "text", "json", "json-lines", "sarif", "github", "gitlab",
                                 "junit"]),
              default="auto", show_default=True,
              help="Output format (--format is an alias): auto is github (workflow commands) inside GitHub "
                   "Actions, else concise, coloured in a terminal; full adds the source line, a caret and the "
                   "fix; json-lines is one finding per line; sarif is SARIF 2.1.0 for code scanning; github also "
                   "appends a job summary to $GITHUB_STEP_SUMMARY; gitlab is GitLab's Code Quality report; junit is "
                   "JUnit XML. text is concise.")
@click.option("--stdin-filename", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="With `-` as the path: read the file's text from standard input, reported as PATH (for editors).")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only, without the summary line.")
@click.option("--show-info", is_flag=True,
              help="List info findings too (they are always counted; --fail-on info lists them as well).")
@click.option("--show-fixes", is_flag=True,
              help="Mark findings `promptlint fix` can fix ([*] safe, [unsafe fix] with --unsafe-fixes) and count them.")
@click.option("--statistics", "stats", is_flag=True, help="Print the number of findings per rule instead of each.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the terminal output; auto follows NO_COLOR and FORCE_COLOR, then whether stdout "
                   "is a terminal.")
@click.option("--select", "select", multiple=True, metavar="CODE",
              help="Only these rules (codes or prefixes, repeatable or comma-separated); overrides config.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODE",
              help="Skip these rules (codes or prefixes), on top of config.")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="Report only findings not recorded in this baseline (see --write-baseline).")
@click.option("--write-baseline", "write_baseline", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="Record today's findings in FILE (by stable fingerprint) and exit 0; later runs with "
                   "--baseline FILE report only new ones.")
@click.option("--locked", is_flag=True,
              help="Also fail on each prompt whose stable prefix no longer matches promptlint.lock (PL009; "
                   "`promptlint lock` writes it).")
@click.option("--lock-file", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="With --locked: the lock to compare with (default: promptlint.lock beside the config file).")
@click.option("--since", "since_ref", metavar="REF",
              help="Report only findings on lines changed since git revision REF (renames followed), and those of "
                   "prompts whose stable prefix the change shrank (an include edited elsewhere).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default=None,
              help="Lowest severity that makes the exit code 1 [default: warning, or fail-on in config].")
@click.option("-v", "--verbose", is_flag=True,
              help="Also say on stderr why each file was read or skipped, and what a reader did not follow.")
@_jobs
@click.option("--no-cache", is_flag=True, envvar="PROMPTLINT_NO_CACHE",
              help="Analyse every file again instead of reusing the results of an earlier run for files that "
                   "(with everything they include or import) have not changed [env: PROMPTLINT_NO_CACHE=1].")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help="Where to keep the result cache [default: $PROMPTLINT_CACHE_DIR/results, else "
                   "~/.cache/promptlint/results]. Deleting it is always safe.")
def check(stdin_filename, **options):
    """Lint prompt files: each finding as path:line:col: PLxxx message, with what it costs."""
    from promptlint import stdin_text

    options["paths"] = _stdin_paths(options["paths"], stdin_filename)
    try:
        _check(**options)
    finally:
        stdin_text.clear()


def _check(paths, providers, config_path, output, exit_zero, fmt, quiet, show_info, show_fixes, stats, color, select,
           ignore, baseline_path, write_baseline, locked, lock_file, since_ref, fail_on, verbose, jobs, no_cache,
           cache_dir):
    from promptlint.checks.base import Severity
    from promptlint.lint import run_check
    from promptlint.report.check_report import write_check_report

    from promptlint.lint import merge_results

    select, ignore = _codes(select), _codes(ignore, "--ignore")
    groups, missing = _prepare(paths, config_path, providers)
    if locked:
        result = _check_locked(groups, lock_file, select, ignore, jobs)
    else:
        result = merge_results([run_check(p, c, m, select=select or None, ignore=ignore, jobs=jobs,
                                          cache=_cache(c, m, select, ignore, no_cache, cache_dir))
                                for c, m, p in groups])
    config = groups[0][0]
    if since_ref is not None:
        _keep_since(result, groups, paths, since_ref, jobs)
    nothing = _said(result, missing, paths, verbose)
    if write_baseline is not None:
        from promptlint.report import baseline

        n = baseline.write(write_baseline, result.findings)
        click.echo(f"Wrote {n:,} finding{'s' if n != 1 else ''} to {write_baseline}: `promptlint check "
                   f"--baseline {write_baseline}` reports only new ones.")
        sys.exit(EXIT_ERROR if missing or result.errors or nothing else EXIT_CLEAN)
    if baseline_path is not None:
        from promptlint.report import baseline

        try:
            known = baseline.load(baseline_path)
        except baseline.BaselineError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        result.findings, result.baselined = baseline.new_only(result.findings, known)
    threshold = Severity.parse(fail_on or config.fail_on)
    write_check_report(result, fmt, output, quiet=quiet, stats=stats, color=color,
                       show_info=show_info or threshold.label == "info", show_fixes=show_fixes,
                       fail_on=threshold.label)
    if missing or result.errors or nothing:
        sys.exit(EXIT_ERROR)
    if not exit_zero and any(f.severity >= threshold for f in result.findings):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _keep_since(result, groups, paths, ref: str, jobs) -> None:
    """--since: drop the findings the change did not introduce (counted)."""
    from promptlint import gitfiles
    from promptlint.since import since_filter

    try:
        keep = since_filter(list(paths) or [Path(".")], groups, ref, jobs)
    except gitfiles.GitError as exc:
        click.echo(f"error: --since {ref}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    kept = [f for f in result.findings if keep.keeps(f)]
    result.older, result.since = len(result.findings) - len(kept), ref
    result.findings = kept


def _check_locked(groups, lock_file, select, ignore, jobs):
    """--locked: each group audited once and its rules, PL009 against
    promptlint.lock among them, run on that audit (the result cache keeps
    findings, not the analyses the lock is compared with). An unreadable
    lock is an error, exit 2."""
    from promptlint import lockfile
    from promptlint.audit import run_audit
    from promptlint.checks.pl009_locked_prefix_changed import RULE
    from promptlint.commands.lock import lock_path
    from promptlint.lint import merge_results, run_check, selected_rules

    config = groups[0][0]
    locked = None
    if RULE in {r.id for r in selected_rules(config, select or None, ignore)}:
        target = lock_path(lock_file, config)
        try:
            locked = (lockfile.read(target), target.parent)
        except lockfile.LockError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
    results = []
    for group_config, models, paths in groups:
        results.append(run_check(paths, group_config, models, select=select or None, ignore=ignore,
                                 audit=run_audit(paths, group_config, models, jobs=jobs), locked=locked))
    return merge_results(results)


def _cache(config, models, select, ignore, no_cache: bool, cache_dir: Path | None):
    """The result cache for one config's files, None with --no-cache."""
    if no_cache:
        return None
    from promptlint.lint import selected_rules
    from promptlint.result_cache import ResultCache

    return ResultCache.for_run(cache_dir, config, models, selected_rules(config, select or None, ignore), None)
