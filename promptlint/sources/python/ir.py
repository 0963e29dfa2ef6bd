"""From abstract values to IR parts, for the Python data flow (a mixin of
flow.Flow): verdicts of composite values, slots with their spans,
labels, samples and fixes, loop regions, and literal runs as Text.
"""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from promptlint.analysis.volatility import Verdict
from promptlint.ir import Slot, SlotKind, Text, Volatility
from promptlint.sources.python.strings import Lit
from promptlint.sources.python.values import (
    STATIC, ConstV, DictV, ListV, LoopV, MsgV, Opaque, SetV, Spread, StrV, TemplV, short, strongest,
)

V = Volatility


class ToIR:
    def entering(self, value, node, label: str | None = None, span: tuple[int, int] | None = None):
        """A string that is one value and no text of its own (`shots =
        "\n".join(random.sample(...))`, `request_id = str(uuid4())`) is
        reported where it enters the prompt (the name, the f-string field, the
        placeholder), not where it was computed. A loop whose order varies
        stays at its comprehension: that is what the fix rewrites; text filled
        from a template we cannot read stays at its fill (it entered there)."""
        if not isinstance(value, StrV):
            return value
        slots = [s for s in value.segs if isinstance(s, Slot)]
        if slots and (self.written_elsewhere(value) or self.rebuilt_from_one_value(value, slots)):
            return self.moved_whole(value, node, label, span)
        if len(slots) != 1 or any(isinstance(s, Lit) and s.text.strip() for s in value.segs):
            return value
        slot = slots[0]
        if slot.order_varies or slot.kind is SlotKind.CONDITIONAL or id(slot) in self.pinned:
            return value
        label = label or self.src(node)
        s, e = span or self.span(node)
        moved = replace(slot, label=short(label), span=self.file_span(s, e),
                        reason=slot.reason if slot.label == short(label) else f"{short(label)} is {slot.label}: "
                                                                               f"{slot.reason}")
        return StrV([moved if seg is slot else seg for seg in value.segs], value.node)

    def written_elsewhere(self, value: StrV) -> bool:
        """Text another module wrote and a call here returned (`date_str =
        current_datetime()`): every character and slot sits at that one call."""
        node = value.node
        if not isinstance(node, cst.Call):
            return False
        s, e = self.span(node)
        for seg in value.segs:
            if isinstance(seg, Lit):
                if any(o != s for o in seg.offsets[:-1]):
                    return False
            elif seg.span is None or (seg.span.start, seg.span.end) != (s, e) or seg.span.file is not self.file:
                return False
        return True

    def rebuilt_from_one_value(self, value: StrV, slots: list) -> bool:
        """Text a loop rebuilt from one value with nothing of its own but
        whitespace (`kept += line + "\n"`): that value (not text filled
        from a template we cannot read, which stays at its fill)."""
        return any(s.kind is SlotKind.LOOP for s in slots) and not any(id(s) in self.pinned for s in slots) \
            and _bare(value.segs)

    def moved_whole(self, value: StrV, node, label, span) -> StrV:
        """Such text as it enters the prompt here: at the field or name that
        puts it in, where a reader of this file sees it."""
        label = label or self.src(node)
        s, e = span or self.span(node)
        where = self.file_span(s, e)
        segs = [Lit.synthetic(seg.text, s, e) if isinstance(seg, Lit) else
                replace(seg, span=where, fix=None, label=short(label),
                        reason=f"{short(label)} holds {seg.label}: {seg.reason}") for seg in value.segs]
        return StrV(segs, value.node)

    # ------------------------------------------------------------ values to IR

    def verdict(self, value) -> Verdict:
        if isinstance(value, StrV):
            slots = [s for s in value.segs if isinstance(s, Slot)]
            return strongest(Verdict(s.volatility, s.reason) for s in slots)
        if isinstance(value, Opaque):
            return value.effective()
        if isinstance(value, (ListV, SetV)):
            inner = strongest(self.verdict(i) for i in value.items)
            if isinstance(value, SetV) and len(value.items) > 1 and inner.volatility < V.NONDETERMINISTIC:
                return Verdict(V.NONDETERMINISTIC, "a set's order is randomised per process")
            return inner
        if isinstance(value, DictV):
            return strongest([self.verdict(v) for _, v in value.pairs]
                             + [self.verdict(k) for k, _ in value.pairs if k is not None])
        if isinstance(value, Spread):
            return self.verdict(value.value)
        if isinstance(value, LoopV):
            order, _ = value.order, value.fix
            inner = strongest([value.verdict, self.verdict(value.body)])
            if order and inner.volatility < V.NONDETERMINISTIC:
                return Verdict(V.NONDETERMINISTIC, f"{order}, so identical requests can differ")
            return inner
        if isinstance(value, MsgV):
            return self.verdict(value.content)
        if isinstance(value, TemplV):
            return self.verdict(value.text)
        return STATIC

    def likeliest(self, values: list):
        """Of the values a choice can give (early returns, `a or b`, what
        callers pass), the one to read the prompt by: the most volatile, a
        value fixed per release or steadier counting as stable, and between
        equals the one whose content is known (a memo `return _cache[k]`
        gives what the other return computed; the fallback of `a or b` is
        what runs when the caller passes nothing)."""
        def rank(v):
            volatility = self.verdict(v).volatility
            return (volatility if volatility > V.DEPLOY else V.STATIC, self.stable_behind(v),
                    not isinstance(v, Opaque))

        return max(values, key=rank)

    def worst_case(self, values: list):
        """Of the values the arms of an `if` give a name, the one the cache
        fares worst with: the most volatile, and between equals the one with
        the most literal text behind its first volatile part (`prompts =
        question` in the arm without context does not hide the arm that puts
        the context ahead of the instructions)."""
        return max(values, key=lambda v: (self.verdict(v).volatility, self.stable_behind(v)))

    def stable_behind(self, value) -> int:
        """Characters of literal text behind the first part of a string that
        changes more often than per release (0 for anything else)."""
        if not isinstance(value, StrV):
            return 0
        seen, total = False, 0
        for seg in value.segs:
            if isinstance(seg, Slot):
                seen = seen or seg.volatility > V.DEPLOY
            elif seen:
                total += len(seg.text.strip())
        return total

    def names_of(self, value) -> tuple[str, ...]:
        if isinstance(value, Opaque):
            return value.names
        if isinstance(value, LoopV):
            return value.names
        if isinstance(value, StrV):
            return tuple(n for s in value.segs if isinstance(s, Slot) for n in s.names)[:4]
        if isinstance(value, (ListV, SetV)):
            return tuple(n for i in value.items for n in self.names_of(i))[:4]
        if isinstance(value, Spread):
            return self.names_of(value.value)
        return ()

    def label_of(self, value) -> str:
        if isinstance(value, Opaque):
            return value.label
        node = getattr(value, "node", None)
        return self.src(node) if node is not None else "a value"

    def slot(self, op: Opaque) -> Slot:
        verdict = op.effective()
        start, end = op.span if op.span is not None else (self.span(op.node) if op.node is not None else (0, 0))
        samples = op.samples or (self.ctx.variables.samples_for(op.names[0]) if op.names else ())
        kind = SlotKind.VARIABLE if op.kind == "name" else SlotKind.EXPRESSION
        slot = Slot(short(op.label), kind, verdict.volatility, verdict.reason, self.file_span(start, end),
                    names=op.names, samples=samples, fix=op.fix)
        if op.pinned:
            self.pinned[id(slot)] = slot
        return slot

    def loop_slot(self, loopv: LoopV) -> Slot:
        verdict = loopv.verdict
        if loopv.order and verdict.volatility < V.NONDETERMINISTIC:
            verdict = Verdict(V.NONDETERMINISTIC, f"iterates {short(self.src(loopv.node))} without sorted(): "
                                                  f"{loopv.order.removeprefix('iterates ')}")
        where = loopv.node  # the iterable: the expression a fix wraps in sorted()
        start, end = self.span(where) if where is not None else (0, 0)
        if where is not None and re.search(r"\bin\s", self.src(where)):
            # the first character only (`[` of a comprehension): template rules
            # read `in X ... %}` in a span as a Jinja loop to rewrite
            end = min(end, start + 1)
        children = self.parts(loopv.body) + self.parts(StrV(loopv.sep))
        written = self.file_span(*self.span(loopv.at)) if isinstance(
            loopv.at, (cst.ListComp, cst.GeneratorExp, cst.SetComp)) else None
        return Slot(loopv.label, SlotKind.LOOP, verdict.volatility, verdict.reason, self.file_span(start, end),
                    names=loopv.names, children=children, order_varies=bool(loopv.order), fix=loopv.fix,
                    written=written)

    def segs(self, value) -> list:
        """The value as text: str(value), as segments."""
        if isinstance(value, StrV):
            return list(value.segs)
        if isinstance(value, ConstV):
            s, e = self.span(value.node) if value.node is not None else (0, 0)
            return [Lit.synthetic(str(value.value), s, e)]
        if isinstance(value, Opaque):
            return [self.slot(value)]
        if isinstance(value, LoopV):
            return [self.loop_slot(value)]
        if isinstance(value, TemplV):
            return list(value.text.segs)
        node = getattr(value, "node", None)
        verdict = self.verdict(value)
        if node is None:
            return [Slot("value", SlotKind.EXPRESSION, verdict.volatility, verdict.reason)]
        return [self.slot(Opaque(self.src(node), verdict, node, names=self.names_of(value)))]

    def parts(self, value) -> list:
        """IR parts of a value used as text (Lits become Text)."""
        out = []
        for seg in self.segs(value):
            if isinstance(seg, Lit):
                if seg.text:
                    out.append(Text(seg.text, self.file_span(seg.offsets[0], seg.offsets[-1])))
            else:
                out.append(seg)
        return out


def _bare(parts) -> bool:
    """Text with no words of its own: values and the whitespace between them,
    also inside loops and branches (a helper that drops a file's license
    lines, `new += line + "\n"`, returns the file): a loop so built is that
    value. Not a loop whose order changes (its fix is at the loop)."""
    for part in parts:
        if isinstance(part, (Lit, Text)):
            if part.text.strip():
                return False
        elif isinstance(part, Slot):
            if part.order_varies or not _bare(part.children) or not _bare(part.else_children):
                return False
    return True
