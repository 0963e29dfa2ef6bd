"""`promptlint lock`: write promptlint.lock, the stable prefix of every
prompt; `lock --check` fails when it is out of date (for CI), and `check
--locked` reports each prompt whose stable prefix it no longer matches
(PL009).

Exit codes: 0 written, or up to date; 1 out of date (`--check`); 2 on bad
input (an unreadable prompt or lock), after the rest has run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from promptlint.commands.options import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, _inputs, _jobs, _prepare, _said


def lock_path(option: Path | None, config) -> Path:
    """--lock-file, else promptlint.lock beside the config (else in the
    current folder), relative to here when below it (as messages show it)."""
    from promptlint.lockfile import LOCK_NAME

    return option if option is not None else Path(shown(Path(config.root) / LOCK_NAME))


def shown(path: Path) -> str:
    """The lock's path as the user reads it: relative to here when below it."""
    import os

    try:
        return os.path.relpath(path) if path.resolve().is_relative_to(Path.cwd().resolve()) else str(path)
    except (OSError, ValueError):
        return str(path)


def audit_for_lock(paths, config_path, providers, jobs):
    """(the audit of PATHS, the lock's default folder's config, how many paths were missing)."""
    from promptlint.audit import merge_results, run_audit

    groups, missing = _prepare(paths, config_path, providers)
    result = merge_results([run_audit(p, c, m, jobs=jobs) for c, m, p in groups])
    return result, groups[0][0], missing


@click.command(short_help="Write promptlint.lock: each prompt's stable prefix.")
@_inputs
@click.option("--lock-file", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="The lock to write or check (default: promptlint.lock beside the config file, else here).")
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing: exit 1, with a line per prompt, when the lock is out of date (for CI).")
@click.option("-v", "--verbose", is_flag=True, help="Say on stderr why each file was read or skipped.")
@_jobs
def lock(paths, providers, config_path, lock_file, check_only, verbose, jobs):
    """Write promptlint.lock: per prompt and tokenizer, the stable prefix at each scope (its tokens' count and
    hashes) and the tokens each model caches. `check --locked` then fails on a prompt whose stable prefix
    changed or shrank without the lock being updated. Given PATHS narrower than the lock, their prompts are
    written again and the other entries kept."""
    from promptlint import lockfile
    from promptlint.fsutil import atomic_write
    from promptlint.report.words import plural

    result, config, missing = audit_for_lock(paths, config_path, providers, jobs)
    nothing = _said(result, missing, paths, verbose)
    target = lock_path(lock_file, config)
    current = lockfile.snapshot(result.prompts, target.parent)
    scanned = [lockfile.relative(p, target.parent) for p in (list(paths) or [Path(".")])]
    failed = bool(missing or result.errors or nothing)
    locked = None
    if check_only or target.exists():
        try:
            locked = lockfile.read(target)
        except lockfile.LockError as exc:  # never overwritten unread: it may be a newer promptlint's
            hint = "" if check_only else f" (delete {shown(target)} to write a new one)"
            click.echo(f"error: {exc}{hint}", err=True)
            sys.exit(EXIT_ERROR)
    if check_only:
        stale = lockfile.stale(locked, current, scanned)
        for line in stale:
            click.echo(f"{shown(target)}: {line}")
        if failed:
            sys.exit(EXIT_ERROR)
        if stale:
            click.echo(f"{shown(target)} is out of date for {plural(len(stale), 'prompt')}: "
                       "run `promptlint lock`.")
            sys.exit(EXIT_FINDINGS)
        click.echo(f"{shown(target)} is up to date ({len(current.prompts):,} prompts).")
        sys.exit(EXIT_CLEAN)
    if failed:  # a prompt that could not be read would drop out of the lock: write nothing
        why = "no prompt found" if nothing and not result.errors else "fix the errors above first"
        click.echo(f"error: {shown(target)} not written: {why}", err=True)
        sys.exit(EXIT_ERROR)
    written = lockfile.merged(locked, current, scanned) if locked is not None else current
    atomic_write(target, lockfile.dumps(written))
    kept = len(written.prompts) - len(current.prompts)
    click.echo(f"Wrote {shown(target)}: {plural(len(current.prompts), 'prompt')}"
               + (f" (and {kept:,} kept from outside {', '.join(map(str, paths))})." if kept else "."))
    sys.exit(EXIT_CLEAN)
