"""`promptlint rules` and `promptlint explain`: the rule catalogue and each rule's documentation."""

from __future__ import annotations

import sys

import click

from promptlint.commands.options import EXIT_ERROR


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def rules_cmd(fmt):
    """List the rule catalogue."""
    from promptlint import catalogue
    from promptlint.report.rule_docs import catalogue_json, catalogue_markdown

    rules = catalogue.load()
    if fmt == "markdown":
        click.echo(catalogue_markdown(rules), nl=False)
    elif fmt == "json":
        click.echo(catalogue_json(rules))
    else:
        width = max(len(r.name) for r in rules.values())
        for r in rules.values():
            click.echo(f"{r.id}  {r.name.ljust(width)}  {r.severity.label:<7}  {r.summary}")


@click.command(short_help="Print a rule's documentation.")
@click.argument("code")
@click.option("--all-examples", is_flag=True, help="Show every example, not one flagged and one clean.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Render for a terminal (auto: when stdout is one, following NO_COLOR and FORCE_COLOR); "
                   "plain Markdown otherwise.")
def explain(code, all_examples, color):
    """Print a rule's documentation (by code, e.g. PL001, or name)."""
    from promptlint import catalogue
    from promptlint.report.check_report import color_wanted
    from promptlint.report.rule_docs import rule_markdown

    rule = catalogue.by_code_or_name(code)
    if rule is None:
        click.echo(f"error: no rule {code!r}; see `promptlint rules`", err=True)
        sys.exit(EXIT_ERROR)
    text = rule_markdown(rule, examples=None if all_examples else 1)
    if not color_wanted(color):
        click.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console(force_terminal=True if color == "always" else None, no_color=color == "never").print(Markdown(text))
