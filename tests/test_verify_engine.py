"""The built-in engine on a tiny random Llama (DeepSeek's tokenizer, ChatML):
a prefill that reuses cached blocks computes what a cold prefill computes;
cached generation decodes what uncached generation decodes; reuse is whole
blocks and leaves a token to prefill, and equals the prediction; prompts
longer than the context are refused; a cache too small for the stream
makes measured < predicted, explained by eviction.

Tolerance: cached and cold prefill are compared in float32 on the CPU with
a maximum absolute logit difference of LOGIT_TOL = 1e-4 (in practice the
two agree to ~1e-6: only the summation order of attention differs).
"""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from verify_fixtures import tiny_folders, tiny_loaded  # noqa: F401

from promptlint.verify.engine import Engine, PromptTooLong
from promptlint.verify.predict import Predictor
from promptlint.verify.replay import replay
from promptlint.verify.requests import Request

LOGIT_TOL = 1e-4
SHORT_CONTEXT = 64

SYSTEM = ("You are Pine, the support assistant for Harbor & Pine Outfitters. Answer questions about orders, "
          "returns and warranties in under 120 words, never invent order details, and hand the conversation "
          "to a person when a refund over $500.00 is involved.")
OTHER_SYSTEM = ("Summarise the incident timeline below for the on-call engineer. List every alert with its time, "
                "the services it touched and the deploys around it; say which facts are uncertain and keep it short.")


def chat(loaded, system: str, question: str) -> list[int]:
    return loaded.encode(loaded.chat_text([{"role": "system", "content": system},
                                           {"role": "user", "content": question}]))


@pytest.fixture(scope="module")
def tiny_loaded_64(tiny_loaded):
    """The tiny model with a context of 64 tokens (the CLI tests load a folder
    saved with context=64; here only the engine's length check matters)."""
    return dataclasses.replace(tiny_loaded, name="tiny-64", context_length=SHORT_CONTEXT)


@pytest.fixture(scope="module")
def prompts(tiny_loaded):
    a = chat(tiny_loaded, SYSTEM, "Where is my tent? It was due on Friday.")
    b = chat(tiny_loaded, SYSTEM, "Can I return worn trail runners after a week?")
    c = chat(tiny_loaded, OTHER_SYSTEM, "payments-api p95 latency alert at 09:14")
    assert 40 < len(a) < 120 and 40 < len(b) < 120  # short: keeps the tests fast
    return a, b, c


# ------------------------------------------------------------------ numerics of reuse


def test_cached_prefill_equals_cold_prefill(tiny_loaded, prompts):
    a, b, _ = prompts
    engine = Engine(tiny_loaded, block_size=16)
    first = engine.prefill(a)
    assert first.cached_tokens == 0 and first.prefilled_tokens == len(a)
    warm = engine.prefill(b)
    assert warm.cached_tokens >= 32  # the system prompt's blocks were reused
    assert warm.prefilled_tokens == len(b) - warm.cached_tokens
    cold = engine.prefill(b, use_cache=False, store=False)
    assert cold.cached_tokens == 0
    fresh = Engine(tiny_loaded, block_size=16).prefill(b)  # an engine that never saw `a`
    for reference in (cold, fresh):
        assert float((warm.logits - reference.logits).abs().max()) <= LOGIT_TOL
        assert warm.first_token == reference.first_token
    assert warm.logits.dtype == torch.float32 and warm.logits.device.type == "cpu"
    assert warm.ttft_seconds > 0


def test_cold_prefill_neither_reads_nor_writes_the_cache(tiny_loaded, prompts):
    a, _, _ = prompts
    engine = Engine(tiny_loaded, block_size=16)
    engine.prefill(a, use_cache=False, store=False)
    assert len(engine.cache) == 0 and engine.cache.stats.queries == 0
    engine.prefill(a)
    stats = (engine.cache.stats.queries, engine.cache.stats.hits, len(engine.cache))
    engine.prefill(a, use_cache=False, store=False)
    assert (engine.cache.stats.queries, engine.cache.stats.hits, len(engine.cache)) == stats


def test_cached_generation_decodes_the_same_greedy_tokens(tiny_loaded, prompts):
    a, b, _ = prompts
    engine = Engine(tiny_loaded, block_size=16)
    engine.prefill(a)
    warm_pre, warm_out = engine.generate(b, 8)
    assert warm_pre.cached_tokens > 0
    cold_pre, cold_out = Engine(tiny_loaded, block_size=16).generate(b, 8, use_cache=False)
    assert cold_pre.cached_tokens == 0
    assert warm_out == cold_out
    assert len(warm_out) == 8 or warm_out[-1] in tiny_loaded.eos_ids
    # and a third time, now that `b` itself is cached
    again_pre, again_out = engine.generate(b, 8)
    assert again_pre.cached_tokens == (len(b) - 1) // 16 * 16
    assert again_out == cold_out


# ------------------------------------------------------------------ block accounting


@pytest.mark.parametrize("block_size", [1, 7, 16])
def test_reuse_is_whole_blocks_leaves_a_token_and_matches_the_prediction(tiny_loaded, prompts, block_size):
    a, b, c = prompts
    engine = Engine(tiny_loaded, block_size=block_size)
    predictor = Predictor(block_size)
    seen = []
    for tokens in (a, b, a, c):
        predicted = predictor.predict(tokens).cached_tokens
        result = engine.prefill(tokens)
        seen.append(result.cached_tokens)
        assert result.cached_tokens % block_size == 0
        assert result.cached_tokens < len(tokens)
        assert result.cached_tokens == predicted
        assert result.evicted_tokens == 0
    assert seen[0] == 0
    assert seen[2] == (len(a) - 1) // block_size * block_size  # a repeated: all of it but the last token
    if block_size == 1:
        assert seen[2] == len(a) - 1


# ------------------------------------------------------------------ context


def test_prompt_longer_than_the_context_is_refused(tiny_loaded_64):
    loaded = tiny_loaded_64
    engine = Engine(loaded, block_size=16)
    with pytest.raises(PromptTooLong) as info:
        engine.prefill(list(range(10, 10 + SHORT_CONTEXT + 1)))
    message = str(info.value)
    assert f"prompt is {SHORT_CONTEXT + 1} tokens" in message
    assert f"context of {SHORT_CONTEXT} tokens" in message and loaded.name in message
    assert len(engine.cache) == 0 and engine.cache.stats.queries == 0  # refused before any work
    engine.prefill(list(range(10, 10 + SHORT_CONTEXT)))  # exactly the context fits
    with pytest.raises(PromptTooLong, match=r"prompt is 60 tokens plus 8 to generate; .* context of 64 tokens"):
        engine.generate(list(range(10, 70)), 8)
    with pytest.raises(PromptTooLong, match="empty"):
        engine.prefill([])


def test_replay_reports_a_too_long_request_and_replays_the_rest(tiny_loaded_64):
    engine = Engine(tiny_loaded_64, block_size=4)
    short = Request("p", "short 1", [{"role": "user", "content": "Where is my tent?"}], "short.j2", 3)
    long = Request("p", "long 1", [{"role": "user", "content": "Where is my tent? " * 40}], "long.j2", 7)
    short2 = Request("p", "short 2", [{"role": "user", "content": "Where is my stove?"}], "short.j2", 3)
    [result] = replay(engine, [("p", "short.j2", [short, long, short2])], cold_samples=0)
    assert [r.label for r in result.requests] == ["short 1", "short 2"]
    [error] = result.errors
    assert str(error).startswith("long.j2:7:1: long 1: prompt is ")
    assert f"context of {SHORT_CONTEXT} tokens" in str(error)
    assert all(r.agrees for r in result.requests)


# ------------------------------------------------------------------ replay: cold samples and eviction


def _requests(pairs):
    return [Request("p", label, [{"role": "system", "content": system}, {"role": "user", "content": question}],
                    "p.j2", 1) for label, system, question in pairs]


def test_replay_measures_cold_prefill_for_hits(tiny_loaded):
    stream = _requests([("r1", SYSTEM, "Where is my tent?"), ("r2", SYSTEM, "Can I return boots?"),
                        ("r3", SYSTEM, "Do gift cards expire?"), ("r4", SYSTEM, "Is shipping free?")])
    engine = Engine(tiny_loaded, block_size=16)
    [result] = replay(engine, [("p", "p.j2", stream)], cold_samples=2)
    first, *hits = result.requests
    assert first.measured == 0 and first.ttft_cold is None
    timed = [r for r in hits if r.ttft_cold is not None]
    assert len(timed) == 2  # cold_samples caps the cold prefills per prompt
    for r in timed:
        assert r.cold_first_token_matches is True
        assert r.cold_max_logit_diff <= LOGIT_TOL
        assert r.ttft_cold > 0
    assert all(r.agrees and r.explanation(engine.cache.capacity_blocks) == "" for r in result.requests)
    assert result.ttft_cold is not None and result.ideal_ratio > 1


def test_small_cache_evicts_and_the_mismatch_is_explained(tiny_loaded):
    stream = _requests([
        ("r1", SYSTEM, "Where is my tent?"),
        ("r2", OTHER_SYSTEM + " " + OTHER_SYSTEM, "checkout errors since 10:02"),  # pushes r1's blocks out
        ("r3", SYSTEM, "Can I return boots?"),  # shares r1's system prompt
    ])
    capacity = 8
    engine = Engine(tiny_loaded, block_size=4, capacity_blocks=capacity)
    [result] = replay(engine, [("p", "p.j2", stream)], cold_samples=0)
    r3 = result.requests[2]
    assert r3.shared_tokens > 40
    assert r3.measured < r3.predicted
    assert r3.evicted > 0 and r3.evicted % 4 == 0
    assert not r3.agrees
    explanation = r3.explanation(capacity)
    assert "evicted" in explanation and f"capacity {capacity} blocks" in explanation
    assert "--cache-blocks" in explanation
    assert engine.cache.stats.evicted_blocks > 0 and len(engine.cache) <= capacity

    roomy = Engine(tiny_loaded, block_size=4)  # the same stream with the default capacity agrees
    [result] = replay(roomy, [("p", "p.j2", stream)], cold_samples=0)
    assert all(r.agrees for r in result.requests) and result.requests[2].measured == r3.predicted
    assert roomy.cache.stats.evicted_blocks == 0
