"""Strings as Python code builds them, for the data flow (flow):
f-string fields and `format()` placeholders filled with the values that reach
them, `str.format`/`format_map`, `%` and `string.Template` strings with
their fields bound to the arguments, `join`, and the string methods prompts
are built with. Every character that survives keeps its file offset
(strings); a value becomes a slot where it enters the text.
"""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from promptlint.analysis.volatility import UNKNOWN, no_evidence
from promptlint.sources.python import strings as strs
from promptlint.sources.python.strings import Lit, merge
from promptlint.sources.python.values import (
    ConstV, DictV, ListV, LoopV, Opaque, SetV, Spread, StrV, literal_text, named_by, relabel, short,
)
from promptlint.sources.slots import variable_slot


def _derived(flow, value, node) -> Opaque:
    """Something computed from a value: as volatile as the value."""
    return Opaque(flow.src(node), flow.verdict(value), node, names=flow.names_of(value))


def _dict_kwargs(d: DictV) -> dict:
    return {literal_text(k): v for k, v in d.pairs if k is not None and literal_text(k) is not None}


def call_kwargs(flow, node, frame, keywords) -> dict:
    """The keyword arguments of a call, with those of a `**mapping` it
    spreads when the mapping is known (the explicit ones win, as in Python)."""
    kwargs = {k: flow.eval(v, frame) for k, v in keywords.items()}
    for a in node.args:
        if a.star == "**":
            spread = flow.eval(a.value, frame)
            if isinstance(spread, DictV):
                kwargs = {**_dict_kwargs(spread), **kwargs}
    return kwargs


def str_method(flow, base: StrV, attr, node, frame, positional, keywords):
    args = [flow.eval(a, frame) for a in positional]
    # kotaemon's PromptTemplate(t).populate(x=...); LangChain's PromptTemplate(template=t).partial(x=...), whose
    # fields not given stay fields of the text
    if attr == "format" or attr in ("populate", "partial") and not positional:
        kwargs = call_kwargs(flow, node, frame, keywords)
        for a in node.args:
            if a.star == "*":
                spread = flow.eval(a.value, frame)
                if isinstance(spread, ListV):
                    args += spread.items
        written = written_arguments(positional, keywords) if not any(a.star for a in node.args) else None
        if isinstance(base.node, cst.Call):  # `PromptTemplate(template=t).format(...)`: read filled, here
            flow.filled.add(id(base.node))
            flow.template_fills.add(id(node))
        return StrV(render_fields(flow, base, strs.scan_format, args, kwargs, written), node)
    if attr == "format_map" and args:
        kwargs = _dict_kwargs(args[0]) if isinstance(args[0], DictV) else {}
        written = _dict_arguments(args[0]) if isinstance(args[0], DictV) else None
        return StrV(render_fields(flow, base, strs.scan_format, [], kwargs, written), node)
    if attr == "join" and args:
        lines = _each_line_of(flow, positional[0], frame)
        if lines is not None:  # `" ".join(line.strip() for line in text.splitlines())`: the text itself
            return StrV(_rejoined(lines.segs, literal_text(base)), node) if literal_text(base) is not None \
                else lines
        return StrV(join(flow, base, args[0], positional[0]), node)
    if attr in ("strip", "lstrip", "rstrip"):
        chars = literal_text(args[0]) if args else None
        if args and chars is None:
            return _derived(flow, base, node)
        return StrV(strs.strip(base.segs, chars, attr != "rstrip", attr != "lstrip"), node)
    if attr == "replace" and len(args) >= 2:
        old, new = literal_text(args[0]), literal_text(args[1])
        if old is not None and new is not None:
            return StrV(strs.replace(base.segs, old, new), node)
        if old and len(args) == 2 and not keywords:  # template.replace("{goal}", goal): the value enters there
            if not _passes_through(positional[1]):  # computed in the call: at the argument
                return StrV(strs.replace_with(base.segs, old, fill(flow, args[1], None, None, positional[1])), node)

            def at_marker(start: int, end: int) -> list:  # a name passed through: at the marker it fills
                span = (start, end) if start != end else flow.span(positional[1])
                return fill(flow, args[1], None, None, positional[1], old, span)
            return StrV(strs.replace_with(base.segs, old, at_marker), node)
    if attr in ("upper", "lower", "title", "capitalize", "casefold", "swapcase"):
        segs = []
        for seg in base.segs:
            if isinstance(seg, Lit):
                changed = getattr(seg.text, attr)()
                if len(changed) != len(seg.text):
                    return _derived(flow, base, node)
                seg = Lit(changed, seg.offsets)
            segs.append(seg)
        return StrV(segs, node)
    if attr in ("removeprefix", "removesuffix") and args and literal_text(args[0]) is not None:
        fix = literal_text(args[0])
        segs = merge(base.segs)
        if segs and isinstance(segs[0 if attr == "removeprefix" else -1], Lit):
            i = 0 if attr == "removeprefix" else -1
            text = segs[i].text
            if attr == "removeprefix" and fix and text.startswith(fix):
                segs[i] = strs.sub_lit(segs[i], len(fix), len(text))
            elif attr == "removesuffix" and fix and text.endswith(fix):
                segs[i] = strs.sub_lit(segs[i], 0, len(text) - len(fix))
        return StrV(segs, node)
    return _derived(flow, base, node)


_LINE_SPLITS = ("splitlines", "split")
_LINE_TRIMS = ("strip", "lstrip", "rstrip")


def _each_line_of(flow, node, frame) -> StrV | None:
    """The text whose lines a comprehension yields one by one, trimmed or
    as they are (`[line.strip() for line in text.splitlines()]`, `for l in
    text.split("\n")`), when that text is a string we read; else None."""
    if not isinstance(node, (cst.ListComp, cst.GeneratorExp)) or node.for_in.inner_for_in is not None \
            or node.for_in.ifs or not isinstance(node.for_in.target, cst.Name):
        return None
    target, it, elt = node.for_in.target.value, node.for_in.iter, node.elt
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value in _LINE_SPLITS):
        return None
    if it.func.attr.value == "split" and not (len(it.args) == 1 and isinstance(it.args[0].value, cst.SimpleString)
                                              and it.args[0].value.evaluated_value == "\n"):
        return None
    if isinstance(elt, cst.Call) and isinstance(elt.func, cst.Attribute) and elt.func.attr.value in _LINE_TRIMS \
            and not elt.args:
        elt = elt.func.value
    if not (isinstance(elt, cst.Name) and elt.value == target):
        return None
    text = flow.eval(it.func.value, frame)
    return text if isinstance(text, StrV) else None


def _rejoined(segs: list, sep: str) -> list:
    """Text whose line breaks (and the spaces around them) become `sep`:
    the characters kept keep their file offsets, `sep` takes the break's."""
    out = []
    for seg in segs:
        if not isinstance(seg, Lit) or "\n" not in seg.text:
            out.append(seg)
            continue
        text, offsets, keep = seg.text, seg.offsets, []
        i = 0
        while i < len(text):
            if text[i] == "\n":
                while keep and keep[-1] >= 0 and text[keep[-1]] in " \t\r":
                    keep.pop()  # the spaces before the break
                j = i + 1
                while j < len(text) and text[j] in " \t\r":
                    j += 1  # the indentation after it
                keep.append(-(i + 1))  # the separator, at the break
                i = j
                continue
            keep.append(i)
            i += 1
        chars, offs = [], []
        for k in keep:
            if k < 0:
                chars.append(sep)
                offs += [offsets[-k - 1]] * len(sep)
            else:
                chars.append(text[k])
                offs.append(offsets[k])
        out.append(Lit("".join(chars), offs + [offsets[-1]]))
    return out


def fill(flow, value, conversion, spec, node, label=None, span=None) -> list:
    """Segments of a value placed in a string by an f-string field or a
    format placeholder (at `span` with text `label` when given)."""
    where = {"label": label, "span": span} if span is not None else None
    if isinstance(value, StrV) and conversion is None and not spec:
        value = flow.entering(value, node, label, span)
    if isinstance(value, StrV):
        if conversion in ("r", "a"):
            text = literal_text(value)
            if text is None:
                return _at(flow, _derived(flow, value, node), where)
            s, e = span or flow.span(node)
            return [Lit.synthetic(repr(text), s, e)]
        if spec:
            text = literal_text(value)
            if text is not None:
                s, e = span or flow.span(node)
                try:
                    return [Lit.synthetic(format(text, spec), s, e)]
                except (ValueError, TypeError):
                    pass
        return list(value.segs)
    if isinstance(value, ConstV):
        s, e = span or (flow.span(value.node) if value.node is not None else flow.span(node))
        try:
            shown = repr(value.value) if conversion in ("r", "a") else value.value
            return [Lit.synthetic(format(shown, spec or ""), s, e)]
        except (ValueError, TypeError):
            return [Lit.synthetic(str(value.value), s, e)]
    if isinstance(value, Opaque):
        if value.clock and spec:
            from promptlint.sources.python.stdlib import clock_format

            value = clock_format(flow, value, spec, value.node)
        return _at(flow, value, where)
    if isinstance(value, LoopV):
        slot = flow.loop_slot(value)
        if where is not None and not value.order:
            # text a loop built elsewhere (`formatted_docs`, joined in a helper) enters the prompt
            # here, like any value; a loop whose order changes stays at the loop (sorted() goes there)
            slot = replace(slot, span=flow.file_span(*where["span"]), label=where["label"],
                                       reason=f"{where['label']} is {short(slot.label)}: {slot.reason}")
        return [slot]
    return _at(flow, Opaque(flow.src(node), flow.verdict(value), node, names=flow.names_of(value)), where)


def _at(flow, op: Opaque, where) -> list:
    if where is not None:
        op = relabel(op, where["label"], op.node, span=where["span"])
    return [flow.slot(op)]



def render_fields(flow, text: StrV, scanner, args: list, kwargs: dict, written: dict | None = None) -> list:
    """A `.format`/`%`/`Template` string with its fields replaced by the
    arguments' values; a field with no argument stays a slot named by it.
    `written`: the argument expressions of the call (keyword name or
    position -> node): a value an argument computes (`now=datetime.now()`)
    is placed at that argument, where it enters the prompt; a name passed
    through (`question=question`) at the field it fills, the text a fix
    moves; a field not written in this file (a loaded template) at the
    argument either way."""
    out: list = []
    auto = 0
    bound = strs.jinja_bindings("".join(s.text for s in text.segs if isinstance(s, Lit))) \
        if scanner is strs.scan_jinja_fields else {}
    for seg in merge(text.segs):
        if not isinstance(seg, Lit):
            out.append(seg)
            continue
        items = scanner(seg.text)
        if items is None:  # Python would refuse it: leave the text alone
            out.append(seg)
            continue
        for item in items:
            if item[0] == "text":
                out.append(strs.sub_lit(seg, item[1], item[2], item[3]))
                continue
            _, i, j, name, conversion, spec = item
            label = seg.text[i:j]
            span = (seg.offsets[i], seg.offsets[j])
            root = re.match(r"[^.\[]*", name or "").group() if name is not None else ""
            rest = (name or "")[len(root):]
            if name is None or root == "":
                value = args[auto] if auto < len(args) else None
                root = str(auto)
                auto += 1
            elif root.isdigit():
                value = args[int(root)] if int(root) < len(args) else None
            else:
                value = kwargs.get(root)
            if value is not None and rest:
                value = _field_path(flow, value, rest, label)
            if value is not None and root and not root.isdigit():
                value = named_by(flow.ctx, root, value)
            if value is None and root in bound:
                out.append(_bound_in_template(flow, root, label, bound, kwargs, span, written))
                continue
            if value is None:
                out.append(variable_slot(root if root and not root.isdigit() else label, label,
                                         flow.file_span(*span), flow.ctx))
                continue
            argument = (written or {}).get(root if root and not root.isdigit() else int(root or 0))
            if argument is not None and _in_file(flow, argument) and \
                    (span[0] == span[1] or not _passes_through(argument)):
                span = flow.span(argument)
            elif span[0] == span[1] and value_node(value) is not None:
                # the field is not written in this file (a template file the code loads):
                # the value enters the prompt at the argument that fills it
                span = flow.span(value_node(value))
            out += fill(flow, value, conversion, spec, value_node(value) or text.node, label, span)
    return out


def _bound_in_template(flow, root: str, label: str, bound: dict, kwargs: dict, span, written):
    """A field of a name the template binds itself (`{% set outputs = layout
    | first %}`, `{% for item in documentation %}`): as volatile as what its
    binding reads, the values the call passes for those (its own name is no
    evidence); in a template not written in this file, placed at the
    argument that passes the value."""
    from promptlint.ir import Slot, SlotKind

    reads, seen, todo = [], {root}, list(bound[root])
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in bound:
            todo.extend(bound[name])
        else:
            reads.append(name)
    passed = [(n, kwargs[n]) for n in reads if n in kwargs]
    if passed:
        name, value = max(passed, key=lambda p: flow.verdict(p[1]).volatility)
        verdict = flow.verdict(value)
        reason = f"{root} is set in the template from {name}: {verdict.reason}"
        argument = (written or {}).get(name)
        if span[0] == span[1] and argument is not None and _in_file(flow, argument):
            span = flow.span(argument)
    else:  # what it reads is an input nothing passes: that input's own evidence
        verdict = max((flow.ctx.variables.resolve(n) for n in reads), key=lambda v: v.volatility, default=UNKNOWN)
        reason = f"{root} is set in the template from {', '.join(reads) or 'constants'}: {verdict.reason}"
    return Slot(label, SlotKind.VARIABLE, verdict.volatility, reason, flow.file_span(*span),
                names=tuple(reads) or (root,))


def _passes_through(argument) -> bool:
    """`request=request`, `question=state.question`: the argument only
    names a value computed elsewhere, so it enters the prompt at the field
    it fills (the text a fix moves); an argument that computes the value
    (`now=datetime.now()`, `docs="\\n".join(chunks)`) is where it enters.
    A fallback for when it is empty (`facts or "[]"`, `meta.get("q", "")`),
    or a choice between such names (`ref if first else pred`), still only
    names it."""
    if isinstance(argument, cst.Name):
        return True
    if isinstance(argument, cst.BooleanOperation):
        sides = (argument.left, argument.right)
        return all(_passes_through(side) or _fallback(side) for side in sides) \
            and not all(_fallback(side) for side in sides)
    if isinstance(argument, cst.IfExp):
        return all(_passes_through(arm) or _fallback(arm) for arm in (argument.body, argument.orelse))
    if isinstance(argument, cst.Call) and isinstance(argument.func, cst.Attribute) \
            and argument.func.attr.value == "get" and 1 <= len(argument.args) <= 2 \
            and all(_fallback(a.value) for a in argument.args):
        return _passes_through(argument.func.value)  # `metadata.get("question")`: a field read
    if isinstance(argument, cst.Attribute) or isinstance(argument, cst.Subscript) and _field_key(argument):
        return _passes_through(argument.value)  # `state.question`, `row["question"]`: a field read
    return False


def _fallback(node) -> bool:
    """A literal an argument falls back to (`""`, `[]`, `{}`, `None`, `0`)."""
    return isinstance(node, (cst.SimpleString, cst.List, cst.Dict, cst.Integer)) \
        or isinstance(node, cst.Name) and node.value in ("None", "True", "False")


def _field_key(node: cst.Subscript) -> bool:
    return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
        and isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.Integer))


def _in_file(flow, node) -> bool:
    try:
        flow.span(node)
    except KeyError:
        return False
    return True


def written_arguments(positional, keywords) -> dict:
    """The argument expressions of a call, by keyword name and by position."""
    out: dict = dict(enumerate(positional))
    out.update(keywords)
    return out


def _dict_arguments(d: DictV) -> dict:
    """The value expressions of a dict literal written in the call (`% {"name": user}`), by key."""
    out = {}
    for (k, _), element in zip(d.pairs, d.key_nodes):
        if k is not None and isinstance(element, cst.DictElement) and literal_text(k) is not None:
            out[literal_text(k)] = element.value
    return out


def value_node(value):
    return getattr(value, "node", None)


def _field_path(flow, value, rest: str, label: str):
    m = re.fullmatch(r"\[([^\]]+)\]", rest)
    if m and isinstance(value, DictV):
        found = value.get(m.group(1))
        if found is not None:
            return found
    if isinstance(value, Opaque):
        from promptlint.sources.python.flow import strip_self

        name = strip_self(value.label) + rest.replace("[", ".").replace("]", "")
        verdict = flow.ctx.variables.resolve(name)
        if no_evidence(verdict):
            verdict = value.verdict
        return replace(value, label=label, verdict=verdict, names=(name,), clock=None)
    return Opaque(label, flow.verdict(value), value_node(value), names=flow.names_of(value))


def percent(flow, text: StrV, rhs, node):
    if isinstance(rhs, DictV):
        return StrV(render_fields(flow, text, strs.scan_percent, [], _dict_kwargs(rhs), _dict_arguments(rhs)), node)
    args = list(rhs.items) if isinstance(rhs, ListV) and rhs.is_tuple else [rhs]
    return StrV(render_fields(flow, text, strs.scan_percent, args, {}), node)


def join(flow, sep: StrV, iterable, iter_node) -> list:
    known = flow.known_items(iterable)
    if known is not None:
        out: list = []
        for i, item in enumerate(known):
            if i:
                out += sep.segs
            out += flow.segs(item)
        return out
    if isinstance(iterable, LoopV):
        return [flow.loop_slot(replace(iterable, sep=list(sep.segs)))]
    if isinstance(iterable, ListV):  # with spreads or loop regions inside
        out = []
        for i, item in enumerate(iterable.items):
            if i:
                out += sep.segs
            out += flow.segs(item.value if isinstance(item, Spread) else item)
        return out
    order, _ = flow.order_of(iterable)
    if order or isinstance(iterable, SetV):
        item = flow.item_of(iterable, iter_node)
        loopv = flow.loop("item", iter_node, iterable, item)
        loopv.sep = list(sep.segs)
        return [flow.loop_slot(loopv)]
    return flow.segs(iterable)
