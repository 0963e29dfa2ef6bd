"""Expressions and calls for the Python data flow (a mixin of flow.Flow):
attributes (`self.x`, class constants, imported modules), subscripts,
conditional expressions, `+`/`%`/`*` on strings and lists, f-strings, and
calls: known ones by meaning (stdlib), helpers of this module
inlined, anything else opaque.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace
import re

import libcst as cst

from promptlint.analysis.conversation import names_history
from promptlint.analysis.volatility import DEFAULT, Verdict, no_evidence, sent_per_item
from promptlint.ir import Slot, SlotKind, Volatility
from promptlint.sources.python import files, lcel
from promptlint.sources.python.scope import INF, Binding, Frame, Scope, _dotted_name, last_name
from promptlint.sources.python.strings import Lit, decode_body
from promptlint.sources.python.values import (
    ClassV, ConstV, DictV, ForeignFuncV, FuncV, ListV, LoopV, MsgV, Opaque, SetV, Spread, StrV, as_conversation,
    literal_text, named_by, relabel, short, strongest,
)

# a helper that wraps text as a message of its role: system_message(text), user_message(text)
_ROLE_HELPER = re.compile(r"_?(system|user|human|assistant|ai)_(?:message|msg)", re.IGNORECASE)
MAX_DEPTH = 8  # helper calls inlined inside each other
# a class's own constructor from configuration (`Configuration.from_runnable_config(config)`, `Settings.load()`)
_FACTORY = re.compile(r"from_\w+|load|get|default|defaults")
MAX_RETURNS = 8  # returns of one helper evaluated (the rest are not: cost stays bounded)
# A helper returning at most this much fixed text around a changing value is a
# value helper (a label and the value), not a prompt builder.
SHORT_HELPER_CHARS = 80


def _one_choice(value: StrV) -> bool:
    """A value that is one conditional and nothing else (`x if c else ""`)."""
    return len(value.segs) == 1 and isinstance(value.segs[0], Slot) and value.segs[0].kind is SlotKind.CONDITIONAL


class Expressions:
    # ------------------------------------------------------------ expressions

    def attribute(self, node: cst.Attribute, frame: Frame):
        base = self.eval(node.value, frame)
        attr = node.attr.value
        if isinstance(base, Opaque) and base.qual is not None:
            known = self.stdlib.attribute(self, base.qual + "." + attr, node, frame) or \
                self.project.value(self, base.qual + "." + attr, node)  # `prompts.SYSTEM` of a module here
            if known is not None:
                return known
            return Opaque(self.src(node), base.verdict, node, names=base.names, kind="name",
                          qual=base.qual + "." + attr)
        if isinstance(base, Opaque) and base.instance_of is not None:
            known = self.project.value(self, f"{base.instance_of}.{attr}", node)
            if known is not None:
                return known
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            built = self.own_attr(frame, attr, node)
            if built is not None:
                return built
        if isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"):
            value = self.class_attr(frame, attr, node)
            if isinstance(value, Opaque) and value.node is None:
                value = replace(value, node=node)
            if value is not None:
                return value
        if isinstance(base, ClassV):
            found = base.info.attrs.get(attr)
            if found:
                return self.attr_value(base.info, found[-1])
            if attr in base.info.methods:
                return FuncV(base.info.methods[attr])
        if isinstance(base, DictV):
            found = base.get(attr) if base.fields else None
            return found if found is not None else self.opaque(node, frame, self.verdict(base))
        if isinstance(base, Opaque):
            return self.stdlib.value_attribute(self, base, attr, node, frame)
        return self.opaque(node, frame, self.verdict(base))

    def own_attr(self, frame: Frame, attr: str, node):
        """`self.x` read in the method that built it just before (`self.system_prompt
        = ""`, then `+=` part by part): that text, read as a local name's is.
        Not when the method grows or changes it in place too (`self.x.append`,
        `self.x[k] = v`): those are followed for local names only. An augmented
        chain with no `=` in the method builds on what the object held."""
        f = frame
        while f is not None and f.scope.cls is None:
            f = f.parent
        if f is None or f.scope.is_module:
            return None
        name = f"self.{attr}"
        at = self.span(node)[0]
        chain = f.scope.bindings.get(name)
        if not chain or f.scope.last(name, at) is None or chain[0].kind != "assign" \
                or re.search(rf"\bself\.{attr}\s*(?:\.\s*(?:append|extend|insert|update|add)\s*\(|\[[^\]]*\]\s*=)",
                             self.src(f.scope.node)):
            return None
        return self.lookup(name, at, f, node)

    def class_attr(self, frame: Frame, attr: str, node=None):
        f = frame
        while f is not None and f.scope.cls is None:
            f = f.parent
        if f is None:
            return None
        info = self.defining_class(f.scope.cls, attr)
        found = info.attrs.get(attr)
        if attr in info.reassigned:
            return self.reassigned_attr(info, attr, found)
        if found:
            value = self.attr_value(info, found[-1])
            if attr in info.kept and isinstance(value, ListV):
                # the conversation the object keeps: __init__'s messages, then what earlier turns added
                earlier = Opaque(f"self.{attr}", Verdict(Volatility.SESSION, f"the conversation self.{attr} keeps: "
                                                         f"what earlier turns added in {info.kept[attr]}()"),
                                 node, names=(attr,), kind="name")
                value = ListV(value.items + [Spread(earlier, node)], value.node)
            return value
        if attr in info.methods:
            return FuncV(info.methods[attr], bound_self=True)
        return None

    def defining_class(self, info, attr: str):
        """The class whose body or methods give `self.attr`: the class itself,
        else the nearest base class of this module that does (a subclass
        reads what its base's __init__ set), else the class itself."""
        if attr in info.attrs or attr in info.reassigned or attr in info.methods or not info.node.bases:
            return info
        by_name = self.classes_by_name
        if by_name is None:  # built once per file: the module's classes by name
            by_name = self.classes_by_name = {}
            for c in self.index.classes.values():
                by_name.setdefault(c.node.name.value, []).append(c)
        seen, todo = set(), [info]
        while todo and len(seen) < 8:
            cls = todo.pop(0)
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            if attr in cls.attrs or attr in cls.reassigned or attr in cls.methods:
                return cls
            for base in cls.node.bases:
                todo += by_name.get(_dotted_name(base.value) or "", [])
        return info

    def reassigned_attr(self, info, attr: str, found) -> Opaque:
        """`self.x` that a method other than __init__ assigns again
        (`self.current_page = link` in navigate()): it changes as the object
        works, as volatile as the most volatile of its values, else as its
        name says; never the constant __init__ gave it."""
        key = (id(info), attr)
        if key in self.reassigned_values:  # the same for every use: the methods' values, read once
            return self.reassigned_values[key]
        value = self.reassigned_values[key] = self._reassigned_attr(info, attr, found)
        return value

    def _reassigned_attr(self, info, attr: str, found) -> Opaque:
        where = info.reassigned[attr]
        values = [self.attr_value(info, found[-1])] if found else []
        for scope, value in where:
            key = id(value)
            if key in self.attrs_open:
                continue
            self.attrs_open.add(key)
            try:
                node = value.value if isinstance(value, cst.AugAssign) else value
                values.append(self.eval(node, self.frame_for(scope)))
            finally:
                self.attrs_open.discard(key)
        verdict = strongest(self.verdict(v) for v in values)
        method = where[0][0].node.name.value
        line = self.file.position(self.span(where[0][1])[0])[0]
        if verdict.volatility <= Volatility.DEPLOY:
            own = self.ctx.variables.resolve(attr)
            verdict = own if not no_evidence(own) else DEFAULT
        elif verdict.volatility > Volatility.SESSION and names_history((attr,)) \
                and not self.ctx.variables.configured(attr):
            # the conversation an object keeps (`self._messages`, appended to each turn): what it
            # holds changes per turn, and what it held before stays its prefix, as a history does
            verdict = Verdict(Volatility.SESSION, f"the conversation history the object keeps, as its "
                                                  f"name says ({verdict.reason})")
        how = "grows in" if attr in info.grown else "is assigned again in"
        return Opaque(f"self.{attr}", Verdict(verdict.volatility, f"self.{attr} {how} {method}() "
                                                                 f"(line {line}): {verdict.reason}"),
                      None, names=(attr,), kind="name")

    def attr_value(self, info, b: Binding):
        """A class constant or a `self.x` set in __init__. An attribute whose
        value reads itself (`self.x = self.x.copy()`, or through another
        attribute back to it) is not followed round the loop."""
        key = id(b)
        if key in self.attrs_open:
            return Opaque(f"self.{b.name}", DEFAULT, b.value, names=(b.name,))
        self.attrs_open.add(key)
        try:
            value = self._attr_value(info, b)
        finally:
            self.attrs_open.discard(key)
        return value

    def _attr_value(self, info, b: Binding):
        if b.kind == "attr":
            scope = self.index.scopes[id(b.node)]
            value = self.eval(b.value, self.frame_for(scope))
            if scope.params and scope.node.name.value == "__init__":
                value = self.passed_to_init(info, scope, b, value)
        else:
            value = self._binding(b, self.frame_for(info.scope) if not info.scope.parent.is_module
                                  else Frame(info.scope, parent=self.import_frame, import_time=True), INF)
        if isinstance(value, Opaque) and value.qual is None:
            return relabel(value, f"self.{b.name}", value.node)
        return value

    def passed_to_init(self, info, scope: Scope, b: Binding, unbound):
        """`self.x = param or DEFAULT` in `__init__`: the value with the
        parameters a subclass of this module passes (`super().__init__(
        prompt_templates=yaml.safe_load(...))`); the most volatile of those
        and of the value with nothing passed, and between equals the one
        whose content is known (`likeliest`: what the classes here use)."""
        name = info.node.name.value
        values = []
        for other in self.index.classes.values():
            init = other.methods.get("__init__")
            if other is info or init is None or not any(last_name(base.value) == name for base in other.node.bases):
                continue
            caller = self.index.scopes.get(id(init))
            for call in (caller.super_inits if caller is not None else ())[:MAX_RETURNS]:
                frame = self.frame_for(caller)
                bound = self.arguments(FuncV(scope.node, bound_self=True), scope, call, frame)
                values.append(self.eval(b.value, Frame(scope, bound, self.frame_for(scope.parent))))
        if not values:
            return unbound
        return self.likeliest([*values, unbound])

    def subscript(self, node: cst.Subscript, frame: Frame):
        base = self.eval(node.value, frame)
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
            where = node.slice[0].slice
            part = self.sliced(base, where, frame) if isinstance(base, ListV) else \
                self.window(base, where, node) if isinstance(base, Opaque) else None
            if part is not None:  # `messages[1:]`, `history[-10:]`
                return part
            if isinstance(base, StrV) and self.keeps_head(where, frame):
                return base  # `prompt[:limit]` cuts the tail: what leads the text, and its order, stay
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = self.eval(node.slice[0].slice.value, frame)
            if isinstance(base, DictV) and isinstance(key, StrV):
                found = base.get(literal_text(key) or "\0")
                if found is not None:
                    return found
            if isinstance(base, ListV) and isinstance(key, ConstV) and isinstance(key.value, int):
                known = self.known_items(base)
                if known is not None and -len(known) <= key.value < len(known):
                    return known[key.value]
            if isinstance(base, Opaque):
                if base.qual == "os.environ":
                    return self.stdlib.environment(self, node)
                turn = self.latest_turn(base, node.slice[0].slice.value, node) or self.first_turn(base, key, node)
                if turn is not None:
                    return turn
                text = literal_text(key) if isinstance(key, StrV) else None
                if text is not None and base.kind == "first":  # `messages[0]["content"]`: the first message's text
                    return Opaque(self.src(node), base.verdict, node, kind="first")
                name = f"{_dotted_name(node.value) or base.label}.{text}" if text and text.isidentifier() else None
                verdict = self.ctx.variables.resolve(name) if name else DEFAULT
                if no_evidence(verdict) or not no_evidence(base.verdict) and base.verdict.volatility <= \
                        Volatility.DEPLOY and not self.ctx.variables.configured(name):
                    verdict = base.verdict  # a field of data fixed per release (`demo["question"]` of saved demos)
                # `rows[i]`, `row["question"]` in a loop that sends one request per row
                item = next((v.verdict for v in (key, base) if isinstance(v, Opaque) and sent_per_item(
                    v.verdict.reason)), None)
                if item is not None and verdict.volatility <= Volatility.REQUEST:
                    verdict = item
                if isinstance(key, Opaque) and key.verdict.volatility > max(
                        Volatility.DEPLOY, base.verdict.volatility, verdict.volatility):
                    # `RESERVATIONS[user_id]`: an entry of a table the module holds, chosen by
                    # a value that changes, is that value's
                    verdict = Verdict(key.verdict.volatility, f"an entry of {short(self.src(node.value))} chosen "
                                                              f"by {short(key.label)}: {key.verdict.reason}")
                return Opaque(self.src(node), verdict, node, names=(name,) if name else base.names,
                              kind="name" if name else "expr", clock=base.clock)
            if isinstance(base, (DictV, ListV)) and isinstance(key, Opaque) \
                    and key.verdict.volatility > max(Volatility.DEPLOY, self.verdict(base).volatility):
                # `MOVES[last_action]`: a fixed table, an entry chosen by a value that changes
                reason = f"an entry of {short(self.src(node.value))} chosen by {short(key.label)}: {key.verdict.reason}"
                return Opaque(self.src(node), Verdict(key.verdict.volatility, reason), node, names=key.names)
            if isinstance(base, DictV) and isinstance(key, Opaque) and base.pairs \
                    and all(isinstance(v, StrV) for _, v in base.pairs):
                # `KNOWLEDGE_TEMPLATE[lang]`: a table of texts (one per language, per mode) chosen by a
                # setting: read by its first entry, whose layout the others share
                return base.pairs[0][1]
        return self.opaque(node, frame, self.verdict(base))

    def latest_turn(self, base: Opaque, index, node) -> Opaque | None:
        """`messages[-1]` of the conversation so far (a per-session value
        named like it): the message of this turn, new on every request."""
        if _written_int(index) != -1 or base.verdict.volatility is not Volatility.SESSION \
                or not names_history(base.names):
            return None
        return Opaque(self.src(node), Verdict(Volatility.REQUEST, f"the latest message of {short(base.label)}: "
                                                                  "new on every turn"), node, names=base.names,
                      kind="turn")

    def first_turn(self, base: Opaque, key, node) -> Opaque | None:
        """`messages[0]` of the conversation so far: its first message, the
        system prompt the client sends, the same on every turn of every
        conversation (fixed per release, as configured text is). Not named as
        the history: it is one message of it; what follows it is the history."""
        if not isinstance(key, ConstV) or key.value != 0 or base.verdict.volatility is not Volatility.SESSION \
                or not names_history(base.names):
            return None
        return Opaque(self.src(node), Verdict(Volatility.DEPLOY, f"the first message of {short(base.label)}: the "
                                                                 "system prompt the client sends, the same on every "
                                                                 "turn"), node, kind="first")

    def window(self, base: Opaque, where: cst.Slice, node) -> Opaque | None:
        """`history[-3:]` of the conversation so far: a sliding window drops
        its oldest turn once the conversation is longer, so its start (and
        everything after it) changes on every turn, unlike the history that
        only grows at its end."""
        if base.verdict.volatility is not Volatility.SESSION or where.step is not None or where.upper is not None:
            return None
        lower = where.lower
        negative = isinstance(lower, cst.UnaryOperation) and isinstance(lower.operator, cst.Minus)
        if not negative or not names_history(base.names):
            return None
        return Opaque(self.src(node), Verdict(Volatility.REQUEST, f"{short(self.src(node))} is a sliding window of "
                                                                  f"{short(base.label)}: its oldest turn changes on "
                                                                  "every turn"), node, names=base.names,
                      kind="turn")

    def keeps_head(self, where: cst.Slice, frame: Frame) -> bool:
        """`[:n]` or `[0:n]` with no step: a truncation that starts at the start."""
        if where.step is not None:
            return False
        if where.lower is None:
            return True
        lower = self.eval(where.lower, frame)
        return isinstance(lower, ConstV) and lower.value == 0

    def sliced(self, base: ListV, where: cst.Slice, frame: Frame) -> ListV | None:
        """A slice with constant bounds of a list known item by item, `[k:]`
        of a list whose first k items are known, or the list reversed."""
        known = self.known_items(base)
        bounds = []
        for part in (where.lower, where.upper, where.step):
            if (written := _written_int(part)) is not None and written < 0:  # `[::-1]`, `[-10:]`
                bounds.append(written)
                continue
            value = None if part is None else self.eval(part, frame)
            if value is not None and not (isinstance(value, ConstV) and isinstance(value.value, int)):
                return None
            bounds.append(None if value is None else value.value)
        if bounds[2] == 0:
            return None
        if known is not None:
            return ListV(known[slice(*bounds)], base.node, base.is_tuple)
        lower, upper, step = bounds
        if lower is None and upper is None and step == -1:  # `messages[::-1]`: a list gathered newest first, in order
            return ListV(base.items[::-1], base.node, base.is_tuple)
        head = base.items[:lower or 0]
        if lower is not None and lower >= 0 and upper is None and step is None \
                and not any(isinstance(i, (Spread, LoopV)) for i in head):
            return ListV(base.items[lower:], base.node, base.is_tuple)
        return None

    def conditional(self, node: cst.IfExp, frame: Frame):
        decided = self.truth(node.test, frame)  # `x if isinstance(x, str) else str(x)` on a known x
        if decided is not None:
            return self.eval(node.body if decided else node.orelse, frame)
        body, orelse = self.eval(node.body, frame), self.eval(node.orelse, frame)
        # `message if content else None`: when there is a value, it is that one
        if _is_none(orelse) and not _is_none(body):
            return body
        if _is_none(body) and not _is_none(orelse):
            return orelse
        if not isinstance(body, StrV) or not isinstance(orelse, StrV):
            # an arm whose order varies (a set) keeps saying so, so that sorted() of the whole fixes it
            orders = [o for o in (_order_of(body), _order_of(orelse)) if o]
            if not orders:
                return self.opaque(node, frame, strongest([self.verdict(body), self.verdict(orelse)]))
            op = self.opaque(node, frame, strongest([self.verdict_items(body), self.verdict_items(orelse)]))
            op.order = orders[0]
            return op
        test = self.eval(node.test, frame)
        verdict = self.verdict(test)
        if verdict.volatility is Volatility.DEPLOY and _plain_text(body) and _plain_text(orelse):
            # `EN if CFG.LANGUAGE == "en" else ZH`: a setting fixed for the
            # process picks one text, read as a template like either branch
            return body
        s, e = self.span(node)
        slot = Slot(f"if {short(self.src(node.test))}", SlotKind.CONDITIONAL, verdict.volatility,
                    f"chooses on {short(self.src(node.test))}: {verdict.reason}", self.file_span(s, e),
                    names=self.names_of(test), children=self.parts(body), else_children=self.parts(orelse))
        return StrV([slot], node)

    def binary(self, node: cst.BinaryOperation, frame: Frame):
        left, right = self.eval(node.left, frame), self.eval(node.right, frame)
        if isinstance(node.operator, (cst.Add, cst.Subtract)):
            # `datetime.now() - timedelta(days=1)`: still a clock, which a format can coarsen to a date
            # (two clocks make a duration, and text added to one is text)
            clocks = [v for v in (left, right) if isinstance(v, Opaque) and v.clock]
            other = right if clocks and clocks[0] is left else left
            if len(clocks) == 1 and isinstance(other, (Opaque, ConstV)):
                return replace(clocks[0], label=self.src(node), node=node, span=None)
        if isinstance(node.operator, cst.BitOr) and isinstance(left, lcel.ChatTemplV):
            return lcel.pipe(left)  # prompt | llm | parser
        if isinstance(node.operator, cst.Add):
            return self.add(left, right, node)
        if isinstance(node.operator, cst.Modulo) and isinstance(left, StrV):
            return self.stdlib.percent(self, left, right, node)
        if isinstance(node.operator, cst.Multiply):  # "-" * 40
            text, count = (left, right) if isinstance(left, StrV) else (right, left)
            if isinstance(text, StrV) and isinstance(count, ConstV) and isinstance(count.value, int) \
                    and 0 <= count.value <= 10_000:
                return StrV(text.segs * count.value, node)
        op = self.opaque(node, frame, strongest([self.verdict(left), self.verdict(right)]))
        if isinstance(node.operator, cst.Divide) and isinstance(left, Opaque):
            tail = literal_text(right) if isinstance(right, StrV) else getattr(right, "where", None)
            if left.path or isinstance(right, Opaque) and right.path:
                op.path, op.where = True, files.joined(left.where, tail)  # Path(__file__).parent / "prompts" / "x.md"
            elif tail is not None and files.PATH_PART.fullmatch(tail):
                # `data_path / "fitd" / "template.txt"` on a path object of the app's own (a resource root
                # we cannot place): the written-out tail, found in the checked tree where unique
                op.path, op.where = True, files.joined(files.ANYWHERE if left.where is None else left.where, tail)
        else:
            op.path = isinstance(node.operator, cst.Divide) and isinstance(right, Opaque) and right.path
        return op

    def add(self, left, right, node):
        if isinstance(left, StrV) and isinstance(right, (StrV, Opaque, LoopV)):
            return StrV(left.segs + self.segs(right), node)
        if isinstance(left, (Opaque, LoopV)) and isinstance(right, StrV):
            return StrV(self.segs(left) + right.segs, node)
        if isinstance(left, Opaque) and isinstance(right, LoopV) and isinstance(right.body, StrV):
            # `text = self.prefix` then `text += f"..."` in a loop: text, one region per item
            return StrV(self.segs(left) + self.segs(right), node)
        if isinstance(left, ListV) and isinstance(right, ListV):
            return ListV(left.items + right.items, node)
        if isinstance(left, (Opaque, LoopV)) and isinstance(right, ListV):
            return ListV([left if isinstance(left, LoopV) else Spread(left, left.node)] + right.items, node)
        if isinstance(left, ListV):
            return ListV(left.items + [right if isinstance(right, LoopV) else Spread(right, None)], node)
        if isinstance(left, LoopV) and isinstance(right, (Opaque, LoopV)) and not isinstance(left.body, StrV):
            # `flatten([...]) + regular_tools`: the items of the loop, then the others
            return ListV([left, right if isinstance(right, LoopV) else Spread(right, right.node)], node)
        return Opaque(self.src(node), strongest([self.verdict(left), self.verdict(right)]), node,
                      names=self.names_of(left) + self.names_of(right))

    def fstring(self, node: cst.FormattedString, frame: Frame):
        prefix = node.start.lower()
        is_raw = "r" in prefix
        segs: list = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                segs.append(decode_body(part.value, self.span(part)[0], is_raw, fstring=True))
                continue
            expr = part.expression
            value = self.eval(expr, frame)
            if isinstance(value, StrV) and (isinstance(expr, cst.Name) and (_one_choice(value) or
                                                                            self.helper_result(expr, frame)) or
                                            isinstance(expr, cst.Call) and self.helper_call(expr, frame)):
                value = self.at_field(value, expr)
            if part.equal is not None:  # f"{x=}": the text up to `=` is written out
                start = self.span(part)[0] + 1
                end = self.span(part.equal)[1]
                segs.append(Lit(self.file.text[start:end], list(range(start, end + 1))))
            spec = None
            if part.format_spec:
                spec_value = self.fstring_spec(part.format_spec, frame)
                spec = literal_text(spec_value) if spec_value is not None else None
                if spec is None:
                    value = self.opaque(expr, frame, self.verdict(value))
            segs += self.stdlib.fill(self, value, part.conversion, spec, expr)
        return StrV(segs, node)

    def helper_call(self, call: cst.Call, frame: Frame) -> bool:
        """A call of a function of the app's own (not a method of a value: `TEMPLATE.format(...)`)."""
        func = call.func
        if isinstance(func, cst.Attribute):
            if isinstance(self.eval(func.value, frame), (StrV, ListV, DictV, ConstV, MsgV)):
                return False
            callee = self.attribute(func, frame)
        else:
            callee = self.eval(func, frame)
        return isinstance(callee, (FuncV, ForeignFuncV))

    def helper_result(self, name: cst.Name, frame: Frame) -> bool:
        """A name that holds what a helper of the app's returned (`table =
        read_board(...)` then `f"...{table}..."`): the helper's value, placed
        as if the call stood in the field."""
        value = frame.scope.assigned(name.value, self.span(name)[0])
        return isinstance(value, cst.Call) and self.helper_call(value, frame)

    def at_field(self, value: StrV, call: cst.BaseExpression) -> StrV:
        """A helper that returns a short labelled value (`f"Time: {get_time()}"`
        with `return f"Current time: {now:%H:%M}"`), or a name bound to a
        choice of such values (`shown = ("Instruction: " + task) if task
        else ""`), is read as a value, like one that returns the bare clock:
        its changing part is placed at the f-string field that puts it in the
        prompt, where it would be moved. More text is a prompt part and keeps
        its positions."""
        text = "".join(seg.text for seg in value.segs if isinstance(seg, Lit))
        if len(text) > SHORT_HELPER_CHARS:
            return value
        start, end = self.span(call)
        span = self.file_span(start, end)
        label = short(self.src(call))
        return StrV([replace(seg, span=span, fix=None, label=label)
                     if isinstance(seg, Slot) and seg.span is not None and seg.volatility > Volatility.DEPLOY
                     and not seg.order_varies
                     and not (seg.span.file is self.file and start <= seg.span.start < end)
                     else seg for seg in value.segs], value.node)

    def fstring_spec(self, parts, frame: Frame) -> StrV | None:
        segs: list = []
        for part in parts:
            if isinstance(part, cst.FormattedStringText):
                segs.append(decode_body(part.value, self.span(part)[0], False, fstring=True))
            else:
                value = self.eval(part.expression, frame)
                if not isinstance(value, (StrV, ConstV)):
                    return None
                segs += self.segs(value)
        return StrV(segs)

    # ------------------------------------------------------------ calls

    def call(self, node: cst.Call, frame: Frame):
        func = node.func
        qual = self.qualname(func, frame)
        if qual is not None:
            known = self.stdlib.call(self, qual, node, frame)
            if known is not None:
                return known
        if isinstance(func, cst.Attribute):
            base = self.eval(func.value, frame)
            # a mapping's own methods read the same on a module's object (`cl.user_session.get(k, {})`)
            if isinstance(base, (FuncV, ClassV)) or not isinstance(base, Opaque) or base.qual is None \
                    or func.attr.value in ("get", "items", "values", "keys"):
                method = self.stdlib.method(self, base, func.attr.value, node, frame)
                if method is not None:
                    return method
            callee = self.attribute(func, frame)
        else:
            callee = self.eval(func, frame)
        if isinstance(callee, (FuncV, ForeignFuncV)):
            inlined = self.inline(callee, node, frame) if isinstance(callee, FuncV) else \
                self.project.call(self, callee, node, frame)
            if isinstance(inlined, Opaque):  # a loader we followed without finding its file's text
                inlined = self.stdlib.template_by_name(self, last_name(func) or "", node, frame) or inlined
            if inlined is None or isinstance(inlined, (Opaque, ConstV)):
                inlined = self.role_helper(last_name(func) or "", node, frame) or inlined
            if inlined is not None:
                return inlined
        made = self.stdlib.unknown_call(self, node, frame, qual or _dotted_name(func) or self.src(func))
        owner, _, method = (qual or "").rpartition(".")
        if owner and isinstance(made, Opaque) and _FACTORY.fullmatch(method) and self.project.is_class(self, owner, node):
            made = replace(made, instance_of=owner)
        return made

    def role_helper(self, name: str, node: cst.Call, frame: Frame):
        """`self.system_message(prompt)` of a base class that leaves the
        message's shape to its subclasses (an abstract method, or one we
        cannot read to a value): a message of that role with that text."""
        match = _ROLE_HELPER.fullmatch(name)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if match is None or len(positional) != 1 or len(node.args) != 1:
            return None
        role = {"human": "user", "ai": "assistant"}.get(match.group(1).lower(), match.group(1).lower())
        return MsgV(role, self.eval(positional[0], frame), node)

    def qualname(self, func, frame: Frame) -> str | None:
        """`datetime.now` -> `datetime.datetime.now` when the root is an import
        (or a builtin); None for calls on local values."""
        chain = []
        node = func
        while isinstance(node, cst.Attribute):
            chain.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name):
            return None
        root = self.lookup(node.value, self.span(node)[0], frame, node)
        if not isinstance(root, Opaque) or root.qual is None:
            return None
        return ".".join([root.qual, *reversed(chain)])

    def inline(self, func: FuncV, call: cst.Call, frame: Frame):
        """A helper of this module, evaluated with its parameters bound."""
        scope = self.index.scopes.get(id(func.node))
        if scope is None or frame.depth >= MAX_DEPTH:
            return None
        bound = self.arguments(func, scope, call, frame)
        parent = frame if frame.scope is scope.parent and not scope.parent.is_module else None
        value = self.returned(func, scope, bound, parent, frame.import_time, frame.depth + 1, frame.constructing)
        if isinstance(value, Opaque) and value.qual is None:
            return relabel(value, short(self.src(call)), call)
        if value is not None and self.called_repeatedly(func, frame):
            value = self.at_argument(value, func, call, bound)
        if isinstance(value, StrV) and any(isinstance(a.value, (cst.SimpleString, cst.ConcatenatedString))
                                           for a in call.args):
            value = self.read_at_call(value, func, call)
        return value

    def read_at_call(self, value: StrV, func: FuncV, call: cst.Call) -> StrV:
        """`load_prompt("answer.txt")`: the text a helper reads from a file
        (placed at its read, inside the helper) is placed at the call that
        names the file, where a reader looks for the template it loads."""
        inside = self.span(func.node)
        start, end = self.span(call)
        segs = []
        for seg in value.segs:
            if isinstance(seg, Lit) and seg.offsets and inside[0] <= seg.offsets[0] < inside[1] \
                    and len(set(seg.offsets[:-1])) <= 1:
                seg = Lit.synthetic(seg.text, start, end)
            segs.append(seg)
        return StrV(segs, value.node)

    def called_repeatedly(self, func: FuncV, frame: Frame) -> bool:
        """The caller calls this helper more than once (`_section(inputs,
        "Input")`, then `_section(rubric, "Rubric")`): a part the helper
        only passes through is told by the call that passes it, since the
        helper's own line is the same for every call."""
        caller = frame.scope.node
        if isinstance(caller, cst.Module):
            return False
        key = (id(caller), func.node.name.value)
        found = self.repeated.get(key)
        if found is None:
            start, end = self.span(caller)
            calls = re.findall(rf"\b{re.escape(func.node.name.value)}\s*\(", self.file.text[start:end])
            found = self.repeated[key] = len(calls) > 1
        return found

    def at_argument(self, value, func: FuncV, call: cst.Call, bound: dict):
        """`value` with each part that came from an argument (a part written
        in the helper, as volatile as that argument: a less volatile one came
        from elsewhere, module state or a setting) placed at the argument,
        the most volatile one, in the call."""
        carried = [(self.verdict(bound[name]).volatility, node) for name, node in _passed(func, call)
                   if name in bound]
        carried = [c for c in carried if c[0] >= Volatility.USER]
        if not carried:
            return value
        most, arg = max(carried, key=lambda c: c[0])
        # parts another argument brought in (`initial_prompt = self.add(initial_prompt, docs)`:
        # the text built before this call) stay where they are
        others = set()
        for name, node in _passed(func, call):
            if node is not arg and name in bound:
                _collect_parts(bound[name], others)
        inside = self.span(func.node)
        span = self.file_span(*self.span(arg))
        label = short(self.src(arg))

        def written_in_helper(start: int) -> bool:
            return inside[0] <= start < inside[1]

        def move(v):
            if isinstance(v, StrV):
                return StrV([dataclasses.replace(s, span=span, fix=None, label=label)
                             if isinstance(s, Slot) and s.span is not None and s.span.file is self.file
                             and written_in_helper(s.span.start) and s.volatility == most and not s.order_varies
                             and id(s) not in others
                             else s for s in v.segs], v.node)
            if isinstance(v, ListV):
                return ListV([move(i) for i in v.items], v.node, v.is_tuple)
            if isinstance(v, Spread):
                return Spread(move(v.value), v.node)
            if isinstance(v, DictV):
                return DictV([(k, move(x)) for k, x in v.pairs], v.node, v.key_nodes)
            if isinstance(v, LoopV):
                if v.order or v.node is None or not written_in_helper(self.span(v.node)[0]) \
                        or self.verdict(v).volatility > most or id(v) in others:
                    return v
                return dataclasses.replace(v, node=arg, fix=None, label=label)
            if isinstance(v, Opaque):
                if v.node is None or v.span is not None or not written_in_helper(self.span(v.node)[0]) \
                        or v.effective().volatility > most:
                    return v
                return dataclasses.replace(v, node=arg, fix=None, label=label)
            return v

        return move(value)

    def returned(self, func: FuncV, scope: Scope, bound: dict, parent: Frame | None, import_time: bool,
                 depth: int, constructing: bool = False):
        """What a call of `func` returns, its parameters bound to `bound` (its
        early returns: the caller may get any of them; `likeliest` decides).
        None when it returns nothing we read."""
        found = [r for r in self.returns_of(func.node) if not _is_none_literal(r.value)][:MAX_RETURNS]
        failed = self.error_returns_of(func.node) if len(found) > 1 else set()
        if failed and any(id(r) not in failed for r in found):
            # `except OSError: return ""`: what a loader gives when it fails is not what it loads
            found = [r for r in found if id(r) not in failed or not _is_empty_literal(r.value)]
        if not found:
            return None
        if parent is None:
            parent = Frame(scope.parent, parent=None) if scope.parent.is_module else self.frame_for(scope.parent)
        inner = Frame(scope, bound, parent, import_time, depth, constructing)
        self.reads.add(func.node.name.value)
        values = [self.eval(r.value, inner) for r in found]
        return self.likeliest(values)

    def arguments(self, func: FuncV, scope: Scope, call: cst.Call, frame: Frame, defaults: bool = True) -> dict:
        """The parameters a call binds, evaluated here; with `defaults`, the
        defaults of those it does not pass (they are evaluated in the
        function's own module: a helper of another module passes False)."""
        bound: dict = {name: self.argument(name, node, scope, frame) for name, node in _passed(func, call)
                       if name in scope.params}
        if defaults:
            bound.update(self.defaults(func, bound))
        return bound

    def defaults(self, func: FuncV, bound: dict) -> dict:
        params = func.node.params
        return {p.name.value: self.eval(p.default, self.import_frame)
                for p in [*params.posonly_params, *params.params, *params.kwonly_params]
                if p.name.value not in bound and p.default is not None}

    def argument(self, param: str, node, scope: Scope, frame: Frame):
        value = self.eval(node, frame)
        history = as_conversation(self.ctx, param, value.verdict) if isinstance(value, Opaque) else None
        if history is not None:
            return replace(value, verdict=history, names=(param,))
        return named_by(self.ctx, param, value)


def _collect_parts(value, out: set) -> None:
    """The ids of the slots and loops a value carries (what an argument brings into a helper)."""
    if isinstance(value, StrV):
        out.update(id(s) for s in value.segs if isinstance(s, Slot))
    elif isinstance(value, ListV):
        for item in value.items:
            out.add(id(item))
            _collect_parts(item, out)
    elif isinstance(value, Spread):
        _collect_parts(value.value, out)


def _passed(func: FuncV, call: cst.Call) -> list[tuple[str, cst.CSTNode]]:
    """(parameter, argument expression) of each argument a call passes by
    position or keyword (`self` of a bound method skipped)."""
    params = func.node.params
    positional = [*params.posonly_params, *params.params]
    if func.bound_self and positional and not _static(func.node):
        positional = positional[1:]
    out = list(zip((p.name.value for p in positional), (a.value for a in call.args if a.keyword is None and not a.star)))
    return out + [(a.keyword.value, a.value) for a in call.args if a.keyword is not None]


def _static(node: cst.FunctionDef) -> bool:
    """A `@staticmethod`: called through `self.`, it takes no `self`."""
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in node.decorators)


def _plain_text(value) -> bool:
    """Literal text only: no slot of its own."""
    return isinstance(value, StrV) and all(isinstance(s, Lit) for s in value.segs)


def _is_none(value) -> bool:
    return isinstance(value, ConstV) and value.value is None


def _is_none_literal(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _is_empty_literal(node) -> bool:
    """`""`, `''`, `[]`, `{}`: nothing."""
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value in ("", b"")
    return isinstance(node, (cst.List, cst.Dict)) and not node.elements


def _order_of(value) -> str | None:
    """Why a value's iteration order can change, if it can."""
    if isinstance(value, SetV) and len(value.items) > 1:
        return "builds a set: string hashing is randomised per process"
    return getattr(value, "order", None) if isinstance(value, (Opaque, LoopV)) else None


def _written_int(node) -> int | None:
    """The integer a literal writes out (`3`, `-1`), else None."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _written_int(node.expression)
        return None if inner is None else -inner
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    return None
