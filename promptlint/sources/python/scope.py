"""Where names are bound in a Python module: the static index the data flow
(flow) reads to find "the last assignment before this use".

One `Scope` per module and per function (class bodies are indexed into a
`ClassInfo` instead: Python does not let methods see them as plain names).
For every name a scope lists its bindings in source order: assignments
(plain, annotated, augmented, tuple unpacking), `for` targets, `with ... as`,
imports, `def` and `class`; and the in-place calls on it (`.append`,
`.extend`, `.insert`) that grow a list. Statements inside `if`/`try`/`with`/
loops count in source order: branches are not merged, the last one written
wins. Every binding remembers the innermost `for` loop around it in its own
scope, so text appended in a loop becomes a loop region, and the span of the
innermost `for`/`while` loop, so a name rebound later in that loop is seen
as changing from one pass to the next.

Also here: `Frame` (one activation of a scope during the data flow) and the
small syntax helpers the flow modules share.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

import libcst as cst

from promptlint.analysis.conversation import names_history
from promptlint.analysis.volatility import AT_IMPORT, Verdict, from_command_line, read_at_import, sent_per_item
from promptlint.ir import Volatility as V
from promptlint.sources.python.tree import nodes

INF = float("inf")


@dataclass(eq=False)
class Binding:
    name: str
    kind: str  # assign | aug | for | with | import | def | class | other
    start: int  # statement start (names in its value are read here)
    end: int  # where the name holds the new value (statement end; a for loop's body start)
    value: cst.CSTNode | None = None  # assigned expression; the iterable of a for loop
    target: cst.CSTNode | None = None  # the whole target, for unpacking
    path: tuple[int, ...] = ()  # position of the name inside a tuple target
    node: cst.CSTNode | None = None  # the statement (def, class, aug-assign)
    loop: cst.For | None = None  # innermost for loop around the statement, in this scope
    qual: str | None = None  # an import's qualified name
    region: tuple[int, int] | None = None  # span of the innermost for/while loop around it, in this scope
    # the `if` arms around it, outermost first: (id of the if chain, arm index)
    arms: tuple[tuple[int, int], ...] = ()


@dataclass(eq=False)
class Branches:
    """An `if`/`elif`/`else` chain: its span and the span of each arm."""

    start: int
    end: int
    arms: list[tuple[int, int]]
    has_else: bool
    tests: list = field(default_factory=list)  # the condition of each `if`/`elif` arm (not the else)


@dataclass(eq=False)
class Mutation:
    name: str
    method: str  # append | extend | insert | setitem (`x["k"][0] = value`) | a ROLE_ADDS method
    call: cst.CSTNode  # the call, or the assignment of a setitem
    start: int
    loop: cst.For | None
    arms: tuple[tuple[int, int], ...] = ()  # the `if` arms around the call, as Binding.arms
    keys: tuple = ()  # a setitem's constant keys and indexes, outermost first
    loops: tuple[tuple[int, int], ...] = ()  # spans of the for/while loops around it, in this scope


@dataclass(eq=False)
class Scope:
    node: cst.CSTNode  # Module or FunctionDef
    parent: "Scope | None"
    start: int
    cls: "ClassInfo | None" = None  # the class of a method
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    mutations: dict[str, list[Mutation]] = field(default_factory=dict)
    params: dict[str, cst.Param] = field(default_factory=dict)
    super_inits: list[cst.Call] = field(default_factory=list)  # `super().__init__(...)` calls made here
    changed: set[str] = field(default_factory=set)  # names changed in place (`d[k] = v`, `seen.add(x)`)
    globals: set[str] = field(default_factory=set)  # names a function declares `global` (its assignments rebind them)
    stars: list[str] = field(default_factory=list)  # modules it imports everything from (`from .prompts import *`)

    @property
    def is_module(self) -> bool:
        return isinstance(self.node, cst.Module)

    @property
    def label(self) -> str:
        if self.is_module:
            return "<module>"
        name = self.node.name.value
        return f"{self.cls.node.name.value}.{name}" if self.cls else name

    @property
    def route(self) -> str | None:
        """What serves requests through this function, its parameters being each
        request's own: a web route (`@app.get("/ask")`, `@router.post(...)`,
        `@bp.route(...)`, `@app.websocket(...)`) as `the web route GET /ask`, an
        MCP server's prompt or tool (`@mcp.prompt(name="recent")`, `@server.tool`)
        as `the MCP prompt recent`; None for any other function."""
        if self.is_module:
            return None
        for decorator in self.node.decorators:
            call = decorator.decorator
            func = call.func if isinstance(call, cst.Call) else call
            if not isinstance(func, cst.Attribute):
                continue
            verb = func.attr.value
            if verb in _MCP_VERBS:
                name = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "name"),
                            None) if isinstance(call, cst.Call) else None
                shown = name.evaluated_value if isinstance(name, cst.SimpleString) else self.node.name.value
                return f"the MCP {verb} {shown}"
            if verb not in _ROUTE_VERBS or not isinstance(call, cst.Call):
                continue
            path = next((a.value for a in call.args if a.keyword is None), None)
            where = path.evaluated_value if isinstance(path, cst.SimpleString) else "..."
            return f"the web route {'' if verb in ('route', 'api_route') else verb.upper() + ' '}{where}"
        return None

    def last(self, name: str, at: float) -> Binding | None:
        """The last binding of `name` that holds before offset `at`."""
        found = self.bindings.get(name)
        if not found:
            return None
        ends = [b.end for b in found]
        i = bisect.bisect_right(ends, at)
        return found[i - 1] if i else None

    def assigned(self, name: str, at: float):
        """The expression `name` was last plainly assigned before offset `at`
        (`first = ctx.items[0]`, `table = read_board(...)`), else None."""
        binding = self.last(name, at)
        return binding.value if binding is not None and binding.kind == "assign" and not binding.path else None

    def rebound_later_in_loop(self, name: str, at: float) -> list[Binding]:
        """Bindings of `name` after offset `at` inside a loop that also holds
        `at`: on the next pass, the use sees them (a loop-carried value)."""
        return [b for b in self.bindings.get(name, ()) if b.start > at and b.region is not None
                and b.region[0] <= at < b.region[1]]

    def mutations_between(self, name: str, start: float, end: float) -> list[Mutation]:
        return [m for m in self.mutations.get(name, ()) if start <= m.start < end]

    def mutated_later_in_loop(self, name: str, start: float, at: float) -> list[Mutation]:
        """Changes to `name` after offset `at` inside a loop that holds `at`
        and begins after the binding at `start`: the next pass sees them
        (`history.append(result)` after the call that reads `history`)."""
        return [m for m in self.mutations.get(name, ()) if m.start >= at
                and any(start <= loop[0] <= at < loop[1] for loop in m.loops)]


@dataclass(eq=False)
class ClassInfo:
    node: cst.ClassDef
    attrs: dict[str, list[Binding]] = field(default_factory=dict)  # class body, then self.x in methods
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    scope: Scope | None = None  # the class body, indexed like a function (for attribute values)
    # self.x assigned in a method other than __init__ (`self.current_page = link` in navigate()):
    # attribute -> [(the method's scope, the value or the augmented assignment)]
    reassigned: dict[str, list[tuple[Scope, cst.CSTNode]]] = field(default_factory=dict)
    grown: set[str] = field(default_factory=set)  # of those, the ones a method appends to
    # conversation lists (`self.history`, `self.messages`) a method other than __init__ appends to: method name
    kept: dict[str, str] = field(default_factory=dict)


class Index:
    """Every scope of a module, built in one walk."""

    def __init__(self, module: cst.Module, span):
        self.span = span  # node -> (start, end) character offsets
        self.scopes: dict[int, Scope] = {}  # id(FunctionDef) -> its scope
        self.classes: dict[int, ClassInfo] = {}  # id(ClassDef) -> info
        self.functions: list[Scope] = []
        self._regions: dict[int, list[tuple[int, int]]] = {}
        self.branches: dict[int, Branches] = {}  # id(If) of a chain -> its arms
        self._arms: list[tuple[int, int]] = []  # the arms the walk is inside
        self.module = Scope(module, None, 0)
        self.at_import: set[str] = set()  # what the module calls or decorates with outside its functions
        self._body(module.body, self.module, None, None)
        for scope in [self.module, *self.functions, *(c.scope for c in self.classes.values() if c.scope)]:
            for found in scope.bindings.values():
                found.sort(key=lambda b: b.end)
            for found in scope.mutations.values():
                found.sort(key=lambda m: m.start)

        self._runtime: dict[str, str] | None = None

    def changed_at_run_time(self, name: str) -> str | None:
        """The function that changes a module-level container while the app
        runs (`file_contents[path] = text`, `history.append(turn)` in a
        function that has no local of that name), else None. A function the
        module itself calls or uses as a decorator runs at import (a
        registry filling itself), and an UPPER_CASE name is a constant by
        convention: neither counts."""
        if self._runtime is None:
            self._runtime = {}
            for scope in self.functions:
                if scope.node.name.value in self.at_import \
                        or scope.cls is not None and scope.cls.node.name.value in self.at_import:
                    continue
                for mutated in scope.changed:
                    if _container_binding(self.module.bindings.get(mutated)) and mutated not in scope.params \
                            and (mutated not in scope.bindings or mutated in scope.globals) \
                            and not _CONSTANT_NAME.match(mutated):
                        self._runtime.setdefault(mutated, scope.label)
        return self._runtime.get(name)

    # ------------------------------------------------------------ statements

    def _body(self, stmts, scope: Scope, loop, cls: ClassInfo | None) -> None:
        for stmt in stmts:
            self._stmt(stmt, scope, loop, cls)

    @staticmethod
    def _block(node) -> list:
        body = getattr(node, "body", None)
        if body is None:
            return []
        inner = getattr(body, "body", body)
        return list(inner) if isinstance(inner, (list, tuple)) else [inner]

    def _bind(self, scope: Scope, b: Binding) -> None:
        if b.region is None and self._regions.get(id(scope)):
            b.region = self._regions[id(scope)][-1]
        if not b.arms:
            b.arms = tuple(self._arms)
        scope.bindings.setdefault(b.name, []).append(b)

    def _mutate(self, scope: Scope, m: Mutation) -> None:
        m.loops = tuple(self._regions.get(id(scope), ()))
        scope.mutations.setdefault(m.name, []).append(m)

    def _in_region(self, scope: Scope, stmt, body, start: int | None = None) -> None:
        """Index a loop body, remembering the loop's span for loop-carried
        names (from `start`: a `for`'s iterable is read once, before any pass)."""
        stack = self._regions.setdefault(id(scope), [])
        s, e = self.span(stmt)
        stack.append((s if start is None else start, e))
        try:
            body()
        finally:
            stack.pop()

    def _stmt(self, stmt, scope: Scope, loop, cls: ClassInfo | None) -> None:
        start, end = self.span(stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, scope, loop, start, end)
        elif isinstance(stmt, cst.FunctionDef):
            self._bind(scope, Binding(stmt.name.value, "def", start, start, node=stmt, loop=loop))
            self._function(stmt, scope, None, start)
        elif isinstance(stmt, cst.ClassDef):
            self._bind(scope, Binding(stmt.name.value, "class", start, start, node=stmt, loop=loop))
            info = ClassInfo(stmt)
            info.scope = Scope(stmt, scope, start)
            self.classes[id(stmt)] = info
            for inner in self._block(stmt):
                if isinstance(inner, cst.FunctionDef):  # a method: seen through self/cls, not as a name
                    info.methods.setdefault(inner.name.value, inner)
                    self._function(inner, scope, info, self.span(inner)[0])
                else:
                    self._stmt(inner, info.scope, None, None)
            self._init_helpers(info)
            info.attrs = info.scope.bindings
        elif isinstance(stmt, (cst.For,)):
            body_start = self.span(stmt.body)[0]
            for name, path in _target_names(stmt.target):
                self._bind(scope, Binding(name, "for", start, body_start, value=stmt.iter, target=stmt.target,
                                          path=path, node=stmt, loop=stmt))
            self._in_region(scope, stmt, lambda: self._body(self._block(stmt), scope, stmt, cls), body_start)
            if stmt.orelse is not None:
                self._body(self._block(stmt.orelse), scope, loop, cls)
        elif isinstance(stmt, (cst.While,)):
            self._in_region(scope, stmt, lambda: self._body(self._block(stmt), scope, loop, cls))
            if stmt.orelse is not None:
                self._body(self._block(stmt.orelse), scope, loop, cls)
        elif isinstance(stmt, cst.If):
            self._if_chain(stmt, scope, loop, cls)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    for name, path in _target_names(item.asname.name):
                        self._bind(scope, Binding(name, "with", start, self.span(stmt.body)[0], value=item.item,
                                                  loop=loop))
            self._body(self._block(stmt), scope, loop, cls)
        elif isinstance(stmt, (cst.Try, getattr(cst, "TryStar", cst.Try))):
            self._body(self._block(stmt), scope, loop, cls)
            for handler in stmt.handlers:
                if handler.name is not None:
                    for name, _ in _target_names(handler.name.name):
                        self._bind(scope, Binding(name, "other", *self.span(handler), loop=loop))
                self._body(self._block(handler), scope, loop, cls)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self._body(self._block(extra), scope, loop, cls)
        elif isinstance(stmt, getattr(cst, "Match", ())):
            for case in stmt.cases:
                self._body(self._block(case), scope, loop, cls)

    def _if_chain(self, stmt: cst.If, scope: Scope, loop, cls: ClassInfo | None) -> None:
        """`if`/`elif`/`else` as one chain of arms, so the flow can see that a
        name bound in one arm may hold the value of another (Branches)."""
        arms, tests, node = [], [], stmt
        while True:
            arms.append(node.body)
            tests.append(node.test)
            orelse = node.orelse
            if isinstance(orelse, cst.If):
                node = orelse
                continue
            if orelse is not None:
                arms.append(orelse.body)
            break
        start, end = self.span(stmt)
        self.branches[id(stmt)] = Branches(start, end, [self.span(a) for a in arms], orelse is not None, tests)
        for k, arm in enumerate(arms):
            self._arms.append((id(stmt), k))
            try:
                inner = getattr(arm, "body", arm)
                self._body(list(inner) if isinstance(inner, (list, tuple)) else [inner], scope, loop, cls)
            finally:
                self._arms.pop()

    def _function(self, stmt: cst.FunctionDef, parent: Scope, cls: ClassInfo | None, start: int) -> None:
        saved, self._arms = self._arms, []  # a function's own ifs start afresh
        try:
            self._function_body(stmt, parent, cls, start)
        finally:
            self._arms = saved

    def _function_body(self, stmt: cst.FunctionDef, parent: Scope, cls: ClassInfo | None, start: int) -> None:
        for d in stmt.decorators:  # a decorator runs when the def does
            dec = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            name = last_name(dec)
            if name:
                self.at_import.add(name)
        child = Scope(stmt, parent, start, cls=cls)
        self.scopes[id(stmt)] = child
        self.functions.append(child)
        params = stmt.params
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
            child.params[p.name.value] = p
        for p in (params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                child.params[p.name.value] = p
        self._body(self._block(stmt), child, None, None)
        if cls is not None and stmt.name.value == "__init__":
            self._self_attrs(stmt, child, cls)

    def _small(self, small, scope: Scope, loop, start: int, end: int) -> None:
        if scope.cls is not None and isinstance(scope.node, cst.FunctionDef) and scope.node.name.value != "__init__":
            self._reassigned(small, scope)
        self._changes(small, scope)
        if scope.cls is not None and isinstance(scope.node, cst.FunctionDef):
            self._own_attr(small, scope, loop, start, end)
        if isinstance(small, cst.Assign):
            for target in small.targets:
                item = _item_target(target.target)
                if item is not None:  # messages[0]["content"] = ...: the value it names changes
                    self._mutate(scope, Mutation(item[0], "setitem", small, start, loop, tuple(self._arms), item[1]))
                for name, path in _target_names(target.target):
                    self._bind(scope, Binding(name, "assign", start, end, value=small.value, target=target.target,
                                              path=path, loop=loop))
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            for name, path in _target_names(small.target):
                self._bind(scope, Binding(name, "assign", start, end, value=small.value, target=small.target,
                                          path=path, loop=loop))
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            self._bind(scope, Binding(small.target.value, "aug", start, end, value=small.value, node=small,
                                      loop=loop))
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            self._imports(small, scope, start, end)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call) \
                    and isinstance(func.value.func, cst.Name) and func.value.func.value == "super":
                scope.super_inits.append(call)
            if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                    and (func.attr.value in ("append", "extend", "insert") or func.attr.value in ROLE_ADDS)):
                name = func.value.value
                self._mutate(scope, Mutation(name, func.attr.value, call, start, loop, tuple(self._arms)))
            elif _dotted_name(func) in ("random.shuffle", "shuffle") and len(call.args) == 1 \
                    and isinstance(call.args[0].value, cst.Name):  # `random.shuffle(items)`: in place
                self._mutate(scope, Mutation(call.args[0].value.value, "shuffle", call, start, loop,
                                             tuple(self._arms)))

    def _own_attr(self, small, scope: Scope, loop, start: int, end: int) -> None:
        """`self.system_prompt = ""` then `self.system_prompt += part` in one
        method: bound in the method under the name `self.system_prompt`, so a
        use later in it reads the text the method built there, part by part
        and arm by arm, as for a local name (Flow.own_attr)."""
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            attr, kind = _self_attr(small.targets[0].target), "assign"
        elif isinstance(small, cst.AugAssign):
            attr, kind = _self_attr(small.target), "aug"
        else:
            return
        if attr is not None:
            self._bind(scope, Binding(f"self.{attr}", kind, start, end, value=small.value,
                                      node=small if kind == "aug" else None, loop=loop))

    def _changes(self, small, scope: Scope) -> None:
        """What a statement changes in place (`d[k] = v`, `log.append(x)`) in a
        function, and what the module calls at import (changed_at_run_time);
        a `global` name a function assigns is changed too (`global tools;
        tools = [t for t in tools if ...]`)."""
        if isinstance(small, cst.Global):
            scope.globals.update(n.name.value for n in small.names)
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
            [small.target] if isinstance(small, (cst.AugAssign, cst.AnnAssign)) else []
        scope.changed.update(t.value for t in targets if isinstance(t, cst.Name) and t.value in scope.globals)
        for t in targets:
            if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name):
                scope.changed.add(t.value.value)
        value = small.value if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign)) else None
        if isinstance(value, cst.Await):
            value = value.expression
        if not isinstance(value, cst.Call):
            return
        func = value.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in _CHANGES:
            scope.changed.add(func.value.value)
        if scope.is_module or isinstance(scope.node, cst.ClassDef):
            name = last_name(func)
            if name:
                self.at_import.add(name)

    def _reassigned(self, small, scope: Scope) -> None:
        """`self.x = value` / `self.x += value` in a method other than __init__,
        and `self.x.append(value)` of a value the method is given (an object's
        log of observations: its latest item is this step's)."""
        grows = _self_list_call(small)
        if grows is not None:
            attr, method, args = grows
            if names_history((attr,)):
                scope.cls.kept.setdefault(attr, scope.node.name.value)
            elif method in ("append", "insert") and args \
                    and isinstance(args[-1].value, (cst.Name, cst.Attribute, cst.Subscript)):
                scope.cls.reassigned.setdefault(attr, []).append((scope, args[-1].value))
                scope.cls.grown.add(attr)
            return
        if isinstance(small, cst.Assign):
            targets, value = [t.target for t in small.targets], small.value
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and small.value is not None:
            targets, value = [small.target], small.value if isinstance(small, cst.AnnAssign) else small
        else:
            return
        for t in targets:
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                scope.cls.reassigned.setdefault(t.attr.value, []).append((scope, value))

    def _imports(self, small, scope: Scope, start: int, end: int) -> None:
        names = small.names
        if isinstance(names, cst.ImportStar):
            if isinstance(small, cst.ImportFrom) and small.module is not None:
                scope.stars.append("." * len(small.relative) + _dotted(small.module))
            return
        if isinstance(small, cst.Import):
            for alias in names:
                dotted = _dotted(alias.name)
                if alias.asname is not None:
                    local, qual = alias.asname.name.value, dotted
                else:
                    local = qual = dotted.split(".")[0]
                self._bind(scope, Binding(local, "import", start, end, qual=qual))
            return
        module = "." * len(small.relative) + (_dotted(small.module) if small.module is not None else "")
        for alias in names:
            name = _dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            # `from . import prompts` is `.prompts`; `from .pkg import prompts` is `.pkg.prompts`
            qual = module + name if not module.strip(".") else f"{module}.{name}"
            self._bind(scope, Binding(local, "import", start, end, qual=qual))

    def _init_helpers(self, cls: ClassInfo) -> None:
        """A method `__init__` calls as a statement of its own (`self._load_prompt_templates()`)
        sets attributes as `__init__` does: what it assigns to `self.x` (in both arms of
        an `if`, the later one read) is an attribute the methods read, not state that
        changes while the object lives."""
        init = cls.methods.get("__init__")
        if init is None:
            return
        called = []
        for stmt in self._block(init):
            for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
                call = small.value if isinstance(small, cst.Expr) else None
                if isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute) \
                        and isinstance(call.func.value, cst.Name) and call.func.value.value == "self":
                    method = cls.methods.get(call.func.attr.value)
                    if method is not None and method is not init and method not in called:
                        called.append(method)
        if called:  # one the other methods call too resets state while the object lives: not an init
            again = _self_calls([m for name, m in cls.methods.items() if m is not init])
            called = [m for m in called if m.name.value not in again]
        for method in called:
            scope = self.scopes.get(id(method))
            if scope is None:
                continue
            self._self_attrs(method, scope, cls, arms=True)
            for attr, sets in list(cls.reassigned.items()):
                cls.reassigned[attr] = [(where, value) for where, value in sets if where is not scope]
                if not cls.reassigned[attr]:
                    del cls.reassigned[attr]

    def _self_attrs(self, init: cst.FunctionDef, scope: Scope, cls: ClassInfo, arms: bool = False) -> None:
        """`self.x = value` in __init__: an attribute the methods can read (also
        inside a `with` or `try` block that always runs: `with open(path) as f:
        self.template = f.read()`; with `arms`, inside an `if` too)."""
        todo = list(self._block(init))
        while todo:
            stmt = todo.pop(0)
            if isinstance(stmt, (cst.With, cst.Try)):
                todo[:0] = self._block(stmt)
                continue
            if arms and isinstance(stmt, cst.If):
                blocks, arm = [], stmt
                while isinstance(arm, cst.If):
                    blocks += self._block(arm)
                    arm = arm.orelse
                if arm is not None:
                    blocks += self._block(arm)
                todo[:0] = blocks
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            start, end = self.span(stmt)
            for small in stmt.body:
                targets = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    targets = [small.target]
                for t in targets:
                    if (isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)
                            and t.value.value == "self" and cls.scope is not None):
                        cls.scope.bindings.setdefault(t.attr.value, []).append(
                            Binding(t.attr.value, "attr", start, end, value=small.value, node=init))


def _self_calls(methods) -> set[str]:
    """The names of the methods these methods call on `self`."""
    out: set[str] = set()
    for method in methods:
        for node in nodes(method):
            if type(node) is cst.Call:
                func = node.func
                if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
                    out.add(func.attr.value)
    return out


# the roles a message written in code can name (`{"role": "system", ...}`, `Turn("user", text)`)
MESSAGE_ROLES = ("system", "developer", "user", "assistant")

_CONSTANT_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]*$")


_CONTAINERS = ("dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter")


def _self_list_call(small) -> tuple[str, str, list] | None:
    """(attribute, method, arguments) of `self.x.append(...)` / `.extend` / `.insert` as a statement."""
    call = small.value if isinstance(small, cst.Expr) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value not in ("append", "extend", "insert"):
        return None
    owner = call.func.value
    if not (isinstance(owner, cst.Attribute) and isinstance(owner.value, cst.Name) and owner.value.value == "self"):
        return None
    return owner.attr.value, call.func.attr.value, list(call.args)


def _self_attr(target) -> str | None:
    """`x` of a `self.x` target."""
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return target.attr.value
    return None


def _container_binding(bindings) -> bool:
    """A module name made a container (`files = {}`, `seen = set()`), not an import or a constant."""
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign" or bindings[0].path:
        return False
    value = bindings[0].value
    if isinstance(value, (cst.Dict, cst.List, cst.Set)):
        return True
    return isinstance(value, cst.Call) and last_name(value.func) in _CONTAINERS


_CHANGES = ("append", "extend", "insert", "update", "setdefault", "add", "pop", "popitem", "clear", "remove")
# a conversation object's methods that add one message of a role (`msg_thread.add_user(text)`)
ROLE_ADDS = {"add_system": "system", "add_developer": "developer", "add_user": "user", "add_human": "user",
             "add_assistant": "assistant", "add_model": "assistant", "add_ai": "assistant",
             "add_system_message": "system", "add_user_message": "user", "add_assistant_message": "assistant"}


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _item_target(target) -> tuple[str, tuple] | None:
    """(name, keys) of `name["k"][0] = ...` with constant keys, else None."""
    keys = []
    while isinstance(target, cst.Subscript) and len(target.slice) == 1 \
            and isinstance(target.slice[0].slice, cst.Index):
        key = target.slice[0].slice.value
        if isinstance(key, cst.SimpleString) and key.prefix.lower() in ("", "u"):
            try:
                keys.append(key.evaluated_value)
            except Exception:  # noqa: BLE001 - an odd literal: not followed
                return None
        elif isinstance(key, cst.Integer):
            keys.append(int(key.value, 0))
        elif isinstance(key, cst.UnaryOperation) and isinstance(key.operator, cst.Minus) \
                and isinstance(key.expression, cst.Integer):
            keys.append(-int(key.expression.value, 0))
        else:
            return None
        target = target.value
    if not keys or not isinstance(target, cst.Name):
        return None
    return target.value, tuple(reversed(keys))


def _target_names(target, path: tuple[int, ...] = ()) -> list[tuple[str, tuple[int, ...]]]:
    """Names bound by an assignment target, with their place in a tuple."""
    if isinstance(target, cst.Name):
        return [(target.value, path)]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for i, el in enumerate(target.elements):
            value = el.value
            if isinstance(el, cst.StarredElement):
                out += [(n, ()) for n, _ in _target_names(value)]
            else:
                out += _target_names(value, path + (i,))
        return out
    return []


# ---------------------------------------------------------------- activations

class Frame:
    """One activation: a scope, the names bound in it by inlining or by a
    comprehension, and the lexical parent (None past the module)."""

    def __init__(self, scope: Scope, bound: dict | None = None, parent: "Frame | None" = None,
                 import_time: bool = False, depth: int = 0, constructing: bool = False):
        self.scope = scope
        self.bound = bound or {}
        self.parent = parent
        self.import_time = import_time
        self.depth = depth
        # a class's __init__, or a helper it calls: what it reads is read once per object
        self.constructing = constructing or scope.cls is not None and isinstance(scope.node, cst.FunctionDef) \
            and scope.node.name.value == "__init__"
        self.memo: dict[int, object] = {}

    def child(self, bound: dict) -> "Frame":
        return Frame(self.scope, {**self.bound, **bound}, self.parent, self.import_time, self.depth,
                     self.constructing)


# ---------------------------------------------------------------- syntax helpers

def last_name(node) -> str | None:
    """`Base` of `Base` or `pkg.Base`: a callee's or a base class's own name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


_VERBS = re.compile(r"^(get|load|fetch|build|make|format|render|read|compute|create|generate|compose|"
                    r"retrieve|find|lookup|search|current|collect)_")
_BUILTINS = frozenset({"sorted", "list", "tuple", "set", "frozenset", "str", "repr", "dict", "len", "format",
                       "reversed", "open", "int", "float", "min", "max", "sum", "enumerate", "print", "input",
                       "isinstance"})


def _names_in(node, targets: bool = False) -> list[cst.Name]:
    """Names read in an expression (not attributes, keywords or literals)."""
    found: list[cst.Name] = []

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, n):
            n.value.visit(self)
            return False

        def visit_Arg(self, n):
            n.value.visit(self)
            return False

        def visit_Name(self, n):
            if n.value not in ("True", "False", "None", "self", "cls") and (targets or n.value not in _BUILTINS):
                found.append(n)

    node.visit(Visitor())
    return found


_ROUTE_VERBS = {"get", "post", "put", "patch", "delete", "route", "api_route", "websocket"}
_MCP_VERBS = ("prompt", "tool")  # FastMCP's @mcp.prompt / @mcp.tool: the client passes the arguments per call


def _dotted_name(node) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    if isinstance(node, cst.Call):
        return _dotted_name(node.func)
    return None


def at_import(verdict: Verdict) -> Verdict:
    """A value evaluated when the module is imported: fixed until the process
    restarts. A clock or a random value read then differs in every process (each
    run of a script or CLI agent, each worker start) and stays for all that
    process's requests: the period of a session, so it counts as one (a date
    keeps its day, a setting its release)."""
    if read_at_import(verdict.reason) or sent_per_item(verdict.reason):
        return verdict  # said already (a name read of such a value); a loop at import sends one request per item
    if verdict.volatility > V.SESSION or verdict.volatility is V.SESSION and from_command_line(verdict.reason):
        return Verdict(V.SESSION, f"{AT_IMPORT}: {verdict.reason}; it differs in every process "
                                  "(each run of a script, each worker start) and stays for its requests")
    if verdict.volatility > V.DAY:
        return Verdict(V.DEPLOY, f"{AT_IMPORT}: {verdict.reason}; fixed until the process restarts")
    return verdict


def strip_self(name: str) -> str:
    return re.sub(r"^(self|cls)\.", "", name)


def call_name(dotted: str) -> str:
    """The name an unknown call is classified by: `self.get_user_name` -> `user_name`."""
    last = strip_self(dotted)
    head, _, tail = last.rpartition(".")
    stripped = _VERBS.sub("", tail)
    return f"{head}.{stripped}" if head else stripped


def returns(func: cst.FunctionDef) -> list[cst.Return]:
    """Every `return value` of the function itself (not of defs inside it),
    in source order. A return is a statement, so only statement blocks are
    walked (an expression cannot hold one): a small fraction of the nodes
    a visitor over the whole body would dispatch on."""
    found: list[cst.Return] = []
    todo = list(reversed(_blocks_of(func)))
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            found.extend(s for s in stmt.body if isinstance(s, cst.Return) and s.value is not None)
        elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            todo.extend(reversed(_blocks_of(stmt)))
    return found


def error_returns(func: cst.FunctionDef) -> set[int]:
    """The ids of the function's own `return`s written in an `except` block
    (`except OSError: return ""`: what a loader gives when it fails)."""
    out: set[int] = set()
    todo = [(stmt, False) for stmt in _blocks_of(func)]
    while todo:
        stmt, handled = todo.pop()
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            if handled:
                out.update(id(s) for s in stmt.body if isinstance(s, cst.Return))
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            todo += [(s, handled) for part in (stmt.body, stmt.orelse, stmt.finalbody) for s in _statements_of(part)]
            todo += [(s, True) for handler in stmt.handlers for s in _statements_of(handler)]
        elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            todo += [(s, handled) for s in _blocks_of(stmt)]
    return out


def _blocks_of(stmt) -> list:
    """The statements directly inside a compound statement (its body, else,
    except, finally and match-case blocks), in source order."""
    return [s for part in (getattr(stmt, "body", None), *getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ()),
                           getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None))
            for s in _statements_of(part)]


def _statements_of(part) -> list:
    """The statements of one part of a compound statement: a block's, or an
    `elif` (an If in orelse) or one-line suite as itself; an Else, Finally,
    ExceptHandler or MatchCase by its own body."""
    if part is None:
        return []
    if isinstance(part, (cst.If, cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return [part]
    if isinstance(part, cst.IndentedBlock):
        return list(part.body)
    if isinstance(part, (list, tuple)):
        return list(part)
    return _blocks_of(part)
