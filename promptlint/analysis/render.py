"""Render the IR to the text a provider would receive, with sample values,
keeping a map from every rendered character back to the part (and the
slots around it) that produced it.

Serialisation: sections in IR order (tools first). Each section (message)
is tokenized on its own, as providers encode each message's content between
their own special tokens; those framing tokens (about 3 per message) sit at
the same places in every request, so they move no prefix boundary, and the
counts here leave them out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from promptlint.analysis.samples import sample_value
from promptlint.ir import Breakpoint, Part, PromptTemplate, Slot, SlotKind, Text

LOOP_ITEMS = 2  # items rendered per loop: enough to show order and repetition
# A loop inside a later item of an enclosing loop renders one item: nested loops
# cost the square of their depth in text, not 2^depth (20 nested loops rendered
# a million copies), and the first item of each still shows every loop's order.
CONTAINERS = (SlotKind.CALL, SlotKind.INCLUDE)  # vary only through their children


@dataclass
class Piece:
    start: int
    end: int
    part: Part
    slots: tuple[Slot, ...]  # enclosing slots, outermost first (the part itself last if a slot)


@dataclass
class Render:
    text: str
    pieces: list[Piece] = field(default_factory=list)
    breakpoints: list[tuple[int, Breakpoint]] = field(default_factory=list)  # char offset, marker
    sections: list[tuple[int, int]] = field(default_factory=list)  # char range of each section

    def section_texts(self) -> list[str]:
        return [self.text[s:e] for s, e in self.sections]

    def piece_at(self, offset: int) -> Piece | None:
        for piece in self.pieces:
            if piece.start <= offset < piece.end:
                return piece
        return None


def peak(parts: list[Part]) -> int:
    """The highest volatility of the slots in `parts`, regions included."""
    best = -1
    for part in parts:
        if isinstance(part, Slot):
            best = max(best, int(part.volatility), peak(part.children), peak(part.else_children))
    return best


def varies_in(slot: Slot, vary: Callable[[Slot], bool]) -> bool:
    return slot.kind not in CONTAINERS and vary(slot)


def render(template: PromptTemplate, vary: Callable[[Slot], bool], variant: int) -> Render:
    """Render with variant 0 for every slot, except `variant` for the slots
    `vary` selects. Rendering with variant 0 gives the reference request."""
    return render_variants(template, lambda slot: variant if varies_in(slot, vary) else 0)


def render_variants(template: PromptTemplate, variant_of: Callable[[Slot], int],
                    value: Callable[[Slot, int, int], str] = sample_value) -> Render:
    """Render with each slot at its own variant (`variant_of`; a slot inside a
    varied loop or block takes at least the enclosing variant) and `value`
    giving a slot's text for (slot, variant, loop item). Verify renders a
    stream of requests this way: one variant per user, session or request."""
    out: list[str] = []
    result = Render("")
    length = 0

    def emit(text: str, part: Part, stack: tuple[Slot, ...]):
        nonlocal length
        if text:
            out.append(text)
            result.pieces.append(Piece(length, length + len(text), part, stack))
            length += len(text)

    def walk(parts: list[Part], stack: tuple[Slot, ...], item: int, inherited: int, single: bool = False):
        for part in parts:
            if isinstance(part, Text):
                emit(part.text, part, stack)
            elif isinstance(part, Breakpoint):
                result.breakpoints.append((length, part))
            else:
                walk_slot(part, stack + (part,), item, inherited, single)

    def walk_slot(slot: Slot, stack: tuple[Slot, ...], item: int, inherited: int, single: bool = False):
        own = variant_of(slot) if slot.kind not in CONTAINERS else 0
        v = max(inherited, own)
        if slot.kind in (SlotKind.VARIABLE, SlotKind.EXPRESSION):
            emit(value(slot, v, item), slot, stack)
        elif slot.kind is SlotKind.LOOP:
            items = 1 if single else LOOP_ITEMS
            order = range(items)
            if v and slot.order_varies:
                order = reversed(range(items))
            rendered_any = False
            for n, i in enumerate(order):
                walk(slot.children, stack, i, v, single or n > 0)
                rendered_any = rendered_any or bool(slot.children)
            if not rendered_any:
                walk(slot.else_children, stack, item, v, single)
        elif slot.kind is SlotKind.CONDITIONAL:
            # a condition held fixed takes its more volatile branch (the `if` one on a tie):
            # either may be the one deployed, and the cache is only as good as the worst;
            # a varied condition takes the other branch
            first, second = slot.children, slot.else_children
            if peak(second) > peak(first):
                first, second = second, first
            walk(second if own else first, stack, item, v, single)
        else:  # CALL, INCLUDE
            walk(slot.children, stack, item, v, single)

    for section in template.sections:
        start = length
        walk(section.parts, (), 0, 0)
        result.sections.append((start, length))
    result.text = "".join(out)
    return result
