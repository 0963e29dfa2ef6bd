"""Messages put into a conversation the code receives but does not build.

Chat frameworks hand a processor or a node the conversation so far (a
context's `get_messages()`, `chat_ctx.items`, a `messages` parameter), and
code that adds retrieved memories or documents often puts them in early:
it inserts a message at a fixed position (`messages.insert(1, memory_message)`)
or appends text to the first, system message
(`chat_ctx.items[0].content.append(text)`, `messages[0]["content"] += ctx`),
sets the first message's text outright (`messages[0].content =
TEMPLATE.replace("{DATA}", json.dumps(portfolio))`), or prepends a message
(`query.messages = [memory_message] + query.messages`).
Every message after that point, the conversation's history, then follows a
value that changes each turn, and the provider's cache of it is lost on
every turn. The prompt read here is the added text followed by that history
(a per-session slot), so PL001 judges the added value against it.

Only a receiver named for a conversation counts, only a message (a role
dict or a message class) is an inserted message, and only at a position
fixed from the start (a literal, a setting, a parameter, one clamped to the
list): an index counted from the end or found by a search puts it by the
current turn, no finding.
"""

from __future__ import annotations

import re

import libcst as cst

from promptlint.ir import Section, Slot, SlotKind, Volatility
from promptlint.sources.python.scope import _dotted_name
from promptlint.sources.python.strings import MIN_PROMPT_TEXT, has_words
from promptlint.sources.python.values import ConstV, DictV, ListV, MsgV, Opaque, Spread

# a part of the receiver's dotted name that names a conversation (chat_ctx.items, self.messages)
_CONVERSATION = re.compile(r"(?:^|_)(?:messages|msgs|history|conversation|dialog|dialogue|turns|chat|chat_ctx|ctx|"
                           r"context|chat_context)(?:_|$)", re.I)
_APPENDS = ("append", "extend")
# the text of a file that may do either: read before parsing, so that a file with none is skipped unparsed
HINT = re.compile(r"\.content\.(?:append|extend)\(|\.content\s*\+?=(?!=)|\[[\"']?content[\"']?\]\s*\+?=(?!=)"
                  r"|(?:messages|msgs|history|ctx|context|conversation|chat|turns)\w*(?:\.\w+)*\.insert\("
                  r"|=\s*\[[^\]\n]*\]\s*\+\s*[\w.]*(?:messages|msgs|history|conversation)\b", re.I)


def site(node) -> str | None:
    """What kind of injection a call or augmented assignment is shaped like
    ("insert", "append"), before anything is evaluated; None for neither."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        attr = node.func.attr.value
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if attr == "insert" and len(positional) == 2 and len(node.args) == 2 and _conversation(node.func.value):
            return "insert"
        if attr in _APPENDS and len(positional) == 1 and _content_of(node.func.value) is not None:
            return "append"
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign) \
            and _content_of(node.target) is not None:
        return "append"
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
        if _content_of(target) is not None:
            return "replace"
        value = node.value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) \
                and isinstance(value.left, cst.List) and value.left.elements and _conversation(target) \
                and _path_name(value.right) is not None and _path_name(value.right) == _path_name(target):
            return "prepend"
    return None


def _conversation(node) -> bool:
    dotted = _path_name(node)
    return dotted is not None and any(_CONVERSATION.search(p.lstrip("_")) for p in dotted.split("."))


def _path_name(node) -> str | None:
    """`self.state["state"]["messages"]` as `self.state.state.messages`: a
    dotted name that reads string keys as attributes; None for anything else."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
            and isinstance(node.slice[0].slice.value, cst.SimpleString):
        key = node.slice[0].slice.value.evaluated_value
        base = _path_name(node.value)
        return f"{base}.{key}" if base is not None and isinstance(key, str) else None
    if isinstance(node, cst.Attribute):
        base = _path_name(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return _dotted_name(node)


def _fixed_position(index, scope, at: int, depth: int = 0) -> bool:
    """Whether an insert's index is a position fixed from the start of the
    conversation: a non-negative literal (`1`), a setting or parameter
    (`self.position`), or one clamped to the list (`max(0, min(self.position,
    len(messages)))`). An index computed from the end or by a search
    (`len(messages) - 1`, `-1`, `next(i for i in range(len(messages) - 1, ...))`)
    puts the message near the current turn: no finding."""
    if depth > 4:
        return False
    if isinstance(index, cst.Integer):
        return True
    if isinstance(index, cst.Attribute):
        return True
    if isinstance(index, cst.Name):
        if index.value in scope.params:
            return True
        bound = _bound_to(scope, index, at)
        return bound is not None and _fixed_position(bound, scope, at, depth + 1)
    if isinstance(index, cst.Call) and isinstance(index.func, cst.Name) and index.func.value in ("min", "max"):
        return any(_fixed_position(a.value, scope, at, depth + 1) for a in index.args
                   if not (isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Name)
                           and a.value.func.value == "len"))
    return False


def _content_of(node):
    """The message whose content `node` is (`m.content`, `m["content"]`), else None."""
    if isinstance(node, cst.Attribute) and node.attr.value == "content":
        return node.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        key = node.slice[0].slice.value
        if isinstance(key, cst.SimpleString) and key.evaluated_value == "content" \
                or isinstance(key, cst.Name) and key.value.lower() == "content":  # a CONTENT = "content" constant
            return node.value
    return None


def _first_of(node) -> cst.CSTNode | None:
    """The conversation `node` is the first message of (`ctx.items[0]`), else None."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        index = node.slice[0].slice.value
        if isinstance(index, cst.Integer) and index.evaluated_value == 0 and _conversation(node.value):
            return node.value
    return None


def read(flow, build, node, kind: str, scope) -> list[Section] | None:
    """The sections of one injection: the added message or text, then the
    history after it. None when the receiver is a list built here (the flow
    reads that list itself) or what is added is not a message."""
    frame = flow.frame_for(scope)
    at = flow.span(node)[0]
    if kind == "insert":
        receiver, (index, added) = node.func.value, [a.value for a in node.args]
        if not _fixed_position(index, scope, at) or not _received(flow, receiver, scope, frame, at):
            return None
        where = flow.eval(index, frame)  # a parameter whose default is -1 counts from the end
        if isinstance(where, ConstV) and not (isinstance(where.value, int) and where.value >= 0):
            return None
        message = _message(flow, added, scope, frame, at)
        if message is None:
            return None
        head = [build.message(message, False, None, added)]
    elif kind == "prepend":
        receiver = node.value.right
        if not _received(flow, receiver, scope, frame, at):
            return None
        added = node.value.left.elements[0].value
        message = _message(flow, added, scope, frame, at)
        if message is None:
            return None
        head = [build.message(message, False, None, added)]
    else:
        target = node.targets[0].target if kind == "replace" else \
            node.func.value if isinstance(node, cst.Call) else node.target
        holder = _content_of(target)
        conversation = _first_of(holder) or _first_of(_bound_to(scope, holder, at))
        if conversation is None or not _received(flow, conversation, scope, frame, at):
            return None
        added = node.args[0].value if isinstance(node, cst.Call) else node.value
        value = flow.eval(added, frame)
        if kind == "replace" and not has_words(value, MIN_PROMPT_TEXT):
            return None  # `messages[0]["content"] = cleaned`: text we cannot read is not a prompt here
        head = [build.section("system", build.content(value), added)]
        receiver = conversation
    if not any(p for s in head for p in s.parts):
        return None
    return head + [Section("user", [_history(flow, receiver)], flow.file_span(*flow.span(receiver)))]


def _message(flow, node, scope, frame, at: int):
    """The message an expression gives (a role dict, a message class), else
    None; of `a if c else b` (written there or assigned to the name) the
    first arm, when both are messages (they differ in the role)."""
    value = flow.eval(node, frame)
    if _is_message(value):
        return value
    choice = node if isinstance(node, cst.IfExp) else _bound_to(scope, node, at)
    if isinstance(choice, cst.IfExp):
        arms = [flow.eval(choice.body, frame), flow.eval(choice.orelse, frame)]
        if all(_is_message(a) for a in arms):
            return arms[0]
    return None


def _is_message(value) -> bool:
    return isinstance(value, DictV) and value.get("role") is not None \
        or isinstance(value, MsgV) and value.placeholder is None


def _bound_to(scope, node, at: int):
    """The expression a plain name was last assigned before `at` (`first = ctx.items[0]`)."""
    return scope.assigned(node.value, at) if isinstance(node, cst.Name) else None


def _received(flow, receiver, scope, frame, at: int) -> bool:
    """Whether a conversation is one this code does not build: a parameter,
    an attribute, what a framework call returned (not a list of messages
    written here, which the flow follows item by item)."""
    if _built_here(receiver, scope, at):
        return False
    if isinstance(receiver, cst.Name):
        value = flow.lookup(receiver.value, at, frame)
    else:
        value = flow.eval(receiver, frame)
    if isinstance(value, Opaque):
        return True
    return isinstance(value, ListV) and all(isinstance(i, (Spread, Opaque)) for i in value.items)


def _built_here(receiver, scope, at: int) -> bool:
    """A request this function writes out (`payload = {"model": m, "messages": [...]}`
    and later `payload["messages"].insert(0, system)`): the dict or list its
    root name was first given here, even if rebuilt from itself later."""
    dotted = _path_name(receiver)
    root = dotted.split(".")[0] if dotted else None
    if root is None or root in ("self", "cls") or root in scope.params:
        return False
    first = next((b for b in scope.bindings.get(root, ()) if b.start < at), None)
    return first is not None and first.kind == "assign" and not first.path \
        and isinstance(first.value, (cst.Dict, cst.List))


def _history(flow, receiver) -> Slot:
    """The messages already in the conversation after the added text: its history."""
    name = _dotted_name(receiver) or flow.src(receiver)
    return Slot(label=f"the rest of {name}", kind=SlotKind.VARIABLE, volatility=Volatility.SESSION,
                reason=f"the conversation history already in {name}, after what this code adds",
                span=flow.file_span(*flow.span(receiver)), names=(name.rsplit(".", 1)[-1],))


__all__ = ["site", "read"]
