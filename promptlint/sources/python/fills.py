"""How the rest of the checked tree fills a template this module defines.

`prompts.py` holds `ORDER = "Follow the order:\\n{order}\\n\\n<long rules>"`
and another module does `from .prompts import ORDER; ORDER.format(order=msg)`.
Read alone, `{order}` has no evidence; a reviewer looks at the fill site, and
so do we: the modules of the tree that import the template (by name, or its
module: `from . import prompts; prompts.ORDER.format(...)`, a class's
attribute or no-argument static method: `Prompts.order().format(...)`) and
fill it (`.format(field=value)`, `Template(T).render(...)`, `.substitute`,
a LangChain `PromptTemplate.from_template(T) | llm` run with
`.invoke({"field": value})`) give each field the volatility of the value
passed there, evaluated in that module's flow like any imported value. Only
fields with no evidence of their own take it, and only evidence: a value we
cannot judge there changes nothing. The most volatile site wins, as between
the arms of an `if`.

Limits: the files discovery would walk under the project root (no `.git`,
`node_modules`, virtual environments), at most MAX_TREE_FILES of them and
MAX_SCAN_BYTES of text for a run; MAX_FILL_MODULES importing modules read
for one template. The result then depends on every Python file of the tree
(a new file could fill the template), which the result cache checks
(SourceContext.trees).
"""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

from promptlint.analysis.volatility import Verdict, no_evidence
from promptlint.discover import MAX_TREE_FILES, python_files
from promptlint.ir import Slot, SlotKind
from promptlint.sources.python.scope import _dotted_name
from promptlint.sources.python.values import named_by

MAX_SCAN_BYTES = 64 * 1024 * 1024  # Python text kept for the run's searches
MAX_FILE_BYTES = 1024 * 1024  # a larger module is not searched
MAX_FILL_MODULES = 8  # importing modules read for one template
_NAME = re.compile(r"[A-Za-z_]\w*")


def apply(flow, label: str, sections, node) -> None:
    """Give the fields of the prompt `label` of this module (a constant, a
    class attribute, a builder without parameters), defined at `node`, that
    have no evidence the volatility of what the tree's fill sites pass."""
    fields = {}
    for section in sections:
        _unknown_fields(section.parts, fields)
    if not fields:
        return
    found = _evidence(flow, label, set(fields), node)
    for name, (verdict, where) in found.items():
        for slot in fields[name]:
            slot.volatility = verdict.volatility
            slot.reason = f"filled at {where}: {verdict.reason}"


def _unknown_fields(parts, out: dict) -> None:
    for part in parts:
        if isinstance(part, Slot):
            if part.kind is SlotKind.VARIABLE and len(part.names) == 1 and not part.volatility.evidenced:
                out.setdefault(part.names[0], []).append(part)
            _unknown_fields(part.children, out)
            _unknown_fields(part.else_children, out)


def _evidence(flow, label: str, fields: set[str], node) -> dict:
    """{field: (verdict, "file:line")} from the calls of the tree's other
    modules that fill `label` (the most volatile evidence of each field)."""
    from promptlint.sources.python.project import project_of

    ctx = flow.ctx
    here = flow.file.path.resolve()
    tree = _tree(ctx)
    ctx.trees.add(ctx.root.resolve())
    if tree is None:
        ctx.note(flow.file, flow.file_span(*flow.span(node)), f"{label}: fill sites in other modules not searched "
                 f"(the tree has more than {MAX_TREE_FILES:,} files or {MAX_SCAN_BYTES // 2**20} MiB of Python)")
        return {}
    parts = label.split(".")
    project = project_of(ctx)
    best: dict = {}
    read = 0
    for path in tree.get(parts[-1], ()):
        if path == here:
            continue
        if read >= MAX_FILL_MODULES:
            ctx.note(flow.file, flow.file_span(*flow.span(node)),
                     f"{label}: fill sites past {MAX_FILL_MODULES} importing modules not read")
            break
        foreign = project.flow(path, (flow, node))
        if foreign is None:
            continue
        receivers = _receivers(project, foreign, here, parts)
        if not receivers:
            continue
        read += 1
        for call, scope in _format_calls(foreign, receivers):
            frame = foreign.frame_for(scope)
            line = foreign.file.position(foreign.span(call)[0])[0]
            where = f"{foreign.file.display_path}:{line}"
            for name, value in _passed(call):
                if name not in fields:
                    continue
                verdict = foreign.verdict(named_by(ctx, name, foreign.eval(value, frame)))
                if no_evidence(verdict):
                    continue
                if name not in best or verdict.volatility > best[name][0].volatility:
                    best[name] = (Verdict(verdict.volatility, f"{name}={foreign.src(value)[:60]}: "
                                                               f"{verdict.reason}"), where)
    return best


def _receivers(project, foreign, module: Path, parts: list[str]) -> set[str]:
    """How the importing module `foreign` writes the template: `ORDER`,
    `prompts.ORDER`, `Prompts.order()`; empty when it does not import it."""
    out = set()
    for local, bindings in foreign.index.module.bindings.items():
        last = bindings[-1]
        if last.kind != "import" or not last.qual:
            continue
        qual = last.qual
        dots = len(qual) - len(qual.lstrip("."))
        names = qual[dots:].split(".")
        if not names[0]:
            continue
        rest = ".".join(parts[1:])
        if names[-1] == parts[0] and len(names) > 1 and _is(project.module_file(foreign.file.path, dots, names[:-1]),
                                                             module):
            out.add(".".join([local, *parts[1:]]) if rest else local)  # from .prompts import ORDER [as O]
        elif _is(project.module_file(foreign.file.path, dots, names), module):
            out.add(".".join([local, *parts]))  # from . import prompts; import app.prompts as prompts
    return out


def _is(path: Path | None, module: Path) -> bool:
    return path is not None and path.resolve() == module


_FILL_METHODS = {"format", "format_map", "render", "substitute", "safe_substitute", "invoke", "ainvoke",
                 "format_messages", "format_prompt"}
_FILLS = re.compile(rf"\.(?:{'|'.join(sorted(_FILL_METHODS))})\(")  # a module that may fill a template


def _passed(call: cst.Call):
    """(field, value node) of what a fill call passes: its keywords, and the
    string keys of a dict written in the call (`.invoke({"order": msg})`)."""
    for arg in call.args:
        if arg.keyword is not None:
            yield arg.keyword.value, arg.value
        elif isinstance(arg.value, cst.Dict):
            for el in arg.value.elements:
                if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString):
                    yield el.key.evaluated_value, el.value


def _format_calls(foreign, receivers: set[str]):
    """(call, scope) of each call filling the template in the module: `T.format(...)`,
    `T().format(...)`, and a wrapper made from it (`Template(T).render(...)`,
    `PromptTemplate.from_template(T).invoke({...})`)."""
    index = foreign.index
    out = []

    class Visitor(cst.CSTVisitor):
        def __init__(self):
            self.stack = [index.module]

        def visit_FunctionDef(self, node):
            self.stack.append(index.scopes.get(id(node), self.stack[-1]))

        def leave_FunctionDef(self, node):
            self.stack.pop()

        def visit_Call(self, node):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _FILL_METHODS \
                    and _template(func.value, self.stack[-1]) in receivers:
                out.append((node, self.stack[-1]))

    index.module.node.visit(Visitor())
    return out


def _template(node, scope) -> str | None:
    """The template a fill call's receiver is made from, as written: `T`,
    `T()`, `Template(T)`, `(from_template(T) | llm)`, or a local name
    assigned one of those (`chain = prompt | llm; chain.invoke(...)`)."""
    for _ in range(3):
        if isinstance(node, cst.Name) and node.value in scope.bindings and not scope.is_module:
            last = scope.bindings[node.value][-1]
            if last.kind == "assign" and last.value is not None and not isinstance(last.value, cst.Name):
                node = last.value
        while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            node = node.left  # a LangChain pipeline starts with its prompt
        if isinstance(node, cst.Call):  # `T()`, or `Template(T)`: the template as first argument
            node = node.func if not node.args else node.args[0].value
            continue
        break
    return _dotted_name(node)




def _tree(ctx) -> dict | None:
    """{name: [path]} of the project's Python files that fill a template
    somewhere (`.format(`, `.render(` ... in their text), by every name
    they use: built once per run, so that each template looks up its own
    name instead of searching the text again; None past the limits."""
    memo = ctx.shared.get("python.fill_tree", False)
    if memo is not False:
        return memo
    found = python_files(ctx.root)
    out: dict | None = {} if found is not None else None
    total = 0
    for path in found or ():
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if _FILLS.search(text):
            total += len(text)
            if total > MAX_SCAN_BYTES:
                out = None
                break
            resolved = path.resolve()
            for name in set(_NAME.findall(text)):
                out.setdefault(name, []).append(resolved)
    ctx.shared["python.fill_tree"] = out
    return out
