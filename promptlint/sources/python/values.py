"""The abstract values of the Python data flow (flow).

An expression evaluates, without running anything, to one of these:

- `StrV`: a string known part by part (literal `Lit`s with file offsets, and
  `Slot`s for what only the running program knows);
- `ConstV`: a number, bool or None literal;
- `ListV` / `SetV` / `DictV`: literal containers (a list's items may include
  `Spread`s of unknown lists and `LoopV` regions built by comprehensions);
- `LoopV`: what a comprehension or a loop that appends produces, when its
  items are not known one by one: one element with the loop target bound to
  "an item of" the iterable;
- `MsgV`: a LangChain message (`SystemMessage(...)`, a `("system", "...")`
  tuple inside a prompt template, `MessagesPlaceholder`);
- `FuncV` / `ClassV`: a function or class of this module (inlined, read);
- `ForeignFuncV`: a function of another module of the checked tree, where
  it is used here (inlined in its own module's flow, see project);
- `TemplV`: a `string.Template`;
- `Opaque`: anything else. It carries a label (the source text), a verdict
  (volatility and reason), the inputs it depends on, and what a fixer needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst

from promptlint.analysis.conversation import names_history
from promptlint.analysis.volatility import Verdict, by_name_only, no_evidence
from promptlint.ir import Slot, SlotKind, Volatility

V = Volatility
STATIC = Verdict(V.STATIC, "literal text")


@dataclass(eq=False)
class StrV:
    segs: list  # Lit | Slot
    node: cst.CSTNode | None = None


@dataclass(eq=False)
class ConstV:
    value: Any
    node: cst.CSTNode | None = None


@dataclass(eq=False)
class ListV:
    items: list
    node: cst.CSTNode | None = None
    is_tuple: bool = False


@dataclass(eq=False)
class SetV:
    items: list
    node: cst.CSTNode | None = None


@dataclass(eq=False)
class DictV:
    pairs: list  # (key value | None for an unknown ** spread, value)
    node: cst.CSTNode | None = None
    key_nodes: list = field(default_factory=list)  # the DictElement of each pair (None when synthetic)
    fields: bool = False  # an object's fields by name (a settings object made from keywords): `.name` reads one

    def get(self, key: str):
        for k, v in self.pairs:
            if isinstance(k, StrV) and literal_text(k) == key:
                return v
        return None

    def element(self, key: str):
        for (k, _), el in zip(self.pairs, self.key_nodes):
            if isinstance(k, StrV) and literal_text(k) == key:
                return el
        return None


@dataclass(eq=False)
class Spread:
    value: Any  # `*x` of a list that is not known item by item
    node: cst.CSTNode | None = None


@dataclass(eq=False)
class Opaque:
    label: str
    verdict: Verdict
    node: cst.CSTNode | None = None
    names: tuple[str, ...] = ()
    fix: dict | None = None
    clock: str | None = None  # "datetime" | "date" | "time": a clock value a format can coarsen
    order: str | None = None  # why its iteration order can change (a set, a directory listing)
    samples: tuple[str, ...] = ()
    # "name": a plain name or attribute chain; "first": a conversation's first message; "turn": its
    # latest message or a window of it
    kind: str = "expr"
    qual: str | None = None  # a module or imported object's qualified name
    span: tuple[int, int] | None = None  # where it sits, when not at `node` (a format placeholder)
    path: bool = False  # a pathlib.Path
    where: str | None = None  # the filesystem path it names, when the code writes it out (files)
    pinned: bool = False  # text filled at its own call (a template we cannot read): reported there, where it is used
    parsed: bool = False  # data parsed from JSON/YAML text (json.loads): its keys keep the text's order
    # an object of a settings class of the checked tree, made from configuration
    # (`Configuration.from_runnable_config(config)`): its fields hold the class's defaults
    instance_of: str | None = None


    def effective(self) -> Verdict:
        if self.order and self.verdict.volatility < V.NONDETERMINISTIC:
            return Verdict(V.NONDETERMINISTIC, f"{self.order}, so identical requests can differ")
        return self.verdict


def as_conversation(ctx, name: str, verdict: Verdict) -> Verdict | None:
    """`with_context(message)` into `def with_context(self, messages)`: a
    value judged per request only by another name, taken under a name that
    says it is the conversation so far (`messages`, `history`). The function,
    which splices it after its system message, is told by its own name: a
    per-session history. None when the names do not disagree so."""
    own = ctx.variables.resolve(name)
    if verdict.volatility is V.REQUEST and by_name_only(verdict.reason) \
            and own.volatility is V.SESSION and names_history((name,)):
        return Verdict(own.volatility, f"passed as {name}: {own.reason}")
    return None


def named_by(ctx, name: str, value):
    """A value with no evidence of its own, passed under a name that is
    evidence (`f(user_name=x)`, `"{user}".format(user=x)`), takes that
    name's class; anything else is returned as it is."""
    if isinstance(value, Opaque) and no_evidence(value.verdict):
        own = ctx.variables.resolve(name)
        if not no_evidence(own):
            return replace(value, verdict=Verdict(own.volatility, f"passed as {name}: {own.reason}"))
    if isinstance(value, StrV) and _one_value(value):
        # `data_url = f"data:{mime};base64,{encoded}"`: a value in a short wrapper, named for what it is
        own = ctx.variables.resolve(name)
        if not no_evidence(own):  # one value, reported where the name puts it in the prompt
            return Opaque(name, Verdict(own.volatility, f"{name}: {own.reason}"), value.node, names=(name,),
                          kind="name")
    return value


# fixed text around the values of a string that is still one value by its name (`data:`, `;base64,`)
ONE_VALUE_TEXT = 24


def _one_value(value: "StrV") -> bool:
    slots = [seg for seg in value.segs if isinstance(seg, Slot)]
    text = sum(len(seg.text) for seg in value.segs if not isinstance(seg, Slot) and hasattr(seg, "text"))
    return bool(slots) and text <= ONE_VALUE_TEXT and all(not s.volatility.evidenced and s.kind is not SlotKind.LOOP
                                                          for s in slots)


@dataclass(eq=False)
class LoopV:
    label: str  # "for t in tools"
    node: cst.CSTNode | None  # the iterable
    verdict: Verdict  # of the iterable's items
    names: tuple[str, ...]
    body: Any  # the element, with the target bound to an item
    order: str | None = None
    fix: dict | None = None
    sep: list = field(default_factory=list)  # segments after each element (a join's separator)
    at: cst.CSTNode | None = None  # where the loop is written (a comprehension, a for statement)


@dataclass(eq=False)
class MsgV:
    role: str
    content: Any
    node: cst.CSTNode | None = None
    template: bool = False  # a prompt-template message: its text has placeholders
    style: str | None = None
    placeholder: str | None = None  # MessagesPlaceholder's variable


@dataclass(eq=False)
class FuncV:
    node: cst.FunctionDef
    bound_self: bool = False  # reached through self./cls.: skip the first parameter


@dataclass(eq=False)
class ForeignFuncV:
    func: FuncV  # the function, in the flow of the module that defines it
    flow: Any  # that module's Flow
    node: cst.CSTNode | None = None  # where it is used in this file


@dataclass(eq=False)
class ClassV:
    info: Any


@dataclass(eq=False)
class TemplV:
    text: StrV
    node: cst.CSTNode | None = None
    style: str = "dollar"  # string.Template; "jinja" for a jinja2 Template / env.get_template


def literal_text(value) -> str | None:
    """The text of a string with no slots, else None."""
    from promptlint.sources.python.strings import Lit

    if isinstance(value, StrV) and all(isinstance(s, Lit) for s in value.segs):
        return "".join(s.text for s in value.segs)
    return None


_NOT = object()


def literal_data(value) -> Any:
    """The Python data of a value built only from literals, else _NOT."""
    if isinstance(value, StrV):
        text = literal_text(value)
        return _NOT if text is None else text
    if isinstance(value, ConstV):
        return value.value
    if isinstance(value, ListV):
        items = [literal_data(v) for v in value.items]
        if any(i is _NOT for i in items):
            return _NOT
        return tuple(items) if value.is_tuple else items
    if isinstance(value, DictV):
        out = {}
        for k, v in value.pairs:
            key = literal_data(k) if k is not None else _NOT
            val = literal_data(v)
            if key is _NOT or val is _NOT or not isinstance(key, (str, int, float, bool, type(None))):
                return _NOT
            out[key] = val
        return out
    return _NOT


NOT_LITERAL = _NOT


def strongest(verdicts) -> Verdict:
    """The most volatile verdict (the first of equals), STATIC for none."""
    best = None
    for v in verdicts:
        if best is None or v.volatility > best.volatility:
            best = v
    return best or STATIC


def relabel(op: Opaque, label: str, node=None, span=None, prefix: bool = True) -> Opaque:
    """The same value seen at another place (where a name or a call puts it);
    a pinned value keeps its own place: the line where its volatile part
    entered the text."""
    if op.pinned:
        node, span = op.node, op.span
    reason = op.verdict.reason
    if prefix and op.label != label:
        reason = f"{label} is {short(op.label)}: {reason}"
    return replace(op, label=label, node=node if node is not None else op.node, span=span,
                   verdict=Verdict(op.verdict.volatility, reason),
                   kind="name" if _is_dotted(label) else "expr")


def _is_dotted(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def short(label: str, limit: int = 60) -> str:
    """A label on one line, cut to a readable length."""
    one = " ".join(label.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
