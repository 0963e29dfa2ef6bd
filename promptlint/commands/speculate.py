"""`promptlint speculate`: is speculative decoding worth it, and with how many
draft tokens? A calculator over Leviathan, Kalman & Matias 2022 (arXiv
2211.17192): give the draft's acceptance rate (vLLM reports it as
accepted / draft tokens), the number of draft tokens per step and the draft's
cost per step relative to the target's; it prints tokens per step, the net
speedup, the best number of draft tokens and a bar chart of the speedup per
gamma, with a verdict from the "when not to speculate" rules.

Nothing is read or measured: the arithmetic is in
promptlint/economics/speculation.py, the output in
promptlint/report/speculate_report.py.

Exit codes: 0; 2 on a bad value (one line on stderr).
"""

from __future__ import annotations

import sys

import click

from promptlint.economics.speculation import DEFAULT_DRAFT_COST

EXIT_CLEAN, EXIT_ERROR = 0, 2
CHART_GAMMA = 12  # bars drawn by default: at c = 0.05 the curve peaks by gamma 8 for a <= 0.8


@click.command("speculate", short_help="Speculative decoding: tokens per step and speedup.")
@click.option("-a", "--acceptance", type=float, required=True, metavar="A",
              help="Probability that a draft token is accepted, 0..1 (vLLM: accepted / draft tokens).")
@click.option("-g", "--gamma", type=int, default=4, show_default=True, metavar="G",
              help="Draft tokens proposed per target step.")
@click.option("-c", "--draft-cost", type=float, default=DEFAULT_DRAFT_COST, show_default=True, metavar="C",
              help="Time of one draft step over one target step (0.05: the draft is 20x faster). "
                   "Optional; the default is an assumption, measure yours.")
@click.option("--max-gamma", type=int, default=CHART_GAMMA, show_default=True, metavar="N",
              help="The chart shows gamma 1..N (the best gamma is searched up to 64 regardless).")
@click.option("--output-tokens", type=int, default=None, metavar="N",
              help="Typical output length in tokens; under about 20, speculation rarely pays.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: figures and a bar chart; json: the same figures with stable keys.")
def speculate(acceptance, gamma, draft_cost, max_gamma, output_tokens, fmt):
    """Speculative decoding calculator: expected tokens per target step, net
    speedup, the best gamma, and whether to speculate at all."""
    from promptlint.economics import speculation as spec
    from promptlint.report import speculate_report

    checks = (("--acceptance", spec.check_acceptance, acceptance), ("--gamma", spec.check_gamma, gamma),
              ("--draft-cost", spec.check_draft_cost, draft_cost),
              ("--max-gamma", lambda v: spec.check_gamma(v, "max gamma"), max_gamma))
    for option, check, value in checks:
        try:
            check(value)
        except ValueError as exc:
            click.echo(f"error: {option}: {exc}", err=True)
            sys.exit(EXIT_ERROR)
    if max_gamma > spec.MAX_GAMMA:
        click.echo(f"error: --max-gamma: at most {spec.MAX_GAMMA}, got {max_gamma}", err=True)
        sys.exit(EXIT_ERROR)
    try:
        report = speculate_report.build(acceptance, gamma, draft_cost, max_gamma, output_tokens)
    except ValueError as exc:
        click.echo(f"error: --output-tokens: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if fmt == "json":
        sys.stdout.write(speculate_report.render_json(report))
    else:
        from rich.console import Console

        speculate_report.print_text(report, Console(highlight=False))
    sys.exit(EXIT_CLEAN)
