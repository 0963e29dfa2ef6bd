"""What the analysing commands share: the inputs and reporting options,
grouping paths by their config, reading `-` from stdin, the "no prompt
files" warning, -v notes, rule selectors and the progress bar."""

from __future__ import annotations

import sys
from pathlib import Path

import click

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _prepare(paths, config_path, providers):
    """Group the paths that exist by the config that governs them (found
    upward from each path, unless --config names one) and pick the models.
    Missing paths are reported; a bad config or an unknown model exits 2.
    Returns (groups of (config, models, paths), how many paths were missing)."""
    from promptlint import config as config_mod
    from promptlint.economics.providers import select_models

    from promptlint.stdin_text import exists

    paths = list(paths) or [Path(".")]
    missing = [p for p in paths if not exists(p)]
    for p in missing:
        click.echo(f"{p}:1:1: no such file or directory", err=True)
    groups: dict = {}
    config = None
    try:
        for path in (p for p in paths if exists(p)):
            config = config_mod.load(path, config_path)
            key = config.path or config.root
            if key not in groups:
                groups[key] = (config, select_models(config, tuple(providers) or None), [])
            groups[key][2].append(path)
    except config_mod.ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except ValueError as exc:  # the model table with the config's overrides: name the file it came from
        where = f"{config.path}: models: " if config is not None and config.path is not None and config.models else ""
        click.echo(f"error: {where}{' '.join(str(exc).split())}", err=True)
        sys.exit(EXIT_ERROR)
    if not groups:  # nothing exists: still a valid (empty) run under the cwd's config
        config = config_mod.load(Path("."), config_path)
        groups[None] = (config, select_models(config, tuple(providers) or None), [])
    return list(groups.values()), len(missing)


def _apply(f, options):
    for option in reversed(options):
        f = option(f)
    return f


def _inputs(f):
    """What to read and how: paths, models, config (every analysing command)."""
    return _apply(f, [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option("-p", "--provider", "providers", multiple=True, metavar="MODEL",
                     help="Provider/model to estimate for (repeatable), e.g. openai/gpt-4.1, claude-sonnet-4.5."),
        click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
                     help="Config file (default: promptlint.toml or [tool.promptlint] in pyproject.toml, "
                          "found upward)."),
    ])


def _jobs(f):
    """-j/--jobs: files analysed in N processes."""
    return click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
                        help="Analyse files in N processes (0: one per core); the report is the same for any N.")(f)


def _common(f):
    """Options of the reporting commands: the inputs, an output file, --exit-zero."""
    return _apply(_inputs(f), [
        click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
                     help="Write the report to a file (atomically) instead of stdout."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings."),
    ])



def _stdin_paths(paths, stdin_filename):
    """`-` reads the file's text from standard input, reported as --stdin-filename."""
    if Path("-") not in paths:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename goes with `-` as the path")
        return paths
    if stdin_filename is None:
        raise click.UsageError("`-` reads standard input: name the file it stands for with --stdin-filename")
    from promptlint.stdin_text import provide

    provide(stdin_filename, sys.stdin.buffer.read())
    return [stdin_filename if p == Path("-") else p for p in paths]


def _nothing_found(result, paths) -> bool:
    """No named path yielded a prompt file: a warning that says how prompt
    files are found. True (exit 2: a run that read nothing checked nothing)
    when the paths are folders; files named one by one that are not prompts
    (pre-commit passes every text file it stages) are skipped, exit 0."""
    if result.files or result.errors:
        return False
    from promptlint.stdin_text import exists

    existing = [Path(p) for p in (paths or [Path(".")]) if exists(Path(p))]
    if not existing:
        return False  # each missing path was reported already
    click.echo(f"warning: no prompt files found in {', '.join(map(str, existing))}: promptlint reads {_FOUND_BY}; "
               "`-v` says why each file was skipped, [tool.promptlint] include adds others", err=True)
    return all(p.is_dir() for p in existing)


_FOUND_BY = ("*.j2, *.jinja, *.prompty, *.prompt, *.prompt.md, *.messages.json/yaml, Python that builds prompts, "
             "and Markdown, text, YAML and JSON that read as prompts (by name, folder or content)")


def _said(result, missing: int, paths, verbose: bool) -> bool:
    """What a run says on stderr before its report: -v notes, input errors,
    the "no prompt files" warning. True when nothing was found in folders
    (exit 2)."""
    result.missing = missing
    _notes(result.notes, verbose)
    for error in result.errors:
        click.echo(str(error), err=True)
    return _nothing_found(result, paths)


def _notes(notes: list[str], verbose: bool) -> None:
    """-v: why each file was read or skipped, and what the readers did not follow;
    what was left unanalysed (a limit reached) is said in any case."""
    from promptlint.sources.base import Incomplete

    for note in notes:
        if isinstance(note, Incomplete):
            click.echo(f"info: {note}", err=True)
        elif verbose:
            click.echo(f"note: {note}", err=True)


def _codes(values, option: str = "--select") -> tuple[str, ...]:
    """Rule selectors from the command line; a typo is a usage error (exit 2), never a run of no rule."""
    from promptlint.config import selector_problem

    codes = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    problems = [p for p in map(selector_problem, codes) if p]
    if problems:
        raise click.BadParameter("; ".join(problems), param_hint=f"'{option}'")
    return codes



PROGRESS_MIN_FILES = 25  # below this a run is over before a bar would help


def _run_with_progress(paths, config, models, fmt, jobs: int = 1):
    """A progress bar on stderr for large trees in a terminal (started only
    once the tree turns out to have PROGRESS_MIN_FILES files or more)."""
    from promptlint.audit import run_audit

    if not sys.stderr.isatty() or fmt == "json":
        return run_audit(paths, config, models, jobs=jobs)
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(transient=True, console=Console(stderr=True))
    task = None

    def tick(done: int, total: int):
        nonlocal task
        if total < PROGRESS_MIN_FILES:
            return
        if task is None:
            bar.start()
            task = bar.add_task("auditing", total=total)
        bar.update(task, completed=done)

    try:
        return run_audit(paths, config, models, progress=tick, jobs=jobs)
    finally:
        bar.stop()
