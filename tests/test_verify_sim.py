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
    sim = engine("llamacpp")
    assert run(sim, [[1, 2, 3], [1, 2, 4], [9], [9], [9, 1], [1, 2, 4]]) == [
        (0, 0), (2, 0), (0, 0), (0, 0), (1, 0), (0, 0)]


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
    assert hosted.returncode == 2 and "hosted providers are not simulated" in hosted.stderr
    sglang_blocks = verify("--server", "sglang", "--block-size", "16")
    assert sglang_blocks.returncode == 2 and "token granularity" in sglang_blocks.stderr
