"""The data flow of the Python source reader: what value reaches a prompt
argument, found by reading the module, never by running it.

`Flow.eval(node, frame)` turns an expression into an abstract value
(values): strings become segments with exact offsets, containers
stay containers, everything else becomes an `Opaque` with a verdict. The
pass is deliberately small:

- a name is the value of its last binding *before the use* in the same
  function (scope), else a parameter (by its name, or the argument's
  value when the function is being inlined), else an enclosing function's,
  else the module's last binding, else a builtin or an import;
- `+=` on a name is the value before it plus the right side; `.append`/
  `.extend`/`.insert` on a list name between its assignment and the use
  are applied in source order; inside a `for` loop the added part becomes a
  loop region (unrolled when the iterable is a literal list);
- a call to a function of this module (or a method of the same class via
  `self.`) is inlined: its last top-level `return` is evaluated with the
  parameters bound to the argument values (defaults otherwise), up to
  MAX_DEPTH calls deep;
- calls the standard library and the LLM SDKs define are read by meaning
  (stdlib): clocks, uuid, random, json.dumps, str.format, joins ...;
- module-level values are computed at import: a call there (a clock, an
  unknown function) is fixed per process (deploy);
- a name read inside a loop that rebinds it further down (`used += n` after
  `budget = LIMIT - used`) is as volatile as any of its values (loop-carried);
- a string that is one value and no text of its own (`request_id =
  str(uuid4())`) is reported where it enters the prompt (the f-string field,
  the name, the placeholder), a string with text where its text is written.

The evaluator is split by concern: names and bindings here, loops and
iteration in loops, expressions and calls in exprs, values
to IR parts in ir, known calls in stdlib, string building in
text.

Limits, on purpose: no flow across modules (an imported name is an input
named by its name), no merging of branches or loop iterations beyond "the
last binding before the use wins", no attributes of objects other than
`self.x` set in `__init__` and class constants, no `global`/`nonlocal`
rebinding, no aliasing (a list changed through a second name is not seen).
Each evaluation is memoised per frame, cycles become opaque, and a step
budget (MAX_STEPS per file) bounds the work on machine-made modules.
"""

from __future__ import annotations

import math
import re
import time
from contextlib import contextmanager
from dataclasses import replace

import libcst as cst

from promptlint.analysis.volatility import Verdict, by_name_only, per_item
from promptlint.ir import Slot, SlotKind, SourceFile, Span, Volatility
from promptlint.sources.base import SourceContext
from promptlint.sources.python.exprs import MAX_DEPTH, Expressions
from promptlint.sources.python.ir import ToIR
from promptlint.sources.python.loops import MAX_UNROLL, Loops
from promptlint.sources.python.scope import (
    _BUILTINS, INF, ROLE_ADDS, Binding, Frame, Index, Mutation, Scope, _names_in, at_import, call_name, last_name,
    error_returns, returns, strip_self,
)
from promptlint.sources.python.tree import walk
from promptlint.sources.python.strings import Lit, decode_simple, split_prefix
from promptlint.sources.python.values import (
    ClassV, ConstV, DictV, FuncV, ListV, LoopV, MsgV, Opaque, SetV, Spread, StrV, as_conversation, literal_text,
    named_by, relabel, short, strongest,
)

V = Volatility


def _root_name(node) -> str | None:
    """`item` of `item`, `item.name`, `item["type"]`; None for anything else."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _fixed_range(node) -> bool:
    """`range(3)`: a retry or a fixed count, not an index into data."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range" \
        and all(isinstance(a.value, cst.Integer) for a in node.args)
# PEP 8's constant names: TOOL_CLICK, _DEFAULT_TIMEOUT (two characters at least, no lower case)
UPPER_CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]+$")  # PEP 8's constant
MAX_STEPS = 200_000  # expression evaluations per file


class OverBudget(Exception):
    """The file's wall-clock budget (Flow.deadline) ran out while evaluating
    `node` of `flow` (the file's own, or a module it imports: the budget is
    shared, so the node may be of another file)."""

    def __init__(self, node, flow=None):
        super().__init__("over the per-file time budget")
        self.node = node
        self.flow = flow


def _counts(b: Binding) -> bool:
    """`n += 1`: an augmented assignment of an integer literal."""
    return b.kind == "aug" and isinstance(b.node, cst.AugAssign) and isinstance(b.node.value, cst.Integer) \
        and isinstance(b.node.operator, (cst.AddAssign, cst.SubtractAssign))


RERUN_PER_REQUEST = re.compile(r"^[ \t]*(?:import|from)[ \t]+streamlit\b", re.M)


# calls of one function whose arguments are read to tell what a parameter holds
MAX_CALLERS = 8
# how far up a chain of callers a parameter is followed (a caller's own parameter, its callers' ...)
MAX_CALLER_DEPTH = 3


def _argument_for(scope, call: cst.Call, name: str):
    """The argument expression `call` passes for parameter `name` of the
    function `scope` (by keyword or by position; `self` skipped for a method)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    params = [*scope.node.params.posonly_params, *scope.node.params.params]
    if scope.cls is not None and params and params[0].name.value in ("self", "cls"):
        params = params[1:]
    names = [p.name.value for p in params]
    if name not in names:
        return None
    positional = [a for a in call.args if a.keyword is None]
    index = names.index(name)
    if any(a.star for a in positional[:index + 1]) or index >= len(positional):
        return None
    return positional[index].value


class Flow(Loops, Expressions, ToIR):
    """The evaluator: names and bindings here; loops, expressions and calls,
    and the conversion to IR parts in the mixins."""

    def __init__(self, module: cst.Module, positions, file: SourceFile, ctx: SourceContext):
        self.file = file
        self.ctx = ctx
        self.positions = positions
        self.index = Index(module, self.span)
        # a Streamlit script runs from the top on every interaction: its module level is per request
        self.import_frame = Frame(self.index.module, import_time=not RERUN_PER_REQUEST.search(file.text))
        self.steps = 0
        self.deadline = math.inf  # time.monotonic() past which the file's analysis stops
        self.reads: set[str] = set()  # module-level names read for the prompt being built
        self._deps: dict[int, set[str]] = {}
        self._active: set[tuple[int, int]] = set()
        self._active_bindings: set[tuple[int, int]] = set()
        self._carrying: set[tuple[str, int, int]] = set()  # loop-carried names being read (name, scope, depth)
        self._returns: dict[int, tuple] = {}
        self._over_steps = False
        self.site_at: int | None = None  # where the prompt being read is sent (a call, a message list)
        self._mutating: set[int] = set()  # ids of list bindings whose growth is being read
        self._setting: set[tuple[str, int]] = set()  # (parameter, frame) whose assigned keys are being read
        self._spreads: dict[tuple[int, str], bool] = {}  # (scope, name): the function spreads name as **name
        self.pinned: dict[int, object] = {}  # slots of filled text (Opaque.pinned), by id: they stay where filled
        self.attrs_open: set[int] = set()  # ids of the class and self. attribute bindings being evaluated
        self.reassigned_values: dict[tuple[int, str], object] = {}  # (class, attribute) -> exprs.reassigned_attr
        self.used: set[int] = set()  # ids of calls and lists a prompt has taken as its messages
        self.filled: set[int] = set()  # ids of template calls whose template the code then fills (stdlib.method)
        self.template_fills: set[int] = set()  # ids of the calls that fill them (`tpl.format(...)`): prompts
        self._foreign_callers: dict[int, list] = {}  # id(function scope) -> its callers in other modules (fills)
        self._loop_bodies: dict[int, list] = {}  # id(function scope) -> (start, end) of its loops' bodies
        self.fill_calls: tuple | None = None  # this module's calls, indexed once for other modules (fills)
        self.classes_by_name: dict | None = None  # the module's classes by name (exprs.defining_class)
        self.repeated: dict[tuple[int, str], bool] = {}  # (caller, helper): called more than once there
        self._calls: dict[str, list] | None = None  # function name -> its calls in the module (calls_of)
        self._callers_seen: dict[tuple[int, str], tuple] = {}  # (function, parameter) -> callers_pass
        self._callers_depth = 0  # callers_pass calls open (a caller's parameter read through its callers)
        from promptlint.sources.python import stdlib
        from promptlint.sources.python.project import project_of

        self.stdlib = stdlib
        self.project = project_of(ctx)

    # ------------------------------------------------------------ positions

    def span(self, node) -> tuple[int, int]:
        return self.positions[node]

    def src(self, node) -> str:
        start, end = self.span(node)
        return self.file.text[start:end]

    def file_span(self, start: int, end: int) -> Span:
        return Span(self.file, start, end)

    # ------------------------------------------------------------ frames

    def frame_for(self, scope: Scope, depth: int = 0) -> Frame:
        """A fresh frame for a scope found while walking the module (its
        parameters stay unknown): the frame chain of its enclosing functions."""
        if scope.is_module:
            return Frame(scope)
        return Frame(scope, parent=self.frame_for(scope.parent, depth), depth=depth)

    # ------------------------------------------------------------ evaluation

    def eval(self, node, frame: Frame):
        self.steps += 1
        if not self.steps & 1023 and time.monotonic() > self.deadline:
            raise OverBudget(node, self)
        key = id(node)
        if key in frame.memo:
            return frame.memo[key]
        if self.steps > MAX_STEPS or (key, id(frame)) in self._active:
            if self.steps > MAX_STEPS and not self._over_steps:
                self._over_steps = True
                self.ctx.partial(self.file, self.file_span(*self.span(node)),
                                 f"the Python reader's budget of {MAX_STEPS:,} evaluations ran out here: values "
                                 "read from here on are of unknown content")
            if self.steps > MAX_STEPS:  # nothing more is followed, not even the names inside
                return Opaque(self.src(node), Verdict(V.UNKNOWN, "not followed: the file's evaluation budget ran "
                                                                 "out"), node)
            return self.opaque(node, frame)
        self._active.add((key, id(frame)))
        try:
            value = self._eval(node, frame)
        finally:
            self._active.discard((key, id(frame)))
        if frame.import_time and isinstance(value, Opaque) and V.DEPLOY < value.verdict.volatility \
                and value.qual is None:
            value = replace(value, verdict=at_import(value.verdict))
        elif frame.import_time and isinstance(value, StrV) and isinstance(node, cst.Call):
            value = _text_at_import(value)
        frame.memo[key] = value
        return value

    def _eval(self, node, frame: Frame):
        if isinstance(node, cst.SimpleString):
            lit = decode_simple(node.value, self.span(node)[0])
            return StrV([lit], node) if lit is not None else self.opaque(node, frame)
        if isinstance(node, cst.ConcatenatedString):
            left, right = self.eval(node.left, frame), self.eval(node.right, frame)
            if isinstance(left, StrV) and isinstance(right, StrV):
                return StrV(left.segs + right.segs, node)
            return self.opaque(node, frame)
        if isinstance(node, cst.FormattedString):
            return self.fstring(node, frame)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            try:
                return ConstV(complex(node.value.replace("_", "")) if isinstance(node, cst.Imaginary)
                              else (int(node.value.replace("_", ""), 0) if isinstance(node, cst.Integer)
                                    else float(node.value.replace("_", ""))), node)
            except ValueError:
                return self.opaque(node, frame)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return ConstV({"True": True, "False": False, "None": None}[node.value], node)
            return self.name(node, frame)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, frame)
        if isinstance(node, cst.Call):
            return self.call(node, frame)
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node, frame)
        if isinstance(node, (cst.List, cst.Tuple)):
            items = []
            for el in node.elements:
                value = self.eval(el.value, frame)
                if isinstance(el, cst.StarredElement):
                    items.extend(value.items if isinstance(value, ListV) else
                                 [value] if isinstance(value, LoopV) else [Spread(value, el.value)])
                else:
                    items.append(value)
            return ListV(items, node, is_tuple=isinstance(node, cst.Tuple))
        if isinstance(node, cst.Set):
            return SetV([self.eval(el.value, frame) for el in node.elements], node)
        if isinstance(node, cst.Dict):
            pairs, keys = [], []
            for el in node.elements:
                if isinstance(el, cst.StarredDictElement):
                    value = self.eval(el.value, frame)
                    if isinstance(value, DictV):
                        pairs += value.pairs
                        keys += value.key_nodes or [None] * len(value.pairs)
                    else:
                        pairs.append((None, value))
                        keys.append(el)
                else:
                    pairs.append((self.eval(el.key, frame), self.eval(el.value, frame)))
                    keys.append(el)
            return DictV(pairs, node, keys)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self.comprehension(node, frame)
        if isinstance(node, cst.DictComp):
            return self.dict_comprehension(node, frame)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, frame)
        if isinstance(node, cst.IfExp):
            return self.conditional(node, frame)
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
            return self.either(node, frame)
        if isinstance(node, (cst.BooleanOperation, cst.UnaryOperation)):
            folded = self.truth(node, frame)
            if folded is not None:
                return ConstV(folded, node)
        if isinstance(node, cst.Await):
            return self.eval(node.expression, frame)
        if isinstance(node, cst.NamedExpr):
            return self.eval(node.value, frame)
        return self.opaque(node, frame)

    def either(self, node: cst.BooleanOperation, frame: Frame):
        """`a or b`: `a` when it is known to be set, `b` when `a` is known to be
        empty; when `a` is an input we cannot see (`prompt_templates or
        yaml.safe_load(...)`, `user_name or "there"`), the likeliest of the two."""
        left = self.eval(node.left, frame)
        truth = _known_truth(left)
        if truth is not None:
            return left if truth else self.eval(node.right, frame)
        return self.likeliest([left, self.eval(node.right, frame)])

    def returns_of(self, func: cst.FunctionDef) -> list:
        """The function's `return value`s, found once (a helper is inlined at every call)."""
        key = id(func)
        if key not in self._returns:
            self._returns[key] = (func, returns(func), None)
        return self._returns[key][1]

    def error_returns_of(self, func: cst.FunctionDef) -> set[int]:
        """The ids of those written in an `except` block (scope.error_returns), found once."""
        self.returns_of(func)
        found, failed = self._returns[id(func)][1:]
        if failed is None:
            failed = error_returns(func)
            self._returns[id(func)] = (func, found, failed)
        return failed

    def truth(self, node, frame: Frame) -> bool | None:
        """The value of a condition when the code fixes it (`isinstance` of a
        value we know, `and`/`or`/`not` of such), else None."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.truth(node.expression, frame)
            return None if inner is None else not inner
        if isinstance(node, cst.BooleanOperation):
            left = self.truth(node.left, frame)
            is_and = isinstance(node.operator, cst.And)
            if left is not None and left != is_and:
                return left  # False and ..., True or ...
            right = self.truth(node.right, frame)
            return right if left is not None else (right if right is not None and right != is_and else None)
        value = self.eval(node, frame)
        if isinstance(value, ConstV) and isinstance(value.value, (bool, type(None), int, str)):
            return bool(value.value)  # `if not image_urls:` on a default None
        return None

    def opaque(self, node, frame: Frame, verdict: Verdict | None = None) -> Opaque:
        """A value we do not follow: its volatility is the strongest of the
        names inside it, else its own text read as a name."""
        if verdict is None:
            # a comparison (`"search" in tool_names`) reads its operands' values, never their order
            weigh = self.verdict_items if isinstance(node, cst.Comparison) else self.verdict
            inner = [weigh(self.name(n, frame)) for n in _names_in(node)]
            verdict = strongest(inner) if inner else self.ctx.variables.resolve(short(self.src(node)))
        return Opaque(self.src(node), verdict, node, names=tuple(n.value for n in _names_in(node))[:4])

    # ------------------------------------------------------------ names

    def name(self, node: cst.Name, frame: Frame):
        # a value with no evidence of its own takes the evidence of the name it
        # is read by (`budget_left = TOTAL - used`: the name says it is a counter)
        value = named_by(self.ctx, node.value, self.lookup(node.value, self.span(node)[0], frame, node))
        if isinstance(value, Opaque) and value.qual is not None and value.kind == "name" \
                and value.qual not in _BUILTINS:
            value = self.project.value(self, value.qual, node) or value  # defined in another module
        if isinstance(value, Opaque) and value.node is not node and value.qual is None:
            return relabel(value, node.value, node)
        return self.entering(value, node)

    def lookup(self, name: str, at: float, frame: Frame, node=None, carried: bool = True):
        """The value `name` has at offset `at` (`carried`: a later rebinding
        in a loop around the use counts, as the next pass sees it)."""
        f = frame
        while f is not None:
            # an inlined call's argument, unless the body has bound the parameter again before
            # `at` (`prompt += "..."; return prompt`); a loop target's frame binds only the target
            if name in f.bound and (name not in f.scope.params or f.scope.last(name, at) is None):
                return self.items_set(name, f.bound[name], f, at)
            binding = f.scope.last(name, at)
            later = f.scope.rebound_later_in_loop(name, at) if carried and not f.scope.is_module else []
            if later:
                return self.loop_carried(name, binding, later, f, at, node)
            if binding is not None:
                if f.scope.is_module and f is not frame:
                    changer = self.index.changed_at_run_time(name)
                    if changer is not None:  # `file_contents`, filled as the app runs: state, not a constant
                        return Opaque(name, Verdict(V.SESSION, f"module state that {changer}() changes while the "
                                                               "app runs"), node, names=(name,), kind="name")
                return self.branched(name, binding, f, at)
            if name in f.scope.params:
                return self.items_set(name, self.parameter(name, f), f, at)
            if f.parent is None:
                break
            at = INF if f.parent.scope.is_module else f.scope.start
            f = f.parent
        starred = self.from_star(name, node)
        if starred is not None:
            return starred
        if name in ("__file__", "__name__", "__package__", "__spec__"):
            return Opaque(name, Verdict(V.STATIC, f"{name}: fixed for the module"), node, names=(name,),
                          kind="name", path=name == "__file__",
                          where=str(self.file.path) if name == "__file__" else None)
        return Opaque(name, self.unresolved(name), node, names=(name,), kind="name",
                      qual=name if name in _BUILTINS else None)

    def from_star(self, name: str, node):
        """`T_DETERMINE_GENRE` of `from ..templates.prompt_templates import *`:
        the value a module of the tree that the module imports everything
        from defines (the last such import that has it); None otherwise."""
        stars = self.index.module.stars
        if not stars or name in _BUILTINS or not name.isidentifier():
            return None
        for module in reversed(stars):
            found = self.project.value(self, f"{module}.{name}", node if node is not None else self.index.module.node)
            if found is not None:
                return found
        return None

    def unresolved(self, name: str) -> Verdict:
        """The class of a name whose value is not in the checked tree: the
        config's, else an UPPER_CASE name is a constant (PEP 8's convention:
        `TOOL_HISTORY_BACK` is fixed, whatever its words say), else its words'."""
        table = self.ctx.variables
        if UPPER_CONSTANT.match(name) and not table.configured(name):
            return Verdict(V.STATIC, f"{name} is named as a constant (Python's UPPER_CASE convention) "
                                     "and defined outside the checked files: fixed until the code changes")
        return table.resolve(name)

    def branched(self, name: str, b: Binding, frame: Frame, at: float, outer: int = 0):
        """The value of `b`, or of the binding in another arm of the `if`
        around it that reaches `at` as well: the worst case (the prompt is
        cached only as well as that). Nested arms are merged from the inside
        out, each other arm with the chains inside it (`outer`: how many of
        `b.arms`, outermost first, are merged by the caller); a use inside
        the chain sees its own arm."""
        value = self.binding(b, frame, at)
        for depth in range(len(b.arms) - 1, outer - 1, -1):
            chain_id, arm = b.arms[depth]
            chain = self.index.branches.get(chain_id)
            if chain is None or at < chain.end:
                continue  # the use is inside this chain: only its own arm's binding reaches it
            taken = self.taken_arm(chain, frame)
            if taken is not None and taken != arm:
                # the code fixes the arm (an inlined helper's `if not image_urls:` with the
                # default None): only the binding that arm makes, or the value from before the chain
                if taken < len(chain.arms):
                    s, e = chain.arms[taken]
                    alt = frame.scope.last(name, e)
                    if alt is not None and s <= alt.end <= e:
                        return self.branched(name, alt, frame, at)
                before = self.before_chain(name, chain, frame, at)
                return value if before is None else before
            if taken is not None:
                continue
            others = []
            missing = not chain.has_else
            for k, (s, e) in enumerate(chain.arms):
                if k == arm:
                    continue
                alt = frame.scope.last(name, e)
                if alt is not None and s <= alt.end <= e:
                    others.append(alt)
                else:
                    missing = True
            candidates = [value] + [self.branched(name, o, frame, at, depth + 1) for o in others]
            if missing:  # an arm that binds nothing: the value from before the chain reaches too
                before = self.before_chain(name, chain, frame, at)
                if before is not None:
                    candidates.append(before)
            value = self.chosen(chain, frame, self.worst_case(candidates), candidates)
        return value

    def chosen(self, chain, frame: Frame, worst, candidates: list):
        """Texts the arms of an `if` build, chosen by a test that changes more
        often than per release (`if distance > 0.1: text += "Move closer"`):
        where they part, a conditional of that test, the worst case rendered
        and another arm as its alternative, so that the choice itself counts
        as a change ahead of the text after it."""
        if len(candidates) < 2 or not all(isinstance(c, StrV) for c in candidates) or not chain.tests:
            return worst
        tests = [self.eval(t, frame) for t in chain.tests]
        verdict = strongest([self.verdict(t) for t in tests])
        if verdict.volatility <= V.DAY:
            return worst
        other = next((c for c in candidates if c is not worst), None)
        if other is None:
            return worst
        shared = 0
        for a, b in zip(worst.segs, other.segs):
            same = a is b or isinstance(a, Lit) and isinstance(b, Lit) and a.text == b.text \
                and a.offsets[:1] == b.offsets[:1]
            if not same:
                break
            shared += 1
        tails = worst.segs[shared:] + other.segs[shared:]
        if not tails or any(isinstance(seg, Slot) and seg.volatility >= verdict.volatility for seg in tails):
            return worst  # `if docs: text += f"{docs}"`: the value the arm shows says it already
        test = chain.tests[0]
        label = short(self.src(test))
        slot = Slot(f"if {label}", SlotKind.CONDITIONAL, verdict.volatility, f"chooses on {label}: {verdict.reason}",
                    self.file_span(*self.span(test)), names=self.names_of(tests[0]),
                    children=self.parts(StrV(worst.segs[shared:], worst.node)),
                    else_children=self.parts(StrV(other.segs[shared:], other.node)))
        return StrV(worst.segs[:shared] + [slot], worst.node)

    def before_chain(self, name: str, chain, frame: Frame, at: float):
        """The value `name` has as an `if` chain starts: its binding before the
        chain, else the parameter as the function was given it; None if neither."""
        before = frame.scope.last(name, chain.start)
        if before is not None:
            return self.binding(before, frame, at)
        if name in frame.scope.params:
            return frame.bound[name] if name in frame.bound else self.parameter(name, frame)
        return None

    def arm_start(self, b: Binding, frame: Frame) -> float:
        """Where to read the value a binding inside an `if` arm builds on: its
        own start, unless the binding before it sits in another arm of the same
        chain (`else: text += "close"` does not follow `if: text += "far"`),
        then the start of that chain."""
        at: float = b.start
        mine = dict(b.arms)
        while (prev := frame.scope.last(b.name, at)) is not None:
            sibling = next((chain_id for chain_id, arm in prev.arms if chain_id in mine and mine[chain_id] != arm),
                           None)
            chain = self.index.branches.get(sibling) if sibling is not None else None
            if chain is None:
                break
            at = chain.start
        return at

    def taken_arm(self, chain, frame: Frame) -> int | None:
        """The arm of an `if`/`elif`/`else` chain the code fixes (each test up to
        the taken one decided: a constant, an inlined call's default), its
        index, len(arms) when no arm runs; None when a test is not decided."""
        for k, test in enumerate(chain.tests):
            decided = self.truth(test, frame)
            if decided is None:
                return None
            if decided:
                return k
        return len(chain.tests) if chain.has_else else len(chain.arms)

    def loop_carried(self, name: str, before: Binding | None, later: list[Binding], frame: Frame, at: float,
                     node) -> Opaque:
        """A name read in a loop that rebinds it further down: its value
        changes from one pass to the next, so it is as volatile as any of them."""
        if before is not None and before.kind == "assign" and isinstance(before.value, cst.Integer) \
                and all(_counts(b) for b in later):
            # `n = 1` ... `n += 1`: the pass number, the same on every request (the loop says the rest)
            return Opaque(name, Verdict(V.STATIC, f"{name} counts the loop's passes"), node, names=(name,),
                          kind="name")
        # a pass that reads the name again through a loop's child frame or an inlined helper (whose
        # frames are new each time) is the same pass: its value is what the name says
        key = (name, id(frame.scope), frame.depth)
        if key in self._carrying:
            return Opaque(name, self.ctx.variables.resolve(name), node, names=(name,), kind="name")
        self._carrying.add(key)
        try:
            values = [self.binding(b, frame, INF) for b in later if (id(b), id(frame)) not in self._active_bindings]
            if before is not None:
                values.append(self.binding(before, frame, at))
            elif name in frame.scope.params:
                values.append(self.parameter(name, frame))
        finally:
            self._carrying.discard(key)
        verdict = strongest(self.verdict(v) for v in values)
        line = self.file.position(later[0].start)[0]
        return Opaque(name, Verdict(verdict.volatility, f"rebound in the loop (line {line}): {verdict.reason}"),
                      node, names=(name,), kind="name")

    def items_set(self, name: str, value, frame: Frame, at: float):
        """A parameter (or an inlined function's argument) with keys assigned
        in the body before `at` (`kwargs["knowledge"] = chunks`, then
        `template.format(**kwargs)`): the mapping it came as, with those keys."""
        if frame.scope.is_module or not self._spread_here(name, frame.scope):
            return value
        # assignments that end before `at`: `kwargs["x"] = f(kwargs)` reads kwargs as it was before
        changes = [m for m in frame.scope.mutations_between(name, frame.scope.start, at)
                   if m.method == "setitem" and isinstance(m.keys[0], str) and self.span(m.call)[1] <= at]
        key = (name, id(frame))
        if not changes or not isinstance(value, (Opaque, DictV)) or key in self._setting:
            return value
        if isinstance(value, Opaque):
            value = DictV([(None, value)], value.node, [None])
        self._setting.add(key)
        try:
            for m in changes:
                value = self.set_item(value, m.keys, self.eval(m.call.value, frame), bool(m.arms))
        finally:
            self._setting.discard(key)
        return value

    def _spread_here(self, name: str, scope) -> bool:
        """Whether the function fills a template with `name`'s keys
        (`.format(**name)`, `format_map(name)`, `.render(**name)`): only then
        do the keys it assigns matter here (a schema-rewriting helper that
        sets keys on its argument and recurses is not evaluated key by key)."""
        key = (id(scope), name)
        if key not in self._spreads:
            text = self.src(scope.node)
            n = re.escape(name)
            self._spreads[key] = re.search(rf"(?:format|render|substitute|format_messages)\([^()]*\*\*\s*{n}\b"
                                           rf"|format_map\(\s*{n}\b", text) is not None
        return self._spreads[key]

    def parameter(self, name: str, frame: Frame):
        param = frame.scope.params[name]
        default_node = param.default
        if isinstance(default_node, cst.Attribute) or isinstance(default_node, cst.Name) \
                and default_node.value not in ("None", "True", "False"):
            # `def get_chain(llm, system_template=CHAT_SYSTEM_TEMPLATE)`: text is what a caller that passes
            # nothing gets, and the template the function is written for
            default = self.eval(default_node, self.import_frame)
            if isinstance(default, StrV) and any(isinstance(seg, Lit) and seg.text.strip() for seg in default.segs):
                return default
        verdict = self.ctx.variables.resolve(name)
        order = None
        if not self.ctx.variables.configured(name):
            route = frame.scope.route
            if route is not None and verdict.volatility < V.REQUEST and not _injected(default_node):
                verdict = Verdict(V.REQUEST, f"an input of {route}: each request's own")
            passed, order = self.callers_pass(name, frame.scope)
            if passed is not None and passed.volatility > verdict.volatility and verdict.volatility < V.REQUEST \
                    and as_conversation(self.ctx, name, passed) is None:
                verdict = passed
        found = Opaque(name, Verdict(verdict.volatility, f"parameter of {frame.scope.label}(): {verdict.reason}"),
                       param.name, names=(name,), kind="name")
        if order is not None:  # `for name in agent_names` of a set its caller built: no fixed order
            found.order = order
        elif verdict.volatility > V.SESSION and self.sent_each_pass(name, frame.scope):
            found = _per_run(found)
        return found

    def sent_each_pass(self, name: str, scope: Scope) -> bool:
        """The prompt being read is sent on each pass of a loop of this function
        that gathers as it goes (an agent's steps: `while step < max_steps:
        ... llm(prompt); history.append(...)`) and never rebinds `name`: what
        the function was called with is the same on every pass, so the passes
        share the prefix up to what they add."""
        if self.site_at is None or scope.is_module:
            return False
        loops = self._loop_bodies.get(id(scope))
        if loops is None:
            loops = self._loop_bodies[id(scope)] = _loop_bodies(self, scope.node)
        return any(start <= self.site_at < end and not any(start <= b.start < end for b in scope.bindings.get(name, ()))
                   for start, end in loops)

    def callers_pass(self, name: str, scope) -> tuple[Verdict | None, str | None]:
        """What the calls of this function in the module pass for parameter
        `name` (`construct_society(company_name=args.company)`): the most
        volatile evidence among them, or None (the caller only ever raises
        what the parameter's own name says: a demo call with a literal does
        not make a per-request parameter fixed); and why its order changes,
        when every call passes a collection without a fixed order (a set)."""
        key = (id(scope), name)
        if key in self._callers_seen:
            return self._callers_seen[key]
        if self._callers_depth >= MAX_CALLER_DEPTH:
            return None, None  # callers of callers of ...: not followed further (not remembered either)
        self._callers_seen[key] = (None, None)  # a parameter its own callers pass on (recursion) says nothing more
        self._callers_depth += 1
        try:
            result = self._callers_pass(name, scope)
        finally:
            self._callers_depth -= 1
        self._callers_seen[key] = result
        return result

    def _callers_pass(self, name: str, scope) -> tuple[Verdict | None, str | None]:
        found, orders = [], []
        sites = [(self, call, caller, items) for call, caller, items in self.calls_of(scope)[:MAX_CALLERS]]
        if not sites and scope.parent is not None and scope.parent.is_module and scope.cls is None:
            # a function no code here calls (`generate_system_prompt(name, background)`): what the
            # tree's other modules that import it pass
            from promptlint.sources.python import fills
            sites = self._foreign_callers.get(id(scope))
            if sites is None:
                sites = self._foreign_callers[id(scope)] = [
                    (*site, None) for site in fills.callers(self, scope.node)[:MAX_CALLERS]]
        for flow, call, caller, items in sites:
            arg = _argument_for(scope, call, name)
            if arg is None or items is not None and _root_name(arg) not in items:
                continue
            value = flow.eval_at(arg, flow.frame_for(caller), call)
            orders.append(flow.order_of(value)[0])
            if orders[-1] is not None:
                continue  # a set: its order is carried as such, its items say nothing here
            verdict = flow.verdict(value)
            if by_name_only(verdict.reason) and not self.ctx.variables.resolve(
                    short(flow.src(arg))).volatility.evidenced:
                continue  # only another name, further up the chain, says so (`invocation_context.agent`)
            if verdict.volatility.evidenced:
                line = flow.file.position(flow.span(call)[0])[0]
                where = f"line {line}" if flow is self else f"{flow.file.display_path}:{line}"
                found.append(Verdict(verdict.volatility, f"{where} passes {short(flow.src(arg))}: "
                                                         f"{verdict.reason}"))
        order = orders[0] if orders and all(orders) else None
        return max(found, key=lambda v: v.volatility) if found else None, order

    def calls_of(self, scope) -> list:
        """(call, the scope it is made in, the item names of the loops around
        it) of each call of the function `scope` in this module: by its name,
        or `self.name(...)` for a method. A call made inside a loop counts only
        for what it passes of the loops' own items (`for item in data:
        self.ask(item)`: one call per item); its other arguments may be carried
        round the loop."""
        if self._calls is None:
            self._calls = {}
            stack = [self.index.module]
            loops: list[list] = [[]]  # loops open in the current function: their item names (None: a while)

            # (by exact class: isinstance against libcst's node classes goes through the ABC machinery,
            # and this runs for every node of the module)
            def enter(node):
                kind = type(node)
                if kind is cst.Call:
                    if None not in loops[-1]:
                        func = node.func
                        if type(func) is cst.Name or type(func) is cst.Attribute \
                                and type(func.value) is cst.Name and func.value.value in ("self", "cls"):
                            items = frozenset().union(*loops[-1]) if loops[-1] else None
                            self._calls.setdefault(last_name(func), []).append((node, stack[-1], items))
                elif kind is cst.FunctionDef:
                    stack.append(self.index.scopes.get(id(node)) or stack[-1])
                    loops.append([])
                elif kind is cst.For:
                    loops[-1].append(frozenset(n.value for n in _names_in(node.target)))
                elif kind is cst.While:
                    loops[-1].append(None)

            def leave(node):
                kind = type(node)
                if kind is cst.FunctionDef:
                    stack.pop()
                    loops.pop()
                elif kind is cst.For or kind is cst.While:
                    loops[-1].pop()

            walk(self.index.module.node, enter, leave)
        method = scope.cls is not None
        return [found for found in self._calls.get(scope.node.name.value, ())
                if isinstance(found[0].func, cst.Attribute) == method]

    def binding(self, b: Binding, frame: Frame, at: float):
        key = (id(b), id(frame))
        if key in self._active_bindings:  # a binding that (through loops) reads itself
            return Opaque(b.name, self.ctx.variables.resolve(b.name), None, names=(b.name,), kind="name")
        self._active_bindings.add(key)
        try:
            return self._binding_at(b, frame, at)
        finally:
            self._active_bindings.discard(key)

    def _binding_at(self, b: Binding, frame: Frame, at: float):
        if frame.scope.is_module:
            frame = self.import_frame
            self.reads.add(b.name)
            deps = self._deps.get(id(b))
            if deps is not None:
                self.reads |= deps
                return self._binding(b, frame, at)
            outer, self.reads = self.reads, set()
            try:
                value = self._binding(b, frame, at)
            finally:
                self._deps[id(b)] = self.reads
                self.reads = outer | self.reads
            return value
        return self._binding(b, frame, at)

    def _binding(self, b: Binding, frame: Frame, at: float):
        if b.kind == "assign":
            value = self.eval(b.value, frame)
            if b.path:
                value = self.element(value, b.path, b.name, b.target)
            elif b.target is not None and not isinstance(b.target, cst.Name):
                value = self.element(value, (), b.name, b.target)
            return self.mutated(b, value, frame, at)
        if b.kind == "aug":
            # `x += [...]`, then what `x.append(...)` adds before the use
            return self.mutated(b, self._augmented(b, frame), frame, at)
        return self._other_binding(b, frame, at)

    def _augmented(self, b: Binding, frame: Frame):
        """The value right after the augmented assignment `b`."""
        key = ("aug", id(b))
        if key in frame.memo:
            return frame.memo[key]
        # a long run of `x += ...`: evaluate it from its start, so each step
        # finds the one before it computed (no recursion through the chain)
        chain = frame.scope.bindings.get(b.name, [])
        i = next((k for k, other in enumerate(chain) if other is b), 0)
        j = i
        while j > 0 and chain[j - 1].kind == "aug" and ("aug", id(chain[j - 1])) not in frame.memo:
            j -= 1
        for other in chain[j:i]:
            frame.memo[("aug", id(other))] = self._augment(other, frame)
        value = frame.memo[key] = self._augment(b, frame)
        return value

    def _other_binding(self, b: Binding, frame: Frame, at: float):
        if b.kind == "for":
            iterable = self.eval(b.value, frame)
            item = self.item_of(iterable, b.value)
            value = self.element(item, b.path, b.name, b.target) if b.path else item
            return self.per_item(b, iterable, value, at)
        if b.kind == "import":
            return Opaque(b.name, self.unresolved(b.name), None, names=(b.name,), kind="name", qual=b.qual)
        if b.kind == "with":
            value = self.eval(b.value, frame)
            return self.element(value, b.path, b.name, None) if b.path else value
        if b.kind == "def":
            return FuncV(b.node)
        if b.kind == "class":
            return ClassV(self.index.classes[id(b.node)])
        verdict = self.ctx.variables.resolve(b.name)
        return Opaque(b.name, verdict, None, names=(b.name,), kind="name")

    def eval_at(self, node, frame: Frame, site: cst.CSTNode):
        """`node` read as what a call made at `site` passes (a fill, a builder's
        call): a loop variable of a loop around `site` (`for c in components:
        T.format(component=c)`) differs from one pass's prompt to the next."""
        with self.sent_at(site):
            return self.eval(node, frame)

    @contextmanager
    def sent_at(self, site: cst.CSTNode):
        """Read values as the prompt sent (or made) at `site` sees them
        (`site_at`), then as before."""
        before = self.site_at
        self.site_at = self.span(site)[0]
        try:
            yield
        finally:
            self.site_at = before

    def per_item(self, b: Binding, iterable, value, at: float):
        """A loop variable read inside its loop's body, where the prompt being
        read is sent (`site_at`), outside any loop we unroll into one prompt:
        the prompt built there is sent once per item,
        so an item of data the code does not write out (rows of a dataset, a
        file's records) differs from one request to the next. Items of a
        literal list are a few fixed variants; a counter stays a counter. An
        item already per request by its name alone (`for item in parsed_data`)
        gets the loop's evidence, which a caller's reading accepts."""
        if not isinstance(value, Opaque) or value.verdict.volatility >= V.REQUEST \
                and not by_name_only(value.verdict.reason) \
                or self.known_items(iterable) is not None or isinstance(iterable, (SetV, DictV)):
            return value
        body_start, end = self.span(b.node.body)
        if self.site_at is None or not body_start <= self.site_at < end or not body_start <= at < end \
                or value.label == "a counter" or _fixed_range(b.value):
            return value
        return replace(value, verdict=per_item(short(self.src(b.value))))

    def _augment(self, b: Binding, frame: Frame):
        before = self.lookup(b.name, self.arm_start(b, frame), frame, carried=False)
        if isinstance(b.node.operator, cst.AddAssign):
            rhs = self.in_loop(b.value, b.loop, frame) if b.loop is not None else self.eval(b.value, frame)
            return self.add(before, rhs, b.node)
        return self.opaque(b.node.value, frame)

    def element(self, value, path: tuple[int, ...], name: str, target):
        """`a, b = ...`: the part of the value a name gets."""
        for i in path:
            if isinstance(value, ListV) and i < len(value.items) and not any(
                    isinstance(x, (Spread, LoopV)) for x in value.items[:i + 1]):
                value = value.items[i]
            else:
                break
        else:
            if path:
                return value
        verdict = self.verdict(value)
        return Opaque(name, Verdict(verdict.volatility, f"unpacked from {short(self.label_of(value))}: {verdict.reason}"),
                      target, names=(name,), kind="name")  # placed at the target it is unpacked into

    def mutated(self, b: Binding, value, frame: Frame, at: float):
        """A list with the .append/.extend/.insert calls made on its name
        between this binding and the use, and a dict or list with the items
        assigned (`messages[0]["content"] = ...`) in that stretch."""
        between = frame.scope.mutations_between(b.name, b.end, at)
        later = frame.scope.mutated_later_in_loop(b.name, b.end, at)
        if not between + later or id(b) in self._mutating:
            # a list read while it grows (`parts.extend(f(parts))` in a loop): as it was before
            return value
        self._mutating.add(id(b))
        try:
            grows = [m for m in later if m.method not in ("setitem", "shuffle")]
            # `messages[-1]["content"] = ...` later in a loop that appends: it rewrites what a pass
            # appended, not the messages the list began with
            grown = self._mutated(b, value, frame, between + [m for m in later if m.method == "setitem" and not (
                grows and m.keys and isinstance(m.keys[0], int) and m.keys[0] < 0)])
            if grows and _messages(grown):
                # the loop that grows it: what the list held when the loop began is the start of
                # every pass (`kept`); what each pass adds before the use follows the earlier passes
                loop = max((lp for lp in grows[0].loops if lp[0] <= at < lp[1]), default=(0, 0))
                began = self._mutated(b, value, frame, [m for m in between if not loop[0] <= m.start < loop[1]])
                held = began.items if isinstance(began, ListV) else []
                return self.run_so_far(b.name, grown, grows, {id(i) for i in held}, len(held))
            return self._mutated(b, grown, frame, grows) if grows else grown
        finally:
            self._mutating.discard(id(b))

    def run_so_far(self, name: str, value: ListV, grows, kept: set, began: int) -> ListV:
        """A message list that the loop around its use grows after the use
        (an agent's `messages.append(reply)` after the call): what the
        earlier passes appended is the run's conversation so far, sent after
        the messages it started with and longer on every pass, as a chat's
        history is (one pass's messages, read as text, would say only what
        one pass brings): placed after the `began` messages the list held
        when the loop began, ahead of what each pass adds before the call.
        Those it began with that no pass rewrites (`kept`: the task it was
        given) are the same on every pass: they change with the run, as its
        history does."""
        line = self.file.position(self.span(grows[0].call)[0])[0]
        history = Opaque(f"the messages {name} gains on earlier passes", Verdict(
            V.SESSION, f"the loop appends to {name} after sending it (line {line}): the run's conversation "
                       "history so far, longer on every pass"), grows[0].call, names=(name,), kind="name")
        items = [_per_run(i) if id(i) in kept else i for i in value.items]
        items.insert(min(began, len(items)), Spread(history, grows[0].call))
        return ListV(items, value.node, value.is_tuple)

    def shuffled(self, value, m: Mutation):
        """The list after `random.shuffle(items)`: its items in a new order on every call."""
        line = self.file.position(self.span(m.call)[0])[0]
        op = Opaque(self.src(m.call.args[0].value), self.verdict_items(value), m.call, names=self.names_of(value))
        op.order = f"shuffled by random.shuffle() (line {line}): a new order on every call"
        # sorting it would undo a shuffle made on purpose: the person decides (drop it, or seed it once)
        op.fix = {"kind": "manual", "advice": f"drop the random.shuffle() at line {line}, or shuffle once with a "
                                              "fixed seed, so that the list keeps one order between requests"}
        return op

    def _mutated(self, b: Binding, value, frame: Frame, changes):
        grows = [m for m in changes if m.method != "setitem"]
        if grows and all(m.method in ROLE_ADDS for m in grows) and isinstance(value, Opaque) \
                and isinstance(b.value, cst.Call) and not b.value.args:
            value = ListV([], value.node)  # `thread = MessageThread()`, then add_system/add_user: its messages
        if grows and isinstance(value, Opaque) and not value.order:  # a list we only know as a whole, grown here
            value = ListV([Spread(value, value.node)], value.node)
        if not isinstance(value, (ListV, DictV)):
            return value
        node = value.node
        for m in changes:
            if m.method == "shuffle":
                return self.shuffled(value, m)
            if m.method == "setitem":
                value = self.set_item(value, m.keys, self.eval(m.call.value, frame), bool(m.arms))
            elif isinstance(value, ListV):
                value = self._grown(value, m, frame)
        return ListV(value.items, node, value.is_tuple) if isinstance(value, ListV) else value

    def set_item(self, container, keys: tuple, new, maybe: bool = False):
        """`container[k1][k2] = new` on a dict or list known that far (else as
        it was); `maybe` (under an `if`): the more volatile of the two values."""
        if not keys:
            if maybe and container is not None and self.verdict(container).volatility > self.verdict(new).volatility:
                return container
            return new
        key, rest = keys[0], keys[1:]
        if isinstance(container, DictV) and isinstance(key, str):
            pairs = list(container.pairs)
            nodes = list(container.key_nodes) if len(container.key_nodes) == len(pairs) else [None] * len(pairs)
            for i, (k, v) in enumerate(pairs):
                if isinstance(k, StrV) and literal_text(k) == key:
                    pairs[i] = (k, self.set_item(v, rest, new, maybe))
                    return DictV(pairs, container.node, nodes)
            if rest:  # `d["a"]["b"] = v` with "a" unknown here (behind a ** spread, or a KeyError)
                return container
            return DictV(pairs + [(StrV([Lit.synthetic(key, 0, 0)]), new)], container.node, nodes + [None])
        if isinstance(container, ListV) and isinstance(key, int):
            known = self.known_items(container)
            if known is not None and -len(known) <= key < len(known):
                items = list(known)
                items[key] = self.set_item(items[key], rest, new, maybe)
                return ListV(items, container.node, container.is_tuple)
            head = container.items[:key + 1] if key >= 0 else []
            if head and len(head) == key + 1 and not any(isinstance(i, (Spread, LoopV)) for i in head):
                items = list(container.items)
                items[key] = self.set_item(items[key], rest, new, maybe)
                return ListV(items, container.node, container.is_tuple)
        return container

    def _grown(self, value: ListV, m: Mutation, frame: Frame) -> ListV:
        """The list after one .append/.extend/.insert call on it."""
        items = list(value.items)
        args = [a.value for a in m.call.args if not a.star and a.keyword is None]
        if m.method == "append" and len(args) == 1:
            added = self.in_loop(args[0], m.loop, frame, as_list=True) if m.loop is not None else \
                [self.each_pass(m, self.eval(args[0], frame))]
            items += [self.member_if(m, item, frame) for item in added]
        elif m.method == "extend" and len(args) == 1:
            # in a loop: once per iteration (a region of items in the loop's order)
            extras = self.in_loop(args[0], m.loop, frame, as_list=True) if m.loop is not None else \
                [self.eval(args[0], frame)]
            for extra in extras:
                items += extra.items if isinstance(extra, ListV) else \
                    [extra] if isinstance(extra, LoopV) else [Spread(extra, args[0])]
        elif m.method in ROLE_ADDS and len(args) == 1:  # msg_thread.add_user(text): a message of that role
            added = self.in_loop(args[0], m.loop, frame, as_list=True) if m.loop is not None else \
                [self.eval(args[0], frame)]
            items += [MsgV(ROLE_ADDS[m.method], item, m.call) for item in added]
        elif m.method == "insert" and len(args) == 2:
            where = self.eval(args[0], frame)
            if isinstance(where, ConstV) and where.value == 0:
                items.insert(0, self.eval(args[1], frame))
            else:
                items.append(self.eval(args[1], frame))
        return ListV(items, value.node, value.is_tuple)

    def each_pass(self, m: Mutation, item):
        """A message appended on each pass of a `while` loop with a role taken
        from the data it walks (`messages.append(dict(content=text,
        role=node.role))` up a reply chain): one message per pass, a
        conversation replayed (calls._replayed reads it as the history)."""
        if not m.loops or not isinstance(item, DictV):
            return item
        role = item.get("role")
        if not isinstance(role, Opaque) or self.stdlib.role_in_words(role.label) is not None:
            return item
        return LoopV("a message per pass of the loop", m.call, self.verdict(item), (), item, at=m.call)

    def member_if(self, m: Mutation, item, frame: Frame):
        """An item a list gets only when the `if` around the call is taken: when
        that condition has evidence that it changes (a tool offered only while
        the page can scroll), the list's membership changes with it. Text and
        messages keep their content (a section added on a condition is read as
        text); other items (tools, tool schemas) become a value as volatile as
        the condition, at the call."""
        if not m.arms or isinstance(item, (StrV, MsgV, LoopV)) or (isinstance(item, DictV) and
                                                                 item.get("role") is not None):
            return item
        tests = []
        for chain_id, k in m.arms:
            chain = self.index.branches.get(chain_id)
            if chain is not None:
                tests += chain.tests[:k + 1]
        found = [(t, self.verdict(self.eval(t, frame))) for t in tests]
        test, verdict = max(found, key=lambda f: f[1].volatility, default=(None, None))
        if verdict is None or verdict.volatility < V.USER:
            return item
        return Opaque(self.src(m.call), Verdict(verdict.volatility, f"added only when {short(self.src(test))}: "
                                                                    f"{verdict.reason}"), m.call,
                      names=self.names_of(item))


def _known_truth(value) -> bool | None:
    """bool(value) when the value says it without running anything."""
    if isinstance(value, ConstV):
        return bool(value.value)
    if isinstance(value, StrV):
        text = literal_text(value)
        if text is not None:
            return bool(text)
        return True if any(isinstance(s, Lit) and s.text for s in value.segs) else None
    if isinstance(value, ListV) and not any(isinstance(i, (Spread, LoopV)) for i in value.items):
        return bool(value.items)
    if isinstance(value, DictV) and all(k is not None for k, _ in value.pairs):
        return bool(value.pairs)
    return None


def _messages(value) -> bool:
    """A list holding chat messages (role dicts, message objects)."""
    return isinstance(value, ListV) and any(
        isinstance(i, MsgV) or isinstance(i, DictV) and i.get("role") is not None for i in value.items)


_EACH_PASS = "set before the loop, the same on each of its passes"


def _per_run(value):
    """A message set before an agent's loop: what changes per request in it
    is fixed for the run's passes (per session, at most)."""
    if isinstance(value, (Opaque, LoopV)) and value.verdict.volatility > V.SESSION and not value.order \
            and (not isinstance(value, Opaque) or value.effective().volatility > V.SESSION):
        return replace(value, verdict=Verdict(V.SESSION, f"{_EACH_PASS}: {value.verdict.reason}"))
    if isinstance(value, StrV):
        return StrV([replace(s, volatility=V.SESSION, reason=f"{_EACH_PASS}: {s.reason}")
                     if isinstance(s, Slot) and s.volatility > V.SESSION and not s.order_varies else s
                     for s in value.segs], value.node)
    if isinstance(value, Spread):
        return replace(value, value=_per_run(value.value))
    if isinstance(value, MsgV):
        return replace(value, content=_per_run(value.content))
    if isinstance(value, DictV):
        return replace(value, pairs=[(k, _per_run(v) if isinstance(k, StrV) and literal_text(k) == "content" else v)
                                     for k, v in value.pairs])
    return value


_GROWS = re.compile(r"\.(?:append|extend|insert)\(|\+=")


def _loop_bodies(flow, function: cst.FunctionDef) -> list[tuple[int, int]]:
    """(start, end) of the body of each for/while loop of a function that
    gathers something as it goes (`history.append(...)`, `notes += ...`: an
    agent's steps, not a retry of the same request), not of the functions and
    classes inside it."""
    found, stack = [], [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.For, cst.While)):
            start, end = flow.span(node.body)
            if _GROWS.search(flow.file.text, start, end):
                found.append((start, end))
        for child in node.children:
            if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.BaseExpression)):
                stack.append(child)
    return found


def _injected(default) -> bool:
    """`db: Session = Depends(get_db)`: a parameter the framework fills with a
    dependency of its own (a session, the settings), not the request's input."""
    return isinstance(default, cst.Call) and last_name(default.func) in ("Depends", "Security", "Inject")


def _text_at_import(value: StrV) -> StrV:
    """Text a helper returns when the module is imported (`f"... located in
    {get_location()}"` at module level): what changes in it was read once,
    fixed until the process restarts."""
    segs = []
    for seg in value.segs:
        if isinstance(seg, Slot) and seg.kind in (SlotKind.VARIABLE, SlotKind.EXPRESSION) and seg.volatility > V.DEPLOY:
            verdict = at_import(Verdict(seg.volatility, seg.reason))
            seg = replace(seg, volatility=verdict.volatility, reason=verdict.reason)
        segs.append(seg)
    return StrV(segs, value.node)


__all__ = ["Flow", "Frame", "UPPER_CONSTANT", "split_prefix", "call_name", "strip_self", "MAX_DEPTH", "MAX_UNROLL",
           "DictV"]
