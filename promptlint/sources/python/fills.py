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
the arms of an `if`. The same search finds the calls of a function no code
of its own module calls (`callers`): its parameters with no evidence take
what those pass (`generate_system_prompt(request.name, bio)`, flow.parameter).

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

from promptlint.analysis.volatility import Verdict, model_answer, no_evidence
from promptlint.discover import MAX_TREE_FILES, python_files
from promptlint.ir import Slot, SlotKind
from promptlint.sources.python.scope import _dotted_name
from promptlint.sources.python.stdlib import _args
from promptlint.sources.python.values import named_by

MAX_SCAN_BYTES = 64 * 1024 * 1024  # Python text kept for the run's searches
MAX_FILE_BYTES = 1024 * 1024  # a larger module is not searched
MAX_FILL_MODULES = 8  # importing modules read for one template
_NAME = re.compile(r"[A-Za-z_]\w*")
# an agent or chain that keeps its answer under a key (`output_key="trip_plan"`), indexed in the tree by
# OUTPUT_KEY + the key
_OUTPUT_KEY = re.compile(r"\boutput_key\s*=\s*[\"']([A-Za-z_]\w*)[\"']")
OUTPUT_KEY = "output_key="


def apply(flow, label: str, sections, node) -> None:
    """Give the fields of the prompt `label` of this module (a constant, a
    class attribute, a builder without parameters), defined at `node`, that
    have no evidence the volatility of what the tree's fill sites pass."""
    fields = _fields_of(sections)
    if not fields:
        return
    found = _evidence(flow, label, set(fields), node)
    found.update(_answers_kept(flow, set(fields) - set(found)))
    _give(fields, found)


def _give(fields: dict, found: dict) -> None:
    """Each field's slots take the evidence found for it, with where."""
    for name, (verdict, where) in found.items():
        for slot in fields[name]:
            slot.volatility = verdict.volatility
            slot.reason = f"filled at {where}: {verdict.reason}"


def _fields_of(sections) -> dict:
    """{field name: [slot]} of the sections' fields that have no evidence."""
    fields: dict = {}
    for section in sections:
        _unknown_fields(section.parts, fields)
    return fields


def _unknown_fields(parts, out: dict) -> None:
    for part in parts:
        if isinstance(part, Slot):
            if part.kind is SlotKind.VARIABLE and len(part.names) == 1 and not part.volatility.evidenced:
                out.setdefault(part.names[0], []).append(part)
            _unknown_fields(part.children, out)
            _unknown_fields(part.else_children, out)


def _evidence(flow, label: str, fields: set[str], node) -> dict:
    """{field: (verdict, "file:line")} from the calls of the tree's other
    modules that fill `label`: the most volatile evidence of each field."""
    best: dict = {}
    for foreign, call, scope in _sites(flow, label, node, False):
        frame = foreign.frame_for(scope)
        line = foreign.file.position(foreign.span(call)[0])[0]
        where = f"{foreign.file.display_path}:{line}"
        for name, value in _passed(call):
            if name not in fields:
                continue
            verdict = foreign.verdict(named_by(flow.ctx, name, foreign.eval_at(value, frame, call)))
            if no_evidence(verdict):
                continue
            if name not in best or verdict.volatility > best[name][0].volatility:
                best[name] = (Verdict(verdict.volatility, f"{name}={foreign.src(value)[:60]}: "
                                                           f"{verdict.reason}"), where)
    return best


def apply_answers(flow, sections) -> None:
    """Give the fields of an agent's instruction (`LlmAgent(instruction=...)`)
    that have no evidence the answer an agent of the tree keeps under that
    key (`_answers_kept`)."""
    fields = _fields_of(sections)
    _give(fields, _answers_kept(flow, set(fields)))


def _answers_kept(flow, fields: set[str]) -> dict:
    """{field: (verdict, "file:line")} for the fields an agent or chain of the
    tree writes its answer under (`LlmAgent(..., output_key="trip_plan")`:
    Google ADK keeps an agent's reply in the session state under its
    output_key, and an instruction's `{trip_plan}` reads it; a LangChain
    `LLMChain(output_key=...)` hands it to the next chain's prompt)."""
    if not fields:
        return {}
    tree = _tree(flow.ctx)
    flow.ctx.trees.add(flow.ctx.root.resolve())  # the result now depends on the tree's other files (result cache)
    out = {}
    for name in sorted(fields):
        for path in (tree or {}).get(OUTPUT_KEY + name, ())[:1]:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            match = next((m for m in _OUTPUT_KEY.finditer(text) if m.group(1) == name), None)
            if match is None:
                continue
            line = text.count("\n", 0, match.start()) + 1
            where = f"{flow.ctx.display_path(path)}:{line}"
            out[name] = (model_answer(f"output_key={name!r}: the agent's reply, kept in the session state"), where)
    return out


def callers(flow, function: cst.FunctionDef) -> list:
    """(importing module's flow, call, the scope it is made in) of each call
    of this module's function `function` in the tree's other modules."""
    return list(_sites(flow, function.name.value, function.name, True))


def _sites(flow, label: str, node, calls: bool):
    """(foreign flow, call, scope) of the calls in the tree's other modules
    that fill the template `label` (or, with `calls`, call the function
    `label`), at most MAX_FILL_MODULES importing modules read; a note says
    when the tree or the modules are past the limits."""
    from promptlint.sources.python.project import project_of

    ctx = flow.ctx
    here = flow.file.path.resolve()
    tree = _tree(ctx)
    ctx.trees.add(ctx.root.resolve())  # the result now depends on the tree's other files (result cache)
    what = "callers" if calls else "fill sites"
    if tree is None:
        ctx.note(flow.file, flow.file_span(*flow.span(node)), f"{label}: {what} in other modules not searched "
                 f"(the tree has more than {MAX_TREE_FILES:,} files or {MAX_SCAN_BYTES // 2**20} MiB of Python)")
        return
    parts = label.split(".")
    project = project_of(ctx)
    read = 0
    candidates = tree.get(parts[-1], [])
    if calls:  # `from . import prompts; prompts.build_prompt(...)`: by the module's name too
        stem = here.parent.name if here.stem == "__init__" else here.stem
        candidates = list(dict.fromkeys([*candidates, *tree.get(stem, [])]))
    called = re.compile(rf"\b{re.escape(parts[-1])}\s*\(") if calls else None
    importing = _import_words(here, parts)
    for path in candidates:
        if path == here or called is not None and not _mentions(path, called):
            continue  # (a module that imports this one but never calls the function is not parsed)
        if not importing & _imported_words(ctx, path):
            continue  # its imports cannot name this module (_receivers would find none): not parsed
        if read >= MAX_FILL_MODULES:
            ctx.note(flow.file, flow.file_span(*flow.span(node)),
                     f"{label}: {what} past {MAX_FILL_MODULES} importing modules not read")
            return
        foreign = project.flow(path, (flow, node))
        if foreign is None:
            continue
        receivers = _receivers(project, foreign, here, parts)
        if not receivers:
            continue
        read += 1
        for call, scope in _format_calls(foreign, receivers, calls):
            yield foreign, call, scope


def _import_words(module: Path, parts: list[str]) -> set[str]:
    """The words one of a module's import lines must hold to import `parts`
    of `module` (what _receivers resolves): the module's own name (`from
    .prompts import ORDER`, `import app.prompts`, `from app import prompts`),
    a package's folder name, and for a package's `__init__` the first name
    itself (`from . import ORDER`)."""
    if module.stem == "__init__":
        return {module.parent.name, parts[0]}
    return {module.stem}


def _imported_words(ctx, path: Path) -> frozenset:
    """The words of the import lines of the module at `path`, read once per run."""
    memo = ctx.shared.setdefault("python.import_words", {})
    words = memo.get(path)
    if words is None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        words = memo[path] = frozenset(w for line in _IMPORT_LINE.findall(text) for w in _NAME.findall(line))
    return words


def _mentions(path: Path, pattern: re.Pattern) -> bool:
    try:
        return pattern.search(path.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


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
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]+(?:\([^)]*\)|.*)", re.M)
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


def _format_calls(foreign, receivers: set[str], calls: bool = False):
    """(call, scope) of each call filling the template in the module: `T.format(...)`,
    `T().format(...)`, and a wrapper made from it (`Template(T).render(...)`,
    `PromptTemplate.from_template(T).invoke({...})`); with `calls`, each call of
    the builder itself (`build_prompt(...)`, `prompts.build_prompt(...)`)."""
    by_callee, fills = _calls_in(foreign)
    if calls:
        return [site for name in receivers for site in by_callee.get(name, ())]
    return [(call, scope) for call, scope in fills if _template(call.func.value, scope) in receivers]


def _calls_in(foreign) -> tuple[dict, list]:
    """The module's calls, indexed once per module and run: {callee as written:
    [(call, scope)]}, and the (call, scope) of each call of a fill method."""
    if foreign.fill_calls is not None:
        return foreign.fill_calls
    index = foreign.index
    by_callee: dict = {}
    fills: list = []

    class Visitor(cst.CSTVisitor):
        def __init__(self):
            self.stack = [index.module]

        def visit_FunctionDef(self, node):
            self.stack.append(index.scopes.get(id(node), self.stack[-1]))

        def leave_FunctionDef(self, node):
            self.stack.pop()

        def visit_Call(self, node):
            func = node.func
            name = _dotted_name(func)
            if name:
                by_callee.setdefault(name, []).append((node, self.stack[-1]))
            if isinstance(func, cst.Attribute) and func.attr.value in _FILL_METHODS:
                fills.append((node, self.stack[-1]))

    index.module.node.visit(Visitor())
    foreign.fill_calls = (by_callee, fills)
    return foreign.fill_calls


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
        if isinstance(node, cst.Call):  # `T()`, `Template(T)`, `PromptTemplate(template=T, input_variables=[...])`
            if node.args:
                positional, keywords = _args(node)
                node = keywords.get("template", positional[0] if positional else None)
                if node is None:
                    return None
            else:
                node = node.func
            continue
        break
    return _dotted_name(node)


def _tree(ctx) -> dict | None:
    """{name: [path]} of the project's Python files: those that fill a
    template somewhere (`.format(`, `.render(` ... in their text) by every
    name they use, the others by the names they import (where a builder's
    caller is found): built once per run, so that each template looks up
    its own name instead of searching the text again; None past the limits."""
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
        total += len(text)
        if total > MAX_SCAN_BYTES:
            out = None
            break
        resolved = path.resolve()
        # a module that fills a template somewhere, by every name it uses; any other (it may
        # call a builder), by the names it imports
        words = _NAME.findall(text) if _FILLS.search(text) else \
            [w for line in _IMPORT_LINE.findall(text) for w in _NAME.findall(line)]
        words += [OUTPUT_KEY + key for key in _OUTPUT_KEY.findall(text)]
        for name in set(words):
            out.setdefault(name, []).append(resolved)
    ctx.shared["python.fill_tree"] = out
    return out
