"""Loops and iteration for the Python data flow (a mixin of flow.Flow).

A comprehension, a `for` loop that appends or `+=`s, or a join over
something iterable is unrolled when its items are known one by one (a literal
list or tuple, a dict literal's keys: dicts keep insertion order), else it
becomes one loop region (LoopV) whose target is bound to "an item of" the
iterable. A set (literal, `set(...)`, a set comprehension, a dict built from
one) and an unsorted directory listing have an order that can change between
processes or machines: their loops carry `order` and the fix that sorts them.
"""

from __future__ import annotations

import libcst as cst

from promptlint.analysis.volatility import Verdict
from promptlint.ir import Volatility as V
from promptlint.sources.python.scope import Frame, _names_in
from promptlint.sources.python.values import (
    ConstV, DictV, ListV, LoopV, Opaque, SetV, Spread, StrV, literal_text, short, strongest,
)

MAX_UNROLL = 64  # items of a literal list a comprehension or loop is unrolled over


class Loops:
    def in_loop(self, node, loop: cst.For, frame: Frame, as_list: bool = False):
        """A value added once per iteration of `loop`: unrolled over a literal
        list, else one loop region with the target bound to an item."""
        iterable = self.eval(loop.iter, frame)
        known = self.known_items(iterable)
        if known is not None and len(known) <= MAX_UNROLL:
            values = [self.eval(node, frame.child(self.bind(loop.target, item))) for item in known]
            if as_list:
                return values
            out = StrV([], node)
            for v in values:
                out = self.add(out, v, node)
            return out
        item = self.item_of(iterable, loop.iter)
        body = self.eval(node, frame.child(self.bind(loop.target, item)))
        loopv = self.loop(self.src(loop.target), loop.iter, iterable, body, at=loop)
        return [loopv] if as_list else loopv

    # ------------------------------------------------------------ iteration

    def known_items(self, value) -> list | None:
        """Items of a container known one by one, in order (a set's order is not known)."""
        if isinstance(value, ListV) and not any(isinstance(i, (Spread, LoopV)) for i in value.items):
            return list(value.items)
        if isinstance(value, DictV) and all(k is not None for k, _ in value.pairs):
            return [k for k, _ in value.pairs]
        return None

    def item_of(self, iterable, node) -> Opaque:
        """An unknown item of an iterable (the loop target's value); of
        `enumerate(items)`, a counter (the same on every request) and the item."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "enumerate" \
                and node.args and not node.args[0].star:
            counter = Opaque("a counter", Verdict(V.STATIC, "enumerate()'s count: 0, 1, 2 ... on every request"),
                             node, kind="name")
            return ListV([counter, self.item_of(iterable, node.args[0].value)], node, is_tuple=True)
        label = short(self.src(node)) if node is not None else "items"
        base = self.verdict_items(iterable)
        samples = ()
        if isinstance(iterable, SetV):
            texts = [literal_text(i) for i in iterable.items]
            samples = tuple(t for t in texts if t is not None)
        return Opaque(f"item of {label}", Verdict(base.volatility, f"an item of {label}: {base.reason}"),
                      node, names=self.names_of(iterable), samples=samples if len(samples) >= 2 else ())

    def verdict_items(self, iterable) -> Verdict:
        """How often the items change, leaving their order aside."""
        if isinstance(iterable, Opaque):
            return iterable.verdict
        if isinstance(iterable, (SetV, ListV)):
            return strongest(self.verdict(i) for i in iterable.items)
        if isinstance(iterable, LoopV):
            return strongest([iterable.verdict, self.verdict(iterable.body)])
        return self.verdict(iterable)

    def order_of(self, iterable) -> tuple[str | None, dict | None]:
        """Why an iterable's order can change between requests, and the fix."""
        if isinstance(iterable, SetV):
            return "iterates a set literal: string hashing is randomised per process", None
        if isinstance(iterable, Opaque) and iterable.order:
            return iterable.order, iterable.fix
        if isinstance(iterable, LoopV) and iterable.order:
            return iterable.order, iterable.fix
        return None, None

    def bind(self, target, item) -> dict:
        if isinstance(target, cst.Name):
            return {target.value: item}
        out = {}
        if isinstance(target, (cst.Tuple, cst.List)):
            for i, el in enumerate(target.elements):
                for name_node in _names_in(el.value, targets=True):
                    out[name_node.value] = self.element(item, (i,), name_node.value, target)
        return out

    def loop(self, target: str, iter_node, iterable, body, at=None) -> LoopV:
        order, fix = self.order_of(iterable)
        if order is not None and fix is None:
            s, e = self.span(iter_node)
            fix = {"kind": "sorted_iteration", "span": (s, e)}
        return LoopV(f"for {target} in {short(self.src(iter_node))}", iter_node,
                     self.verdict_items(iterable), self.names_of(iterable), body, order, fix, at=at)

    def comprehension(self, node, frame: Frame):
        comp = node.for_in
        iterable = self.eval(comp.iter, frame)
        known = self.known_items(iterable)
        # `"\n".join(s for s in sections if s)`: the sections, the empty ones left out
        drops_empty = len(comp.ifs) == 1 and _drops_empty(comp.ifs[0].test, comp.target)
        simple = (not comp.ifs or drops_empty) and comp.inner_for_in is None and not isinstance(node, cst.SetComp)
        if known is not None and simple and len(known) <= MAX_UNROLL:
            if drops_empty:
                known = [item for item in known if not _empty(item)]
            return ListV([self.eval(node.elt, frame.child(self.bind(comp.target, item))) for item in known], node)
        item = self.item_of(iterable, comp.iter)
        body = self.eval(node.elt, frame.child(self.bind(comp.target, item)))
        loopv = self.loop(self.src(comp.target), comp.iter, iterable, body, at=node)
        if isinstance(node, cst.SetComp) and loopv.order is None:
            loopv.order = "builds a set: string hashing is randomised per process"
        return loopv

    def dict_comprehension(self, node: cst.DictComp, frame: Frame):
        comp = node.for_in
        iterable = self.eval(comp.iter, frame)
        known = self.known_items(iterable)
        if known is not None and not comp.ifs and comp.inner_for_in is None and len(known) <= MAX_UNROLL:
            pairs = []
            for item in known:
                inner = frame.child(self.bind(comp.target, item))
                pairs.append((self.eval(node.key, inner), self.eval(node.value, inner)))
            return DictV(pairs, node, [None] * len(pairs))
        order, fix = self.order_of(iterable)
        op = self.opaque(node, frame, self.verdict_items(iterable))
        if order:
            s, e = self.span(comp.iter)
            op.order = f"{order} (a dict built from it keeps that order)"
            op.fix = fix or {"kind": "sorted_iteration", "span": (s, e)}
        return op


def _drops_empty(test, target) -> bool:
    """`if s`, `if s.strip()`, `if s is not None`, `if len(s)` on the
    comprehension's own item: a filter that only leaves out empty items."""
    if not isinstance(target, cst.Name):
        return False
    name = target.value

    def is_target(node) -> bool:
        return isinstance(node, cst.Name) and node.value == name

    if is_target(test):
        return True
    if isinstance(test, cst.Call) and len(test.args) <= 1:
        func = test.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("strip", "rstrip", "lstrip") and not test.args:
            return is_target(func.value)
        return isinstance(func, cst.Name) and func.value in ("len", "bool") and len(test.args) == 1 \
            and is_target(test.args[0].value)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and is_target(test.left):
        op = test.comparisons[0]
        return isinstance(op.operator, cst.IsNot) and isinstance(op.comparator, cst.Name) \
            and op.comparator.value == "None" or isinstance(op.operator, cst.NotEqual) \
            and isinstance(op.comparator, cst.SimpleString) and op.comparator.evaluated_value == ""
    return False


def _empty(item) -> bool:
    """An item known to be empty text or None (what such a filter drops)."""
    text = literal_text(item) if isinstance(item, StrV) else None
    return text is not None and not text.strip() or isinstance(item, ConstV) and item.value in (None, "")
