"""The verify prediction over a request stream: the token radix tree gives
exactly what comparing each request with every earlier one gives."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from promptlint.analysis.prefix import common_prefix
from promptlint.verify.predict import Predictor
from promptlint.verify.radix import TokenRadixTree


def pairwise(stream: list[list[int]]) -> list[int]:
    """The reference: each request against every earlier one (O(n^2))."""
    return [max((common_prefix(tokens, earlier) for earlier in stream[:i]), default=0)
            for i, tokens in enumerate(stream)]


# few distinct tokens and short sequences: streams full of shared prefixes, splits and repeats
_STREAMS = st.lists(st.lists(st.integers(0, 3), max_size=12), max_size=25)


@settings(max_examples=400, deadline=None)
@given(stream=_STREAMS)
def test_radix_tree_equals_pairwise_on_random_streams(stream):
    tree = TokenRadixTree()
    assert [tree.add(list(tokens)) for tokens in stream] == pairwise(stream)
    for tokens in stream:  # everything added is found whole
        assert tree.longest_prefix(tokens) == len(tokens)


@settings(max_examples=200, deadline=None)
@given(stream=_STREAMS, block=st.integers(1, 4))
def test_predictor_any_rounds_the_shared_prefix_to_blocks(stream, block):
    predictor = Predictor(block)
    for tokens, shared in zip(stream, pairwise(stream)):
        before = predictor.peek(tokens)
        got = predictor.predict(tokens)
        assert got == before and got.shared_tokens == shared
        assert got.cached_tokens == max(0, min(shared, len(tokens) - 1)) // block * block


def test_previous_policy_compares_with_the_last_request_only():
    predictor = Predictor(1, "previous")
    shared = [predictor.predict(t).shared_tokens for t in ([1, 2, 3], [4, 5], [1, 2, 9])]
    assert shared == [0, 0, 0]  # [1, 2, 9] shares 2 tokens with the first request, which is not the last
    any_policy = Predictor(1)
    assert [any_policy.predict(t).shared_tokens for t in ([1, 2, 3], [4, 5], [1, 2, 9])] == [0, 0, 2]


def test_a_split_edge_keeps_both_branches_and_the_shorter_request():
    tree = TokenRadixTree()
    assert tree.add([1, 2, 3, 4]) == 0
    assert tree.add([1, 2, 7]) == 2  # splits the run [1, 2, 3, 4] after 2
    assert tree.add([1, 2]) == 2  # ends where the split is
    assert [tree.longest_prefix(t) for t in ([1, 2, 3, 4, 5], [1, 2, 7, 7], [1, 9], [5])] == [4, 3, 1, 0]


def test_a_long_stream_of_requests_sharing_a_system_prompt():
    """20,000 requests of 300 tokens sharing a 200-token system prompt (the
    pairwise comparison would make 200 million prefix comparisons; its speed
    is bench/bench_predict.py's)."""
    system = list(range(200))
    stream = [system + [1000 + i % 97, i] + [i] * 98 for i in range(20_000)]
    predictor = Predictor(16)
    results = [predictor.predict(t) for t in stream]
    assert results[0].shared_tokens == 0 and results[1].shared_tokens == 200 and results[97].shared_tokens == 201
    assert all(r.cached_tokens == 192 for r in results[1:])
