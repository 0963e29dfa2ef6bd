"""Shared measurements for rules: how many stable tokens follow a slot, and
what losing them costs. Formula (named in every rule's docs):

    usd/month = (cacheable(stable + tokens) − cacheable(stable))
                × input price × (1 − cached-read multiplier)
                × P(warm at the scope) × requests per month

where `stable` is today's stable prefix at the scope.

for the first selected model, with P and prices from the audit's estimate.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from promptlint.analysis.render import CONTAINERS, varies_in
# Below this many stable tokens after a slot, moving it saves nothing worth a
# finding; rules share the audit's threshold (re-exported here).
from promptlint.audit import MIN_BREAKER_GAIN as MIN_BREAKER_GAIN
from promptlint.checks.base import CheckContext
from promptlint.economics.providers import cacheable
from promptlint.ir import Scope, Slot, SlotKind, Volatility
from promptlint.tokenizers import get_tokenizer


SEVERITY_BY_CLASS = {
    Volatility.NONDETERMINISTIC: "error",
    Volatility.REQUEST: "error",
    Volatility.SESSION: "warning",
    Volatility.USER: "warning",
    Volatility.DAY: "info",
    Volatility.DEPLOY: "info",
}


def candidates(parts) -> Iterator[Slot]:
    """Outermost slots with evidence that they change, in prompt order;
    containers (includes, macro calls), static regions and regions of
    unknown volatility (text under an `if` whose condition nothing says
    changes) are looked into."""
    for part in parts:
        if not isinstance(part, Slot):
            continue
        if part.kind in CONTAINERS or part.volatility <= Volatility.UNKNOWN:
            yield from candidates(part.children)
            yield from candidates(part.else_children)
        else:
            yield part


def as_written(slot: Slot) -> str:
    """A slot as the user wrote it: `{{ x }}`, `{% if x %}`, `{% for x in y %}`."""
    if slot.kind in (SlotKind.CONDITIONAL, SlotKind.LOOP) and not slot.label.startswith("{"):
        return "{% " + slot.label + " %}"
    return slot.label


def widest_scope(volatility: Volatility) -> Scope:
    """The widest scope whose shared prefix this class breaks (day and deploy
    break none within their period; they count against all users)."""
    for scope in Scope:
        if scope.varies(volatility):
            return scope
    return Scope.GLOBAL


def stable_tokens_after(ctx: CheckContext, slot: Slot, scope: Scope) -> int:
    """Tokens of the reference render after `slot` that do not vary at `scope`."""
    return tokens_after(ctx.primary, slot, scope)


def tokens_after(analysis, slot: Slot, scope: Scope, variant: Slot | None = None) -> int:
    """`stable_tokens_after` on a PrefixAnalysis: the one figure check and audit give for a slot.

    The stable text after a slot is the stable pieces of the reference render
    from the slot's end on (no piece after it belongs to it). Each is cut from
    one concatenation per scope and encoded once, so a prompt's slots cost its
    length once each, not its length squared; the count for a slot is memoised.
    Within one `variant` (a conditional around the slot, chosen per request,
    held to the branch the reference render takes) its own choice is stable."""
    suffixes = _suffixes(analysis, scope) if variant is None else _Suffixes(analysis, scope, variant)
    after = suffixes.slot_ends.get(id(slot))
    if after is None:
        return 0
    start = bisect.bisect_left(suffixes.piece_starts, after)
    if start >= len(suffixes.piece_starts):
        return 0
    offset = suffixes.offsets[start]
    if offset not in suffixes.counts:
        suffixes.counts[offset] = suffixes.count_from(offset, get_tokenizer(analysis.tokenizer))
    return suffixes.counts[offset]


# characters of suffixes encoded one by one for a render before the counts come
# from one encoding of the whole (a prompt of thousands of slots stays linear)
SUFFIX_BUDGET = 2_000_000


class _Suffixes:
    """The stable pieces of a render at one scope, concatenated, with where each starts."""

    def __init__(self, analysis, scope: Scope, variant: Slot | None = None):
        render = analysis.reference
        # within one `variant` (a branch chosen per request), its own choice does not vary
        vary = lambda s: s is not variant and scope.varies(s.volatility)  # noqa: E731
        self.slot_ends: dict[int, int] = {}
        chunks, self.piece_starts, self.offsets = [], [], []
        length = 0
        for p in render.pieces:
            for s in p.slots:
                self.slot_ends[id(s)] = max(self.slot_ends.get(id(s), 0), p.end)
            if p.end > p.start and not any(varies_in(s, vary) for s in p.slots):
                self.piece_starts.append(p.start)
                self.offsets.append(length)
                chunks.append(render.text[p.start:p.end])
                length += p.end - p.start
        self.text = "".join(chunks)
        self.counts: dict[int, int] = {}
        self._starts: list[int] | None = None
        self._spent = 0  # characters of suffixes encoded one by one so far

    def count_from(self, offset: int, tokenizer) -> int:
        """Tokens of text[offset:]: encoded on its own while that stays cheap;
        past SUFFIX_BUDGET characters encoded in all, from one encoding of the
        whole text (the tokens from the first one starting at or after
        `offset`, plus the few characters before it encoded on their own:
        the same count, or one more where a merge spans the cut)."""
        self._spent += len(self.text) - offset
        if self._spent <= SUFFIX_BUDGET:
            return len(tokenizer.encode(self.text[offset:]))
        if self._starts is None:
            _, self._starts = tokenizer.encode_offsets(self.text)
        i = bisect.bisect_left(self._starts, offset)
        head_end = self._starts[i] if i < len(self._starts) else len(self.text)
        head = len(tokenizer.encode(self.text[offset:head_end])) if head_end > offset else 0
        return head + len(self._starts) - i


def _suffixes(analysis, scope: Scope) -> _Suffixes:
    cache = analysis.__dict__.setdefault("_suffixes", {})
    if scope.key not in cache:
        cache[scope.key] = _Suffixes(analysis, scope)
    return cache[scope.key]


def conversation_loss(ctx: CheckContext, slot: Slot):
    """(Conversation, usd/month) when `slot` changes every request and sits
    ahead of the prompt's conversation history: each turn then re-prefills
    the history too (analysis/conversation.py has the formula). The money
    is the history's mean size at the session scope, by monthly_cost."""
    from promptlint.analysis.conversation import conversation

    if slot.volatility < Volatility.REQUEST:
        return None
    chat = conversation(ctx.template, ctx.primary.reference, get_tokenizer(ctx.primary.tokenizer),
                        ctx.config.traffic, breaker=slot)
    if chat is None or chat.breaker is None:
        return None
    usd, _ = monthly_cost(ctx, round(chat.mean_history), Scope.SESSION)
    return chat, usd


def monthly_cost(ctx: CheckContext, tokens: int, scope: Scope) -> tuple[float, str]:
    """What re-prefilling `tokens` on every request costs per month on the
    first selected model, and that model's key."""
    model = ctx.models[0]
    spec, cost = model.spec, model.cost
    p_warm = cost.warm_probability.get(scope.key, 0.0)
    requests = ctx.config.traffic.requests_per_day * ctx.config.traffic.days_per_month
    # what the provider would cache of them on top of today's stable prefix
    # (its minimum and increments apply to the whole prefix, not to the gain)
    base = ctx.primary.stable(scope.key)
    cached = cacheable(spec, base + tokens) - cacheable(spec, base)
    usd = cached * spec.input_price_per_mtok / 1e6 * (1 - spec.cached_read_multiplier) * p_warm * requests
    return usd, spec.key
