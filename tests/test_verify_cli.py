"""`promptlint verify` end to end on a tiny random Llama (`--model FOLDER`),
with small streams to stay fast: predicted equals measured on a real
fixture prompt, the JSON report's fields, -o, --no-speculate, one-line
errors with exit 2 for an unusable model, a missing chat template, a broken
request line and a prompt longer than the context (the rest of the run
still reported), and the lint path staying free of torch."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from helpers import invoke
from verify_fixtures import SHORT_CONTEXT, tiny_folders  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = "fixtures/corpus/prompts/tone-rewrite.md"  # ~75 tokens in ChatML: short, yet several 16-token blocks
SMALL = ("--users", "1", "--sessions", "1", "--per-session", "3", "--max-new-tokens", "8")
PROMPT_LOOKUP = "prompt lookup (n-gram 1-3)"


def verify(*args):
    return invoke(ROOT, "verify", *args)


def error_lines(stderr: str) -> list[str]:
    """stderr without verify's own progress lines (one per prompt when stderr
    is not a terminal); transformers' bars and advice are silenced."""
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("verify: prompt ")]


def assert_agrees(prompt: dict):
    assert prompt["requests"], prompt
    for r in prompt["requests"]:
        assert r["predicted_cached_tokens"] == r["measured_cached_tokens"], r
        assert r["agrees"] is True and r["explanation"] is None
        assert r["measured_cached_tokens"] % 16 == 0 and r["measured_cached_tokens"] < r["prompt_tokens"]
        assert r["ttft_warm_seconds"] > 0
    totals = prompt["totals"]
    assert totals["predicted_cached_tokens"] == totals["measured_cached_tokens"] == \
        sum(r["measured_cached_tokens"] for r in prompt["requests"])
    assert totals["prompt_tokens"] == sum(r["prompt_tokens"] for r in prompt["requests"])
    assert totals["requests_agreeing"] == len(prompt["requests"])


# ------------------------------------------------------------------ a good run


@pytest.fixture(scope="module")
def good_run(tiny_folders, tmp_path_factory):
    """One full run (with speculation, the slowest part), its report written with -o."""
    folder = tmp_path_factory.mktemp("good-run")
    out = folder / "verify.json"
    result = verify(FIXTURE, "--model", str(tiny_folders.chatml), *SMALL, "--format", "json", "-o", str(out))
    return result, json.loads(out.read_text(encoding="utf-8")), folder


def test_good_prompt_exits_0_and_prediction_equals_measurement(good_run, tiny_folders):
    result, report, _ = good_run
    assert result.exit_code == 0, result.stderr
    # progress: a line per prompt on stderr, and nothing else there
    (progress,) = result.stderr.splitlines()
    assert re.fullmatch(r"verify: prompt 1/1 \S+: 3 requests, [\d,]+ prompt tokens, [\d.]+ s", progress), progress
    assert report["schema_version"] == "1.0"
    engine = report["engine"]
    assert engine["path"] == str(tiny_folders.chatml) and engine["device"] == "cpu" and engine["dtype"] == "float32"
    assert engine["block_size"] == 16 and engine["evicted_blocks"] == 0
    [prompt] = report["prompts"]
    assert prompt["location"] == FIXTURE and prompt["errors"] == []
    assert [r["label"] for r in prompt["requests"]] == [f"user 1 session 1 request {i}" for i in (1, 2, 3)]
    assert_agrees(prompt)
    first, *later = prompt["requests"]
    assert first["measured_cached_tokens"] == 0
    assert all(r["measured_cached_tokens"] >= 32 for r in later)  # the instructions' blocks are reused
    assert engine["prompt_tokens_reused"] == prompt["totals"]["measured_cached_tokens"]
    assert engine["prompt_tokens_queried"] == prompt["totals"]["prompt_tokens"]


def test_good_run_reports_ttft_with_and_without_the_cache(good_run):
    _, report, _ = good_run
    [prompt] = report["prompts"]
    for r in prompt["requests"][1:]:  # the cache hits: cold prefill measured too (--cold-samples 2)
        assert r["ttft_cold_seconds"] > 0
        assert r["cold_first_token_matches"] is True
        assert r["cold_max_logit_diff"] <= 1e-4
    ttft = prompt["ttft"]
    assert set(ttft) == {"cold_seconds", "warm_seconds", "measured_ratio", "ideal_ratio"}
    assert all(ttft[k] > 0 for k in ttft)
    assert ttft["ideal_ratio"] > 1


def test_good_run_measures_both_drafters_and_both_decode_like_greedy(good_run):
    _, report, _ = good_run
    [prompt] = report["prompts"]
    spec = prompt["speculation"]
    assert [s["drafter"] for s in spec][0] == PROMPT_LOOKUP
    assert len(spec) == 2 and "re-quantised to 4 bits" in spec[1]["drafter"]
    for s in spec:
        assert s["identical_to_greedy"] is True
        assert s["gamma"] == 4 and 1 <= s["new_tokens"] <= 8
        assert 0 <= s["accepted_tokens"] <= s["drafted_tokens"]
        assert s["recommendation"]["verdict"]


def test_output_file_is_written_atomically_instead_of_stdout(good_run):
    result, report, folder = good_run
    assert result.stdout == ""
    assert report["prompts"][0]["location"] == FIXTURE
    assert [p.name for p in folder.iterdir()] == ["verify.json"]  # no temporary file left beside it


# ------------------------------------------------------------------ unusable models


@pytest.mark.parametrize("kind, says", [("missing", "no such model folder"), ("empty", "no config.json")])
def test_unusable_model_path_is_one_error_line_and_exit_2(tmp_path, kind, says):
    path = tmp_path / "not-a-model"
    if kind == "empty":
        path.mkdir()
    result = verify(FIXTURE, "--model", str(path), *SMALL)
    assert result.exit_code == 2
    [line] = error_lines(result.stderr)
    assert line.startswith(f"error: {path}: ") and says in line
    assert result.stdout == ""


def test_model_without_chat_template_exits_2(tiny_folders):
    result = verify(FIXTURE, "--model", str(tiny_folders.no_template), *SMALL, "--no-speculate")
    assert result.exit_code == 2
    [line] = error_lines(result.stderr)
    assert line.startswith(f"error: {tiny_folders.no_template}: ")
    assert "no chat template" in line and "--chat-template" in line
    assert result.stdout == ""


def test_chat_template_file_makes_that_model_usable_and_no_speculate(tiny_folders):
    result = verify(FIXTURE, "--model", str(tiny_folders.no_template), "--chat-template",
                    str(tiny_folders.chat_template_file), *SMALL, "--no-speculate")
    assert result.exit_code == 0, result.stderr
    assert error_lines(result.stderr) == []
    text = result.stdout  # --format auto, not a terminal: plain text
    assert FIXTURE in text and "3/3 requests agree" in text
    assert "predicted and measured cached tokens agree on 3/3" in text
    assert "MISMATCH" not in text
    # --no-speculate: no speculation table, notes or formula
    assert "drafter" not in text and PROMPT_LOOKUP not in text and "predicted speedup" not in text


# ------------------------------------------------------------------ bad input, the rest still runs


def test_broken_request_line_is_reported_and_the_good_lines_replayed(tiny_folders, tmp_path):
    system = ("You are Pine, the support assistant for Harbor & Pine Outfitters. Answer questions about orders, "
              "returns and warranties in under 120 words and never invent order details.")
    good = [{"messages": [{"role": "system", "content": system}, {"role": "user", "content": q}]}
            for q in ("Where is my tent?", "Can I return worn boots?")]
    path = tmp_path / "recorded.jsonl"
    path.write_text(json.dumps(good[0]) + "\n" + '{"messages": [oops\n' + json.dumps(good[1]) + "\n",
                    encoding="utf-8")
    result = verify("--requests", str(path), "--model", str(tiny_folders.chatml), "--no-speculate",
                    "--format", "json")
    assert result.exit_code == 2
    [line] = error_lines(result.stderr)
    assert re.match(rf"^{re.escape(str(path))}:2:(1:)? bad request line: ", line), line
    [prompt] = json.loads(result.stdout)["prompts"]
    assert [r["label"] for r in prompt["requests"]] == [f"{path}:1", f"{path}:3"]
    assert_agrees(prompt)
    assert prompt["requests"][1]["measured_cached_tokens"] >= 32
    assert prompt["speculation"] == []  # --no-speculate


def test_prompt_longer_than_the_context_is_an_error_and_the_short_one_still_runs(tiny_folders, tmp_path):
    short = tmp_path / "short.j2"
    short.write_text("Reply in one word.\nQuestion: {{ question }}\n", encoding="utf-8")
    result = verify(FIXTURE, str(short), "--model", str(tiny_folders.short_context), "--block-size", "4",
                    *SMALL, "--draft", "none", "--format", "json")
    assert result.exit_code == 2
    lines = error_lines(result.stderr)
    assert lines and all(line.startswith(f"{FIXTURE}:") for line in lines), lines
    assert all(f"has a context of {SHORT_CONTEXT} tokens" in line for line in lines)
    assert "request 1: prompt is " in lines[0]
    long_prompt, short_prompt = json.loads(result.stdout)["prompts"]
    assert long_prompt["location"].startswith(FIXTURE)
    assert long_prompt["requests"] == [] and long_prompt["speculation"] == [] and long_prompt["errors"]
    assert short_prompt["location"].endswith("short.j2") and short_prompt["errors"] == []
    assert len(short_prompt["requests"]) == 3
    for r in short_prompt["requests"]:
        assert r["predicted_cached_tokens"] == r["measured_cached_tokens"] and r["prompt_tokens"] < SHORT_CONTEXT
    assert [s["drafter"] for s in short_prompt["speculation"]] == [PROMPT_LOOKUP]  # --draft none
    assert short_prompt["speculation"][0]["identical_to_greedy"] is True


# ------------------------------------------------------------------ the lint path stays light


def test_check_and_help_import_no_torch():
    code = (
        "import sys\n"
        "from promptlint.cli import main\n"
        "def run(args):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "run(['check', 'fixtures/seed/seed.prompty'])\n"
        "run(['--help'])\n"
        "run(['verify', '--help'])\n"
        "heavy = [m for m in ('torch', 'transformers', 'promptlint.verify') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "verify" in proc.stdout and "--cache-blocks" in proc.stdout  # the command is listed and has help
    assert proc.stderr.strip().endswith("HEAVY="), proc.stderr[-2000:]
