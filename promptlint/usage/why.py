"""Why a logged request missed the cache, traced to the template line that
caused it.

A miss is a request of a group (a route or a matched template) that read
nothing from the cache (cached tokens 0) although its prompt reaches the
model's minimum cacheable length (``min_tokens`` in the provider table),
and that is not the group's first request. It is compared with the group's
previous request, the one it should have reused (only that one is kept per
group: memory grows with groups, not requests):

- where the two first differ: the message index, the character offset in
  that message, the token index in the whole request (the tokens before the
  first differing character, with the model's tokenizer from the provider
  table), and excerpts of both around it;
- when the group has a template: the template slot whose value starts
  there, by the static text just before each slot (the nearest slot whose
  preceding text ends at or before the difference), with its file:line:col;
- the cause: the difference, when it comes before ``min_tokens`` shared
  tokens (nothing could be cached); else the time since the previous request
  when it is past the model's cache TTL (``ttl_seconds``); else unexplained
  (the prefix was shared and recent: evicted, or served by another machine).

Requests are counted per cause; the first few of each are kept as examples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.analysis.prefix import common_prefix
from promptlint.ir import Part, PromptTemplate, Slot, SlotKind, Text
from promptlint.usage.group import tokens_before
from promptlint.usage.parse import UsageRecord

EXAMPLES = 3  # kept per cause
EXCERPT = 24  # characters either side of a difference
TAIL = 40  # characters of static text before a slot that identify it


@dataclass
class Miss:
    """One missed request and what the comparison found."""

    location: str  # log path:line
    message: int | None = None  # index of the first differing message
    offset: int | None = None  # character offset in that message
    token: int | None = None  # tokens before the difference, whole request
    tokenizer: str | None = None  # the provider table's tokenizer that counted them
    before: str = ""  # the shared text just before the difference
    earlier: str = ""  # the previous request from there
    now: str = ""  # this request from there
    gap_seconds: float | None = None  # since the previous request of the group


@dataclass
class Cause:
    kind: str  # slot | text | ttl | unexplained
    label: str
    where: str | None = None  # template file:line:col of the slot
    requests: int = 0
    examples: list[Miss] = field(default_factory=list)


def slot_tails(template: PromptTemplate) -> list[tuple[int, str, Slot]]:
    """(section index, the static text just before it, slot) for each value
    slot of the template, in order (regions are walked into)."""
    out: list[tuple[int, str, Slot]] = []
    for index, section in enumerate(template.sections):
        text: list[str] = []

        def walk(parts: list[Part]) -> None:
            for part in parts:
                if isinstance(part, Text):
                    text.append(part.text)
                elif isinstance(part, Slot):
                    if part.is_region and part.kind != SlotKind.CALL:
                        walk(part.children)
                        continue
                    tail = "".join(text)[-TAIL:]
                    out.append((index, tail, part))
                    text.clear()

        walk(section.parts)
    return out


def _slot_at(tails: list[tuple[int, str, Slot]], content: str, offset: int) -> Slot | None:
    """The slot whose preceding static text ends nearest before `offset`."""
    best, chosen = -1, None
    for _, tail, slot in tails:
        if not tail.strip():
            continue
        at = content.rfind(tail, 0, offset)
        end = at + len(tail) if at >= 0 else -1
        if end > best:
            best, chosen = end, slot
    return chosen


def _slot_name(slot: Slot) -> str:
    return slot.names[0] if slot.names else slot.label


def divergence(earlier: list[dict], now: list[dict]) -> tuple[int, int] | None:
    """(message index, character offset) where two requests first differ;
    None when one is the other with messages added (a conversation growing)."""
    for index, (a, b) in enumerate(zip(earlier, now)):
        if a.get("role") != b.get("role"):
            return index, 0
        x, y = str(a.get("content") or ""), str(b.get("content") or "")
        if x == y:
            continue
        n = common_prefix(x, y)
        if n == len(x) and index == len(earlier) - 1:
            return None  # the earlier request is a prefix of this one
        return index, n
    return None


class MissTracer:
    """Misses per group, by cause. ``spec_of(record)`` gives the record's
    provider-table model (None when it did not resolve)."""

    def __init__(self, spec_of) -> None:
        self.spec_of = spec_of
        self._last: dict[int, UsageRecord] = {}
        self._causes: dict[int, dict[tuple, Cause]] = {}
        self._tails: dict[int, list] = {}
        self._tokenizers: dict[str, object] = {}

    def add(self, group, record: UsageRecord) -> None:
        key = id(group)
        earlier = self._last.get(key)
        if record.request_messages is not None:
            self._last[key] = record
        if earlier is None or record.request_messages is None or record.cached_tokens:
            return
        spec = self.spec_of(record)
        if spec is None or record.prompt_tokens < spec.min_tokens:
            return  # no price table row, or too short to be cached at all: not a miss
        miss = Miss(location=f"{record.path}:{record.line}")
        if record.time is not None and earlier.time is not None:
            miss.gap_seconds = record.time - earlier.time
        found = divergence(earlier.request_messages, record.request_messages)
        cause = None
        if found is not None:
            index, offset = found
            a = str(earlier.request_messages[index].get("content") or "")
            b = str(record.request_messages[index].get("content") or "")
            miss.message, miss.offset = index, offset
            miss.before = b[max(0, offset - EXCERPT):offset]
            miss.earlier, miss.now = a[offset:offset + EXCERPT], b[offset:offset + EXCERPT]
            miss.token = self._tokens_before(spec, record.request_messages, index, offset)
            miss.tokenizer = spec.tokenizer if miss.token is not None else None
            if miss.token is None or miss.token < spec.min_tokens:
                cause = self._changed(group, index, b, offset)
        if cause is None and miss.gap_seconds is not None and miss.gap_seconds > spec.ttl_seconds:
            cause = ("ttl", f"{spec.ttl_seconds:,} s cache TTL ({spec.key}) passed since the previous request",
                     None)
        if cause is None:
            cause = ("unexplained", "the prefix was shared and recent: evicted, or served by another cache", None)
        self._count(key, cause, miss)

    def _changed(self, group, index: int, content: str, offset: int) -> tuple:
        template = getattr(group, "template", None)
        if template is not None:
            if id(template) not in self._tails:
                self._tails[id(template)] = slot_tails(template)
            slot = _slot_at(self._tails[id(template)], content, offset)
            if slot is not None and slot.span is not None:
                return "slot", f"{_slot_name(slot)} ({slot.label})", slot.span.location()
        return "text", f"message {index} changes at character {offset}", None

    def _tokens_before(self, spec, messages: list[dict], index: int, offset: int) -> int | None:
        """Tokens of the request text before the difference (messages joined by newlines)."""
        if spec.tokenizer not in self._tokenizers:
            from promptlint.tokenizers import TokenizerError, get_tokenizer

            try:
                self._tokenizers[spec.tokenizer] = get_tokenizer(spec.tokenizer)
            except (TokenizerError, ValueError, OSError):
                self._tokenizers[spec.tokenizer] = None
        tokenizer = self._tokenizers[spec.tokenizer]
        if tokenizer is None:
            return None
        return tokens_before(tokenizer, messages, index, offset)

    def _count(self, key: int, cause: tuple, miss: Miss) -> None:
        causes = self._causes.setdefault(key, {})
        entry = causes.get(cause)
        if entry is None:
            entry = causes[cause] = Cause(*cause)
        entry.requests += 1
        if len(entry.examples) < EXAMPLES:
            entry.examples.append(miss)

    def causes(self, group) -> list[Cause]:
        """The group's causes, most requests first."""
        return sorted(self._causes.get(id(group), {}).values(), key=lambda c: -c.requests)
