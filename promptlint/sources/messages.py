"""Message files: chat requests written as YAML or JSON, read into the IR.

Accepted shapes, detected from the data: an OpenAI Chat Completions request
(or a bare list of messages), an OpenAI Responses request (`instructions`,
`input`), an Anthropic Messages request (top-level `system`, `cache_control`
breakpoints), a Bedrock Converse request (`cachePoint`), and files holding
several of these (a mapping of name -> request, or a list of requests with
`name`).

JSON is read by the same YAML parser: ruamel's composer gives every node its
start and end offsets, which is what exact spans need and what `json` cannot
give. We compose (no object is built from tags) and then build plain data with
the safe constructor, so a Python tag is refused, never run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import Reader

from promptlint.ir import (
    Breakpoint, NotAPrompt, Part, PromptTemplate, Section, SourceError, SourceFile, Span, Text,
)
from promptlint.sources.base import SourceContext, align_offsets
from promptlint.sources.placeholders import parse_template_string

OPENAI = "messages-openai"
ANTHROPIC = "messages-anthropic"
NOT_MESSAGES = "not a message file: expected 'messages', 'system' or 'input'"

_STR_TAG = "tag:yaml.org,2002:str"
_TEXT_BLOCK_TYPES = (None, "text", "input_text", "output_text")
# Strings inside tool definitions that are prose a template may fill in; other
# strings (names, JSON-schema patterns such as "^[a-z]{3}$") are kept literal.
_TEMPLATED_TOOL_KEYS = frozenset({"description", "title"})
_OPENAI_MODEL = re.compile(r"(ft:)?(gpt|chatgpt|o\d|text-|davinci|openai)", re.I)
_ANTHROPIC_MODEL = re.compile(r"claude|anthropic", re.I)


# ---------------------------------------------------------------- detection

def _is_message_list(value: Any, allow_empty: bool = False) -> bool:
    if not isinstance(value, list) or (not value and not allow_empty):
        return False
    return all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value)


def _is_text_or_blocks(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(b, dict) and ("text" in b or "type" in b or "cachePoint" in b)
                                        for b in value))


def _is_request(data: Any) -> bool:
    """One provider request: messages, a system prompt, or Responses input."""
    if not isinstance(data, dict):
        return False
    if "messages" in data:
        return _is_message_list(data["messages"], allow_empty=True)
    if "system" in data:
        return _is_text_or_blocks(data["system"])
    if isinstance(data.get("instructions"), str):
        return True
    return "input" in data and "model" in data and isinstance(data["input"], (str, list))


def _locate(data: Any, depth: int = 0) -> list[tuple[str | None, tuple]]:
    """(name, path of keys) of every request in the file. A name is None for
    a file that is one request; nesting is searched two levels deep so that
    `prompts: {triage: {...}}` is found."""
    if _is_request(data) or _is_message_list(data):
        return [(None, ())]
    if depth == 2:
        return []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    found = []
    for key, value in items:
        for name, path in _locate(value, depth + 1):
            if name is None and isinstance(data, list):  # a list item: its `name`, else its number
                own = value.get("name") if isinstance(value, dict) else None
                name = own if isinstance(own, str) else str(key + 1)
            elif name is None:  # a mapping of name -> request
                name = str(key)
            found.append((name, (key, *path)))
    return found


def looks_like_messages(data: Any) -> bool:
    """True when parsed YAML/JSON data holds at least one chat request."""
    return bool(_locate(data))


def _mentions(data: Any, keys: frozenset) -> bool:
    if isinstance(data, dict):
        return any(k in keys or _mentions(v, keys) for k, v in data.items())
    if isinstance(data, list):
        return any(_mentions(v, keys) for v in data)
    return False


def _format(data: Any) -> str:
    """Which provider's layout a request follows: the model name says so
    first, then Anthropic/Bedrock-only fields; anything else is OpenAI's."""
    if not isinstance(data, dict):
        return ANTHROPIC if _mentions(data, frozenset({"cache_control", "cachePoint"})) else OPENAI
    model = str(data.get("model") or data.get("modelId") or "")
    if _ANTHROPIC_MODEL.search(model):
        return ANTHROPIC
    if _OPENAI_MODEL.match(model):
        return OPENAI
    tools = data.get("tools")
    if ("system" in data or "modelId" in data or "toolConfig" in data
            or _mentions(data, frozenset({"cache_control", "cachePoint"}))
            or (isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools))):
        return ANTHROPIC
    return OPENAI


# ---------------------------------------------------------------- parsing

def _is_json(file: SourceFile) -> bool:
    return file.path.suffix.lower() == ".json" or file.text.lstrip()[:1] in ("{", "[")


class _JsonReader(Reader):
    """JSON allows raw characters YAML calls non-printable (DEL, C1 controls)."""

    def check_printable(self, data: Any) -> None:
        pass


def _compose(file: SourceFile) -> tuple[Node | None, Any]:
    """The node tree (with offsets) and the plain data it constructs to.
    Error positions come from the character offset, not ruamel's line count,
    which also counts U+2028/U+0085 as line breaks."""
    yaml = YAML(typ="safe", pure=True)
    kind = "JSON" if _is_json(file) else "YAML"
    if kind == "JSON":
        yaml.Reader = _JsonReader
    try:
        node = yaml.compose(file.text)
        data = yaml.constructor.construct_document(node) if node is not None else None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = file.position(mark.index) if mark is not None else (1, 1)
        problem = exc.problem or exc.context or str(exc).splitlines()[0]
        raise SourceError(file.display_path, line, f"invalid {kind}: {problem}", col) from None
    except YAMLError as exc:  # reader errors (control characters) carry a character position
        line, col = file.position(getattr(exc, "position", 0) or 0)
        raise SourceError(file.display_path, line, f"invalid {kind}: {str(exc).splitlines()[0]}", col) from None
    except RecursionError:
        raise SourceError(file.display_path, 1, f"invalid {kind}: nested too deeply") from None
    return node, data


def _child(node: Node | None, key: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return v
    return None


def _key_node(node: MappingNode, key: str) -> Node | None:
    for k, _ in node.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k
    return None


def _is_str(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _STR_TAG


def _descend(node: Node, data: Any, key: Any) -> tuple[Node, Any]:
    """Follow one step of a `_locate` path in the node tree and the data."""
    if isinstance(node, SequenceNode):
        return node.value[key], data[key]
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.value == str(key):
            return v, data[key]
    raise KeyError(key)


def _combine_surrogates(text: str, index_map: list[int]) -> tuple[str, list[int]]:
    """YAML decodes a JSON surrogate pair (`\\ud83d\\ude00`) as two code
    points; JSON (and the provider) sees one character."""
    out, offsets, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if "\ud800" <= ch <= "\udbff" and i + 1 < len(text) and "\udc00" <= text[i + 1] <= "\udfff":
            ch = (ch + text[i + 1]).encode("utf-16", "surrogatepass").decode("utf-16")
            offsets.append(index_map[i])
            i += 2
        else:
            offsets.append(index_map[i])
            i += 1
        out.append(ch)
    offsets.append(index_map[-1])
    return "".join(out), offsets


# ---------------------------------------------------------------- building

class _Builder:
    """Turns the nodes of one file into sections and parts with spans."""

    def __init__(self, file: SourceFile, ctx: SourceContext, yaml_constructor):
        self.file = file
        self.ctx = ctx
        self.is_json = _is_json(file)
        self.construct = lambda n: yaml_constructor.construct_object(n, deep=True)

    def span(self, start: int, end: int) -> Span:
        """A span with trailing whitespace (a block node's newline) cut off."""
        while end > start and self.file.text[end - 1] in " \t\r\n":
            end -= 1
        return Span(self.file, start, end)

    def node_span(self, node: Node) -> Span:
        return self.span(node.start_mark.index, node.end_mark.index)

    def decode(self, node: ScalarNode) -> tuple[str, list[int]]:
        """The string value and, for each character, its offset in the file.
        The raw text starts after any anchor or tag, the opening quote, or a
        block scalar's header line."""
        text, style, value = self.file.text, node.style, node.value
        start, end = node.start_mark.index, node.end_mark.index
        if style in ('"', "'"):
            start, end = text.index(style, start) + 1, max(start, end - 1)
            if style == '"' and self.is_json:
                # JSON's own decoding: YAML would fold a raw U+2028 or U+0085
                # as a line break and split surrogate pairs
                try:
                    value = json.loads(text[start - 1:end + 1])
                except ValueError:
                    pass
        elif style in ("|", ">"):
            nl = text.find("\n", start, end)
            start = end if nl == -1 else nl + 1
        else:
            while start < end and text[start] in "&!":  # anchor or tag before a plain scalar
                while start < end and not text[start].isspace():
                    start += 1
                while start < end and text[start].isspace():
                    start += 1
        index_map = align_offsets(text[start:end], value, start, escapes=style == '"')
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            return _combine_surrogates(value, index_map)
        return value, index_map

    def scalar(self, node: ScalarNode) -> Any:
        """A scalar's value; strings decoded as `decode` does."""
        return self.decode(node)[0] if _is_str(node) else self.construct(node)

    def string(self, node: ScalarNode) -> list[Part]:
        text, index_map = self.decode(node)
        return parse_template_string(text, self.file, index_map, self.ctx)

    def breakpoint(self, node: Node) -> list[Part]:
        """`cache_control` (Anthropic) on a block, message or tool."""
        value = _child(node, "cache_control")
        if not isinstance(value, MappingNode):
            return []
        ttl = _child(value, "ttl")
        key = _key_node(node, "cache_control")
        return [Breakpoint(ttl=ttl.value if _is_str(ttl) else "5m",
                           span=self.span(key.start_mark.index, value.end_mark.index))]

    def cache_point(self, node: Node) -> list[Part] | None:
        """A Bedrock Converse `{"cachePoint": {...}}` block, or None."""
        point = _child(node, "cachePoint")
        if point is None:
            return None
        ttl = _child(point, "ttl")
        return [Breakpoint(ttl=ttl.value if _is_str(ttl) else "5m", span=self.node_span(node))]

    def json_parts(self, node: Node, skip: frozenset = frozenset({"cache_control"})) -> list[Part]:
        """`node` serialised as the provider would (compact JSON, the file's
        key order), with description strings parsed for placeholders. Literal
        runs between slots become one Text spanning the nodes they came from."""
        parts: list[Part] = []
        run: list[str] = []
        bounds: list[int] = []

        def lit(s: str, start: int, end: int) -> None:
            run.append(s)
            bounds.extend((start, end))

        def flush() -> None:
            if run:
                parts.append(Text("".join(run), self.span(min(bounds), max(bounds))))
                run.clear()
                bounds.clear()

        def walk(n: Node, templated: bool, skip_keys: frozenset) -> None:
            start, end = n.start_mark.index, n.end_mark.index
            if isinstance(n, MappingNode):
                lit("{", start, start)
                pairs = [(k, v) for k, v in n.value if not (isinstance(k, ScalarNode) and k.value in skip_keys)]
                for i, (k, v) in enumerate(pairs):
                    key = self.scalar(k) if isinstance(k, ScalarNode) else self.construct(k)
                    lit(("," if i else "") + json.dumps(key if isinstance(key, str) else str(key),
                                                        ensure_ascii=False) + ":", k.start_mark.index, k.end_mark.index)
                    walk(v, isinstance(key, str) and key in _TEMPLATED_TOOL_KEYS, frozenset())
                lit("}", end, end)
            elif isinstance(n, SequenceNode):
                lit("[", start, start)
                for i, item in enumerate(n.value):
                    if i:
                        lit(",", item.start_mark.index, item.start_mark.index)
                    walk(item, False, frozenset())
                lit("]", end, end)
            elif templated and _is_str(n):
                lit('"', start, start)
                for part in self.string(n):
                    if isinstance(part, Text):
                        s = part.span
                        lit(json.dumps(part.text, ensure_ascii=False)[1:-1], s.start if s else start, s.end if s else end)
                    else:
                        flush()
                        parts.append(part)
                lit('"', end, end)
            else:
                lit(json.dumps(self.scalar(n), ensure_ascii=False, separators=(",", ":"), default=str), start, end)

        walk(node, False, skip)
        flush()
        return parts

    def content(self, node: Node | None) -> list[Part]:
        """A message's or system prompt's content: a string or a list of blocks."""
        if node is None or (isinstance(node, ScalarNode) and node.tag.endswith(":null")):
            return []
        if _is_str(node):
            return self.string(node)
        if isinstance(node, SequenceNode):
            return [part for block in node.value for part in self.block(block)]
        return self.json_parts(node)

    def block(self, node: Node) -> list[Part]:
        """One content block; a breakpoint it carries follows its parts."""
        if not isinstance(node, MappingNode):
            return self.content(node)
        point = self.cache_point(node)
        if point is not None:
            return point
        kind = _child(node, "type")
        kind = kind.value if _is_str(kind) else None
        text = _child(node, "text")
        if _is_str(text) and kind in _TEXT_BLOCK_TYPES:
            parts = self.string(text)
        elif kind == "tool_result":
            parts = self.content(_child(node, "content"))
        else:
            parts = self.json_parts(node)
        return parts + self.breakpoint(node)

    def message(self, node: Node, data: Any) -> Section:
        """One message (or Responses input item) as a section with its role."""
        if not isinstance(data, dict):
            return Section("user", self.content(node), self.node_span(node))
        role = data.get("role")
        if not isinstance(role, str):  # a Responses item such as function_call_output
            kind = str(data.get("type", ""))
            role = "tool" if kind.endswith("_output") else "assistant"
            return Section(role, self.json_parts(node), self.node_span(node))
        parts = self.content(_child(node, "content"))
        for key in ("tool_calls", "function_call"):
            extra = _child(node, key)
            if extra is not None:
                parts += self.json_parts(extra)
        return Section(role, parts + self.breakpoint(node), self.node_span(node))

    def tools(self, node: Node) -> Section:
        """One Text per tool definition (plus its breakpoint), in file order."""
        parts: list[Part] = []
        for tool in node.value if isinstance(node, SequenceNode) else [node]:
            point = self.cache_point(tool)
            parts += point if point is not None else self.json_parts(tool) + self.breakpoint(tool)
        return Section("tools", parts, self.node_span(node))

    def request(self, node: Node, data: Any, name: str, span: Span | None) -> PromptTemplate:
        """Sections in provider order: tools, system, then the messages."""
        fmt = _format(data)
        sections: list[Section] = []
        if isinstance(data, list):  # a bare list of messages
            sections += [self.message(n, d) for n, d in zip(node.value, data)]
            return PromptTemplate(name, self.file, fmt, sections, span=span)
        tools = _child(node, "tools")
        if tools is None:
            tools = _child(_child(node, "toolConfig"), "tools")
        if isinstance(tools, SequenceNode) and tools.value:
            sections.append(self.tools(tools))
        for key in ("system", "instructions"):
            system = _child(node, key)
            if system is not None:
                sections.append(Section("system", self.content(system), self.node_span(system)))
        messages = _child(node, "messages")
        if messages is None:
            messages = _child(node, "input")
        if isinstance(messages, SequenceNode):
            items = data.get("messages", data.get("input"))
            sections += [self.message(n, d) for n, d in zip(messages.value, items)]
        elif _is_str(messages):
            sections.append(Section("user", self.string(messages), self.node_span(messages)))
        model = data.get("model") or data.get("modelId")
        return PromptTemplate(name, self.file, fmt, sections, model=str(model) if model else None, span=span)


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """Every request in a message file, one template each. A file that is a
    single request is named after its stem; others `stem:name`."""
    node, data = _compose(file)
    found = _locate(data)
    if not found:
        raise NotAPrompt(file.display_path, 1, NOT_MESSAGES)  # walkers skip it; naming it is an error
    builder = _Builder(file, ctx, YAML(typ="safe", pure=True).constructor)
    templates = []
    for name, path in found:
        n, d = node, data
        for key in path:
            n, d = _descend(n, d, key)
        if name is None:
            templates.append(builder.request(n, d, file.path.stem, None))
        else:
            templates.append(builder.request(n, d, f"{file.path.stem}:{name}", builder.node_span(n)))
    return templates
