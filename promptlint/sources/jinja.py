"""Jinja templates (`.j2`, `.jinja`, `.jinja2`, and Prompty bodies) into the IR.

jinja2's own lexer gives the token stream and its parser validates the file
and analyses expressions; we walk the tokens ourselves because the AST has
line numbers but no columns, and every part needs an exact span (the same
idea as sqlfluff's slice map). Nothing is rendered here: volatility comes
from the names and calls an expression contains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from jinja2 import nodes

from promptlint.analysis.volatility import (
    FILTERS, SORTING_FILTERS, Verdict, classify_call, presence_test, strftime_precision,
)
from promptlint.ir import (
    Part, PromptTemplate, Section, Slot, SlotKind, SourceError, SourceFile, Span, Text, Volatility, names_in,
)
from promptlint.sources.base import SourceContext, read_source

_ENV = jinja2.Environment(autoescape=False)
_NEWLINE = re.compile(r"\r\n|\r|\n")
# Globals Jinja provides: never inputs.
_BUILTINS = {"loop", "range", "dict", "namespace", "cycler", "joiner", "true", "false", "none",
             "True", "False", "None", "varargs", "kwargs", "caller", "self", "super"}
_ORDERLESS_METHODS = {"items", "keys", "values"}
_STATIC = Verdict(Volatility.STATIC, "constant expression")
MAX_MACRO_DEPTH = 8  # macro calls inlined inside each other
MACRO_BUDGET = 20  # macro-body tokens inlined per token of the file, at most


@dataclass
class _Tok:
    kind: str
    value: str
    start: int  # offset in the fragment's text
    end: int
    line: int


@dataclass
class _Macro:
    params: list[str]
    body: list[_Tok]


@dataclass
class _Scope:
    """Names bound inside the template (loop targets, set, macro params)."""

    bindings: dict[str, Verdict] = field(default_factory=dict)
    parent: "_Scope | None" = None

    def lookup(self, name: str) -> Verdict | None:
        scope = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            scope = scope.parent
        return None

    def child(self) -> "_Scope":
        return _Scope({}, self)


def _normalized_map(text: str) -> tuple[str, list[int]]:
    """Jinja's lexer turns CRLF into LF; map its offsets back to ours."""
    if "\r" not in text:
        return text, list(range(len(text) + 1))
    out: list[str] = []
    mapping: list[int] = []
    i = 0
    for m in _NEWLINE.finditer(text):
        out.append(text[i:m.start()])
        mapping.extend(range(i, m.start()))
        out.append("\n")
        mapping.append(m.start())
        i = m.end()
    out.append(text[i:])
    mapping.extend(range(i, len(text) + 1))
    return "".join(out), mapping


class _Builder:
    """Turns one fragment's tokens into IR parts."""

    def __init__(self, text: str, file: SourceFile, index_map: list[int] | None,
                 ctx: SourceContext, base_dir: Path | None, stack: tuple[Path, ...],
                 keep_newlines: bool = False):
        self.keep_newlines = keep_newlines
        self.file = file
        self.ctx = ctx
        self.base_dir = base_dir
        self.stack = stack
        self.text = text
        norm, self.norm_map = _normalized_map(text)
        self.index_map = index_map
        self.macros: dict[str, _Macro] = {}
        self.expanding: list[str] = []  # macros being inlined, innermost last
        self.expanded = 0  # tokens inlined from macro bodies so far
        self.blocks: dict[str, list[_Tok]] = {}
        self.toks = self._lex(norm)
        self.budget = MACRO_BUDGET * (len(self.toks) + 100)

    # -- positions -------------------------------------------------------
    def offset(self, norm_offset: int) -> int:
        raw = self.norm_map[min(norm_offset, len(self.norm_map) - 1)]
        return raw if self.index_map is None else self.index_map[raw]

    def span(self, start: int, end: int) -> Span:
        return Span(self.file, self.offset(start), self.offset(end))

    def literal(self, tok: "_Tok") -> Text:
        """A data token as sent: Jinja's own rendering turns CRLF into LF, but
        a string that is only templated (a text prompt, a message content)
        keeps the line ends it was written with."""
        value = tok.value
        if self.keep_newlines:
            value = self.text[self.norm_map[tok.start]:self.norm_map[tok.end]]
        return Text(value, self.span(tok.start, tok.end))

    def error(self, line: int, message: str) -> SourceError:
        """An error at a 1-based line of this fragment, reported in file terms."""
        norm_line_start = 0
        for _ in range(line - 1):
            nxt = self.norm_text.find("\n", norm_line_start)
            if nxt < 0:
                break
            norm_line_start = nxt + 1
        fline, fcol = self.file.position(self.offset(norm_line_start))
        return SourceError(self.file.display_path, fline, message, fcol)

    def _lex(self, norm: str) -> list[_Tok]:
        self.norm_text = norm
        try:
            _ENV.parse(norm)
        except jinja2.TemplateSyntaxError as exc:
            raise self.error(exc.lineno or 1, f"Jinja syntax error: {exc.message}") from None
        toks: list[_Tok] = []
        cursor = 0
        for line, kind, value in _ENV.lexer.tokeniter(norm, None):
            if not value and kind == "data":
                continue
            pos = norm.find(value, cursor)
            if pos < 0:  # cannot happen for a raw token stream; keep going safely
                pos = cursor
            toks.append(_Tok(kind, value, pos, pos + len(value), line))
            cursor = pos + len(value)
        return toks

    # -- structure ---------------------------------------------------------
    def build(self, scope: "_Scope | None" = None) -> list[Part]:
        parts, _, _ = self._parts(0, scope or _Scope(), stop=())
        if self.parent_path is not None:
            return self._extend(parts)
        return parts

    parent_path: Path | None = None

    def _tag(self, i: int) -> tuple[str, list[_Tok], int]:
        """Block at toks[i] ('block_begin'): its name, inner tokens, index after it."""
        j = i + 1
        inner: list[_Tok] = []
        while j < len(self.toks) and self.toks[j].kind != "block_end":
            if self.toks[j].kind != "whitespace":
                inner.append(self.toks[j])
            j += 1
        name = inner[0].value if inner else ""
        return name, inner[1:], j + 1

    def _source(self, toks: list[_Tok]) -> str:
        if not toks:
            return ""
        return self.norm_text[toks[0].start : toks[-1].end]

    def _parts(self, i: int, scope: _Scope, stop: tuple[str, ...]):
        """Parts from toks[i] until a block whose name is in `stop`.
        Returns (parts, stop_name, index after the stop block's begin)."""
        parts: list[Part] = []
        toks = self.toks
        while i < len(toks):
            tok = toks[i]
            if tok.kind == "data":
                parts.append(self.literal(tok))
                i += 1
            elif tok.kind == "variable_begin":
                j = i + 1
                while toks[j].kind != "variable_end":
                    j += 1
                expr = [t for t in toks[i + 1 : j] if t.kind != "whitespace"]
                parts.append(self._output_slot(expr, scope, tok, toks[j]))
                i = j + 1
            elif tok.kind == "comment_begin":
                while toks[i].kind != "comment_end":
                    i += 1
                i += 1
            elif tok.kind == "raw_begin":
                i += 1
                while toks[i].kind != "raw_end":
                    if toks[i].kind == "data":
                        parts.append(self.literal(toks[i]))
                    i += 1
                i += 1
            elif tok.kind == "block_begin":
                name, inner, after = self._tag(i)
                if name in stop:
                    return parts, name, i
                i = self._block(name, inner, i, after, scope, parts)
            else:
                i += 1
        return parts, None, i

    def _skip_to(self, i: int, stop: tuple[str, ...], scope: _Scope):
        """Build and return parts up to the next stop block; (parts, name, tag inner, index after tag)."""
        parts, name, at = self._parts(i, scope, stop)
        tag_name, inner, after = self._tag(at) if name else ("", [], at)
        return parts, tag_name, inner, after

    def _block(self, name: str, inner: list[_Tok], begin: int, i: int, scope: _Scope,
               out: list[Part]) -> int:
        """Handle one `{% name ... %}`; append what it outputs; return the next index."""
        toks = self.toks
        block_span = self.span(toks[begin].start, toks[i - 1].end)
        if name == "for":
            return self._for(inner, block_span, i, scope, out)
        if name == "if":
            return self._if(inner, block_span, i, scope, out)
        if name == "set":
            return self._set(inner, i, scope)
        if name == "macro":
            mname = inner[0].value
            params = [t.value for k, t in enumerate(inner[1:]) if t.kind == "name"
                      and (k == 0 or inner[k].value in ("(", ","))]
            depth, j = 1, i
            while j < len(toks):
                if toks[j].kind == "block_begin":
                    n, _, after = self._tag(j)
                    depth += n == "macro"
                    depth -= n == "endmacro"
                    if depth == 0:
                        self.macros[mname] = _Macro(params, toks[i:j])
                        return after
                j += 1
            return j
        if name == "include":
            out.append(self._include(inner, block_span, scope))
            return i
        if name == "extends":
            target = self._literal_name(inner)
            if target is None:  # a computed parent: the blocks stand where they are written
                self.ctx.note(self.file, block_span, f"{{% extends {self._source(inner)} %}}: "
                              "a computed parent template is not followed; this file's blocks are read in place")
                return i
            try:
                self.parent_path = self._resolve(target, block_span)
            except Outside as exc:  # not read: this file's blocks stand where they are written
                self.ctx.note(self.file, block_span, f"{{% extends {self._source(inner)} %}}: {exc.message}; "
                              "this file's blocks are read in place")
            return i
        if name == "block":
            bname = inner[0].value
            body, _, _, after = self._skip_to(i, ("endblock",), scope)
            self.blocks[bname] = body  # type: ignore[assignment]
            out.append(_BlockMarker(bname, body))
            return after
        if name in ("with", "filter", "autoescape", "trans", "call"):
            closer = "end" + name
            child = scope.child()
            body, _, _, after = self._skip_to(i, (closer,), child)
            if name == "filter" and any(t.value in FILTERS for t in inner):
                verdict = FILTERS[next(t.value for t in inner if t.value in FILTERS)]
                out.append(Slot(f"filter {self._source(inner)}", SlotKind.CALL, verdict.volatility,
                                verdict.reason, block_span, children=body))
            else:
                out.extend(body)
            return after
        # import, from, do, break, continue, pluralize and unknown tags output nothing
        return i

    def _for(self, inner, block_span, i, scope, out) -> int:
        in_at = next(k for k, t in enumerate(inner) if t.kind == "name" and t.value == "in")
        targets = [t.value for t in inner[:in_at] if t.kind == "name"]
        rest = inner[in_at + 1 :]
        # drop a trailing `if cond` / `recursive` from the iterable
        cut = next((k for k, t in enumerate(rest) if t.kind == "name" and t.value in ("if", "recursive")
                    and k > 0), len(rest))
        iter_toks = rest[:cut]
        verdict, names = self._expr(self._source(iter_toks), scope, iter_toks[0].line)
        order_varies, insertion_order = self._order(iter_toks)
        iter_label = self._source(iter_toks)
        if order_varies and verdict.volatility < Volatility.NONDETERMINISTIC:
            verdict = Verdict(Volatility.NONDETERMINISTIC,
                              f"iterates {iter_label} without | sort: the order can change between requests")
        child = scope.child()
        for target in targets:
            child.bindings[target] = Verdict(verdict.volatility, f"item of {iter_label}: {verdict.reason}")
        body, closer, _, after = self._skip_to(i, ("else", "endfor"), child)
        else_body: list[Part] = []
        if closer == "else":
            else_body, _, _, after = self._skip_to(after, ("endfor",), scope.child())
        out.append(Slot(f"for {self._source(inner)}", SlotKind.LOOP, verdict.volatility, verdict.reason,
                        block_span, names=names, children=body, else_children=else_body,
                        order_varies=order_varies, insertion_order=insertion_order))
        return after

    def _if(self, inner, block_span, i, scope, out) -> int:
        verdict, names = self._expr(self._source(inner), scope, inner[0].line if inner else 1)
        body, closer, c_inner, after = self._skip_to(i, ("elif", "else", "endif"), scope.child())
        else_body: list[Part] = []
        if closer == "elif":
            at = self._prev_block_begin(after)
            after = self._if(c_inner, self.span(self.toks[at].start, self.toks[after - 1].end),
                             after, scope, else_body)
        elif closer == "else":
            else_body, _, _, after = self._skip_to(after, ("endif",), scope.child())
        tested = self._tested(self._source(inner), scope)
        if tested is not None:
            verdict = presence_test(tested, verdict, names_in(body + else_body))
        out.append(Slot(f"if {self._source(inner)}", SlotKind.CONDITIONAL, verdict.volatility,
                        verdict.reason, block_span, names=names, children=body, else_children=else_body))
        return after

    def _tested(self, source: str, scope: _Scope) -> str | None:
        """The input a condition only tests for being set (`x`, `not x`,
        `x is defined`, `x | length`), or None for any other condition."""
        try:
            node = _ENV.parse("{{ " + source + " }}").body[0].nodes[0]  # type: ignore[attr-defined]
        except (jinja2.TemplateSyntaxError, IndexError, AttributeError):
            return None
        while True:
            if isinstance(node, nodes.Not):
                node = node.node
            elif isinstance(node, nodes.Test) and node.name in ("defined", "undefined", "none", "true", "false"):
                node = node.node
            elif isinstance(node, nodes.Filter) and node.name in ("length", "count", "default", "d"):
                node = node.node
            else:
                break
        dotted = _dotted(node) if isinstance(node, (nodes.Name, nodes.Getattr)) else None
        if dotted is None or scope.lookup(dotted.split(".", 1)[0]) is not None:
            return None  # a name bound in the template (a loop item) is not an input
        return dotted

    def _prev_block_begin(self, after: int) -> int:
        j = after - 1
        while self.toks[j].kind != "block_begin":
            j -= 1
        return j

    def _set(self, inner, i, scope) -> int:
        eq = next((k for k, t in enumerate(inner) if t.value == "="), None)
        targets = [t.value for t in (inner[:eq] if eq is not None else inner) if t.kind == "name"]
        if eq is not None:
            verdict, _ = self._expr(self._source(inner[eq + 1 :]), scope, inner[0].line)
            after = i
        else:  # block set: {% set x %}...{% endset %}
            body, _, _, after = self._skip_to(i, ("endset",), scope.child())
            verdict = _max_verdict(body)
        for target in targets:
            scope.bindings[target] = verdict
        return after

    # -- expressions ---------------------------------------------------------
    def _output_slot(self, expr: list[_Tok], scope: _Scope, begin: _Tok, end: _Tok) -> Slot:
        source = self._source(expr)
        span = self.span(begin.start, end.end)
        label = "{{ " + source + " }}"
        call = self._macro_call(expr)
        if call is not None:
            return self._call_slot(call, expr, scope, span, label)
        verdict, names = self._expr(source, scope, begin.line)
        kind = SlotKind.VARIABLE if len(expr) == 1 or _is_dotted(expr) else SlotKind.EXPRESSION
        samples = self.ctx.variables.samples_for(names[0]) if len(names) == 1 and kind is SlotKind.VARIABLE else ()
        return Slot(label, kind, verdict.volatility, verdict.reason, span, names=names, samples=samples)

    def _macro_call(self, expr: list[_Tok]) -> str | None:
        if len(expr) >= 3 and expr[0].kind == "name" and expr[0].value in self.macros and expr[1].value == "(":
            return expr[0].value
        return None

    def _call_slot(self, mname: str, expr, scope, span, label) -> Slot:
        macro = self.macros[mname]
        try:
            call = _ENV.parse("{{ " + self._source(expr) + " }}").body[0].nodes[0]  # type: ignore[attr-defined]
            args = list(call.args)
        except Exception:
            args = []
        arg_verdicts = [self._verdict_of(arg, scope)[0] for arg in args]
        self.expanded += len(macro.body)
        if mname in self.expanding or len(self.expanding) >= MAX_MACRO_DEPTH or self.expanded > self.budget:
            # a macro that calls itself (a tree renderer) or a chain of calls too deep
            # to inline: its output is as volatile as its arguments, and not expanded
            verdict = max(arg_verdicts, key=lambda v: v.volatility, default=_STATIC)
            what = ("a recursive call" if mname in self.expanding else
                    f"calls nested deeper than {MAX_MACRO_DEPTH}" if len(self.expanding) >= MAX_MACRO_DEPTH else
                    "past the expansion budget, kept linear in the file's size")
            return Slot(label, SlotKind.EXPRESSION, verdict.volatility,
                        f"{verdict.reason} ({what} of macro {mname!r}, not expanded)", span)
        child = _Scope({}, scope)
        for param, verdict in zip(macro.params, arg_verdicts):
            child.bindings[param] = verdict
        for param in macro.params[len(args):]:
            child.bindings[param] = _STATIC
        saved = self.toks
        self.toks = macro.body
        self.expanding.append(mname)
        try:
            body, _, _ = self._parts(0, child, stop=())
        finally:
            self.toks = saved
            self.expanding.pop()
        verdict = _max_verdict(body)
        return Slot(label, SlotKind.CALL, verdict.volatility, verdict.reason, span, children=body)

    def _expr(self, source: str, scope: _Scope, line: int) -> tuple[Verdict, tuple[str, ...]]:
        try:
            node = _ENV.parse("{{ " + source + " }}").body[0].nodes[0]  # type: ignore[attr-defined]
        except (jinja2.TemplateSyntaxError, IndexError, AttributeError):
            return _STATIC, ()
        return self._verdict_of(node, scope)

    def _verdict_of(self, node: nodes.Node, scope: _Scope) -> tuple[Verdict, tuple[str, ...]]:
        """The most volatile thing an expression depends on, and its input names."""
        found: list[Verdict] = []
        names: list[str] = []

        def visit(n: nodes.Node):
            if isinstance(n, nodes.Filter) and n.name in FILTERS:
                found.append(FILTERS[n.name])
            if (isinstance(n, nodes.Call) and isinstance(n.node, nodes.Getattr) and n.node.attr == "strftime"
                    and n.args and isinstance(n.args[0], nodes.Const) and isinstance(n.args[0].value, str)):
                inner, _ = self._verdict_of(n.node.node, scope)
                if inner.volatility >= Volatility.DAY:  # a formatted clock: the format sets the precision
                    found.append(strftime_precision(n.args[0].value))
                    return
            if isinstance(n, nodes.Call):
                fname = _dotted(n.node)
                if fname:
                    known = classify_call(fname)
                    if known:
                        found.append(known)
                    elif isinstance(n.node, nodes.Getattr):
                        visit(n.node.node)  # a method call depends on its object
                    else:
                        visit(n.node)
                    for arg in list(n.args) + [kw.value for kw in n.kwargs]:
                        visit(arg)
                    return
            if isinstance(n, (nodes.Getattr, nodes.Getitem, nodes.Name)):
                dotted = _dotted(n)
                if dotted:
                    root = dotted.split(".", 1)[0]
                    if root in _BUILTINS:
                        return
                    bound = scope.lookup(root)
                    if bound is not None:
                        found.append(bound)
                    else:
                        if root == "lipsum":
                            found.append(Verdict(Volatility.NONDETERMINISTIC, "lipsum() generates random text"))
                            return
                        names.append(dotted)
                        found.append(self.ctx.variables.resolve(dotted))
                    if isinstance(n, nodes.Getitem):
                        visit(n.arg)
                    return
            for child in n.iter_child_nodes():
                visit(child)

        visit(node)
        if not found:
            return _STATIC, ()
        best = max(found, key=lambda v: v.volatility)
        return best, tuple(dict.fromkeys(names))

    def _order(self, iter_toks: list[_Tok]) -> tuple[bool, bool]:
        """(the order can change: the iterable is a set; the order is a
        mapping's insertion order: `.items()`, `.keys()`, `.values()`), both
        False when a sorting filter fixes it."""
        values = [t.value for t in iter_toks]
        filters = [values[k + 1] for k, v in enumerate(values[:-1]) if v == "|"]
        if any(f in SORTING_FILTERS for f in filters):
            return False, False
        if any(t.kind == "name" and re.search(r"(^|_)set$", t.value) for t in iter_toks):
            return True, False
        calls = [values[k + 1] for k, v in enumerate(values[:-1]) if v == "."]
        return False, any(c in _ORDERLESS_METHODS for c in calls)

    # -- includes and inheritance -----------------------------------------------
    @staticmethod
    def _literal_name(inner: list[_Tok]) -> str | None:
        """The template an include/extends names, when it is a string literal
        (or a list of them: the first is taken); None when it is computed."""
        expr: list[_Tok] = []
        for t in inner:
            if t.kind == "name" and t.value in ("ignore", "with", "without"):
                break
            expr.append(t)
        if len(expr) == 1 and expr[0].kind == "string":
            return expr[0].value[1:-1]
        if (len(expr) >= 3 and expr[0].value in ("[", "(") and expr[1].kind == "string"
                and all(t.kind == "string" or t.value in ("[", "]", "(", ")", ",") for t in expr)):
            return expr[1].value[1:-1]
        return None

    def _opaque_include(self, inner: list[_Tok], span: Span, scope: _Scope, why: str) -> Slot:
        """An include promptlint cannot read: a region of unknown content, as
        volatile as the expression naming it (unknown when nothing says)."""
        source = self._source(inner)
        expr = re.sub(r"\s+(ignore\s+missing|with(out)?\s+context)\b.*$", "", source)
        verdict, names = self._expr(expr, scope, inner[0].line if inner else 1)
        if verdict.volatility is Volatility.STATIC:
            verdict = Verdict(Volatility.UNKNOWN, "its content is not known")
        label = f"{{% include {source} %}}"
        self.ctx.note(self.file, span, f"{label}: {why}; read as a region of {verdict.volatility.label} content")
        return Slot(label, SlotKind.EXPRESSION, verdict.volatility, f"{why} ({verdict.reason})", span, names=names)

    def _resolve(self, name: str, span: Span) -> Path:
        """The file a template names, in the project; `Outside` when the
        name leads out of it (`../../etc/passwd`, an absolute path, a link)."""
        here = self.base_dir or self.file.path.parent
        line, col = span.line_col
        if len(name) > 255 or "\0" in name:
            raise SourceError(self.file.display_path, line, f"template name of {len(name):,} characters: not a "
                                                             "file name", col)
        candidates = [here / name]
        if here != self.ctx.root:
            candidates.append(self.ctx.root / name)
        outside = False
        for path in candidates:
            try:
                found = path.is_file()
            except OSError:
                found = False
            if found and not self.ctx.inside_project(path, self.file.path):
                outside = True
            elif found:
                return path
        if outside:
            raise Outside(self.file.display_path, line, f"{name!r} is outside the project: not read", col)
        raise SourceError(self.file.display_path, line, f"included template {name!r} not found", col)

    def _include(self, inner: list[_Tok], span: Span, scope: _Scope) -> Part:
        name = self._literal_name(inner)
        if name is None:
            return self._opaque_include(inner, span, scope, "an include with a computed name is not followed")
        optional = any(t.value == "ignore" for t in inner)
        try:
            path = self._resolve(name, span)
        except Outside as exc:
            return self._opaque_include(inner, span, scope, exc.message)
        except SourceError:
            if optional:
                return self._opaque_include(inner, span, scope,
                                            f"an optional include of {name!r}, which is not here")
            raise
        line, col = span.line_col
        resolved = path.resolve()
        if resolved in self.stack:
            chain = " -> ".join(p.name for p in (*self.stack, resolved))
            raise SourceError(self.file.display_path, line, f"include cycle: {chain}", col)
        if len(self.stack) >= self.ctx.max_include_depth:
            raise SourceError(self.file.display_path, line,
                              f"includes nested deeper than {self.ctx.max_include_depth}", col)
        included = self.ctx.shared.get("jinja.included", 0) + 1
        self.ctx.shared["jinja.included"] = included
        if included > MAX_INCLUDED:  # fan-out: 5 includes of 5 includes ... 7 deep are 78,125 files
            if included == MAX_INCLUDED + 1:
                self.ctx.partial(self.file, span, f"past {MAX_INCLUDED:,} included templates in one prompt: the "
                                                  "rest are read as regions of unknown content")
            return self._opaque_include(inner, span, scope, f"past {MAX_INCLUDED:,} included templates")
        child_file = read_source(path, self.ctx)
        builder = _Builder(child_file.text, child_file, None, self.ctx, path.parent, (*self.stack, resolved))
        body = _flatten_blocks(builder.build(scope.child()))
        verdict = _max_verdict(body)
        return Slot(f"include {name!r}", SlotKind.INCLUDE, verdict.volatility, verdict.reason, span,
                    children=body)

    def _extend(self, child_parts: list[Part]) -> list[Part]:
        """`{% extends %}`: the parent's output with this file's blocks in place."""
        path = self.parent_path
        assert path is not None
        resolved = path.resolve()
        if resolved in self.stack:
            chain = " -> ".join(p.name for p in (*self.stack, resolved))
            raise SourceError(self.file.display_path, 1, f"extends cycle: {chain}")
        parent_file = read_source(path, self.ctx)
        parent = _Builder(parent_file.text, parent_file, None, self.ctx, path.parent, (*self.stack, resolved))
        parent_parts = parent.build()
        overrides = {m.name: m.parts for m in _markers(child_parts)}
        return _replace_blocks(parent_parts, overrides)


MAX_INCLUDED = 1_000  # templates one prompt may include in all, nested includes counted


class Outside(SourceError):
    """A template named by an include or extends lies outside the project."""


class _BlockMarker:
    """A `{% block %}` region, kept until inheritance is resolved."""

    def __init__(self, name: str, parts: list[Part]):
        self.name = name
        self.parts = parts


def _markers(parts: list[Part]):
    for p in parts:
        if isinstance(p, _BlockMarker):
            yield p


def _replace_blocks(parts: list[Part], overrides: dict[str, list[Part]]) -> list[Part]:
    out: list[Part] = []
    for p in parts:
        if isinstance(p, _BlockMarker):
            out.extend(_replace_blocks(overrides.get(p.name, p.parts), overrides))
        else:
            out.append(p)
    return out


def _flatten_blocks(parts: list[Part]) -> list[Part]:
    return _replace_blocks(parts, {})


def _max_verdict(parts: list[Part]) -> Verdict:
    best = _STATIC
    for p in parts:
        if isinstance(p, Slot) and p.volatility > best.volatility:
            best = Verdict(p.volatility, p.reason)
    return best


def _dotted(n: nodes.Node) -> str | None:
    if isinstance(n, nodes.Name):
        return n.name
    if isinstance(n, nodes.Getattr):
        base = _dotted(n.node)
        return f"{base}.{n.attr}" if base else None
    if isinstance(n, nodes.Getitem):
        base = _dotted(n.node)
        if base and isinstance(n.arg, nodes.Const) and isinstance(n.arg.value, str):
            return f"{base}.{n.arg.value}"
        return base
    return None


def _is_dotted(expr: list[_Tok]) -> bool:
    return all(t.kind == "name" or t.value == "." for t in expr)


def parse_jinja_fragment(text: str, file: SourceFile, index_map: list[int] | None, ctx: SourceContext,
                         *, base_dir: Path | None = None, keep_newlines: bool = False) -> list[Part]:
    """IR parts of a Jinja fragment whose character i sits at file offset
    index_map[i] (None: the fragment is the file's text from offset 0).
    `keep_newlines` keeps CRLF in literal text (for strings that are only
    templated, not rendered by Jinja)."""
    stack = (file.path.resolve(),) if file.path.exists() else ()
    ctx.shared["jinja.included"] = 0  # includes expanded for this fragment (MAX_INCLUDED)
    builder = _Builder(text, file, index_map, ctx, base_dir, stack, keep_newlines)
    return _flatten_blocks(builder.build())


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """A plain Jinja file is one prompt in the default role's section."""
    parts = parse_jinja_fragment(file.text, file, None, ctx)
    section = Section(ctx.default_role, parts, Span(file, 0, len(file.text)))
    return [PromptTemplate(file.path.stem, file, "jinja", [section])]
