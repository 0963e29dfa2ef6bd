"""Hosted providers' prompt caching simulated from the provider table's
rules: the minimum cacheable prefix, the increments hits come in, explicit
breakpoints with their lookback, and the TTL counted on the requests'
arrival times.

Which token stream a hosted model sees is not public (its chat format), so
the requests are read as promptlint reads hosted prompts everywhere: the
messages' text joined by newlines, counted with the table's tokenizer for
the model (its note says how exact that is). Tool definitions are not part
of a recorded request here.

- automatic (OpenAI, Gemini implicit, DeepSeek): every request caches its
  prefix at min_tokens and each increment after it; a request reads the
  longest of those prefixes another request cached, if that was used within
  the TTL (a hit refreshes it).
- explicit (Anthropic cache_control, Bedrock): a request caches the prefix
  up to each breakpoint (at least min_tokens); it reads at a breakpoint, or
  at a message boundary up to lookback_blocks before it, the longest prefix
  cached within the TTL. Without a breakpoint nothing is cached; more than
  max_breakpoints and the API refuses the request.
"""

from __future__ import annotations

from promptlint.verify.blocks import CacheStats

class HostedTokens:
    """The provider table's tokenizer for a model, on the messages' text
    joined by newlines (usage.group.request_text, as the usage reader reads
    them); `offsets` places cache_control marks."""

    def __init__(self, spec) -> None:
        from promptlint.tokenizers import get_tokenizer

        self.tokenizer = get_tokenizer(spec.tokenizer)
        self.name = spec.tokenizer
        self.path = "the model's own" if spec.tokenizer_exact else (spec.tokenizer_note or "an approximation")

    @staticmethod
    def chat_text(messages) -> str:
        from promptlint.usage.group import request_text

        return request_text(messages)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text))

    def offsets(self, messages, marks) -> list[int]:
        """Token counts of the text up to each (message, character) mark."""
        from promptlint.usage.group import tokens_before

        return [tokens_before(self.tokenizer, messages, index, offset) for index, offset in marks]


class HostedEngine:
    """One hosted model's cache, by its rules in the provider table."""

    block_size = 1
    capacity_blocks = 0
    prediction_note = ("predicted = the audit's cacheable tokens (provider table: minimum, increments, breakpoints) "
                       "of the longest common token prefix with any earlier request, the messages' text joined by "
                       "newlines (the model's chat format is not public); simulated = tokens the provider's rules "
                       "read from its cache, the TTL counted on the requests' arrival times")

    def __init__(self, spec, tokens: HostedTokens) -> None:
        if spec.caching not in ("automatic", "explicit"):
            raise ValueError(f"{spec.key}: a serving engine's entry ({spec.caching} caching); simulate it with "
                             f"--server {spec.provider}")
        self.spec = spec
        self.tokens = tokens
        self.name = spec.key
        self.entries: dict[tuple[int, int], float] = {}  # (prefix length, its hash) -> last used
        self.stats = CacheStats()
        self.now: float = 0.0
        self.requests = self.unmarked = 0  # explicit: requests without a breakpoint past the minimum
        self._marked: tuple = (None, [])  # the last request asked about, and its marks

    def describe(self) -> str:
        spec = self.spec
        rule = (f"{spec.increment}-token increments after {spec.min_tokens:,}" if spec.caching == "automatic" else
                f"up to cache_control breakpoints (at most {spec.max_breakpoints}, lookback {spec.lookback_blocks} "
                f"blocks) of at least {spec.min_tokens:,} tokens")
        from promptlint.economics.providers import table_date

        unmarked = (f"; {self.unmarked:,} of {self.requests:,} requests carry no cache_control breakpoint past the "
                    "minimum, and nothing of them is cached" if self.unmarked else "")
        return (f"{spec.key}'s ({rule}, TTL {spec.ttl_seconds:,} s; provider table of {table_date().isoformat()})"
                + unmarked)

    def breakpoints(self, request) -> list[int]:
        """Token positions of the request's cache_control marks (kept for
        the request: the prediction and the simulation both ask)."""
        if request is not self._marked[0]:
            marks = sorted(set(self.tokens.offsets(request.messages, request.breaks))) if request.breaks else []
            self._marked = (request, marks)
        return self._marked[1]

    def predicted(self, shared: int, tokens, request) -> int:
        """The audit's figure: `cacheable` of the prefix shared with any
        earlier request (breakpoints as the request marks them)."""
        from promptlint.economics.providers import cacheable

        marks = self.breakpoints(request) if self.spec.caching == "explicit" else None
        return cacheable(self.spec, min(shared, len(tokens)), marks)

    def request(self, tokens, request=None):
        from promptlint.verify.sim import Reuse

        if request is not None and request.arrival is not None:
            self.now = request.arrival  # one without a time arrives with the one before
        self.requests += 1
        if self.spec.caching == "automatic":
            reads = writes = self._grid(len(tokens))
        else:
            marks = self.breakpoints(request) if request is not None else []
            if len(marks) > self.spec.max_breakpoints:
                self.stats.queries += len(tokens)
                return Reuse(len(tokens), 0, rule=f"{len(marks)} cache_control breakpoints: {self.spec.key} "
                                                  f"allows {self.spec.max_breakpoints}, so the API refuses it")
            writes = [b for b in marks if b >= self.spec.min_tokens]
            reads = self._lookback(request, writes)
            self.unmarked += not writes
        keys = _prefix_keys(tokens, sorted(set(reads) | set(writes)), chained=self.spec.caching == "automatic")
        cached, rule = 0, ""
        for length in sorted(reads, reverse=True):
            used = self.entries.get(keys[length])
            if used is None:
                continue
            idle = self.now - used
            if idle > self.spec.ttl_seconds:
                if not rule:
                    rule = (f"the {length:,}-token prefix was last used {idle:,.0f} s earlier, over "
                            f"{self.spec.key}'s TTL of {self.spec.ttl_seconds:,} s")
                continue
            cached = length
            self.entries[keys[length]] = self.now
            break
        for length in writes:
            self.entries[keys[length]] = self.now
        if not cached and not rule and self.spec.caching == "explicit" and not writes:
            rule = ("no cache_control breakpoint past the minimum in the request: "
                    f"{self.spec.key} caches nothing without one")
        self.stats.queries += len(tokens)
        self.stats.hits += cached
        return Reuse(len(tokens), cached, rule=rule)

    def _grid(self, length: int) -> list[int]:
        spec = self.spec
        if length < spec.min_tokens:
            return []
        return list(range(spec.min_tokens, length + 1, max(1, spec.increment)))

    def _lookback(self, request, marks) -> list[int]:
        """Where a hit is read: each breakpoint, and the message boundaries
        up to lookback_blocks before it, of at least min_tokens."""
        if not marks:
            return []
        ends = self.tokens.offsets(request.messages, [(i, len(m["content"]))
                                                       for i, m in enumerate(request.messages)])
        reads = set(marks)
        for mark in marks:
            if self.spec.lookback_blocks:
                before = [end for end in ends if end < mark][-self.spec.lookback_blocks:]
                reads.update(end for end in before if end >= self.spec.min_tokens)
        return sorted(reads)


def _prefix_keys(tokens, lengths: list[int], chained: bool) -> dict[int, tuple[int, int]]:
    """A key per prefix length. On the automatic grid (the same lengths for
    every request) each key chains the one before, so a request is hashed
    once; breakpoints differ between requests, so each is hashed whole."""
    if not chained:
        return {length: (length, hash(tuple(tokens[:length]))) for length in lengths}
    keys, previous, start = {}, 0, 0
    for length in lengths:
        previous = hash((previous, tuple(tokens[start:length])))
        keys[length] = (length, previous)
        start = length
    return keys
