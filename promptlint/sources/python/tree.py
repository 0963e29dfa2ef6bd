"""One pass over a module's syntax tree without libcst's visitor machinery
(which dispatches two hooks per attribute of every node: about four times
the cost of this walk), and the positions of its nodes.

`walk` visits every node in source order (libcst's own order: the order
its code is generated in), calling `enter(node)` before a node's children
and `leave(node)` after them.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

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


def _walked(cls) -> bool:
    """Whether nodes of this class are walked into: a CST node that is not
    lexical (isinstance against libcst's abstract bases is slow: memoised by class)."""
    found = _WALKED.get(cls)
    if found is None:
        found = _WALKED[cls] = issubclass(cls, cst.CSTNode) and not issubclass(cls, _LEXICAL)
    return found


_WALKED: dict[type, bool] = {}


def walk(module: cst.Module, enter, leave=None) -> None:
    """Visit the nodes of the module's statements that can hold code (not
    whitespace, comments or punctuation), in source order."""
    walked = _WALKED
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
            children = []
            for name in _fields(type(node)):
                value = getattr(node, name)
                cls = type(value)
                if cls is list or cls is tuple:
                    children.extend(v for v in value if walked.get(type(v)) or _walked(type(v)))
                elif walked.get(cls) or _walked(cls):
                    children.append(value)
            todo.extend(reversed(children))


def positions(module: cst.Module) -> dict:
    """node -> CodeRange for every node of the module (libcst's PositionProvider)."""
    try:
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    except KeyError as exc:  # libcst reports a recursion overflow in its position pass this way
        if isinstance(exc.__context__, RecursionError):
            raise RecursionError from None
        raise
