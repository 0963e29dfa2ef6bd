"""dotprompt files (`.prompt`: Google dotprompt, Firebase Genkit) into the IR:
YAML front matter, then a Handlebars body.

No Handlebars library reports positions, so this module carries its own
small lexer (an offset for every tag), a block parser, and a lowering pass
that maps Handlebars scoping (`this`, `../`, `@index`, `as |x|`, `with`) onto
volatility. Nothing is rendered. Whitespace follows Handlebars (standalone
block lines and `~` are removed) and messages follow dotprompt (`{{role}}`
starts one, whitespace-only messages are dropped, text before any role is
"user", text after `{{history}}` is the model's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from promptlint.analysis.volatility import Verdict, classify_call, classify_name, DEFAULT
from promptlint.ir import (
    Part, PromptTemplate, Section, Slot, SlotKind, SourceError, SourceFile, Span, Text, Volatility,
)
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources.frontmatter import dotprompt_inputs, promptlint_options, split_front_matter
from promptlint.sources.slots import span_of, variable_slot

V = Volatility
_ROLE_ALIASES = {"model": "assistant"}
HISTORY_REASON = "dotprompt {{history}} inserts the conversation history"
_STANDALONE = {"open", "inverse", "close", "else", "comment", "partial"}


# -- lexer ---------------------------------------------------------------------


@dataclass
class _Tok:
    kind: str  # text | mustache | open | inverse | close | else | partial | comment
    start: int  # offsets in the source string, the whole tag with its braces
    end: int
    body: str = ""  # tag content without braces, `~` and sigil
    text: str | None = None  # a text token rendered differently from its source (`\{{`)
    strip_left: bool = False
    strip_right: bool = False


class _Lexer:
    """Tokens of src[start:end], then Handlebars' whitespace rules applied."""

    def __init__(self, src: str, start: int, end: int, err):
        self.src, self.start, self.end, self.err = src, start, end, err

    def tokens(self) -> list[_Tok]:
        src, end = self.src, self.end
        toks: list[_Tok] = []
        pending = i = self.start
        while (j := src.find("{{", i, end)) >= 0:
            if j - 1 >= pending and src[j - 1] == "\\":
                if j - 2 >= pending and src[j - 2] == "\\":  # \\{{x}}: a backslash, then the tag
                    self._text(toks, pending, j - 2)
                    toks.append(_Tok("text", j - 2, j, text="\\"))
                else:  # \{{x}}: literal braces
                    self._text(toks, pending, j - 1)
                    toks.append(_Tok("text", j - 1, j + 2, text="{{"))
                    pending = i = j + 2
                    continue
            else:
                self._text(toks, pending, j)
            if src.startswith("{{{{", j):
                tok = self._raw_block(j)
            else:
                tok = self._tag(j)
            toks.append(tok)
            pending = i = tok.end
        self._text(toks, pending, end)
        self._standalone(toks)
        self._tilde(toks)
        return [t for t in toks if t.kind != "text" or t.text is not None or t.end > t.start]

    @staticmethod
    def _text(toks: list[_Tok], a: int, b: int) -> None:
        if b > a:
            toks.append(_Tok("text", a, b))

    def _raw_block(self, j: int) -> _Tok:
        """{{{{raw}}}} ... {{{{/raw}}}}: the content is literal text."""
        close_open = self.src.find("}}}}", j + 4, self.end)
        if close_open < 0:
            raise self.err(j, "unclosed '{{{{'")
        name = self.src[j + 4 : close_open].strip()
        closer = "{{{{/" + name + "}}}}"
        at = self.src.find(closer, close_open + 4, self.end)
        if at < 0:
            raise self.err(j, f"raw block '{{{{{{{{{name}}}}}}}}}' is never closed")
        return _Tok("text", j, at + len(closer), text=self.src[close_open + 4 : at])

    def _tag(self, j: int) -> _Tok:
        src, end = self.src, self.end
        k = j + 2
        triple = src.startswith("{", k)
        k += triple
        strip_left = src.startswith("~", k)
        k += strip_left
        if not triple and src.startswith("!", k):
            long = src.startswith("!--", k)
            m = re.compile(r"--~?\}\}" if long else r"~?\}\}").search(src, k + (3 if long else 1), end)
            if m is None:
                raise self.err(j, "unclosed comment")
            return _Tok("comment", j, m.end(), strip_left=strip_left, strip_right="~" in m.group())
        closer = "}}}" if triple else "}}"
        q = self._find_close(k, closer)
        if q < 0:
            raise self.err(j, f"unclosed '{{{{' (no matching '{closer}')")
        content = src[k:q]
        strip_right = content.endswith("~")
        body = (content[:-1] if strip_right else content).strip()
        tok = _Tok("mustache", j, q + len(closer), body, strip_left=strip_left, strip_right=strip_right)
        if not body:
            raise self.err(j, "empty '{{}}' tag")
        if triple:
            return tok
        sigil, rest = body[0], body[1:].strip()
        if sigil == "#":
            if rest.startswith(">"):
                raise self.err(j, "partial blocks ({{#> name}}) are not supported")
            if rest.startswith("*"):
                raise self.err(j, "decorators ({{#*inline}}) are not supported")
            tok.kind, tok.body = "open", rest
        elif sigil == "^":
            tok.kind, tok.body = ("inverse", rest) if rest else ("else", "")
        elif sigil == "/":
            tok.kind, tok.body = "close", rest
        elif sigil == ">":
            tok.kind, tok.body = "partial", rest
        elif sigil == "&":
            tok.body = rest
        elif re.match(r"else(\s|$)", body):
            tok.kind, tok.body = "else", body[4:].strip()
        return tok

    def _find_close(self, k: int, closer: str) -> int:
        """Index of `closer` ending the tag that starts before k (quotes skipped);
        -1 when the tag never closes or another `{{` starts first."""
        src, quote = self.src, ""
        while k < self.end:
            ch = src[k]
            if quote:
                if ch == "\\":
                    k += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif src.startswith(closer, k):
                return k
            elif src.startswith("{{", k):
                return -1
            k += 1
        return -1

    def _standalone(self, toks: list[_Tok]) -> None:
        """A block, else, comment or partial tag alone on its line takes the
        line with it (its indentation and its line break)."""
        src = self.src
        for n, tok in enumerate(toks):
            if tok.kind not in _STANDALONE:
                continue
            line_start = max(self.start, src.rfind("\n", 0, tok.start) + 1)
            if src[line_start : tok.start].strip(" \t"):
                continue
            k = tok.end
            while k < self.end and src[k] in " \t":
                k += 1
            if src.startswith("\r\n", k) and k + 2 <= self.end:
                k += 2
            elif k < self.end and src[k] == "\n":
                k += 1
            elif k < self.end:
                continue
            prev = toks[n - 1] if n else None
            if prev is not None and prev.kind == "text" and prev.text is None and prev.end == tok.start:
                prev.end = max(prev.start, line_start)
            nxt = toks[n + 1] if n + 1 < len(toks) else None
            if nxt is not None and nxt.kind == "text" and nxt.text is None and nxt.start == tok.end:
                nxt.start = min(nxt.end, k)

    def _tilde(self, toks: list[_Tok]) -> None:
        """`{{~` and `~}}` remove all whitespace on that side of the tag."""
        src = self.src
        for n, tok in enumerate(toks):
            if tok.kind == "text":
                continue
            prev = toks[n - 1] if n else None
            if tok.strip_left and prev is not None and prev.kind == "text" and prev.text is None:
                while prev.end > prev.start and src[prev.end - 1].isspace():
                    prev.end -= 1
            nxt = toks[n + 1] if n + 1 < len(toks) else None
            if tok.strip_right and nxt is not None and nxt.kind == "text" and nxt.text is None:
                while nxt.start < nxt.end and src[nxt.start].isspace():
                    nxt.start += 1


# -- expressions inside a tag ----------------------------------------------------


@dataclass
class _Expr:
    kind: str  # path | str | lit | sub
    text: str  # source text (a string's value for str)
    items: list["_Expr"] = field(default_factory=list)  # sub: helper and params
    hash: dict[str, "_Expr"] = field(default_factory=dict)


_EXPR_TOKEN = re.compile(r"""\s*(?:
    (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<lp>\()
  | (?P<rp>\))
  | (?P<bp>as\s+\|[^|]*\|)
  | (?P<key>[A-Za-z_@$][\w$@-]*)=
  | (?P<lit>(?:-?\d+(?:\.\d+)?|true|false|null|undefined)(?=[\s)]|$))
  | (?P<path>(?:\[[^\]]*\]|[^\s()=|"'\[\]])+)
)""", re.X)


def _parse_expr(body: str) -> tuple[list[_Expr], dict[str, _Expr], list[str]] | None:
    """(params, hash, block params) of a tag body; None if it does not parse."""
    pos = 0
    stack: list[_Expr] = [_Expr("sub", "")]
    pending_key: list[str | None] = [None]
    block_params: list[str] = []
    while pos < len(body):
        m = _EXPR_TOKEN.match(body, pos)
        if m is None or m.end() == pos:
            if body[pos:].strip() == "":
                break
            return None
        pos = m.end()
        kind = m.lastgroup
        if kind == "key":
            pending_key[-1] = m.group("key")
            continue
        if kind == "bp":
            block_params = m.group("bp")[2:].strip().strip("|").split()
            continue
        if kind == "lp":
            stack.append(_Expr("sub", ""))
            pending_key.append(None)
            continue
        if kind == "rp":
            if len(stack) == 1:
                return None
            expr = stack.pop()
            pending_key.pop()
        elif kind == "str":
            raw = m.group("str")
            expr = _Expr("str", re.sub(r"\\(.)", r"\1", raw[1:-1]))
        else:
            expr = _Expr(kind, m.group(kind))
        key = pending_key[-1]
        if key is not None:
            stack[-1].hash[key] = expr
            pending_key[-1] = None
        else:
            stack[-1].items.append(expr)
    if len(stack) != 1 or not stack[0].items:
        return None
    return stack[0].items, stack[0].hash, block_params


@dataclass(frozen=True)
class _Path:
    data: bool  # @index, @root.x
    up: int  # number of ../
    this: bool  # this, this.x, ./x: the current context only
    parts: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> "_Path":
        data = text.startswith("@")
        t = text[1:] if data else text
        up = 0
        while t.startswith("../"):
            up, t = up + 1, t[3:]
        this = False
        for prefix in ("this.", "this/", "./"):
            if t.startswith(prefix):
                this, t = True, t[len(prefix):]
        if t in ("this", "."):
            this, t = True, ""
        parts = tuple(seg[1:-1] if seg.startswith("[") else seg
                      for seg in re.findall(r"\[[^\]]*\]|[^./\[\]]+", t))
        return cls(data, up, this, parts)


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
    loop: _Binding | None = None  # the item binding, for @index/@key/@first/@last


@dataclass
class _Ref:
    verdict: Verdict
    names: tuple[str, ...]
    root_name: str | None = None  # a root input: classify through the variable table


@dataclass
class _Block:
    open: _Tok
    program: list
    inverse: list
    close: _Tok


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

    def span(self, a: int, b: int) -> Span:
        return span_of(self.file, self.index_map, a, b)

    def err(self, pos: int, message: str) -> SourceError:
        line, col = self.span(pos, pos).line_col
        return SourceError(self.file.display_path, line, message, col)

    def label(self, tok: _Tok) -> str:
        return self.src[tok.start : tok.end]

    def run(self, start: int, end: int, scope: list[_Frame], top: bool) -> list:
        toks = _Lexer(self.src, start, end, self.err).tokens()
        program, n, stop = self._program(toks, 0)
        if stop is not None:
            what = "{{else}} outside a block" if stop.kind == "else" else \
                f"'{self.label(stop)}' closes a block that was never opened"
            raise self.err(stop.start, what)
        return self._lower(program, scope, top)

    # -- parsing ---------------------------------------------------------------
    def _program(self, toks: list[_Tok], n: int):
        """Nodes from toks[n] up to an else/close token: (nodes, index, that token)."""
        nodes: list = []
        while n < len(toks):
            tok = toks[n]
            if tok.kind in ("else", "close"):
                return nodes, n, tok
            if tok.kind in ("open", "inverse"):
                block, n = self._block(toks, n, tok, self._head(tok))
                nodes.append(block)
                continue
            if tok.kind != "comment":
                nodes.append(tok)
            n += 1
        return nodes, n, None

    def _head(self, tok: _Tok) -> str:
        return tok.body.split(None, 1)[0] if tok.body else ""

    def _block(self, toks: list[_Tok], n: int, opener: _Tok, name: str) -> tuple[_Block, int]:
        """The block opened at toks[n] (`opener`, maybe an `{{else if}}`),
        closed by `{{/name}}`: (block, index after the closer)."""
        program, n, stop = self._program(toks, n + 1)
        inverse: list = []
        if stop is not None and stop.kind == "else":
            if stop.body:  # {{else if x}}: a nested block sharing our closer
                chained = _Tok("open", stop.start, stop.end, stop.body)
                sub, n = self._block(toks, n, chained, name)
                return _Block(opener, program, [sub], sub.close), n
            inverse, n, stop = self._program(toks, n + 1)
            if stop is not None and stop.kind == "else":
                raise self.err(stop.start, f"second {{{{else}}}} in '{self.label(opener)}'")
        if stop is None:
            raise self.err(opener.start, f"'{self.label(opener)}' is never closed")
        if stop.body != name:
            line, col = self.span(opener.start, opener.start).line_col
            raise self.err(stop.start, f"'{self.label(stop)}' does not match '{self.label(opener)}' "
                                       f"opened at line {line}:{col}")
        return _Block(opener, program, inverse, stop), n + 1

    def _expr(self, tok: _Tok):
        parsed = _parse_expr(tok.body)
        if parsed is None:
            raise self.err(tok.start, f"cannot parse '{self.label(tok)}'")
        return parsed

    # -- lowering ------------------------------------------------------------------
    def _lower(self, nodes: list, scope: list[_Frame], top: bool) -> list:
        out: list = []
        for node in nodes:
            if isinstance(node, _Block):
                out.extend(self._lower_block(node, scope, top))
            elif node.kind == "text":
                text = node.text if node.text is not None else self.src[node.start : node.end]
                out.append(Text(text, self.span(node.start, node.end)))
            elif node.kind == "mustache":
                out.extend(self._mustache(node, scope, top))
            elif node.kind == "partial":
                out.append(self._partial(node, scope))
        return out

    def _mustache(self, tok: _Tok, scope: list[_Frame], top: bool) -> list:
        params, hash_, _ = self._expr(tok)
        head = params[0]
        label, span = self.label(tok), self.span(tok.start, tok.end)
        helper = head.text if head.kind == "path" else ""
        if helper == "history" and len(params) == 1:
            slot = Slot(label, SlotKind.VARIABLE, V.SESSION, HISTORY_REASON, span, names=("history",))
            return [_RoleMark(None, span, history=slot)] if top else [slot]
        if head.kind == "path" and len(params) == 1 and not hash_:
            return [self._ref_slot(_Path.parse(head.text), label, span, scope)]
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
                return [self._ref_slot(_Path.parse(url.text), label, span, scope)]
            verdict, names = self._verdict(list(hash_.values()), {}, scope)
            return [Slot(label, SlotKind.EXPRESSION, verdict.volatility, verdict.reason, span, names=names)]
        verdict, names = self._verdict(params, hash_, scope, helper=True)
        return [Slot(label, SlotKind.EXPRESSION, verdict.volatility, verdict.reason, span, names=names)]

    def _ref_slot(self, path: _Path, label: str, span: Span, scope: list[_Frame]) -> Slot:
        ref = self._resolve(path, scope)
        if ref.root_name is not None:
            return variable_slot(ref.root_name, label, span, self.ctx)
        return Slot(label, SlotKind.VARIABLE, ref.verdict.volatility, ref.verdict.reason, span, names=ref.names)

    def _resolve(self, path: _Path, scope: list[_Frame]) -> _Ref:
        if path.data:
            if path.parts[:1] == ("root",):
                return self._bound(_ROOT, path.parts[1:])
            loop = next((f.loop for f in reversed(scope) if f.loop is not None), None)
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

    def _verdict(self, params: list[_Expr], hash_: dict[str, _Expr], scope: list[_Frame],
                 helper: bool = False) -> tuple[Verdict, tuple[str, ...]]:
        """The most volatile input of a helper call or condition. With
        `helper`, params[0] is the helper's name, not an input."""
        found: list[Verdict] = []
        names: list[str] = []

        def visit(expr: _Expr, is_head: bool) -> None:
            if expr.kind == "path":
                if is_head:
                    known = classify_call(expr.text)
                    if known:
                        found.append(known)
                    return
                ref = self._resolve(_Path.parse(expr.text), scope)
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
            if by_name is not DEFAULT:
                return by_name, ()
            return Verdict(V.STATIC, f"helper {params[0].text!r} with constant arguments"), ()
        return Verdict(V.STATIC, "constant expression"), ()

    def _arg_ref(self, expr: _Expr, scope: list[_Frame]) -> _Ref:
        """What a block or partial argument refers to."""
        if expr.kind == "path":
            return self._resolve(_Path.parse(expr.text), scope)
        verdict, names = self._verdict([expr], {}, scope)
        return _Ref(verdict, names)

    def _context_of(self, expr: _Expr, scope: list[_Frame]) -> _Binding:
        """The context `{{#with x}}` or `{{> partial x}}` gives its body: a
        root input stays a path (so `name` inside is `x.name`)."""
        ref = self._arg_ref(expr, scope)
        if ref.root_name is not None:
            return _Binding(prefix=() if ref.root_name == "this" else tuple(ref.root_name.split(".")))
        return _Binding(verdict=Verdict(ref.verdict.volatility, f"inside with {expr.text}: {ref.verdict.reason}"),
                        names=ref.names)

    def _lower_block(self, block: _Block, scope: list[_Frame], top: bool) -> list:
        opener = block.open
        params, hash_, block_params = self._expr(opener)
        name = params[0].text
        args = params[1:]
        label, span = self.label(opener), self.span(opener.start, block.close.end)
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
        if name in ("each", "with") and args:
            ref = self._arg_ref(args[0], scope)
            if name == "each":
                item = Verdict(ref.verdict.volatility, f"item of {args[0].text}: {ref.verdict.reason}")
                binding = _Binding(verdict=item, names=ref.names)
                frame = _Frame(binding, {p: binding for p in block_params}, loop=binding)
            else:
                binding = self._context_of(args[0], scope)
                frame = _Frame(binding, {p: binding for p in block_params})
            body = self._lower(block.program, [*scope, frame], False)
            other = self._lower(block.inverse, scope, False)
            kind = SlotKind.LOOP if name == "each" else SlotKind.CONDITIONAL
            return [self._region(label, kind, ref.verdict, ref.names, span, body, other)]
        verdict, names = self._verdict(params, hash_, scope, helper=True)
        body = self._lower(block.program, scope, False)
        other = self._lower(block.inverse, scope, False)
        kind = SlotKind.CONDITIONAL if name in ("if", "unless", "ifEquals", "unlessEquals") else SlotKind.CALL
        if kind is SlotKind.CONDITIONAL:
            verdict, names = self._verdict(args, hash_, scope)
        return [self._region(label, kind, verdict, names, span, body, other)]

    @staticmethod
    def _region(label, kind, own: Verdict, names, span, body, other) -> Slot:
        """A region is as volatile as its own condition or iterable, or its
        most volatile part, whichever is higher."""
        body = [p for p in body if not isinstance(p, _RoleMark)]
        other = [p for p in other if not isinstance(p, _RoleMark)]
        best = own
        for part in (*body, *other):
            if isinstance(part, Slot) and part.volatility > best.volatility:
                best = Verdict(part.volatility, f"contains {part.label}: {part.reason}")
        return Slot(label, kind, best.volatility, best.reason, span, names=tuple(names),
                    children=body, else_children=other)

    # -- partials ------------------------------------------------------------------
    def _partial(self, tok: _Tok, scope: list[_Frame]) -> Slot:
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
        _, start, end = _split(pfile)
        body = inner.run(start, end, [*scope, frame], top=False)
        own = Verdict(V.STATIC, f"partial {name!r} ({pfile.display_path})")
        return self._region(label, SlotKind.INCLUDE, own, (), span, body, [])

    def _find_partial(self, name: str) -> Path | None:
        folder, _, base = name.rpartition("/")
        for here in dict.fromkeys(self.base_dirs):
            for candidate in (here / folder / f"_{base}.prompt", here / "partials" / folder / f"{base}.prompt",
                              here / "partials" / folder / f"_{base}.prompt"):
                if candidate.is_file():
                    return candidate
        return None


def _split(file: SourceFile) -> tuple[dict | None, int, int]:
    """(front matter, body start, body end): the body is trimmed, as
    dotprompt does, when there is front matter."""
    data, _, body_start = split_front_matter(file, allow_header=True)
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


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """One `.prompt` file is one prompt named after the file."""
    data, start, end = _split(file)
    declared = dotprompt_inputs(data, file)
    fctx = replace(ctx, variables=declared.table(ctx.variables))
    default_role = str(promptlint_options(data).get("default_role") or "user")
    stack = (file.path.resolve(),) if file.path.exists() else ()
    items = _Handlebars(file, file.text, None, fctx, (file.path.parent,), stack).run(
        start, end, [_Frame(_ROOT)], top=True)
    model = (data or {}).get("model")
    return [PromptTemplate(file.path.stem, file, "dotprompt", _sections(items, default_role),
                           declared.variables(), model=str(model) if isinstance(model, str) else None)]


__all__ = ["read", "parse_handlebars_fragment", "HISTORY_REASON"]
