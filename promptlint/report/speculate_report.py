"""Output of `promptlint speculate`: one JSON-ready dict holds every figure,
and the text report (rich, plain when not a terminal) is drawn from it, so
the two never disagree.

JSON shape (schema_version 1.x; later versions only add keys):

    schema_version  "1.0"
    tool            {name, version}
    inputs          {acceptance, gamma, draft_cost, max_gamma, output_tokens (int or null)}
    at_gamma        {gamma, tokens_per_step, speedup}          the gamma asked for
    best            {gamma, tokens_per_step, speedup, searched_up_to, at_search_limit}
    chart           [{gamma, tokens_per_step, speedup}] for gamma 1..max_gamma
    recommendation  {verdict: "speculate" | "do not speculate", reasons: [str], not_checked: [str]}
    formula         {tokens_per_step, speedup, source}

Figures are floats rounded to 6 decimals; speedup is a ratio (2.8 = 2.8x).
"""

from __future__ import annotations

import json

from promptlint import __version__
from promptlint.economics import speculation as spec

SCHEMA_VERSION = "1.0"
BAR_WIDTH = 40  # columns of the longest bar; keeps a row under 80 columns
BAR_INDENT = 18  # "  gamma  speedup  " before a bar
GLYPHS = {"unicode": {"loss": "░", "gain": "█", "line": "│", "mark": "◀"},
          "ascii": {"loss": ".", "gain": "#", "line": "|", "mark": "<"}}


def _point(a: float, g: int, c: float) -> dict:
    return {"gamma": g, "tokens_per_step": round(spec.tokens_per_step(a, g), 6),
            "speedup": round(spec.speedup(a, g, c), 6)}


def build(acceptance: float, gamma: int, draft_cost: float, max_gamma: int,
          output_tokens: int | None = None) -> dict:
    """Every figure of the report; raises ValueError on a bad input."""
    a, c = spec.check_acceptance(acceptance), spec.check_draft_cost(draft_cost)
    spec.check_gamma(gamma)
    spec.check_gamma(max_gamma, "max gamma")
    best_g, _ = spec.best_gamma(a, c, spec.MAX_GAMMA)
    rec = spec.recommend(a, output_tokens=output_tokens, draft_cost=c, gamma=gamma)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "promptlint", "version": __version__},
        "inputs": {"acceptance": a, "gamma": gamma, "draft_cost": c, "max_gamma": max_gamma,
                   "output_tokens": output_tokens},
        "at_gamma": _point(a, gamma, c),
        "best": {**_point(a, best_g, c), "searched_up_to": spec.MAX_GAMMA,
                 "at_search_limit": best_g == spec.MAX_GAMMA},
        "chart": [_point(a, g, c) for g in range(1, max_gamma + 1)],
        "recommendation": {"verdict": rec.verdict, "reasons": rec.reasons, "not_checked": rec.not_checked},
        "formula": {"tokens_per_step": spec.FORMULA_TOKENS, "speedup": spec.FORMULA_SPEEDUP, "source": spec.SOURCE},
    }


def render_json(report: dict) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


# -- text -----------------------------------------------------------------------

def glyphs_for(encoding: str | None) -> dict:
    """Block characters where the output can encode them, ASCII otherwise."""
    try:
        "".join(GLYPHS["unicode"].values()).encode(encoding or "ascii")
        return GLYPHS["unicode"]
    except (LookupError, UnicodeEncodeError):
        return GLYPHS["ascii"]


def chart_lines(report: dict, glyphs: dict = GLYPHS["unicode"]) -> list[tuple[str, str | None]]:
    """The speedup per gamma as horizontal bars, (line, style) pairs. The part
    of a bar up to 1.0x (break-even) is drawn light, the gain beyond it solid;
    a bar that ends short of 1.0x shows the break-even line after it."""
    rows = report["chart"]
    top = max([1.0] + [r["speedup"] for r in rows])
    even = round(spec.BREAK_EVEN / top * BAR_WIDTH)
    chosen, best = report["inputs"]["gamma"], report["best"]["gamma"]
    out: list[tuple[str, str | None]] = [
        (f"Speedup by gamma ({glyphs['loss']} up to 1.0x, {glyphs['gain']} gain over plain decoding)", "bold"),
        ("  gamma  speedup", "dim"),
    ]
    for r in rows:
        n = round(r["speedup"] / top * BAR_WIDTH)
        if n > even:
            bar = glyphs["loss"] * even + glyphs["gain"] * (n - even)
        else:
            bar = glyphs["loss"] * n + " " * (even - n) + glyphs["line"]
        marks = [w for g, w in ((chosen, "chosen"), (best, "best")) if r["gamma"] == g]
        mark = f" {glyphs['mark']} {', '.join(marks)}" if marks else ""
        style = "green" if r["gamma"] == best else ("cyan" if r["gamma"] == chosen else None)
        row = f"  {r['gamma']:>5}  {r['speedup']:>6.2f}x  "
        out.append((f"{row}{bar.ljust(BAR_WIDTH)}{mark}".rstrip(), style))
    # under the bars: 0 at their start, 1.0x where the gain starts, the top at the longest bar's end
    axis = [" "] * (BAR_WIDTH + 6)
    for start, label in ((0, "0"), (even, "1.0x"), (BAR_WIDTH - len(f"{top:.2f}x"), f"{top:.2f}x")):
        if all(ch == " " for ch in axis[max(0, start - 1):start + len(label) + 1]):
            axis[start:start + len(label)] = label
    out.append((" " * BAR_INDENT + "".join(axis).rstrip(), "dim"))
    return out


def text_lines(report: dict, glyphs: dict = GLYPHS["unicode"]) -> list[tuple[str, str | None]]:
    """The whole text report as (line, style) pairs; style None is plain."""
    i, at, best = report["inputs"], report["at_gamma"], report["best"]
    rec = report["recommendation"]
    searched = f"searched gamma 1..{best['searched_up_to']}"
    if best["at_search_limit"]:
        searched += ", still rising there"
    out: list[tuple[str, str | None]] = [
        (f"Speculative decoding: acceptance a = {i['acceptance']:g}, draft cost c = {i['draft_cost']:g} "
         f"(draft step / target step)", "bold"),
        ("", None),
        (f"At gamma {at['gamma']}: {at['tokens_per_step']:.2f} tokens per target step, "
         f"net speedup {at['speedup']:.2f}x", None),
        (f"Best gamma {best['gamma']}: {best['speedup']:.2f}x ({best['tokens_per_step']:.2f} tokens per target "
         f"step; {searched})", "green" if best["speedup"] > spec.BREAK_EVEN else "yellow"),
        ("", None),
        (f"Verdict: {rec['verdict']}", "bold green" if rec["verdict"] == "speculate" else "bold red"),
        *((f"  - {r}", None) for r in rec["reasons"]),
        ("  not checked here:", "dim"),
        *((f"    - {n}", "dim") for n in rec["not_checked"]),
        ("", None),
        *chart_lines(report, glyphs),
    ]
    shown = len(report["chart"])
    for what, g in (("chosen", at["gamma"]), ("best", best["gamma"])):
        if g > shown:
            how = f"; --max-gamma {g} shows it" if g <= spec.MAX_GAMMA else ""
            out.append((f"  (the {what} gamma {g} is beyond the chart{how})", "dim"))
    out += [
        ("", None),
        (f"Formula: tokens per step {spec.FORMULA_TOKENS}; speedup {spec.FORMULA_SPEEDUP}", "dim"),
        (f"Source: {spec.SOURCE}", "dim"),
    ]
    return out


def print_text(report: dict, console) -> None:
    """The text report on a rich console: coloured in a terminal, plain
    otherwise; lines are never wrapped (the chart keeps its shape)."""
    from rich.text import Text

    glyphs = glyphs_for(console.encoding)
    for line, style in text_lines(report, glyphs):
        console.print(Text(line, style=style or ""), soft_wrap=True)
