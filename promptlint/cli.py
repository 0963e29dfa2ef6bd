"""The `promptlint` command. Imports stay light here: each command imports
what it needs when it runs, and nothing on the lint path imports torch or
transformers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from promptlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Group(click.Group):
    """Usage errors exit 2, as linters do (click already uses 2)."""


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptlint")
def main() -> None:
    """Find prompt layouts that throw away the provider's prefix cache, and what they cost."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json"]), default="auto",
              show_default=True, help="Report format; auto is a rich table in a terminal, plain text otherwise.")
@click.option("-p", "--provider", "providers", multiple=True, metavar="MODEL",
              help="Provider/model to estimate for (repeatable), e.g. openai/gpt-4.1, claude-sonnet-4.5.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Config file (default: promptlint.toml or [tool.promptlint] in pyproject.toml, found upward).")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to a file (atomically) instead of stdout.")
@click.option("-v", "--verbose", is_flag=True, help="Show every formula's inputs.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when cache breakers are found.")
def audit(paths, fmt, providers, config_path, output, verbose, exit_zero):
    """Audit prompt files: tokens, stable prefix, what each provider caches, and the money."""
    from promptlint import config as config_mod
    from promptlint.report import write_report

    paths = list(paths) or [Path(".")]
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        click.echo(f"{p}:1:1: no such file or directory", err=True)
    paths = [p for p in paths if p.exists()]
    try:
        config = config_mod.load(paths[0] if paths else Path("."), config_path)
    except config_mod.ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    from promptlint.audit import run_audit, select_models

    try:
        models = select_models(config, tuple(providers) or None)
    except ValueError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    result = _run_with_progress(paths, config, models, fmt)
    for error in result.errors:
        click.echo(str(error), err=True)
    write_report(result, config, fmt, output, verbose)
    if missing or result.errors:
        sys.exit(EXIT_ERROR)
    if not exit_zero and any(p.has_breaker for p in result.prompts):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _run_with_progress(paths, config, models, fmt):
    """A progress bar on stderr for large trees in a terminal."""
    from promptlint.audit import run_audit

    if not sys.stderr.isatty() or fmt == "json":
        return run_audit(paths, config, models)
    from rich.progress import Progress

    with Progress(transient=True, console=None) as bar:
        task = bar.add_task("auditing", total=None)

        def tick(done: int, total: int):
            bar.update(task, completed=done, total=total)

        return run_audit(paths, config, models, progress=tick)


if __name__ == "__main__":  # pragma: no cover
    main()
