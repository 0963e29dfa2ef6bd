"""`promptlint speculate`: the speculative decoding formulas of Leviathan,
Kalman & Matias 2022 against the worked values in the shared reference
(cache-rules.md), the verdict rules, and the command's text, chart, JSON
and errors."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.economics import speculation as spec
from promptlint.report import speculate_report

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return CliRunner().invoke(main, ["speculate", *args], catch_exceptions=False)


# -- formulas -------------------------------------------------------------------

def test_reference_example_a08_g4():
    assert f"{spec.tokens_per_step(0.8, 4):.2f}" == "3.36"
    assert f"{spec.speedup(0.8, 4, 0.05):.2f}" == "2.80"
    g, s = spec.best_gamma(0.8, 0.05)
    assert (g, f"{s:.2f}") == (8, "3.09")


@pytest.mark.parametrize("a,best_g,best_s", [
    (0.5, 3, "1.63"),  # reference: "peaks near 1.6x at g=4"; g=4 gives 1.61x, g=3 is 1.63x
    (0.7, 6, "2.35"),  # "about 2.35x" (g=5 gives 2.352936, g=6 2.352938)
    (0.8, 8, "3.09"),  # "about 3.1x"
    (0.9, 13, "4.67"),  # "over 4x"
])
def test_worked_values_at_c_005(a, best_g, best_s):
    g, s = spec.best_gamma(a, 0.05)
    assert (g, f"{s:.2f}") == (best_g, best_s)


def test_half_acceptance_near_16x_at_g3_and_g4():
    assert f"{spec.speedup(0.5, 4, 0.05):.2f}" == "1.61"
    assert f"{spec.speedup(0.5, 3, 0.05):.2f}" == "1.63"


def test_formulas_match_the_closed_forms():
    for a in (0.01, 0.3, 0.5, 0.75, 0.9, 0.99):
        for g in (1, 2, 5, 13, 40):
            closed = (1 - a ** (g + 1)) / (1 - a)
            assert spec.tokens_per_step(a, g) == pytest.approx(closed, rel=1e-12)
            assert spec.speedup(a, g, 0.1) == pytest.approx(closed / (g * 0.1 + 1), rel=1e-12)


def test_acceptance_zero_yields_one_token_and_loses_time():
    assert spec.tokens_per_step(0, 7) == 1.0
    assert spec.speedup(0, 4, 0.05) == pytest.approx(1 / 1.2)
    assert spec.best_gamma(0, 0.05) == (1, pytest.approx(1 / 1.05))
    assert spec.best_gamma(0, 0.0) == (1, 1.0)  # every g ties at 1.0x: the smaller g wins


def test_acceptance_one_is_the_limit_g_plus_1():
    assert spec.tokens_per_step(1, 4) == 5.0
    assert spec.speedup(1, 4, 0.05) == pytest.approx(5 / 1.2)
    assert spec.tokens_per_step(1 - 1e-12, 4) == pytest.approx(5.0)
    assert spec.best_gamma(1, 0.0, max_gamma=10) == (10, 11.0)  # still rising: the bound wins


def test_large_gamma_is_cheap():
    assert spec.tokens_per_step(0.99, 10**9) == pytest.approx(100.0)


@pytest.mark.parametrize("call,message", [
    (lambda: spec.tokens_per_step(1.5, 4), "acceptance must be a number from 0 to 1"),
    (lambda: spec.tokens_per_step(-0.1, 4), "acceptance must be a number from 0 to 1"),
    (lambda: spec.tokens_per_step(math.nan, 4), "acceptance must be a number from 0 to 1"),
    (lambda: spec.tokens_per_step(0.8, 0), "gamma must be a whole number"),
    (lambda: spec.tokens_per_step(0.8, 2.5), "gamma must be a whole number"),
    (lambda: spec.tokens_per_step(0.8, True), "gamma must be a whole number"),
    (lambda: spec.speedup(0.8, 4, -1), "draft cost must be 0 or more"),
    (lambda: spec.speedup(0.8, 4, math.inf), "draft cost must be 0 or more"),
    (lambda: spec.best_gamma(0.8, 0.05, max_gamma=0), "max gamma must be a whole number"),
    (lambda: spec.recommend(0.8, output_tokens=-1), "output tokens must be a whole number"),
])
def test_bad_inputs_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- verdict --------------------------------------------------------------------

def test_low_acceptance_is_against():
    rec = spec.recommend(0.4, draft_cost=0.05)
    assert rec.verdict == "do not speculate" and not rec.speculate
    assert any("acceptance 40% is below about 50%" in r for r in rec.reasons)


def test_short_outputs_are_against():
    rec = spec.recommend(0.8, output_tokens=10, draft_cost=0.05)
    assert rec.verdict == "do not speculate"
    assert rec.reasons == ["outputs of 10 tokens are under about 20: too few steps to gain from"]


def test_no_gain_is_against():
    rec = spec.recommend(0.6, draft_cost=1.0)
    assert rec.verdict == "do not speculate"
    assert any("is not above 1.0x" in r for r in rec.reasons)


def test_good_acceptance_and_cheap_draft_is_for():
    rec = spec.recommend(0.8, output_tokens=200, draft_cost=0.05, gamma=4)
    assert rec.verdict == "speculate" and rec.speculate
    assert "predicted best speedup 3.09x at gamma 8" in rec.reasons
    assert rec.best == (8, pytest.approx(3.0920795, rel=1e-6))
    assert rec.not_checked == list(spec.CAVEATS)


def test_missing_inputs_are_not_checked_rather_than_passed():
    rec = spec.recommend(0.8)
    assert rec.verdict == "speculate"
    assert any(n.startswith("output length") for n in rec.not_checked)
    assert "net speedup (no draft cost given)" in rec.not_checked


def test_a_losing_gamma_is_named_when_another_gains():
    rec = spec.recommend(0.6, draft_cost=0.3, gamma=12)
    assert rec.verdict == "speculate"
    assert any(r.startswith("but not at gamma 12 (") for r in rec.reasons)


# -- the command ----------------------------------------------------------------

def chart_rows(stdout: str) -> list[tuple[int, str, str]]:
    """(gamma, speedup, marker) per bar row."""
    return [(int(m[1]), m[2], m[3]) for m in re.finditer(r"^ {2}\s*(\d+)\s+(\d+\.\d\d)x  \S.*?(?:[◀<] (.*))?$",
                                                         stdout, re.M)]


def test_text_report_figures():
    result = run("--acceptance", "0.8", "--gamma", "4", "--draft-cost", "0.05")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "At gamma 4: 3.36 tokens per target step, net speedup 2.80x" in out
    assert "Best gamma 8: 3.09x (4.33 tokens per target step; searched gamma 1..64)" in out
    assert "Verdict: speculate" in out
    assert "S = (1 - a^(g+1)) / ((1 - a)(g*c + 1))" in out
    assert "arXiv 2211.17192" in out


def test_chart_has_a_row_per_gamma_with_the_marks():
    out = run("-a", "0.8").stdout
    rows = chart_rows(out)
    assert [g for g, _, _ in rows] == list(range(1, 13))
    assert [s for _, s, _ in rows] == [f"{spec.speedup(0.8, g, 0.05):.2f}" for g in range(1, 13)]
    marks = {g: m for g, _, m in rows if m}
    assert marks == {4: "chosen", 8: "best"}
    lines = out.splitlines()
    bars = [line[speculate_report.BAR_INDENT:].split(" ")[0] for line in lines if re.match(r"^ +\d+ +\d+\.\d\dx  ", line)]
    assert len(bars[7]) == speculate_report.BAR_WIDTH  # the best row is the longest
    assert all(b.startswith("░" * 13) and b[13] == "█" for b in bars)  # 1.0x of 3.09x: 13 of 40 columns
    axis = lines[lines.index(next(l for l in lines if "12    2.95x" in l)) + 1]
    assert axis.index("1.0x") == speculate_report.BAR_INDENT + 13


def test_chart_marks_one_row_twice_and_draws_break_even_when_losing():
    rows = chart_rows(run("-a", "0.3", "-c", "0.5", "-g", "1", "--max-gamma", "3").stdout)
    assert rows == [(1, "0.87", "chosen, best"), (2, "0.69", None), (3, "0.57", None)]
    out = run("-a", "0.3", "-c", "0.5", "-g", "1", "--max-gamma", "3").stdout
    assert "Verdict: do not speculate" in out
    assert all(line.rstrip().endswith(("│", "│ ◀ chosen, best")) for line in out.splitlines()
               if re.match(r"^ +\d +0\.\d\dx", line))


def test_best_beyond_the_chart_is_said():
    out = run("-a", "0.9").stdout
    assert "Best gamma 13: 4.67x" in out
    assert "(the best gamma 13 is beyond the chart; --max-gamma 13 shows it)" in out


def test_output_tokens_feed_the_verdict():
    out = run("-a", "0.8", "--output-tokens", "10").stdout
    assert "Verdict: do not speculate" in out
    assert "outputs of 10 tokens are under about 20" in out


def test_json_shape():
    result = run("-a", "0.8", "-g", "4", "-c", "0.05", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert list(data) == ["schema_version", "tool", "inputs", "at_gamma", "best", "chart", "recommendation", "formula"]
    assert data["schema_version"] == "1.0" and data["tool"]["name"] == "promptlint"
    assert data["inputs"] == {"acceptance": 0.8, "gamma": 4, "draft_cost": 0.05, "max_gamma": 12,
                              "output_tokens": None}
    assert data["at_gamma"] == {"gamma": 4, "tokens_per_step": 3.3616, "speedup": 2.801333}
    assert data["best"] == {"gamma": 8, "tokens_per_step": pytest.approx(4.329, abs=1e-3), "speedup": 3.09208,
                            "searched_up_to": 64, "at_search_limit": False}
    assert [p["gamma"] for p in data["chart"]] == list(range(1, 13))
    assert all(set(p) == {"gamma", "tokens_per_step", "speedup"} for p in data["chart"])
    assert data["recommendation"]["verdict"] == "speculate"
    assert set(data["recommendation"]) == {"verdict", "reasons", "not_checked"}
    assert set(data["formula"]) == {"tokens_per_step", "speedup", "source"}


def test_json_flags_a_best_at_the_search_limit():
    data = json.loads(run("-a", "1", "-c", "0", "--format", "json").stdout)
    assert data["best"]["gamma"] == 64 and data["best"]["at_search_limit"] is True


@pytest.mark.parametrize("args,option", [
    (["-a", "1.5"], "--acceptance"),
    (["-a", "-0.2"], "--acceptance"),
    (["-a", "0.8", "-g", "0"], "--gamma"),
    (["-a", "0.8", "-c", "-1"], "--draft-cost"),
    (["-a", "0.8", "--max-gamma", "0"], "--max-gamma"),
    (["-a", "0.8", "--max-gamma", "65"], "--max-gamma"),
    (["-a", "0.8", "--output-tokens", "-5"], "--output-tokens"),
])
def test_bad_values_exit_2_with_one_line(args, option):
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}: ")


def test_acceptance_is_required():
    result = run("-g", "4")
    assert result.exit_code == 2 and "--acceptance" in result.stderr


def test_registered_lazily_and_light():
    assert "speculate" in main.list_commands(None)
    code = ("import sys\nfrom promptlint.cli import main\n"
            "try:\n    main(['speculate', '-a', '0.8', '--format', 'json'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('torch', 'transformers', 'tiktoken', 'jinja2') if m in sys.modules]\n"
            "sys.stderr.write('HEAVY=' + ','.join(heavy))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert '"schema_version"' in proc.stdout
    assert proc.stderr.strip().endswith("HEAVY=")
