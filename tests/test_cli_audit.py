"""`promptlint audit` end to end: exit codes, report contents, the seed
arithmetic, bad input, and the lint path staying free of torch."""

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from promptlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
BAD = ROOT / "tests" / "data" / "bad"


def run(*args, cwd: Path = ROOT):
    runner = CliRunner()
    import os

    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def audit_json(*args, cwd: Path = ROOT):
    result = run("audit", "--format", "json", *args, cwd=cwd)
    return result, json.loads(result.stdout)


def by_path(report, path):
    return next(p for p in report["prompts"] if p["path"] == path)


def test_seed_arithmetic_1500_stable_before_100_token_question():
    result, report = audit_json("fixtures/seed/seed.prompty", "-p", "llamacpp/default",
                                "-p", "anthropic/claude-sonnet-4.5", "-p", "openai/gpt-4.1")
    prompt = by_path(report, "fixtures/seed/seed.prompty")
    tok = prompt["tokenizers"]["tiktoken:o200k_base"]
    assert tok["total_tokens"] == 1600
    assert tok["stable_prefix_tokens"] == {"global": 1500, "user": 1500, "session": 1500}
    models = {m["model"]: m for m in prompt["models"]}
    # token-granular engine and Anthropic cache all 1,500; OpenAI in 128-token steps: 1,408
    assert models["llamacpp/default"]["cached_tokens"]["global"] == 1500
    assert models["anthropic/claude-sonnet-4.5"]["cached_tokens"]["global"] == 1500
    assert models["openai/gpt-4.1"]["cached_tokens"]["global"] == 1024 + 3 * 128
    # with a warm cache, prefill 1,600 -> 100 tokens, 94% less
    from promptlint.economics.cost import SCOPES, estimate
    from promptlint.economics.providers import load_table

    spec = load_table()["anthropic/claude-sonnet-4.5"]
    warm = estimate(spec, 1600, {"global": 1500, "user": 1500, "session": 1500}, warm={s: 1.0 for s in SCOPES})
    assert warm.prefill_tokens_per_request == 100
    assert f"{warm.prefill_saved_fraction:.0%}" == "94%"
    assert result.exit_code == 0  # the question is last: nothing to fix


def test_bad_layout_reports_breaker_position_and_saving():
    result, report = audit_json("fixtures/support-bot/bad/system.j2")
    assert result.exit_code == 1
    prompt = by_path(report, "fixtures/support-bot/bad/system.j2")
    breaker = prompt["first_breaker"]
    assert breaker["slot"] == "{{ now }}"
    assert breaker["volatility"] == "request"
    assert breaker["location"]["line"] == 1 and breaker["location"]["column"] == 24
    assert prompt["cache_breaker"] is True
    assert prompt["stable_tokens_lost"] > 2000
    openai = next(m for m in prompt["models"] if m["model"] == "openai/gpt-4.1")
    assert openai["cached_tokens"]["global"] == 0
    assert openai["if_fixed"]["cached_tokens"]["global"] >= 2048
    assert openai["if_fixed"]["extra_saving_per_month_usd"] > 0


def test_json_report_schema_and_stable_keys():
    _, report = audit_json("fixtures/")
    assert report["schema_version"] == "1.1"
    assert set(report) >= {"schema_version", "tool", "provider_table", "traffic", "prompts", "totals", "errors"}
    assert report["errors"] == []
    projects = [p for p in report["prompts"] if not p["path"].startswith("fixtures/corpus/")]
    assert len(projects) == 24  # the three projects and the seed; fixtures/corpus is the labelled corpus
    for prompt in report["prompts"]:
        assert set(prompt) >= {"path", "name", "format", "tokenizers", "first_breaker", "models"}
        for model in prompt["models"]:
            assert set(model) >= {"model", "tokenizer", "tokenizer_exact", "total_tokens", "cached_tokens", "cost"}
            assert set(model["cost"]["per_month_usd"]) == {"uncached", "cached"}
            assert model["sources"]["input_price_per_mtok"]


def test_text_report_plain_when_piped():
    result = run("audit", "fixtures/support-bot/bad/system.j2")
    out = result.stdout
    assert "fixtures/support-bot/bad/system.j2" in out
    assert "cache breaker (all users): fixtures/support-bot/bad/system.j2:1:24 {{ now }} [request]" in out
    assert "openai/gpt-4.1" in out and "exact" in out and "proxy" in out and "(tiktoken:o200k_base)" in out
    assert "provider table dated" in out
    assert "\x1b[" not in out  # no colour codes in a pipe


def test_verbose_prints_formula_inputs_and_sources():
    result = run("audit", "-v", "fixtures/seed/seed.prompty")
    assert "cached = c_global*P_global" in result.stdout
    assert "inputs: " in result.stdout and "price" in result.stdout
    assert "sources: " in result.stdout


def test_bad_input_one_line_each_and_the_rest_audited(tmp_path):
    result, report = audit_json(str(BAD.relative_to(ROOT)))
    assert result.exit_code == 2
    expected = {}
    for line in (BAD / "EXPECTED.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            path, fault_line = line.split()[:2]
            if fault_line != "-":
                expected[f"tests/data/bad/{path}"] = int(fault_line)
    errors = {e["path"]: e["line"] for e in report["errors"]}
    assert errors == expected
    # the body under front matter that does not load is still checked; the others are not prompts
    assert sorted(p["path"] for p in report["prompts"]) == ["tests/data/bad/broken-front-matter.prompty",
                                                           "tests/data/bad/good-neighbour.j2"]
    stderr_lines = [l for l in result.stderr.splitlines() if l]
    assert len(stderr_lines) == len(expected)
    for path, line in expected.items():
        assert any(l.startswith(f"{path}:{line}:") for l in stderr_lines)


def test_very_large_file_is_refused_with_its_line(tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "huge.txt").write_text("word " * 420_000, encoding="utf-8")
    (prompts / "fine.txt").write_text("You are helpful. Question: {question}", encoding="utf-8")
    result, report = audit_json(".", cwd=tmp_path)
    assert result.exit_code == 2
    assert report["errors"][0]["path"] == "prompts/huge.txt" and report["errors"][0]["line"] == 1
    assert "limit" in report["errors"][0]["message"]
    assert [p["path"] for p in report["prompts"]] == ["prompts/fine.txt"]


def test_missing_path_and_bad_config_exit_2(tmp_path):
    assert run("audit", "no/such/file.j2", cwd=tmp_path).exit_code == 2
    (tmp_path / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\nfail_on = "x"\n')
    (tmp_path / "a.j2").write_text("hi")
    result = run("audit", "a.j2", cwd=tmp_path)
    assert result.exit_code == 2
    assert "promptlint.toml: fail_on: unknown key" in result.stderr


def test_unknown_provider_is_a_usage_error(tmp_path):
    (tmp_path / "a.j2").write_text("hi")
    result = run("audit", "a.j2", "-p", "nope/none", cwd=tmp_path)
    assert result.exit_code == 2 and "nope/none" in result.stderr


def test_output_file_written_atomically(tmp_path):
    out = tmp_path / "report.json"
    result = run("audit", "--format", "json", "-o", str(out), "fixtures/seed/seed.prompty")
    assert result.exit_code == 0 and result.stdout == ""
    assert json.loads(out.read_text())["prompts"][0]["name"] == "Seed support prompt"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_audit_of_one_file_imports_no_torch_or_transformers():
    code = (
        "import sys\n"
        "from promptlint.cli import main\n"
        "try:\n"
        "    main(['audit', '--format', 'json', 'fixtures/seed/seed.prompty'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert '"schema_version"' in proc.stdout
    assert proc.stderr.strip().endswith("HEAVY=")


def test_a_cached_figure_cut_by_a_provider_rule_says_which():
    # the seed's 1,500 stable tokens: OpenAI caches 1,408 (128-token steps), Gemini 2.5 Flash
    # nothing (below its 2,048 minimum): the $0.00 saving comes with its reason
    result, report = audit_json("fixtures/seed/seed.prompty")
    models = {m["model"]: m for m in by_path(report, "fixtures/seed/seed.prompty")["models"]}
    assert models["openai/gpt-4.1"]["cached_cut_by"] == "128-token steps"
    assert models["google/gemini-2.5-flash"]["cached_cut_by"] == "below 2,048 min"
    assert models["anthropic/claude-sonnet-4.5"]["cached_cut_by"] is None
    text = run("audit", "fixtures/seed/seed.prompty").stdout
    row = next(l for l in text.splitlines() if l.strip().startswith("google/gemini-2.5-flash"))
    assert " 0 (below 2,048 min) " in row and "$0.00" in row
    assert "1,408 (128-token steps)" in text


def test_an_audit_of_no_prompt_prints_the_counts_alone(tmp_path):
    (tmp_path / "tool.py").write_text("print('hello')\n")
    (tmp_path / "empty").mkdir()
    result = run("audit", "tool.py", cwd=tmp_path)
    assert result.exit_code == 0 and result.stdout == "No prompts found in 1 file.\n"
    empty = run("audit", "empty", cwd=tmp_path)
    assert empty.exit_code == 2 and empty.stdout == "No prompt files found.\n"
    missing = run("audit", "nope", cwd=tmp_path)
    assert missing.exit_code == 2 and missing.stdout == "0 prompts in 0 files; 1 path not found.\n"
    # with prompts, the footer says what the figures rest on, once
    seed = run("audit", str(FIXTURES / "seed" / "seed.prompty"), cwd=tmp_path).stdout
    assert seed.count("Traffic model (per prompt):") == 1 and seed.count("provider table dated") == 1


def test_audit_and_check_give_one_token_figure_for_the_breaker():
    import re

    audit = run("audit", "fixtures/support-bot/bad/system.j2").stdout
    check = run("check", "fixtures/support-bot/bad/system.j2").stdout
    ahead = re.search(r"it sits ahead of ([\d,]+) stable tokens", audit).group(1)
    first = check.splitlines()[0]
    assert first.startswith("fixtures/support-bot/bad/system.j2:1:24: PL001 {{ now }} changes per request, "
                            f"ahead of {ahead} stable tokens ")


def test_the_terminal_audit_fits_80_and_120_columns_and_wraps_under_its_indent():
    import io

    from rich.console import Console

    from promptlint.audit import run_audit, select_models
    from promptlint.config import load
    from promptlint.report.text_report import print_rich

    config = load(FIXTURES, None)
    result = run_audit([FIXTURES], config, select_models(config))
    for width in (80, 120):
        buf = io.StringIO()
        print_rich(result, config, False, Console(file=buf, width=width, color_system=None))
        lines = buf.getvalue().splitlines()
        assert len(lines) > 100
        assert max(len(l) for l in lines) <= width
        # an indented line's continuation stays indented: a line at column 0 is a prompt's headline
        # (or its continuation), or the footer after the last prompt
        footer = max(i for i, l in enumerate(lines) if not l.strip())
        for i, l in enumerate(lines[:footer]):
            if l and not l.startswith(" "):
                assert l.startswith("fixtures/") or (lines[i - 1] and not lines[i - 1].startswith(" ")), l
