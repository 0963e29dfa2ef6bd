"""Engines' reuse rules without a model (verify/sim.py), against streams
computed by hand, eviction included."""

from __future__ import annotations

import pytest

from promptlint.verify.sim import engine


def run(sim, stream):
    return [(r.cached_tokens, r.evicted_tokens) for r in map(sim.request, stream)]


def test_vllm_blocks_lru_leaf_eviction_and_the_last_token_kept():
    """Block size 2, room for 3 blocks. r1 stores A=(1,2) B=(3,4); r2 reuses both
    (its 5th token is prefilled); r3 reuses A, stores C=(7,8), and for D=(9,9)
    evicts the least recently used leaf, B; r4 finds A, then B's key was cached
    once and is gone: 2 tokens reused, 2 evicted."""
    sim = engine("vllm", block_size=2, capacity=3)
    assert run(sim, [[1, 2, 3, 4, 5], [1, 2, 3, 4, 9], [1, 2, 7, 8, 9, 9, 0], [1, 2, 3, 4, 5]]) == [
        (0, 0), (4, 0), (2, 0), (2, 2)]
    assert len(sim.index) == 3


def test_vllm_reuses_only_full_blocks():
    sim = engine("vllm", block_size=4, capacity=100)
    assert run(sim, [list(range(10)), list(range(10)), list(range(7)) + [99]]) == [(0, 0), (8, 0), (4, 0)]


def test_sglang_token_granularity_and_lru_leaves():
    """Room for 4 tokens. r3 evicts the leaves 3 then 4 (least recently used
    first; 2 becomes a leaf only after 4 goes); r4 finds 1, 2 and sees 3 was evicted."""
    sim = engine("sglang", capacity=4)
    assert run(sim, [[1, 2, 3], [1, 2, 4], [5, 6], [1, 2, 3, 7]]) == [(0, 0), (2, 0), (0, 0), (2, 1)]


def test_llamacpp_one_slot_reuses_the_previous_prompt_only():
    sim = engine("llamacpp", server_args="-np 1 --cache-ram 0")
    assert sim.one_previous_prompt
    assert run(sim, [[1, 2, 3], [1, 2, 4], [9], [9], [9, 1], [1, 2, 4]]) == [
        (0, 0), (2, 0), (0, 0), (0, 0), (1, 0), (0, 0)]


A, B, C = [1] * 8 + [2], [5] * 8 + [6], [7] * 8 + [8]


def cached(sim, stream):
    return [r.cached_tokens for r in map(sim.request, stream)]


def test_llamacpp_slots_by_similarity_then_least_recently_used():
    """Two slots: B finds no similar slot and takes the unused one (LRU), so
    A's slot is intact when A comes back; C takes the least recently used
    slot, B's, so A is reused again and B is not."""
    sim = engine("llamacpp", server_args="-np 2 --cache-ram 0")
    assert cached(sim, [A, B, A + [3], C, A + [4], B + [9]]) == [0, 0, 9, 0, 9, 0]
    assert not sim.one_previous_prompt


def test_llamacpp_similarity_threshold_leaves_a_weak_match_to_lru():
    """-sps 0.5: a request sharing 4 of its 9 tokens with the only filled
    slot does not take it (0.44 is not over 0.5); it takes the empty slot."""
    half = [1] * 4 + [9] * 5
    assert cached(engine("llamacpp", server_args="-np 2 -sps 0.5 --cache-ram 0"), [A, half]) == [0, 0]
    assert cached(engine("llamacpp", server_args="-np 2 -sps 0.4 --cache-ram 0"), [A, half]) == [0, 4]


def test_llamacpp_host_prompt_cache_restores_a_prompt_the_slot_lost():
    """One slot with the host prompt cache: B (by LRU) saves A's prompt there;
    A's return saves B and loads A back, taking it out of the cache; the
    repeated A + [3] keeps all but its last token."""
    sim = engine("llamacpp", server_args="-np 1")
    assert cached(sim, [A, B, A + [3], B + [4], A + [3]]) == [0, 0, 9, 9, 9]
    assert [len(s) for s in sim.states] == [10]  # B + [4] (A's shorter prompt was dropped as contained)


def test_llamacpp_host_cache_loads_only_a_prompt_that_keeps_a_quarter_of_itself():
    """A request sharing 4 tokens with a cached prompt of 20 (a fifth of it)
    does not load it; one sharing 4 of a cached prompt of 10 does."""
    long, short = [1] * 4 + [2] * 16, [1] * 4 + [3] * 6
    for prompt, reused in ((long, 0), (short, 4)):
        sim = engine("llamacpp", server_args="-np 1 -sps 0")
        assert cached(sim, [prompt, [9] * 5, [1] * 4 + [7] * 4]) == [0, 0, reused]


def test_llamacpp_defaults_save_and_clear_idle_slots_on_a_unified_cache():
    """No -np: 4 slots on a unified KV cache; every idle slot is saved to the
    host cache and cleared when a request starts, so reuse comes back
    through the host cache."""
    sim = engine("llamacpp")
    assert (sim.args.slots, sim.args.kv_unified, sim.args.cache_ram_mib) == (4, True, 8192)
    assert cached(sim, [A, B, A + [3], C, B + [1]]) == [0, 0, 9, 0, 9]
    assert sum(1 for slot in sim.slots if slot.tokens) == 1


def test_llamacpp_host_cache_room_in_tokens_drops_the_oldest():
    """--cache-ram 1 MiB over 2**17 bytes a token: room for 8 tokens, so a
    9-token prompt is never saved, and one of 5 pushes out the oldest."""
    sim = engine("llamacpp", server_args="-np 1 --cache-ram 1", kv_bytes_per_token=2**17)
    assert sim.limit_tokens == 8
    assert cached(sim, [A, B, A]) == [0, 0, 0]
    sim = engine("llamacpp", server_args="-np 1 --cache-ram 1", kv_bytes_per_token=2**17)
    assert cached(sim, [[1, 1, 1, 2], [3, 3, 3, 4, 5], [6, 6, 6], [1, 1, 1, 2]]) == [0, 0, 0, 0]
    assert [s[0] for s in sim.states] == [3, 6]  # [1, 1, 1, 2] went out for [6, 6, 6]


def test_llamacpp_cache_reuse_shifts_chunks_past_dropped_tokens():
    """--cache-reuse 3: after the common prefix (1, 2), cached tokens are
    skipped until a chunk of 3 or more continues the request; a shorter
    chunk is not taken; a replaced token is never skipped in the request."""
    stream = [[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 5, 6, 7, 8, 9]]
    assert cached(engine("llamacpp", server_args="-np 1 --cache-ram 0 --cache-reuse 3"), stream) == [0, 6]
    assert cached(engine("llamacpp", server_args="-np 1 --cache-ram 0 --cache-reuse 4"), stream) == [0, 6]
    assert cached(engine("llamacpp", server_args="-np 1 --cache-ram 0 --cache-reuse 5"), stream) == [0, 2]
    replaced = [[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 0, 4, 5, 6, 7, 8]]
    assert cached(engine("llamacpp", server_args="-np 1 --cache-ram 0 --cache-reuse 3"), replaced) == [0, 2]


def test_llamacpp_generated_tokens_stay_in_the_slot_and_match_nothing():
    """The slot keeps its answer after the prompt (3 tokens here) with ids
    that match no request: a request extending A reuses A's 9 tokens only."""
    sim = engine("llamacpp", server_args="-np 1 --cache-ram 0", generated=3)
    assert cached(sim, [A, A + [3, 3, 3]]) == [0, 9]
    assert len(sim.slots[0].tokens) == 12 + 3


def test_llamacpp_server_args_parse_like_the_server():
    from promptlint.verify.sim_llamacpp import parse_server_args

    assert parse_server_args("-np 4") == parse_server_args("--parallel=4")
    given = parse_server_args("-m model.gguf --host 0.0.0.0 --port 8080 -np 4 --cache-reuse 256 -fa on --jinja")
    assert (given.slots, given.kv_unified, given.cache_reuse) == (4, False, 256)  # -np given: no unified KV
    auto = parse_server_args("-np -1 --no-cache-idle-slots -sps 0")
    assert (auto.slots, auto.kv_unified, auto.cache_idle_slots, auto.slot_similarity) == (4, True, False, 0.0)
    assert parse_server_args("-np 2 -kvu").kv_unified
    for bad, message in (("-np", "-np needs a value"), ("-np 0", "at least one slot"),
                         ("--cache-reuse x", "--cache-reuse x: not an integer"), ("-sps high", "not a number")):
        with pytest.raises(ValueError, match=message):
            parse_server_args(bad)


def test_unknown_engine_and_a_block_size_for_sglang_are_refused():
    with pytest.raises(ValueError, match="unknown engine"):
        engine("tgi")
    with pytest.raises(ValueError, match="token granularity"):
        engine("sglang", block_size=16)


def test_the_simulation_keeps_what_the_built_in_engine_keeps():
    """Same bookkeeping class: the built-in engine's cache, given KV for every
    position, stores and reuses exactly the blocks the simulation does."""
    torch = pytest.importorskip("torch")
    from promptlint.verify.prefix_cache import PrefixCache

    stream = [[1, 2, 3, 4, 5], [1, 2, 3, 4, 9], [1, 2, 7, 8, 9, 9, 0], [1, 2, 3, 4, 5], [7, 7, 7, 7]]
    real = PrefixCache(2, 3)
    measured = []
    for tokens in stream:
        match = real.match(tokens, limit=len(tokens) - 1)
        measured.append((match.tokens, match.evicted_tokens))
        kv = [(torch.zeros(1, 1, len(tokens), 2), torch.zeros(1, 1, len(tokens), 2))]
        real.insert(tokens, kv)
    assert run(engine("vllm", block_size=2, capacity=3), stream) == measured


def test_the_cli_refuses_a_missing_tokenizer_and_hosted_rules_in_one_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent

    def verify(*args):
        return subprocess.run([sys.executable, "-m", "promptlint", "verify", "--engine", "sim", *args,
                               str(repo / "fixtures" / "seed")], capture_output=True, text=True, cwd=repo, timeout=120)

    missing = verify("--tokenizer", str(tmp_path / "nope"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert f"{tmp_path / 'nope'}: no such tokenizer" in missing.stderr
    hosted = verify("--server", "openai")
    assert hosted.returncode == 2 and "simulate a hosted model with --provider MODEL" in hosted.stderr
    sglang_blocks = verify("--server", "sglang", "--block-size", "16")
    assert sglang_blocks.returncode == 2 and "token granularity" in sglang_blocks.stderr
