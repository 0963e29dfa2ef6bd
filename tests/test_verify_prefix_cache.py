"""The paged prefix cache on its own, with small fake KV tensors: only full
blocks are cached; a hit is the longest cached block-aligned prefix; chain
hashing invalidates every block after a changed token; `limit`; LRU leaf
eviction that keeps every cached chain reachable and never exceeds the
capacity; evicted-token accounting; gather() order; stats."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from promptlint.verify import prefix_cache
from promptlint.verify.prefix_cache import ROOT, PrefixCache, block_key

LAYERS, HEADS, HEAD_DIM = 2, 2, 3


def fake_kv(tokens: list[int], tag: float = 0.0):
    """Per-layer (keys, values) of shape (1, HEADS, n, HEAD_DIM) in which each
    position says what it is: keys hold (position, token id, layer), values
    the same negated, plus `tag` in every entry (to tell two inserts apart)."""
    n = len(tokens)
    kv = []
    for layer in range(LAYERS):
        k = torch.zeros(1, HEADS, n, HEAD_DIM)
        k[..., 0] = torch.arange(n, dtype=torch.float32)
        k[..., 1] = torch.tensor(tokens, dtype=torch.float32)
        k[..., 2] = layer
        kv.append((k + tag, -k + tag))
    return kv


def put(cache: PrefixCache, tokens: list[int], tag: float = 0.0) -> int:
    return cache.insert(tokens, fake_kv(tokens, tag))


def seq(start: int, n: int) -> list[int]:
    return list(range(start, start + n))


def assert_gathered(cache: PrefixCache, match, tokens: list[int], tag: float = 0.0):
    """gather() of a match gives, layer by layer, the KV of positions
    0..match.tokens-1 of `tokens`, in order."""
    kv = cache.gather(match.blocks)
    assert len(kv) == LAYERS
    n = match.tokens
    for layer, (k, v) in enumerate(kv):
        assert k.shape == v.shape == (1, HEADS, n, HEAD_DIM)
        expected = fake_kv(tokens[:n], tag)[layer]
        assert torch.equal(k, expected[0]) and torch.equal(v, expected[1])


def assert_chains_reachable(cache: PrefixCache):
    """Every cached block's parent is cached too (eviction takes leaves only),
    its child count is right, and the capacity holds."""
    blocks = cache._blocks  # internal, read only: the invariant is about what is stored
    assert len(blocks) <= cache.capacity_blocks
    for key, block in blocks.items():
        assert block.parent == ROOT or block.parent in blocks, "a cached block lost its parent"
        assert block.children == sum(1 for b in blocks.values() if b.parent == key)


# ------------------------------------------------------------------ full blocks and hits


def test_only_full_blocks_are_cached():
    cache = PrefixCache(block_size=4)
    tokens = seq(100, 10)  # two full blocks and two tokens over
    assert put(cache, tokens) == 2
    assert len(cache) == 2
    assert cache.match(tokens).tokens == 8
    assert cache.match(tokens[:7]).tokens == 4  # only one full block within 7 tokens
    assert cache.match(tokens[:3]).tokens == 0
    assert put(cache, tokens[:3]) == 0  # less than a block: nothing to store


def test_insert_stores_only_positions_the_kv_covers():
    cache = PrefixCache(block_size=4)
    tokens = seq(0, 12)
    assert cache.insert(tokens, fake_kv(tokens[:9])) == 2  # KV of 9 positions: two full blocks
    assert cache.match(tokens).tokens == 8


@pytest.mark.parametrize("shared, hit", [(12, 12), (11, 8), (9, 8), (8, 8), (5, 4), (4, 4), (3, 0), (0, 0)])
def test_hit_is_the_longest_block_aligned_cached_prefix(shared, hit):
    cache = PrefixCache(block_size=4)
    cached = seq(0, 12)
    put(cache, cached)
    query = cached[:shared] + seq(500, 12 - shared)
    match = cache.match(query)
    assert match.tokens == hit
    assert len(match.blocks) == hit // 4
    assert [t for b in match.blocks for t in b.tokens] == cached[:hit]


def test_longest_of_several_cached_prompts_wins():
    cache = PrefixCache(block_size=2)
    base = seq(0, 4)
    put(cache, base + seq(10, 2))
    put(cache, base + seq(20, 6))
    put(cache, seq(50, 8))
    assert cache.match(base + seq(20, 6) + [99]).tokens == 10
    assert cache.match(base + seq(10, 2) + [99, 98]).tokens == 6
    assert cache.match(base + [7, 7]).tokens == 4


def test_changed_token_invalidates_every_later_block_even_if_equal():
    """Chain hashing: a block is only reused when every token before it is
    the same too, as in vLLM."""
    cache = PrefixCache(block_size=4)
    tokens = seq(0, 16)
    put(cache, tokens)
    changed = list(tokens)
    changed[5] = 999  # in block 1; blocks 2 and 3 hold the same tokens as before
    match = cache.match(changed)
    assert match.tokens == 4 and len(match.blocks) == 1
    assert match.evicted_tokens == 0  # those blocks were never cached: a miss, not an eviction
    changed_first = [999] + tokens[1:]
    assert cache.match(changed_first).tokens == 0


def test_block_key_chains_parent_and_tokens():
    chunk = (1, 2, 3, 4)
    assert block_key(ROOT, chunk) == block_key(ROOT, chunk)
    assert block_key(ROOT, chunk) != block_key(block_key(ROOT, (9, 9, 9, 9)), chunk)
    assert block_key(ROOT, chunk) != block_key(ROOT, (1, 2, 3, 5))
    assert block_key(ROOT, (1,)) != block_key(ROOT, (256,))  # ids are not truncated to a byte


def test_hash_collision_never_reuses_other_tokens(monkeypatch):
    """Blocks keep their token ids and a lookup compares them: even when two
    different blocks get the same key, the other block's KV is not reused."""
    monkeypatch.setattr(prefix_cache, "block_key", lambda parent, tokens: b"k" + parent[:8] + bytes([len(tokens)]))
    cache = PrefixCache(block_size=4)
    put(cache, seq(0, 8))
    assert cache.match(seq(100, 8)).tokens == 0
    assert cache.match(seq(0, 8)).tokens == 8


# ------------------------------------------------------------------ limit


def test_limit_caps_the_hit_so_a_token_is_left_to_prefill():
    cache = PrefixCache(block_size=4)
    tokens = seq(0, 8)  # exactly two blocks, both cached
    put(cache, tokens)
    assert cache.match(tokens).tokens == 8
    assert cache.match(tokens, limit=len(tokens) - 1).tokens == 4
    assert cache.match(tokens, limit=100).tokens == 8  # a limit past the end is the end
    assert cache.match(tokens[:4], limit=3).tokens == 0


@pytest.mark.parametrize("block_size", [1, 3, 4, 7])
@pytest.mark.parametrize("length", [1, 2, 7, 8, 21])
def test_full_hit_with_engine_limit_keeps_at_least_one_token(block_size, length):
    cache = PrefixCache(block_size=block_size)
    tokens = seq(0, length)
    put(cache, tokens)
    match = cache.match(tokens, limit=length - 1)
    assert match.tokens <= length - 1
    assert match.tokens == (length - 1) // block_size * block_size


# ------------------------------------------------------------------ eviction


def test_lru_evicts_the_least_recently_used_leaf_not_a_parent():
    cache = PrefixCache(block_size=2, capacity_blocks=4)
    x, y, z, w = seq(0, 6), seq(100, 2), seq(200, 2), seq(300, 2)
    assert put(cache, x) == 3  # x1 -> x2 -> x3: x1 is the oldest block but has a child
    assert put(cache, y) == 1
    assert put(cache, z) == 1  # full: the LRU leaf is x3, not x1 or x2
    assert len(cache) == 4
    match = cache.match(x)
    assert match.tokens == 4  # x1, x2 still cached and reachable
    assert match.evicted_tokens == 2  # x3 had been cached
    assert cache.match(z).tokens == 2 and cache.match(y).tokens == 2
    # recency now: x1, x2 (matched first), z, y (matched last); leaves: x2, z, y
    assert put(cache, w) == 1
    assert cache.match(x).tokens == 2  # x2 was the least recently used leaf
    assert cache.match(y).tokens == 2 and cache.match(z).tokens == 2 and cache.match(w).tokens == 2
    assert cache.stats.evicted_blocks == 2
    assert_chains_reachable(cache)


def test_match_refreshes_recency():
    cache = PrefixCache(block_size=2, capacity_blocks=2)
    a, b, c = seq(0, 2), seq(10, 2), seq(20, 2)
    put(cache, a)
    put(cache, b)
    cache.match(a)  # a is now the most recently used
    put(cache, c)
    assert cache.match(a).tokens == 2
    assert cache.match(b).tokens == 0 and cache.match(b).evicted_tokens == 2


def test_chain_longer_than_capacity_keeps_its_head_and_never_exceeds():
    cache = PrefixCache(block_size=2, capacity_blocks=3)
    tokens = seq(0, 12)  # six blocks, room for three
    stored = put(cache, tokens)
    assert stored == 3 and len(cache) == 3
    assert cache.match(tokens).tokens == 6
    assert_chains_reachable(cache)


def test_capacity_one():
    cache = PrefixCache(block_size=2, capacity_blocks=1)
    put(cache, seq(0, 6))
    assert len(cache) == 1 and cache.match(seq(0, 6)).tokens == 2
    put(cache, seq(50, 4))
    assert len(cache) == 1 and cache.match(seq(50, 4)).tokens == 2
    assert cache.match(seq(0, 6)).tokens == 0


def test_reinserted_prefix_after_eviction_is_reused_with_the_new_kv():
    cache = PrefixCache(block_size=2, capacity_blocks=3)
    x, y = seq(0, 6), seq(100, 6)
    put(cache, x, tag=0.5)
    put(cache, y, tag=0.25)  # evicts x's blocks, leaf first
    gone = cache.match(x)
    assert gone.tokens == 0 and gone.evicted_tokens == 6
    assert put(cache, x, tag=0.75) == 3
    back = cache.match(x)
    assert back.tokens == 6 and back.evicted_tokens == 0
    assert_gathered(cache, back, x, tag=0.75)
    assert_chains_reachable(cache)


def test_evicted_tokens_count_only_blocks_cached_once_and_within_limit():
    cache = PrefixCache(block_size=2, capacity_blocks=3)
    x = seq(0, 6)
    put(cache, x)  # x1 x2 x3
    put(cache, seq(100, 2))  # evicts x3
    put(cache, seq(200, 2))  # evicts x2
    match = cache.match(x + [7, 8])  # x1 hit, x2 x3 evicted, the last block never cached
    assert match.tokens == 2 and match.evicted_tokens == 4
    assert cache.match(x, limit=4).evicted_tokens == 2  # x3 lies beyond the limit
    never = cache.match(seq(900, 6))
    assert never.tokens == 0 and never.evicted_tokens == 0


def test_random_workload_keeps_capacity_and_reachable_chains():
    """Prompts drawn from a small tree of shared prefixes through a small
    cache: capacity never exceeded, chains stay reachable, and every hit is
    a real prefix of the query with the right KV."""
    rng = random.Random(7)
    heads = [seq(1000 * i, 6) for i in range(4)]
    cache = PrefixCache(block_size=3, capacity_blocks=7)
    for _ in range(200):
        tokens = rng.choice(heads) + [rng.randrange(5) for _ in range(rng.randrange(0, 10))]
        match = cache.match(tokens, limit=len(tokens) - 1)
        assert match.tokens % 3 == 0 and match.tokens <= len(tokens) - 1
        assert [t for b in match.blocks for t in b.tokens] == tokens[:match.tokens]
        if match.blocks:
            assert_gathered(cache, match, tokens)
        put(cache, tokens)
        assert_chains_reachable(cache)
    assert cache.stats.evicted_blocks > 0  # the workload did exercise eviction


# ------------------------------------------------------------------ gather and stats


def test_gather_returns_the_stored_kv_in_order():
    cache = PrefixCache(block_size=3)
    tokens = seq(40, 10)
    put(cache, tokens, tag=0.5)
    match = cache.match(tokens)
    assert match.tokens == 9
    assert_gathered(cache, match, tokens, tag=0.5)
    k0 = cache.gather(match.blocks)[0][0] - 0.5
    assert k0[0, 0, :, 0].tolist() == list(range(9))  # positions in order
    assert k0[0, 1, :, 1].tolist() == tokens[:9]  # the tokens of those positions
    assert cache.gather([]) == []


def test_cached_kv_is_a_copy_not_a_view():
    cache = PrefixCache(block_size=2)
    tokens = seq(0, 4)
    kv = fake_kv(tokens)
    cache.insert(tokens, kv)
    for k, v in kv:  # the engine's DynamicCache keeps growing and changing after insert
        k.fill_(-1)
        v.fill_(-1)
    assert_gathered(cache, cache.match(tokens), tokens)


def test_stats_count_queries_hits_stores_and_evictions():
    cache = PrefixCache(block_size=2, capacity_blocks=2)
    assert put(cache, seq(0, 5)) == 2
    cache.match(seq(0, 5))  # 5 queried, 4 hit
    cache.match(seq(10, 3))  # 3 queried, 0 hit
    assert (cache.stats.queries, cache.stats.hits) == (8, 4)
    assert cache.stats.stored_blocks == 2 and cache.stats.evicted_blocks == 0
    put(cache, seq(10, 3))  # one block; the only leaf (the second block of 0..5) goes
    assert cache.stats.stored_blocks == 3 and cache.stats.evicted_blocks == 1
    cache.clear()
    assert len(cache) == 0
    stats = cache.stats
    assert (stats.queries, stats.hits, stats.stored_blocks, stats.evicted_blocks) == (0, 0, 0, 0)
    assert cache.match(seq(0, 5)).evicted_tokens == 0  # clear forgets what was cached


@pytest.mark.parametrize("kwargs", [{"block_size": 0}, {"capacity_blocks": 0}])
def test_bad_sizes_are_refused(kwargs):
    with pytest.raises(ValueError, match="at least 1"):
        PrefixCache(**kwargs)
