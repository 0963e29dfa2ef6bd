"""From abstract values to IR parts, for the Python data flow (a mixin of
flow.Flow): verdicts of composite values, slots with their spans,
labels, samples and fixes, loop regions, and literal runs as Text.
"""

from __future__ import annotations

import re
from dataclasses import replace

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
            return (volatility if volatility > V.DEPLOY else V.STATIC, not isinstance(v, Opaque))

        return max(values, key=rank)

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
        return Slot(loopv.label, SlotKind.LOOP, verdict.volatility, verdict.reason, self.file_span(start, end),
                    names=loopv.names, children=children, order_varies=bool(loopv.order), fix=loopv.fix)

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


