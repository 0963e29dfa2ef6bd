"""Tool lists built in an order that changes, where this file does not send them.

A list named for tools (`tools`, `self._tools`, `functions`, `tool_schemas`)
filled in a loop over a set, a directory listing or results as they finish
(`for name in set(config.tools): self._tools.append(...)`), or made by a
comprehension over one (`[Function(p) for p in folder.glob("*.py")]`), is
offered to the model in that order wherever the app sends it: often in
another module, through a base class, which this file does not show. The
list is read as a prompt of its own, a tools section, so that PL002 reports
the loop. A list this file sends at a call we know is read there instead.
"""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from promptlint.ir import Section
from promptlint.sources.python.scope import _dotted_name
from promptlint.sources.python.values import LoopV, Opaque

# the last part of the list's name (self._tools -> tools), snake_case
_TOOL_LIST = re.compile(
    r"^(?:[a-z0-9]+_)*(?:tools|toolset|toolbox|functions|function_schemas|(?:tool|function)_(?:specs?|defs?|"
    r"definitions?|list|schemas?|declarations?))$")
_FILLS = ("append", "extend", "insert")
# the text of a file that builds such a list (`functions = [...`, `self._tools.append(`): read
# before parsing, so that a file with none of them is skipped unparsed
HINT = re.compile(r"\b_?\w*(?:tools|functions|tool_(?:specs?|defs?|definitions?|list|schemas?))"
                  r"[ \t]*(?:=[ \t]*(?:list|tuple)?[ \t]*[\[(]|\.(?:append|extend|insert)\()")


def tool_target(node) -> str | None:
    """The dotted name of a list named for tools (`self._tools`, `functions`), else None."""
    dotted = _dotted_name(node)
    if dotted is None:
        return None
    last = dotted.rsplit(".", 1)[-1].lstrip("_").lower()
    return dotted if _TOOL_LIST.match(last) else None


def fills(call: cst.Call) -> str | None:
    """`self._tools.append(tool)`: the list's name, when it is named for tools."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _FILLS:
        return tool_target(func.value)
    return None


def passed(arg: cst.Arg) -> bool:
    """`tools=list(found)`, `functions=found`: a keyword named for tools given
    a collection by name (whose order the reader then looks up)."""
    if arg.keyword is None or not _TOOL_LIST.match(arg.keyword.value.lstrip("_").lower()):
        return False
    value = arg.value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("list", "tuple") \
            and len(value.args) == 1:
        value = value.args[0].value
    return isinstance(value, cst.Name)


def built(node) -> bool:
    """A value that builds a list by iterating: a comprehension, or list()/tuple() of one."""
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple") \
        and len(node.args) == 1 and isinstance(node.args[0].value, (cst.ListComp, cst.GeneratorExp))


def unordered_tools(flow, target: str, loop: cst.For | None, value, frame) -> list[Section]:
    """The tools section of a list filled in `loop` (or built by `value`), when
    its order changes between processes or requests; [] when it does not."""
    if loop is not None:
        iterable = flow.eval(loop.iter, frame)
        order, _ = flow.order_of(iterable)
        if order is None:
            return []
        item = flow.item_of(iterable, loop.iter)
        tool = Opaque(f"a tool of {target}", item.verdict, loop.iter, names=item.names)
        slot = flow.loop_slot(flow.loop(flow.src(loop.target), loop.iter, iterable, tool, at=loop))
        where = loop
    else:
        if isinstance(value, cst.Call):
            value = value.args[0].value
        found = flow.eval(value, frame)
        if isinstance(found, LoopV) and found.order:
            slot = flow.loop_slot(found)
        else:  # a set passed on (`tools=list(tools)` of a `set()` filled with .update())
            order, _ = flow.order_of(found)
            if order is None:
                return []
            item = flow.item_of(found, value)
            tool = Opaque(f"a tool of {target}", item.verdict, value, names=item.names)
            made = flow.loop(target, value, found, tool)
            # sorted() of callables or tool objects raises: the key is the author's to choose
            advice = f"send it in a fixed order: sorted({flow.src(value)}, key=...) by each tool's name"
            slot = flow.loop_slot(replace(made, label=flow.src(value), fix={"kind": "manual", "advice": advice}))
        where = value
    return [Section("tools", [slot], flow.file_span(*flow.span(where)))]
