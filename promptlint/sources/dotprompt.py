"""dotprompt files (`.prompt`: Google dotprompt, Firebase Genkit) into the IR:
YAML front matter, then a Handlebars body.

promptlint.sources.handlebars tokenizes the body (with offsets) and builds
its block tree; this module lowers that tree to IR parts, mapping Handlebars
scoping (`this`, `../`, `@index`, `as |x|`, `with`) onto volatility, and
handles what is dotprompt's own: front matter, partials (`_name.prompt`),
the `role`, `history`, `media` and `section` helpers, and messages
(`{{role}}` starts one, whitespace-only messages are dropped, text before
any role is "user", text after `{{history}}` is the model's). Nothing is
rendered.

A loop or conditional is as volatile as what it depends on (its iterable or
condition), as in the Jinja reader, not as its children: the children keep
their own volatility, so a `{{now}}` inside `{{#if static_flag}}` is itself
the slot that breaks the prefix. Partials and custom block helpers are
containers and summarise their children.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field, replace
from pathlib import Path

from promptlint.analysis.volatility import (
    no_evidence,
    presence_test,
    Verdict,
    classify_call,
    classify_name,
)
from promptlint.ir import (
    Part,
    PromptTemplate,
    Section,
    Slot,
    SlotKind,
    SourceError,
    SourceFile,
    Span,
    Text,
    Volatility,
    names_in,
)
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources.frontmatter import (
    dotprompt_inputs,
    promptlint_options,
    split_front_matter,
)
from promptlint.sources.handlebars import (
    Block,
    Expr,
    Parser,
    PathExpr,
    Token,
    iter_paths,
    parse_expr,
)
from promptlint.sources.slots import span_of, variable_slot

V = Volatility
_ROLE_ALIASES = {"model": "assistant"}
HISTORY_REASON = "dotprompt {{history}} inserts the conversation history"


# -- scopes ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Binding:
    """What a context or block parameter stands for: a path into the root
    input (`with user` -> prefix ('user',)) or a value of known volatility
    (an item of a list)."""

    prefix: tuple[str, ...] | None = None
    verdict: Verdict | None = None
    names: tuple[str, ...] = ()


_ROOT = _Binding(prefix=())


@dataclass
class _Frame:
    context: _Binding
    params: dict[str, _Binding] = field(default_factory=dict)
    loop: _Binding | None = None  # the item binding, for @index/@key/@first/@last (an each)


@dataclass
class _Ref:
    verdict: Verdict
    names: tuple[str, ...]
    root_name: str | None = None  # a root input: classify through the variable table


@dataclass
class _RoleMark:
    role: str | None  # None: back to the role before a {{#role}} block
    span: Span
    history: Slot | None = None


# -- the reader ------------------------------------------------------------------------


class _Handlebars:
    """One Handlebars source: parse and lower to IR parts."""

    def __init__(self, file: SourceFile, src: str, index_map: list[int] | None, ctx: SourceContext,
                 base_dirs: tuple[Path, ...], stack: tuple[Path, ...]):
        self.file, self.src, self.index_map, self.ctx = file, src, index_map, ctx
        self.base_dirs, self.stack = base_dirs, stack
        self.parser = Parser(src, self.err, lambda pos: self.span(pos, pos).line_col, ctx.diagnostics.append)

    def span(self, a: int, b: int) -> Span:
        return span_of(self.file, self.index_map, a, b)

    def err(self, pos: int, message: str) -> SourceError:
        line, col = self.span(pos, pos).line_col
        return SourceError(self.file.display_path, line, message, col)

    def run(self, start: int, end: int, scope: list[_Frame], top: bool) -> list:
        return self._lower(self.parser.parse(start, end), scope, top)

    def label(self, tok: Token) -> str:
        return self.src[tok.start : tok.end]

    def _expr(self, tok: Token):
        return self.parser.expr(tok)

    # -- lowering ------------------------------------------------------------------
    def _lower(self, nodes: list, scope: list[_Frame], top: bool) -> list:
        out: list = []
        for node in nodes:
            if isinstance(node, Block):
                out.extend(self._lower_block(node, scope, top))
            elif node.kind == "text":
                text = node.text if node.text is not None else self.src[node.start : node.end]
                out.append(Text(text, self.span(node.start, node.end)))
            elif node.kind == "mustache":
                out.extend(self._mustache(node, scope, top))
            elif node.kind == "partial":
                out.append(self._partial(node, scope))
        return out

    def _mustache(self, tok: Token, scope: list[_Frame], top: bool) -> list:
        params, hash_, _ = self._expr(tok)
        head = params[0]
        label, span = self.label(tok), self.span(tok.start, tok.end)
        helper = head.text if head.kind == "path" else ""
        if helper == "history" and len(params) == 1:
            slot = Slot(label, SlotKind.VARIABLE, V.SESSION, HISTORY_REASON, span, names=("history",))
            return [_RoleMark(None, span, history=slot)] if top else [slot]
        if head.kind == "path" and len(params) == 1 and not hash_:
            return [self._ref_slot(PathExpr.parse(head.text), label, span, scope)]
        if helper == "role":
            role = params[1].text if len(params) > 1 and params[1].kind == "str" else None
            if role is None or not top:  # a role chosen at render time: no switch we can follow
                return []
            return [_RoleMark(_ROLE_ALIASES.get(role, role), span)]
        if helper in ("section", "log"):
            return []
        if helper == "media":
            url = hash_.get("url")
            if url is not None and url.kind == "path":
                return [self._ref_slot(PathExpr.parse(url.text), label, span, scope)]
            verdict, names = self._verdict(list(hash_.values()), {}, scope)
            return [Slot(label, SlotKind.EXPRESSION, verdict.volatility, verdict.reason, span, names=names)]
        verdict, names = self._verdict(params, hash_, scope, helper=True)
        return [Slot(label, SlotKind.EXPRESSION, verdict.volatility, verdict.reason, span, names=names)]

    def _ref_slot(self, path: PathExpr, label: str, span: Span, scope: list[_Frame]) -> Slot:
        ref = self._resolve(path, scope)
        if ref.root_name is not None:
            return variable_slot(ref.root_name, label, span, self.ctx)
        return Slot(label, SlotKind.VARIABLE, ref.verdict.volatility, ref.verdict.reason, span, names=ref.names)

    def _resolve(self, path: PathExpr, scope: list[_Frame]) -> _Ref:
        if path.data:
            if path.parts[:1] == ("root",):
                return self._bound(_ROOT, path.parts[1:])
            loops = [f.loop for f in scope if f.loop is not None]  # `@../index`: an outer each
            loop = loops[-1 - path.up] if path.up < len(loops) else None
            if loop is None:
                return _Ref(Verdict(V.STATIC, f"@{'.'.join(path.parts)} outside a loop renders nothing"), ())
            return self._bound(loop, ())
        frames = scope[: max(1, len(scope) - path.up)]
        if not path.this and path.parts:
            for frame in reversed(frames):
                if path.parts[0] in frame.params:
                    return self._bound(frame.params[path.parts[0]], path.parts[1:])
        return self._bound(frames[-1].context, path.parts)

    def _bound(self, binding: _Binding, parts: tuple[str, ...]) -> _Ref:
        if binding.prefix is not None:
            name = ".".join((*binding.prefix, *parts)) or "this"
            return _Ref(self.ctx.variables.resolve(name), (name,), name)
        assert binding.verdict is not None
        return _Ref(binding.verdict, binding.names)

    def _verdict(self, params: list[Expr], hash_: dict[str, Expr], scope: list[_Frame],
                 helper: bool = False) -> tuple[Verdict, tuple[str, ...]]:
        """The most volatile input of a helper call or condition. With
        `helper`, params[0] is the helper's name, not an input."""
        found: list[Verdict] = []
        names: list[str] = []

        def visit(expr: Expr, is_head: bool) -> None:
            if expr.kind == "path":
                if is_head:
                    known = classify_call(expr.text)
                    if known:
                        found.append(known)
                    return
                ref = self._resolve(PathExpr.parse(expr.text), scope)
                found.append(ref.verdict)
                names.extend(ref.names)
            elif expr.kind == "sub":
                for k, item in enumerate(expr.items):
                    visit(item, k == 0)
                for value in expr.hash.values():
                    visit(value, False)

        for k, expr in enumerate(params):
            visit(expr, helper and k == 0)
        for value in hash_.values():
            visit(value, False)
        if found:
            return max(found, key=lambda v: v.volatility), tuple(dict.fromkeys(names))
        if helper and params[0].kind == "path":
            by_name = classify_name(params[0].text)
            if not no_evidence(by_name):
                return by_name, ()
            return Verdict(V.STATIC, f"helper {params[0].text!r} with constant arguments"), ()
        return Verdict(V.STATIC, "constant expression"), ()

    def _arg_ref(self, expr: Expr, scope: list[_Frame]) -> _Ref:
        """What a block or partial argument refers to."""
        if expr.kind == "path":
            return self._resolve(PathExpr.parse(expr.text), scope)
        verdict, names = self._verdict([expr], {}, scope)
        return _Ref(verdict, names)

    def _context_of(self, expr: Expr, scope: list[_Frame]) -> _Binding:
        """The context `{{#with x}}` or `{{> partial x}}` gives its body: a
        root input stays a path (so `name` inside is `x.name`)."""
        ref = self._arg_ref(expr, scope)
        if ref.root_name is not None:
            return _Binding(prefix=() if ref.root_name == "this" else tuple(ref.root_name.split(".")))
        return _Binding(verdict=Verdict(ref.verdict.volatility, f"inside with {expr.text}: {ref.verdict.reason}"),
                        names=ref.names)

    def _lower_block(self, block: Block, scope: list[_Frame], top: bool) -> list:
        opener = block.open
        params, hash_, block_params = self._expr(opener)
        name = params[0].text
        args = params[1:]
        label, span = self.label(opener), self.span(opener.start, block.close.end)
        if opener.special == "decorator":  # {{#*inline "name"}}: defines a partial, prints nothing here
            return []
        if opener.special == "partial":
            # {{#> layout}}body{{/layout}}: the partial is not followed; its block
            # (the fallback Handlebars renders when the partial does not exist) is
            body = self._lower(block.program, scope, False)
            return [self._container(label, SlotKind.CALL, Verdict(V.STATIC, f"partial block {name!r}"), (),
                                    span, body, [])]
        if opener.kind == "inverse":  # {{^x}}...{{/x}}: shown when x is empty
            verdict, names = self._verdict(params, hash_, scope)
            body = self._lower(block.program, scope, False)
            return [self._region(label, SlotKind.CONDITIONAL, verdict, names, span, body, [])]
        if name == "role" and args and args[0].kind == "str":
            body = self._lower(block.program, scope, top)
            if not top:
                return body
            role = _ROLE_ALIASES.get(args[0].text, args[0].text)
            return [_RoleMark(role, self.span(opener.start, opener.end)), *body,
                    _RoleMark(None, self.span(block.close.start, block.close.end))]
        if name == "each" and args:
            return [self._each(block, args[0], block_params, scope, label, span)]
        if name == "with" and args:
            ref = self._arg_ref(args[0], scope)
            binding = self._context_of(args[0], scope)
            frame = _Frame(binding, {p: binding for p in block_params})
            body = self._lower(block.program, [*scope, frame], False)
            other = self._lower(block.inverse, scope, False)
            return [self._region(label, SlotKind.CONDITIONAL, ref.verdict, ref.names, span, body, other)]
        body = self._lower(block.program, scope, False)
        other = self._lower(block.inverse, scope, False)
        if name in ("if", "unless", "ifEquals", "unlessEquals"):
            verdict, names = self._verdict(args, hash_, scope)
            if name in ("if", "unless") and len(args) == 1 and args[0].kind == "path" and len(names) == 1:
                verdict = presence_test(names[0], verdict, names_in(body + other))
            return [self._region(label, SlotKind.CONDITIONAL, verdict, names, span, body, other)]
        verdict, names = self._verdict(params, hash_, scope, helper=True)
        return [self._container(label, SlotKind.CALL, verdict, names, span, body, other)]

    def _each(self, block: Block, iterable: Expr, block_params: list[str], scope: list[_Frame],
              label: str, span: Span) -> Slot:
        """`{{#each x}}`: as volatile as x. Iterating an object by `@key` is
        the Handlebars form of Jinja's unsorted `.items()` (there is no sort
        helper): its order is the object's insertion order."""
        ref = self._arg_ref(iterable, scope)
        verdict = ref.verdict
        insertion_order = _uses_key(block.program, 0)
        item = Verdict(verdict.volatility, f"item of {iterable.text}: {verdict.reason}")
        binding = _Binding(verdict=item, names=ref.names)
        frame = _Frame(binding, {p: binding for p in block_params}, loop=binding)
        body = self._lower(block.program, [*scope, frame], False)
        other = self._lower(block.inverse, scope, False)
        slot = self._region(label, SlotKind.LOOP, verdict, ref.names, span, body, other)
        slot.insertion_order = insertion_order
        return slot

    @staticmethod
    def _region(label, kind, own: Verdict, names, span, body, other) -> Slot:
        """A loop or conditional is as volatile as its own iterable or
        condition; its parts keep theirs (render.py varies the region as a
        unit: other items, the other branch)."""
        body = [p for p in body if not isinstance(p, _RoleMark)]
        other = [p for p in other if not isinstance(p, _RoleMark)]
        return Slot(label, kind, own.volatility, own.reason, span, names=tuple(names),
                    children=body, else_children=other)

    @staticmethod
    def _container(label, kind, own: Verdict, names, span, body, other) -> Slot:
        """A partial or custom block helper is as volatile as its own
        arguments or its most volatile part, whichever is higher (render.py
        never varies a container as a unit, only its parts)."""
        body = [p for p in body if not isinstance(p, _RoleMark)]
        other = [p for p in other if not isinstance(p, _RoleMark)]
        best = own
        for part in (*body, *other):
            if isinstance(part, Slot) and part.volatility > best.volatility:
                best = Verdict(part.volatility, f"contains {part.label}: {part.reason}")
        return Slot(label, kind, best.volatility, best.reason, span, names=tuple(names),
                    children=body, else_children=other)

    # -- partials ------------------------------------------------------------------
    def _partial(self, tok: Token, scope: list[_Frame]) -> Slot:
        params, hash_, _ = self._expr(tok)
        label, span = self.label(tok), self.span(tok.start, tok.end)
        head = params[0]
        if head.kind not in ("path", "str"):
            verdict, names = self._verdict(params, hash_, scope)
            return Slot(label, SlotKind.INCLUDE, max(verdict.volatility, V.REQUEST),
                        "a partial chosen at render time cannot be followed", span, names=names)
        name = head.text
        path = self._find_partial(name)
        if path is None:
            raise self.err(tok.start, f"partial {name!r} not found")
        resolved = path.resolve()
        if resolved in self.stack:
            chain = " -> ".join(p.name for p in (*self.stack, resolved))
            raise self.err(tok.start, f"partial cycle: {chain}")
        if len(self.stack) >= self.ctx.max_include_depth:
            raise self.err(tok.start, f"partials nested deeper than {self.ctx.max_include_depth}")
        frame = _Frame(scope[-1].context if len(params) < 2 else self._context_of(params[1], scope))
        for key, value in hash_.items():
            frame.params[key] = self._context_of(value, scope)
        pfile = read_source(path, self.ctx)
        inner = _Handlebars(pfile, pfile.text, None, self.ctx, (path.parent, *self.base_dirs),
                            (*self.stack, resolved))
        _, start, end = _split(pfile, self.ctx)
        body = inner.run(start, end, [*scope, frame], top=False)
        own = Verdict(V.STATIC, f"partial {name!r} ({pfile.display_path})")
        return self._container(label, SlotKind.INCLUDE, own, (), span, body, [])

    def _find_partial(self, name: str) -> Path | None:
        folder, _, base = name.rpartition("/")
        for here in dict.fromkeys(self.base_dirs):
            for candidate in (here / folder / f"_{base}.prompt", here / "partials" / folder / f"{base}.prompt",
                              here / "partials" / folder / f"_{base}.prompt"):
                try:
                    found = candidate.is_file()
                except OSError:  # a name too long for the file system, or otherwise unusable
                    found = False
                if found and self.ctx.inside_project(candidate, self.file.path):
                    return candidate
        return None


def _uses_key(nodes: list, depth: int) -> bool:
    """Whether `nodes` (the body of an each) read that each's `@key`: `@key`
    at the each's own level, `@../key` one each deeper, and so on. A tag
    that does not parse is left for the lowering to report."""
    for node in nodes:
        if isinstance(node, Block):
            opener = parse_expr(node.open.body)
            if opener is not None and _reads_key(opener[0], opener[1], depth):
                return True
            inner = depth + 1 if node.open.kind == "open" and node.name == "each" else depth
            if _uses_key(node.program, inner) or _uses_key(node.inverse, depth):
                return True
        elif node.kind in ("mustache", "partial"):
            parsed = parse_expr(node.body)
            if parsed is not None and _reads_key(parsed[0], parsed[1], depth):
                return True
    return False


def _reads_key(params: list[Expr], hash_: dict[str, Expr], depth: int) -> bool:
    for expr in iter_paths(params, hash_):
        path = PathExpr.parse(expr.text)
        if path.data and path.parts[:1] == ("key",) and path.up == depth:
            return True
    return False


def _split(file: SourceFile, ctx: SourceContext) -> tuple[dict | None, int, int]:
    """(front matter, body start, body end): the body is trimmed, as
    dotprompt does, when there is front matter (front matter that does not
    load is reported, and the body still read)."""
    data, _, body_start = split_front_matter(file, allow_header=True, diagnostics=ctx.diagnostics)
    end = len(file.text)
    if data is None:
        return None, 0, end
    while body_start < end and file.text[body_start].isspace():
        body_start += 1
    while end > body_start and file.text[end - 1].isspace():
        end -= 1
    return data, body_start, end


def _sections(items: list, default_role: str) -> list[Section]:
    """Split lowered parts into messages the way dotprompt's toMessages does."""
    sections: list[Section] = []
    roles: list[str] = []
    current = Section(default_role)

    def has_content(section: Section) -> bool:
        return any(not isinstance(p, Text) or p.text.strip() for p in section.parts)

    def close(next_role: str) -> Section:
        if has_content(current):
            _set_span(current)
            sections.append(current)
            return Section(next_role)
        return Section(next_role)

    for item in items:
        if isinstance(item, _RoleMark):
            if item.history is not None:
                current = close("user")
                current.parts.append(item.history)
                current = close("assistant")
            elif item.role is None:
                current = close(roles.pop() if roles else default_role)
            else:
                roles.append(current.role)
                current = close(item.role)
        else:
            current.parts.append(item)
    close(default_role)
    return sections


def _set_span(section: Section) -> None:
    spans = [p.span for p in section.parts if p.span is not None]
    if spans:
        section.span = Span(spans[0].file, spans[0].start, spans[-1].end)


def parse_handlebars_fragment(text: str, file: SourceFile, index_map: list[int] | None, ctx: SourceContext,
                              *, base_dir: Path | None = None) -> list[Part]:
    """IR parts of a Handlebars string whose character i sits at file offset
    index_map[i] (None: the string is the file's text). Role switches have
    no meaning inside one string and are dropped."""
    base = base_dir or file.path.parent
    stack = (file.path.resolve(),) if file.path.exists() else ()
    return _Handlebars(file, text, index_map, ctx, (base,), stack).run(0, len(text), [_Frame(_ROOT)], top=False)


# Jinja's own syntax: a `{% tag %}` or a `{{ x | filter }}`; Handlebars blocks
# (`{{#if}}`, `{{/if}}`, `{{> partial}}`, `{{^x}}`) say dotprompt.
_JINJA_ONLY = re.compile(r"\{%-?\s*[a-z]|\{\{-?[^{}]*?[\w)\]]\s*\|\s*[a-z_]+")
_HANDLEBARS_BLOCK = re.compile(r"\{\{~?\s*[#/^>]")


def is_jinja(body: str) -> bool:
    """A `.prompt` file written in Jinja (many tools use the extension for
    their own templates), not Handlebars."""
    return bool(_JINJA_ONLY.search(body)) and not _HANDLEBARS_BLOCK.search(body)


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """One `.prompt` file is one prompt named after the file: dotprompt, or
    Jinja when the body is Jinja (after any front matter)."""
    data, start, end = _split(file, ctx)
    if is_jinja(file.text[start:end]):
        from promptlint.sources.jinja import parse_jinja_fragment

        parts = parse_jinja_fragment(file.text[start:end], file, list(range(start, end + 1)), ctx,
                                     base_dir=file.path.parent)
        section = Section(ctx.default_role, parts, Span(file, start, end))
        return [PromptTemplate(file.path.stem, file, "jinja", [section])]
    declared = dotprompt_inputs(data, file)
    fctx = replace(ctx, variables=declared.table(ctx.variables))
    default_role = str(promptlint_options(data).get("default_role") or "user")
    stack = (file.path.resolve(),) if file.path.exists() else ()
    items = _Handlebars(file, file.text, None, fctx, (file.path.parent,), stack).run(
        start, end, [_Frame(_ROOT)], top=True)
    model = (data or {}).get("model")
    return [PromptTemplate(file.path.stem, file, "dotprompt", _sections(items, default_role),
                           declared.variables(), model=str(model) if isinstance(model, str) else None)]


__all__ = ["HISTORY_REASON", "parse_handlebars_fragment", "read"]
