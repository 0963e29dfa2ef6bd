"""One pass over a module's syntax tree without libcst's visitor machinery
(which dispatches two hooks per attribute of every node: about four times
the cost of this walk), and the positions of its nodes.

`walk` visits every node in source order (libcst's own order: the order
its code is generated in), calling `enter(node)` before a node's children
and `leave(node)` after them.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.internal import CodegenState

# Fields in the order their code is written, where a node's dataclass
# declares them in another order (the rest follow in declaration order).
_WRITTEN_FIRST = {
    cst.FunctionDef: ("leading_lines", "decorators", "lines_after_decorators", "asynchronous", "name", "params",
                      "returns", "body"),
    cst.ClassDef: ("leading_lines", "decorators", "lines_after_decorators", "name", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Arg: ("star", "keyword", "equal", "value"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls) -> tuple[str, ...]:
    found = _FIELDS.get(cls)
    if found is None:
        names = [f.name for f in dataclasses.fields(cls)]
        first = [n for n in _WRITTEN_FIRST.get(cls, ()) if n in names]
        found = _FIELDS[cls] = tuple(first + [n for n in names if n not in first])
    return found


# Nodes that hold no expression or statement (whitespace, comments,
# punctuation, operators): not walked into.
_LEXICAL = (cst.BaseParenthesizableWhitespace, cst.Newline, cst.EmptyLine, cst.TrailingWhitespace, cst.Comment,
            cst.Comma, cst.Dot, cst.Colon, cst.AssignEqual, cst.Semicolon, cst.LeftParen, cst.RightParen,
            cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
            cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp, cst.ImportStar,
            cst.Asynchronous, cst.ParamSlash, cst.ParamStar)


_WALKED: dict[type, bool] = {}


def _walked(cls) -> bool:
    """Whether nodes of this class are walked into: a CST node that is not
    lexical (isinstance against libcst's abstract bases is slow: memoised by class)."""
    found = _WALKED.get(cls)
    if found is None:
        found = _WALKED[cls] = issubclass(cls, cst.CSTNode) and not issubclass(cls, _LEXICAL)
    return found


def _children(node) -> list:
    """The node's children that can hold code, in source order."""
    walked = _WALKED
    children = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        cls = type(value)
        if cls is list or cls is tuple:
            children.extend(v for v in value if walked.get(type(v)) or _walked(type(v)))
        elif walked.get(cls) or _walked(cls):
            children.append(value)
    return children


def nodes(root: cst.CSTNode):
    """The nodes under `root` (itself first) that can hold code, in source
    order, as `walk` visits them."""
    todo = [root]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(reversed(_children(node)))


def walk(module: cst.Module, enter, leave=None) -> None:
    """Visit the nodes of the module's statements that can hold code (not
    whitespace, comments or punctuation), in source order."""
    _LEAVE = object()
    for top in module.body:
        todo = [top]
        while todo:
            node = todo.pop()
            if node is _LEAVE:
                leave(todo.pop())
                continue
            if enter is not None:
                enter(node)
            if leave is not None:
                todo.append(node)
                todo.append(_LEAVE)
            todo.extend(reversed(_children(node)))


class _OffsetState(CodegenState):
    """libcst's code generation, counting characters instead of keeping
    text: each node's (start, end) offsets as libcst's PositionProvider
    computes its line and column (syntactic positions, which leave out the
    whitespace a node owns), without the metadata wrapper's visit of the
    whole tree, a CodeRange per node or a newline search per token."""

    def __init__(self, module: cst.Module):
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.spans: dict = {}
        self.offset = 0
        self._starts: list[int] = []

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)
        self.tokens.extend(self.indent_tokens)

    def add_token(self, value: str) -> None:
        self.offset += len(value)
        self.tokens.append(value)

    def before_codegen(self, node) -> None:
        self._starts.append(self.offset)

    def after_codegen(self, node) -> None:
        start = self._starts.pop()
        if node not in self.spans:  # a syntactic position recorded inside wins
            self.spans[node] = (start, self.offset)

    @contextmanager
    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        start = self.offset
        try:
            yield
        finally:
            spans = self.spans
            self.spans[node] = (spans[start_node][0] if start_node is not None else start,
                                spans[end_node][1] if end_node is not None else self.offset)


def positions(module: cst.Module) -> dict:
    """node -> (start, end) character offsets in the module's text, for
    every node (the syntactic positions of libcst's PositionProvider)."""
    state = _OffsetState(module)
    try:
        module._codegen(state)
    except KeyError as exc:  # libcst reports a recursion overflow in its position pass this way
        if isinstance(exc.__context__, RecursionError):
            raise RecursionError from None
        raise
    return state.spans
