"""`promptlint audit`: tokens, the stable prefix, cached tokens and money per prompt."""

from __future__ import annotations

import sys

import click

from promptlint.commands.options import (
    EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, _common, _jobs, _prepare, _run_with_progress, _said,
)


@click.command(short_help="Tokens, stable prefix, cached tokens and money per prompt.")
@_common
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json"]), default="auto",
              show_default=True, help="Report format; auto is a rich table in a terminal, plain text otherwise.")
@click.option("-v", "--verbose", is_flag=True,
              help="Show every formula's inputs; say on stderr why each file was read or skipped.")
@_jobs
def audit(paths, providers, config_path, output, exit_zero, fmt, verbose, jobs):
    """Audit prompt files: tokens, stable prefix, what each provider caches, and the money."""
    from promptlint.report import write_report

    from promptlint.audit import merge_results

    groups, missing = _prepare(paths, config_path, providers)
    result = merge_results([_run_with_progress(p, c, m, fmt, jobs) for c, m, p in groups])
    config = groups[0][0]
    nothing = _said(result, missing, paths, verbose)
    write_report(result, config, fmt, output, verbose)
    if missing or result.errors or nothing:
        sys.exit(EXIT_ERROR)
    if not exit_zero and any(p.has_breaker for p in result.prompts):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)
