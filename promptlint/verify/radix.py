"""A token radix tree: the longest common prefix of a request with any
earlier one, in time linear in the request's tokens.

Comparing each request with every earlier one costs O(n^2) prefix
comparisons over a stream of n requests; an engine does not work that way
either (SGLang keeps a radix tree of token runs, vLLM a chain of block
hashes). Edges are runs of tokens held as (sequence, start, end) views of
the requests themselves, so the tree adds a constant number of nodes per
request and copies no tokens; a query walks at most its own length, and
each run is compared in C (`common_prefix`, slice equality by bisection).
"""

from __future__ import annotations

from promptlint.analysis.prefix import common_prefix


class _Node:
    __slots__ = ("edges",)

    def __init__(self) -> None:
        self.edges: dict[int, _Edge] = {}  # first token of the run -> edge


class _Edge:
    __slots__ = ("tokens", "start", "end", "child")

    def __init__(self, tokens: list[int], start: int, end: int, child: _Node) -> None:
        self.tokens, self.start, self.end, self.child = tokens, start, end, child


class TokenRadixTree:
    """Every token sequence added so far, by shared prefixes."""

    def __init__(self) -> None:
        self.root = _Node()

    def _walk(self, tokens: list[int]):
        """(tokens matched, the node reached or the edge left part-way, tokens matched along that edge)."""
        node, i, n = self.root, 0, len(tokens)
        while i < n:
            edge = node.edges.get(tokens[i])
            if edge is None:
                return i, node, None, 0
            length = min(edge.end - edge.start, n - i)
            m = common_prefix(tokens[i:i + length], edge.tokens[edge.start:edge.start + length])
            i += m
            if m < edge.end - edge.start:
                return i, node, edge, m
            node = edge.child
        return i, node, None, 0

    def longest_prefix(self, tokens: list[int]) -> int:
        """Length of the longest common prefix of `tokens` with any sequence added."""
        return self._walk(tokens)[0]

    def add(self, tokens: list[int]) -> int:
        """Add a sequence; returns what longest_prefix gave before it was added."""
        matched, node, edge, along = self._walk(tokens)
        if edge is not None:  # split the edge where the runs part
            middle = _Node()
            rest = _Edge(edge.tokens, edge.start + along, edge.end, edge.child)
            middle.edges[edge.tokens[edge.start + along]] = rest
            edge.end, edge.child = edge.start + along, middle
            node = middle
        if matched < len(tokens):
            node.edges[tokens[matched]] = _Edge(tokens, matched, len(tokens), _Node())
        return matched
