"""Values imported from other modules of the checked tree.

`from .prompts import SYSTEM`, `import llm; llm.DATE_TIME_PROMPT`,
`from app.prompts import Prompts; Prompts.PLANNER`: the name is looked up
in the module that defines it, found on disk by walking up from the
importing file (the package layout Python itself would use: `a/b/c.py` or
`a/b/c/__init__.py` under an ancestor folder; relative imports from the
importing package). The defining module is parsed once per run (libcst,
nothing executed) and its constant is evaluated there, at import time, by
a flow of its own; the value is then moved to the place it is used in the
importing file: its text keeps every character (so tokens and the stable
text after a breaker count), and its slots keep their volatility but point
at the use, since that is the line the user reads and fixes.

What is followed: module-level names and class attributes holding text,
lists, dicts or a value with evidence (a clock at import); re-exports
through further imports, up to MAX_IMPORT_DEPTH modules deep; and functions
(module-level ones, a class's static and class methods), which a call here
inlines in their own module's flow: the arguments are evaluated here and
carried over (text kept, positions dropped: they are this file's), the
defaults and everything the function reads are evaluated there, and what
it returns is moved back to the call like any other imported value. Limits (each says what
it skipped, in `-v` notes): MAX_ANCESTORS folders walked up, MAX_MODULES
other modules read for one file (the same for every file, whatever else the
run checks), the reader's file-size limit, a module that does not parse or
is part of an import cycle. Parsed modules are kept for reuse (MAX_CACHED).
"""

from __future__ import annotations

import dataclasses
import sys
from collections import OrderedDict
from pathlib import Path

import libcst as cst
from promptlint.sources.python.tree import positions

from promptlint.ir import Slot, SourceError, Text
from promptlint.sources.base import read_source
from promptlint.sources.python import lcel
from promptlint.sources.python.exprs import MAX_DEPTH
from promptlint.sources.python.scope import INF
from promptlint.sources.python.strings import Lit, merge
from promptlint.sources.python.values import (
    ClassV, ConstV, DictV, ForeignFuncV, FuncV, ListV, MsgV, Opaque, SetV, Spread, StrV, TemplV, relabel, short,
)

MAX_IMPORT_DEPTH = 4  # modules followed through re-exports
MAX_ANCESTORS = 8  # folders walked up from the importing file to find a package
MAX_MODULES = 32  # other modules one file's values may be read from
MAX_CACHED = 64  # parsed modules kept for the rest of the run (least recently used first out)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}


def project_of(ctx) -> "Project":
    """The run's project index (one per SourceContext)."""
    project = ctx.shared.get("python.project")
    if project is None:
        project = ctx.shared["python.project"] = Project(ctx)
    return project


class Project:
    """Module files by dotted name, and the parsed flows of those read so far."""

    def __init__(self, ctx):
        self.ctx = ctx
        self._files: dict[tuple[Path, str], Path | None] = {}
        self._flows: OrderedDict[Path, object] = OrderedDict()
        self._active: list[Path] = []
        self._read_for: dict[Path, set[Path]] = {}  # importing file (resolved) -> modules read for its values
        self._real: dict[Path, Path] = {}  # path -> path.resolve(), once per run

    def depended_on(self, paths) -> set[Path]:
        """The modules the files at `paths` read values from, and those
        modules' own, all the way down (a value read once is kept for the
        run, so a later file that uses it does not read its sources again)."""
        out, todo = set(), [self.real(Path(p)) for p in paths]
        while todo:
            for module in self._read_for.get(todo.pop(), ()):
                if module not in out:
                    out.add(module)
                    todo.append(module)
        return out

    def real(self, path: Path) -> Path:
        """`path.resolve()`, asked of the file system once per path and run."""
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = path.resolve()
        return found

    # ------------------------------------------------------------ lookup

    def value(self, flow, qual: str, node):
        """The value `qual` (an import's qualified name, maybe with attributes)
        has in the module of the tree that defines it, moved to `node` of
        `flow`; None when it is not in the tree or not followed."""
        found = self._resolve(flow.file.path, qual, (flow, node))
        return None if found is None else relocate(found[1], found[0], flow, node)

    def is_class(self, flow, qual: str, node) -> bool:
        """Whether `qual` names a class defined in the checked tree."""
        found = self._resolve(flow.file.path, qual, (flow, node))
        return found is not None and isinstance(found[1], ClassV)

    def _resolve(self, importer: Path, qual: str, where):
        """(flow of the defining module, value there), following re-exports."""
        dots = len(qual) - len(qual.lstrip("."))
        parts = qual[dots:].split(".")
        if not parts[0] or (not dots and parts[0] in _STDLIB):
            return None
        for k in range(len(parts) - 1, 0, -1):
            path = self.module_file(importer, dots, parts[:k])
            if path is None:
                continue
            foreign = self.flow(path, where)
            return None if foreign is None else self._member(foreign, parts[k:], where)
        return None

    def _member(self, foreign, names: list[str], where):
        flow, node = where
        if len(self._active) >= MAX_IMPORT_DEPTH or foreign.file.path in self._active:
            self.ctx.note(flow.file, flow.file_span(*flow.span(node)),
                          f"{'.'.join(names)} from {foreign.file.display_path}: not followed (import depth "
                          f"{MAX_IMPORT_DEPTH} or a cycle)")
            return None
        self._active.append(foreign.file.path)
        try:
            bindings = foreign.index.module.bindings.get(names[0])
            if not bindings:
                return None
            if bindings[-1].kind == "import":  # a re-export: where that module got it
                rest = ".".join(names[1:])
                return self._resolve(foreign.file.path, bindings[-1].qual + (f".{rest}" if rest else ""), where)
            value = foreign.lookup(names[0], INF, foreign.import_frame)
            for attr in names[1:]:
                if not isinstance(value, ClassV):
                    return None
                attrs = value.info.attrs.get(attr)
                if attrs:
                    value = foreign.attr_value(value.info, attrs[-1])
                    continue
                method = value.info.methods.get(attr)
                kind = _decorated(method) if method is not None else None
                if kind is None:  # an instance method needs an instance: not followed
                    return None
                value = FuncV(method, bound_self=kind == "classmethod")
            return foreign, value
        finally:
            self._active.pop()

    def module_file(self, importer: Path, dots: int, parts: list[str]) -> Path | None:
        """`a/b/c.py` or `a/b/c/__init__.py` for `a.b.c`: relative to the
        importing package for `from ..a import`, else under the nearest
        ancestor folder of the importing file that has it."""
        folder = importer.parent
        if dots:
            for _ in range(dots - 1):
                folder = folder.parent
            bases = [folder]
        else:
            bases = [folder, *list(folder.parents)[:MAX_ANCESTORS - 1]]
        rel = Path(*parts)
        for base in bases:
            key = (base, ".".join(parts))
            probes = (base / rel.with_suffix(".py"), base / rel / "__init__.py")
            if key not in self._files:
                found = None
                for candidate in probes:
                    if candidate.is_file() and self.ctx.inside_project(candidate, importer):
                        found = candidate
                        break
                self._files[key] = found
            found = self._files[key]
            # a module created where this looked would be read: the result cache checks these stay absent
            self.ctx.absent.update(probes[:probes.index(found)] if found is not None else probes)
            if found is not None:
                return found
        return None

    # ------------------------------------------------------------ calls

    def call(self, flow, func: ForeignFuncV, call, frame):
        """`helper(args)` of a function defined in another module: evaluated
        there with the arguments carried over, its result moved to `call`.
        None when it is not followed (depth, a cycle, nothing returned)."""
        foreign = func.flow
        scope = foreign.index.scopes.get(id(func.func.node))
        if scope is None or frame.depth >= MAX_DEPTH:
            return None
        path = foreign.file.path
        if len(self._active) >= MAX_IMPORT_DEPTH or path in self._active:
            self.ctx.note(flow.file, flow.file_span(*flow.span(call)),
                          f"{func.func.node.name.value}() of {foreign.file.display_path}: not followed (import depth "
                          f"{MAX_IMPORT_DEPTH} or a cycle)")
            return None
        passed = flow.arguments(func.func, scope, call, frame, defaults=False)
        bound = {name: carry(v, flow) for name, v in passed.items()}
        self._active.append(path)
        try:
            bound.update(foreign.defaults(func.func, bound))
            value = foreign.returned(func.func, scope, bound, None, False, frame.depth + 1, frame.constructing)
        finally:
            self._active.pop()
        if value is None:
            return None
        moved = relocate(value, foreign, flow, call)
        if isinstance(moved, Opaque) and moved.qual is None:
            return relabel(moved, short(flow.src(call)), call)
        return moved

    # ------------------------------------------------------------ parsing

    def flow(self, path: Path, where):
        """The flow of the module at `path`, parsed once per run."""
        importer, node = where
        key = self.real(path)
        used = self._read_for.setdefault(self.real(importer.file.path), set())
        if key not in used and len(used) >= MAX_MODULES:
            self.ctx.note(importer.file, importer.file_span(*importer.span(node)),
                          f"{self.ctx.display_path(path)}: not read for its values ({MAX_MODULES} other modules "
                          "already read for this file)")
            return None
        used.add(key)
        self.ctx.deps.add(key)
        if key in self._flows:
            self._flows.move_to_end(key)
            cached = self._flows[key]
            if cached is not None:
                cached.deadline = importer.deadline  # the budget of the file being read now
            return cached
        from promptlint.sources.python.flow import Flow

        foreign = None
        try:
            file = read_source(path, self.ctx)
            module = cst.parse_module(file.text)
            foreign = Flow(module, positions(module), file, self.ctx)
            foreign.deadline = importer.deadline
        except (SourceError, cst.ParserSyntaxError, RecursionError, KeyError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.ctx.note(importer.file, importer.file_span(*importer.span(node)),
                          f"{self.ctx.display_path(path)}: not read for its values ({why})")
        self._flows[key] = foreign
        if len(self._flows) > MAX_CACHED:
            self._flows.popitem(last=False)
        return foreign


# ---------------------------------------------------------------- moving values

def relocate(value, foreign, flow, node):
    """`value` of the flow `foreign`, as a value of `flow` used at `node`:
    literal text keeps its characters, every position becomes the use's.
    None for what cannot cross (functions, classes, values without evidence)."""
    start, end = flow.span(node)
    span = flow.file_span(start, end)

    def move(v, top=False):
        if isinstance(v, StrV):
            return StrV(merge([Lit.synthetic(s.text, start, end) if isinstance(s, Lit) else
                               s if _here(s, flow) else _slot(s, span) for s in v.segs]), node)
        if isinstance(v, ConstV):
            return ConstV(v.value, node)
        if isinstance(v, (ListV, SetV)):
            items = [move(i) for i in v.items]
            if any(i is None for i in items):
                return None
            return ListV(items, node, v.is_tuple) if isinstance(v, ListV) else SetV(items, node)
        if isinstance(v, DictV):
            pairs = []
            for k, x in v.pairs:
                moved_key, moved = (None if k is None else move(k)), move(x)
                if moved is None or (k is not None and moved_key is None):
                    return None
                pairs.append((moved_key, moved))
            return DictV(pairs, node, [None] * len(pairs))
        if isinstance(v, MsgV):
            content = v.content if v.content is None else move(v.content)
            return None if content is None and v.content is not None else \
                dataclasses.replace(v, content=content, node=node)
        if isinstance(v, TemplV):
            text = move(v.text)
            return None if text is None else TemplV(text, node)
        if isinstance(v, Spread):
            inner = move(v.value)
            return None if inner is None else Spread(inner, node)
        if isinstance(v, Opaque):
            verdict = v.effective()
            if verdict.volatility.name == "UNKNOWN" and top:
                return None  # no evidence there either: our own reading of the name stands
            return Opaque(v.label, verdict, node, names=v.names, clock=v.clock, kind=v.kind, qual=v.qual)
        if isinstance(v, FuncV):
            return ForeignFuncV(v, foreign, node)
        if isinstance(v, ForeignFuncV):
            return ForeignFuncV(v.func, v.flow, node)
        if isinstance(v, lcel.ChatTemplV):  # a chat template another module defines: its messages, here
            messages = move(v.messages)
            return None if messages is None else dataclasses.replace(v, messages=messages, node=node,
                                                                     partials={}, partial_nodes={})
        return None

    return move(value, top=True)


def carry(value, flow):
    """A value of the calling file as an argument of a function of another
    module: its text and slots kept, its syntax nodes (positions in the
    calling file) dropped, since the other module's flow cannot place them.
    What has no meaning there (a function or class of the caller) becomes an
    opaque value with the same verdict."""
    if isinstance(value, StrV):
        return StrV([Lit.synthetic(s.text, 0, 0) if isinstance(s, Lit) else s for s in value.segs])
    if isinstance(value, ConstV):
        return ConstV(value.value)
    if isinstance(value, ListV):
        return ListV([carry(i, flow) for i in value.items], None, value.is_tuple)
    if isinstance(value, SetV):
        return SetV([carry(i, flow) for i in value.items])
    if isinstance(value, DictV):
        pairs = [(None if k is None else carry(k, flow), carry(v, flow)) for k, v in value.pairs]
        return DictV(pairs, None, [None] * len(pairs))
    if isinstance(value, Spread):
        return Spread(carry(value.value, flow))
    if isinstance(value, MsgV):
        content = None if value.content is None else carry(value.content, flow)
        return dataclasses.replace(value, content=content, node=None)
    if isinstance(value, TemplV):
        return TemplV(carry(value.text, flow), None, value.style)
    if isinstance(value, Opaque) and value.pinned:  # filled text: it stays where it was filled
        return StrV([flow.slot(value)])
    if isinstance(value, Opaque):
        return dataclasses.replace(value, node=None, span=None, fix=None)
    return Opaque(flow.label_of(value), flow.verdict(value), None, names=flow.names_of(value))


def _decorated(func) -> str | None:
    """"staticmethod" or "classmethod" when `func` is declared so."""
    for dec in func.decorators:
        if isinstance(dec.decorator, cst.Name) and dec.decorator.value in ("staticmethod", "classmethod"):
            return dec.decorator.value
    return None


def _here(slot: Slot, flow) -> bool:
    """A slot of the calling file that went through a function of another
    module as its argument: it stays where it is written."""
    return slot.span is not None and slot.span.file is flow.file


def _slot(slot: Slot, span) -> Slot:
    def part(p):
        if isinstance(p, Slot):
            return _slot(p, span)
        if isinstance(p, Text):
            return dataclasses.replace(p, span=span)
        return p

    return dataclasses.replace(slot, span=span, fix=None, children=[part(c) for c in slot.children],
                               else_children=[part(c) for c in slot.else_children])
