"""`promptlint fix`: apply the safe fixes, atomically, re-parsed and re-checked."""

from __future__ import annotations

import sys

import click

from promptlint.commands.options import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, _codes, _inputs, _jobs, _prepare


@click.command(short_help="Apply the safe fixes, atomically, re-parsed and re-checked.")
@_inputs
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes and write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change what the prompt says.")
@click.option("--select", "select", multiple=True, metavar="CODE", help="Only fix these rules.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODE", help="Do not fix these rules.")
@click.option("--exit-non-zero-on-fix", is_flag=True,
              help="Exit 1 when a fix was applied, even if nothing remains (ruff's flag: CI sees the change).")
@_jobs
def fix(paths, providers, config_path, show_diff, unsafe_fixes, select, ignore, exit_non_zero_on_fix, jobs):
    """Apply the safe fixes findings carry; each fix is kept only if the file
    still parses and the finding is gone. Writes are atomic."""
    from promptlint.fixer import run_fix

    groups, missing = _prepare(paths, config_path, providers)
    select, ignore = _codes(select), _codes(ignore, "--ignore")
    results = [run_fix(p, c, m, unsafe=unsafe_fixes, write=not show_diff, select=select or None, ignore=ignore,
                       jobs=jobs) for c, m, p in groups]
    changed = errors = remaining = fixed = 0
    gated: dict[str, int] = {}
    for result in results:
        for key, n in result.gated(unsafe_fixes).items():
            gated[key] = gated.get(key, 0) + n
        for error in result.check.errors:
            click.echo(str(error), err=True)
        errors += len(result.check.errors)
        for f in result.files:
            if f.skipped:
                click.echo(f"{f.display}: left unchanged: {f.skipped}", err=True)
            elif show_diff:
                click.echo(f.diff(), nl=False)
                changed += 1
            else:
                click.echo(f"{f.display}: fixed {len(f.fixed)} ({', '.join(sorted({x.rule for x in f.fixed}))})")
                changed += 1
        for finding in result.unfixable(unsafe_fixes):
            click.echo(f"{finding.path}:{finding.line_col[0]}:{finding.line_col[1]}: {finding.rule} left as is: "
                       f"{result.why_not(finding, unsafe_fixes)}", err=True)
        fixed += result.fixed
        remaining += result.remaining if result.remaining is not None else len(result.check.findings) - result.fixed
    from promptlint.report.words import plural, problems

    trouble = "".join(f"; {p}" for p in problems(errors, missing))
    if gated:  # fixes that exist but this run may not apply: say what enables each
        trouble = " (" + ", ".join(f"{n:,} fixable with {key}" for key, n in sorted(gated.items())) + ")" + trouble
    if show_diff:  # nothing written, nothing re-checked: what is left after is not known yet
        click.echo(f"Would fix {plural(fixed, 'finding')} in {plural(changed, 'file')}; "
                   f"{remaining:,} would not be fixed{trouble}.")
    else:
        click.echo(f"Fixed {plural(fixed, 'finding')} in {plural(changed, 'file')}; {remaining:,} remaining{trouble}.")
    if missing or errors:
        sys.exit(EXIT_ERROR)
    applied = fixed and not show_diff and exit_non_zero_on_fix
    sys.exit(EXIT_FINDINGS if (show_diff and changed) or remaining or applied else EXIT_CLEAN)
