"""Handlebars syntax with positions: a lexer that keeps the source offsets of
every tag, the expression grammar inside a tag, and a parser that builds the
block tree.

No Handlebars library reports positions, so this module carries its own.
It knows nothing of the IR, volatility or dotprompt: a reader lowers the
tree (see promptlint.sources.dotprompt). Whitespace follows Handlebars:
standalone block, else, comment and partial lines are removed with their
line break, and `~` strips whitespace on its side of a tag. Errors are
raised through the reader's `err(offset, message)`, so they name the file's
line and column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

ErrorAt = Callable[[int, str], Exception]  # (offset, message) -> the exception to raise
PositionOf = Callable[[int], tuple[int, int]]  # offset -> (line, col) for messages

MAX_LABEL = 80  # characters of a tag quoted in an error message
_STANDALONE = {"open", "inverse", "close", "else", "comment", "partial"}


# -- lexer ---------------------------------------------------------------------


@dataclass
class Token:
    kind: str  # text | mustache | open | inverse | close | else | partial | comment
    start: int  # offsets in the source string, the whole tag with its braces
    end: int
    body: str = ""  # tag content without braces, `~` and sigil
    text: str | None = None  # a text token rendered differently from its source (`\{{`)
    strip_left: bool = False
    strip_right: bool = False
    # `{{#> layout}}` (a partial block: the partial, with the body as its
    # fallback) or `{{#*inline "x"}}` (a decorator: defines, prints nothing)
    special: str = ""


class Lexer:
    """Tokens of src[start:end], then Handlebars' whitespace rules applied."""

    def __init__(self, src: str, start: int, end: int, err: ErrorAt):
        self.src, self.start, self.end, self.err = src, start, end, err

    def tokens(self) -> list[Token]:
        src, end = self.src, self.end
        toks: list[Token] = []
        pending = i = self.start
        while (j := src.find("{{", i, end)) >= 0:
            if j - 1 >= pending and src[j - 1] == "\\":
                if j - 2 >= pending and src[j - 2] == "\\":  # \\{{x}}: a backslash, then the tag
                    self._text(toks, pending, j - 2)
                    toks.append(Token("text", j - 2, j, text="\\"))
                else:  # \{{x}}: literal braces
                    self._text(toks, pending, j - 1)
                    toks.append(Token("text", j - 1, j + 2, text="{{"))
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
    def _text(toks: list[Token], a: int, b: int) -> None:
        if b > a:
            toks.append(Token("text", a, b))

    def _raw_block(self, j: int) -> Token:
        """{{{{raw}}}} ... {{{{/raw}}}}: the content is literal text."""
        close_open = self.src.find("}}}}", j + 4, self.end)
        if close_open < 0:
            raise self.err(j, "unclosed '{{{{'")
        name = self.src[j + 4 : close_open].strip()
        closer = "{{{{/" + name + "}}}}"
        at = self.src.find(closer, close_open + 4, self.end)
        if at < 0:
            raise self.err(j, f"raw block '{{{{{{{{{name}}}}}}}}}' is never closed")
        return Token("text", j, at + len(closer), text=self.src[close_open + 4 : at])

    def _tag(self, j: int) -> Token:
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
            return Token("comment", j, m.end(), strip_left=strip_left, strip_right="~" in m.group())
        closer = "}}}" if triple else "}}"
        q = self._find_close(k, closer)
        if q < 0:
            raise self.err(j, f"unclosed '{{{{' (no matching '{closer}')")
        content = src[k:q]
        strip_right = content.endswith("~")
        body = (content[:-1] if strip_right else content).strip()
        tok = Token("mustache", j, q + len(closer), body, strip_left=strip_left, strip_right=strip_right)
        if not body:
            raise self.err(j, "empty '{{}}' tag")
        if triple:
            return tok
        sigil, rest = body[0], body[1:].strip()
        if sigil == "#":
            if rest[:1] in (">", "*"):
                tok.special, rest = ("partial" if rest[0] == ">" else "decorator"), rest[1:].strip()
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

    def _standalone(self, toks: list[Token]) -> None:
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

    def _tilde(self, toks: list[Token]) -> None:
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


def tokenize(src: str, start: int, end: int, err: ErrorAt) -> list[Token]:
    """Tokens of src[start:end] with Handlebars' whitespace rules applied."""
    return Lexer(src, start, end, err).tokens()


# -- expressions inside a tag ----------------------------------------------------


@dataclass
class Expr:
    kind: str  # path | str | lit | sub
    text: str  # source text (a string's value for str)
    items: list[Expr] = field(default_factory=list)  # sub: helper and params
    hash: dict[str, Expr] = field(default_factory=dict)


_EXPR_TOKEN = re.compile(r"""\s*(?:
    (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<lp>\()
  | (?P<rp>\))
  | (?P<bp>as\s+\|[^|]*\|)
  | (?P<key>[A-Za-z_@$][\w$@-]*)=
  | (?P<lit>(?:-?\d+(?:\.\d+)?|true|false|null|undefined)(?=[\s)]|$))
  | (?P<path>(?:\[[^\]]*\]|[^\s()=|"'\[\]])+)
)""", re.VERBOSE)


def parse_expr(body: str) -> tuple[list[Expr], dict[str, Expr], list[str]] | None:
    """(params, hash, block params) of a tag body; None if it does not parse."""
    pos = 0
    stack: list[Expr] = [Expr("sub", "")]
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
            stack.append(Expr("sub", ""))
            pending_key.append(None)
            continue
        if kind == "rp":
            if len(stack) == 1:
                return None
            expr = stack.pop()
            pending_key.pop()
        elif kind == "str":
            raw = m.group("str")
            expr = Expr("str", re.sub(r"\\(.)", r"\1", raw[1:-1]))
        else:
            expr = Expr(kind, m.group(kind))
        key = pending_key[-1]
        if key is not None:
            stack[-1].hash[key] = expr
            pending_key[-1] = None
        else:
            stack[-1].items.append(expr)
    if len(stack) != 1 or not stack[0].items:
        return None
    return stack[0].items, stack[0].hash, block_params


def iter_paths(params: list[Expr], hash_: dict[str, Expr]) -> Iterator[Expr]:
    """Every path expression in a tag's params and hash, subexpressions included."""
    for expr in (*params, *hash_.values()):
        if expr.kind == "path":
            yield expr
        elif expr.kind == "sub":
            yield from iter_paths(expr.items, expr.hash)


@dataclass(frozen=True)
class PathExpr:
    """A Handlebars path split into its parts: `@../key`, `this.name`, `../x.y`."""

    data: bool  # @index, @root.x
    up: int  # number of ../
    this: bool  # this, this.x, ./x: the current context only
    parts: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> PathExpr:
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


# -- the block tree ------------------------------------------------------------------


@dataclass
class Block:
    """`{{#name ...}}program{{else}}inverse{{/name}}` (or `{{^name}}...`).
    An `{{else if x}}` chain is a nested Block, the only node of `inverse`,
    sharing the outer block's closer."""

    open: Token
    program: list[Node]
    inverse: list[Node]
    close: Token

    @property
    def name(self) -> str:
        return head(self.open)


Node = Token | Block  # a Token here is text, mustache or partial (comments are dropped)


def head(tok: Token) -> str:
    """The first word of a tag: a block's or helper's name."""
    return tok.body.split(None, 1)[0] if tok.body else ""


class Parser:
    """Builds the block tree of src[start:end]; every node keeps its offsets."""

    def __init__(self, src: str, err: ErrorAt, position: PositionOf, report=None):
        """`report`: where an error that need not stop the parse goes (a closer
        with no opener is reported there and skipped); without it, raised."""
        self.src, self.err, self.position, self.report = src, err, position, report

    def label(self, tok: Token) -> str:
        """A tag as written, for a message: its first line, at most MAX_LABEL characters."""
        text = self.src[tok.start : tok.end]
        first = text.splitlines()[0] if text else text
        return text if first == text and len(text) <= MAX_LABEL else first[:MAX_LABEL - 1] + "…"

    def parse(self, start: int, end: int) -> list[Node]:
        toks = tokenize(self.src, start, end, self.err)
        program, n, stop = self._program(toks, 0)
        while stop is not None:
            what = "{{else}} outside a block" if stop.kind == "else" else \
                f"'{self.label(stop)}' closes a block that was never opened"
            if self.report is None:
                raise self.err(stop.start, what)
            self.report(self.err(stop.start, what))
            more, n, stop = self._program(toks, n + 1)
            program += more
        return program

    def expr(self, tok: Token) -> tuple[list[Expr], dict[str, Expr], list[str]]:
        """parse_expr of a tag, or the reader's error at the tag."""
        parsed = parse_expr(tok.body)
        if parsed is None:
            raise self.err(tok.start, f"cannot parse '{self.label(tok)}'")
        return parsed

    def _program(self, toks: list[Token], n: int) -> tuple[list[Node], int, Token | None]:
        """Nodes from toks[n] up to an else/close token: (nodes, index, that token)."""
        nodes: list[Node] = []
        while n < len(toks):
            tok = toks[n]
            if tok.kind in ("else", "close"):
                return nodes, n, tok
            if tok.kind in ("open", "inverse"):
                block, n = self._block(toks, n, tok, head(tok))
                nodes.append(block)
                continue
            if tok.kind != "comment":
                nodes.append(tok)
            n += 1
        return nodes, n, None

    def _block(self, toks: list[Token], n: int, opener: Token, name: str) -> tuple[Block, int]:
        """The block opened at toks[n] (`opener`, maybe an `{{else if}}`),
        closed by `{{/name}}`: (block, index after the closer)."""
        program, n, stop = self._program(toks, n + 1)
        inverse: list[Node] = []
        if stop is not None and stop.kind == "else":
            if stop.body:  # {{else if x}}: a nested block sharing our closer
                chained = Token("open", stop.start, stop.end, stop.body)
                sub, n = self._block(toks, n, chained, name)
                return Block(opener, program, [sub], sub.close), n
            inverse, n, stop = self._program(toks, n + 1)
            if stop is not None and stop.kind == "else":
                raise self.err(stop.start, f"second {{{{else}}}} in '{self.label(opener)}'")
        if stop is None:
            raise self.err(opener.start, f"'{self.label(opener)}' is never closed")
        if stop.body != name:
            line, col = self.position(opener.start)
            raise self.err(stop.start, f"'{self.label(stop)}' does not match '{self.label(opener)}' "
                                       f"opened at line {line}:{col}")
        return Block(opener, program, inverse, stop), n + 1


__all__ = [
    "Block",
    "ErrorAt",
    "Expr",
    "Lexer",
    "Node",
    "Parser",
    "PathExpr",
    "PositionOf",
    "Token",
    "head",
    "iter_paths",
    "parse_expr",
    "tokenize",
]
