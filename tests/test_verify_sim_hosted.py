"""Hosted providers' caching rules without a model (verify/sim_hosted.py):
the minimum, the increments, cache_control breakpoints with their lookback,
and the TTL on arrival times, against streams computed by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from promptlint.economics.providers import load_table
from promptlint.verify.requests import Request
from promptlint.verify.sim_hosted import HostedEngine, HostedTokens

REPO = Path(__file__).resolve().parent.parent
TABLE = load_table()


def hosted(key: str) -> HostedEngine:
    spec = TABLE[key]
    return HostedEngine(spec, HostedTokens(spec))


def at(seconds: float, messages=(), breaks=()) -> Request:
    return Request("p", f"at {seconds}", list(messages), arrival=seconds, breaks=tuple(breaks))


def test_automatic_caching_hits_in_increments_after_the_minimum_within_the_ttl():
    """gpt-4o: 1,024 then 128-token steps, 300 s. r2 repeats r1's 1,500
    tokens (1,408 on the grid); r3 shares 1,300 (1,280); r4 comes 900 s after
    r2 last used the 1,408 tokens (expired: nothing, the reason given); r5 reads what r4 wrote;
    a prompt under 1,024 tokens is never cached."""
    sim = hosted("openai/gpt-4o")
    base = list(range(1500))
    stream = [(0, base), (100, base), (200, base[:1300] + [7] * 300), (1000, base), (1010, base), (1020, base[:1000]),
              (1030, base[:1000])]
    reuse = [sim.request(tokens, at(t)) for t, tokens in stream]
    assert [r.cached_tokens for r in reuse] == [0, 1408, 1280, 0, 1408, 0, 0]
    assert reuse[3].rule == "the 1,408-token prefix was last used 900 s earlier, over openai/gpt-4o's TTL of 300 s"
    assert sim.stats.hits == 1408 + 1280 + 1408


def test_a_hit_refreshes_the_ttl():
    sim = hosted("openai/gpt-4o")
    base = list(range(1100))
    assert [sim.request(base, at(t)).cached_tokens for t in (0, 250, 500, 750)] == [0, 1024, 1024, 1024]


def test_explicit_caching_reads_and_writes_only_at_breakpoints_past_the_minimum():
    """claude-sonnet-4.5: the system prompt marked cache_control is cached by
    r1 and read by r2 whole; r3 marks nothing and caches nothing, the
    reason said; a mark under the 1,024-token minimum caches nothing."""
    sim = hosted("anthropic/claude-sonnet-4.5")
    system = " ".join(f"rule {i}." for i in range(600))
    first = [{"role": "system", "content": system}, {"role": "user", "content": "Question one?"}]
    second = [{"role": "system", "content": system}, {"role": "user", "content": "Question two?"}]
    marked = [(0, len(system))]
    mark = HostedTokens(TABLE["anthropic/claude-sonnet-4.5"]).offsets(first, marked)[0]
    assert mark >= 1024
    tokens = sim.tokens.encode(sim.tokens.chat_text(first)), sim.tokens.encode(sim.tokens.chat_text(second))
    assert sim.request(tokens[0], at(0, first, marked)).cached_tokens == 0
    assert sim.request(tokens[1], at(10, second, marked)).cached_tokens == mark
    unmarked = sim.request(tokens[1], at(20, second))
    assert unmarked.cached_tokens == 0 and "no cache_control breakpoint" in unmarked.rule
    short = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    text = sim.tokens.encode(sim.tokens.chat_text(short))
    assert [sim.request(text, at(30 + i, short, [(0, 9)])).cached_tokens for i in range(2)] == [0, 0]
    assert "4 of 5 requests carry no cache_control breakpoint" not in sim.describe()
    assert "3 of 5 requests carry no cache_control breakpoint past the minimum" in sim.describe()


def test_explicit_lookback_reads_an_earlier_breakpoint_at_a_message_boundary():
    """r1 marks the end of its system prompt; r2 marks only the end of a
    later message: the hit is read at the system prompt's boundary, within
    the 20 blocks of lookback."""
    sim = hosted("anthropic/claude-sonnet-4.5")
    system = " ".join(f"rule {i}." for i in range(600))
    r1 = [{"role": "system", "content": system}, {"role": "user", "content": "Q1"}]
    r2 = [{"role": "system", "content": system}, {"role": "user", "content": "Q2"}, {"role": "assistant", "content": "A"},
          {"role": "user", "content": "Q3"}]
    boundary = sim.tokens.offsets(r1, [(0, len(system))])[0]
    encode = lambda m: sim.tokens.encode(sim.tokens.chat_text(m))  # noqa: E731
    sim.request(encode(r1), at(0, r1, [(0, len(system))]))
    assert sim.request(encode(r2), at(5, r2, [(3, 2)])).cached_tokens == boundary


def test_more_breakpoints_than_allowed_is_refused_by_the_api():
    sim = hosted("anthropic/claude-sonnet-4.5")
    words = "alpha beta gamma delta epsilon"
    messages = [{"role": "user", "content": words}]
    ends = [words.index(w) + len(w) for w in words.split()]
    reuse = sim.request([1, 2, 3], at(0, messages, [(0, end) for end in ends]))
    assert reuse.cached_tokens == 0 and "allows 4, so the API refuses it" in reuse.rule


def test_a_serving_engine_entry_is_refused():
    with pytest.raises(ValueError, match="simulate it with --server vllm"):
        hosted("vllm/default")


def _verify(*args):
    return subprocess.run([sys.executable, "-m", "promptlint", "verify", "--engine", "sim", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=300)


def test_cli_recorded_requests_with_timestamps_show_the_ttl_miss(tmp_path):
    """Three recorded OpenAI requests with the same 1,200-token system prompt;
    the third comes 10 minutes after the second: predicted 1,152 (the audit
    knows no time), simulated 0, the TTL named; exit code 1."""
    system = " ".join(f"rule {i}." for i in range(400))
    lines = [{"timestamp": t, "messages": [{"role": "system", "content": system}, {"role": "user", "content": q}]}
             for t, q in ((1_764_000_000, "One?"), (1_764_000_060, "Two?"), (1_764_000_660, "Three?"))]
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "report.json"
    run = _verify("--provider", "openai/gpt-4o", "--requests", str(requests), "--format", "json", "-o", str(out))
    assert run.returncode == 1, run.stderr
    report = json.loads(out.read_text())
    got = [(r["predicted_cached_tokens"], r["measured_cached_tokens"]) for r in report["prompts"][0]["requests"]]
    assert got[0] == (0, 0) and got[1][0] == got[1][1] > 1024 and got[2] == (got[1][0], 0)
    assert "600 s earlier, over openai/gpt-4o's TTL of 300 s" in report["prompts"][0]["requests"][2]["explanation"]
    assert report["engine"]["simulated"] == "openai/gpt-4o"
    assert report["prediction"].startswith("predicted = the audit's cacheable tokens")


def test_cli_anthropic_requests_read_their_cache_control_and_system(tmp_path):
    """Anthropic Messages API requests: the top-level system blocks, one
    marked cache_control, are read; the second request reads the mark."""
    system = [{"type": "text", "text": " ".join(f"rule {i}." for i in range(600)), "cache_control": {"type": "ephemeral"}}]
    lines = [{"body": {"system": system, "messages": [{"role": "user", "content": q}]}} for q in ("One?", "Two?")]
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "report.json"
    run = _verify("--provider", "anthropic/claude-sonnet-4.5", "--requests", str(requests), "--format", "json", "-o",
                  str(out))
    assert run.returncode == 0, run.stderr
    got = [r["measured_cached_tokens"] for r in json.loads(out.read_text())["prompts"][0]["requests"]]
    assert got[0] == 0 and got[1] > 1024


def test_cli_refuses_an_unknown_model_and_provider_with_server_in_one_line():
    unknown = _verify("--provider", "acme/nope", str(REPO / "fixtures" / "seed"))
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: --provider acme/nope: unknown model")
    both = _verify("--provider", "openai/gpt-4o", "--server", "vllm", str(REPO / "fixtures" / "seed"))
    assert both.returncode == 2 and "give one of them" in both.stderr
