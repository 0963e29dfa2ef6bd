"""Differential tokenization: how many leading tokens of a prompt stay the
same between requests, per sharing scope.

Caching is decided by tokens, not characters: BPE can merge the end of the
stable text with the start of a volatile value. So for each scope we render
the prompt twice, once with every slot at its first sample and once with the
slots that vary at that scope changed, tokenize both with the target's
tokenizer, and take the longest common token prefix. The first differing
character tells which slot broke the prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from promptlint.analysis.render import CONTAINERS, Render, render, varies_in
from promptlint.ir import Part, PromptTemplate, Scope, Section, Slot, Volatility


@dataclass
class ScopePrefix:
    scope: Scope
    stable_tokens: int
    breaker: Slot | None  # the slot whose change ends the stable prefix (None: nothing varies)
    varied: Render
    # the stable prefix if the inputs of unknown volatility changed per request
    # (None: the prompt has none, or they change nothing at this scope)
    if_unknown_vary: int | None = None


@dataclass
class PrefixAnalysis:
    template: PromptTemplate
    tokenizer: str  # tokenizer spec
    reference: Render  # the request rendered with first samples everywhere
    tokens: list[int]
    scopes: dict[str, ScopePrefix] = field(default_factory=dict)
    breakpoint_tokens: list[tuple[int, str]] = field(default_factory=list)  # (token position, ttl)

    @property
    def total_tokens(self) -> int:
        return len(self.tokens)

    def stable(self, scope: str) -> int:
        return self.scopes[scope].stable_tokens

    @property
    def first_breaker(self) -> ScopePrefix | None:
        """The widest scope whose prefix is broken: the slot that stops all
        users from sharing the cache, else one user's sessions, else a session."""
        for scope in Scope:
            sp = self.scopes[scope.key]
            if sp.breaker is not None:
                return sp
        return None


def common_prefix(a, b) -> int:
    """Length of the longest common prefix of two sequences (lists or
    strings), by bisection on slice equality, which runs in C."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _first_difference(a: str, b: str) -> int | None:
    n = common_prefix(a, b)
    return None if n == len(a) == len(b) else n


def _breaker_at(render_a: Render, render_b: Render, offset: int, scope: Scope) -> Slot | None:
    vary = lambda s: scope.varies(s.volatility)  # noqa: E731
    for r in (render_a, render_b):
        piece = r.piece_at(offset)
        if piece is None:
            continue
        for slot in piece.slots:  # outermost first
            if varies_in(slot, vary):
                return slot
    # the difference is past the end of one render: the other's first varied piece there
    for r in (render_b, render_a):
        for piece in r.pieces:
            if piece.start >= offset:
                for slot in piece.slots:
                    if varies_in(slot, vary):
                        return slot
    return None


def encode_render(r: Render, tokenizer) -> list[int]:
    """Token ids of a render: each section encoded on its own, concatenated."""
    out: list[int] = []
    for text in r.section_texts():
        out.extend(tokenizer.encode(text))
    return out


def _tokens_before(r: Render, offset: int, tokenizer) -> int:
    """Tokens before a character offset (a breakpoint at a block's end)."""
    count = 0
    for start, end in r.sections:
        if offset >= end:
            count += len(tokenizer.encode(r.text[start:end]))
        elif offset > start:
            count += len(tokenizer.encode(r.text[start:offset]))
    return count


def analyze(template: PromptTemplate, tokenizer) -> PrefixAnalysis:
    """Stable prefix per scope of one prompt with one tokenizer."""
    reference = render(template, lambda s: False, 0)
    tokens = encode_render(reference, tokenizer)
    result = PrefixAnalysis(template, tokenizer.spec, reference, tokens)
    for scope in Scope:
        varied = render(template, lambda s, scope=scope: scope.varies(s.volatility), 1)
        if varied.text == reference.text:
            result.scopes[scope.key] = ScopePrefix(scope, len(tokens), None, varied)
            continue
        other = encode_render(varied, tokenizer)
        stable = common_prefix(tokens, other)
        diff = _first_difference(reference.text, varied.text)
        breaker = _breaker_at(reference, varied, diff, scope) if diff is not None else None
        result.scopes[scope.key] = ScopePrefix(scope, stable, breaker, varied)
    if unknown_inputs(template):
        for scope in Scope:
            varied = render(template, lambda s, scope=scope: scope.varies(s.volatility, unknown_varies=True), 1)
            if varied.text != reference.text:
                result.scopes[scope.key].if_unknown_vary = min(
                    result.scopes[scope.key].stable_tokens, common_prefix(tokens, encode_render(varied, tokenizer)))
    for offset, bp in reference.breakpoints:
        result.breakpoint_tokens.append((_tokens_before(reference, offset, tokenizer), bp.ttl))
    return result


def unknown_inputs(template: PromptTemplate) -> list[str]:
    """Names of the inputs of unknown volatility, in prompt order (slots
    inside containers included: an include's unknowns are the prompt's)."""
    names: dict[str, None] = {}
    for slot in template.slots():
        if slot.volatility is Volatility.UNKNOWN and slot.kind not in CONTAINERS:
            for name in slot.names:  # a loop item or an unreadable include has none: its source is named
                names.setdefault(name.split(".")[0].split("[")[0], None)
    return list(names)


def varying_slots(template: PromptTemplate, scope: Scope) -> list[Slot]:
    """The outermost slots that vary at `scope`, in prompt order."""
    found: list[Slot] = []
    vary = lambda s: scope.varies(s.volatility)  # noqa: E731

    def walk(parts: list[Part]):
        for part in parts:
            if isinstance(part, Slot):
                if varies_in(part, vary):
                    found.append(part)
                else:
                    walk(part.children)
                    walk(part.else_children)

    for section in template.sections:
        walk(section.parts)
    return found


def move_to_end(template: PromptTemplate, slots: list[Slot]) -> PromptTemplate:
    """A copy of the template with `slots` moved, in order, after everything
    else (into the last message): the volatile-suffix layout, for the what-if
    estimate."""
    moving = {id(s) for s in slots}

    def without(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for part in parts:
            if id(part) in moving:
                continue
            if isinstance(part, Slot) and (part.children or part.else_children):
                part = replace(part, children=without(part.children), else_children=without(part.else_children))
            out.append(part)
        return out

    sections = [Section(s.role, without(s.parts), s.span) for s in template.sections]
    if sections:
        sections[-1].parts.extend(slots)
    return PromptTemplate(template.name, template.source, template.format, sections,
                          template.variables, template.model, template.span)
