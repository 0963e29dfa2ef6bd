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

ruamel's pure-Python scanner is slow, so a file is first composed by PyYAML's
libyaml binding (same node shape, character offsets) with YAML 1.2 resolvers
copied from ruamel. Anything that fast path does not reproduce exactly (see
`_compose_fast`) and every error go to ruamel, which stays the reference for
the result, every error message and position.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import Reader
from ruamel.yaml.resolver import implicit_resolvers as _RUAMEL_RESOLVERS

from promptlint.ir import (
    Breakpoint, NotAPrompt, Part, PromptTemplate, Section, SourceError, SourceFile, Span, Text,
)
from promptlint.sources.base import SourceContext, align_offsets, check_alias_expansion
from promptlint.sources.placeholders import parse_template_string

try:  # the fast path; without PyYAML every file goes through ruamel
    import yaml as _pyyaml
except ImportError:  # pragma: no cover
    _pyyaml = None

OPENAI = "messages-openai"
ANTHROPIC = "messages-anthropic"
NO_PROMPTS = ("no prompt found: not a message file ('messages', 'system' or 'input'), and no value under a "
              "prompt-bearing key or reading as a prompt")

_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
# Node classes of both parsers: ruamel's, and PyYAML's from the fast path.
_SCALAR_NODES: tuple[type, ...] = (ScalarNode,)
_SEQUENCE_NODES: tuple[type, ...] = (SequenceNode,)
_MAPPING_NODES: tuple[type, ...] = (MappingNode,)
if _pyyaml is not None:
    _SCALAR_NODES += (_pyyaml.ScalarNode,)
    _SEQUENCE_NODES += (_pyyaml.SequenceNode,)
    _MAPPING_NODES += (_pyyaml.MappingNode,)
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


def _compose(file: SourceFile) -> tuple[Node | None, Any, Any]:
    """The node tree (with offsets), the plain data it constructs to, and the
    constructor `_Builder` uses for non-string scalars. The fast path gives
    what ruamel would; anything it raises (it also raises on purpose, see
    `_compose_fast`) leaves the file to ruamel, which reports every error."""
    try:
        fast = _compose_fast(file)
    except Exception:  # noqa: BLE001 - any surprise is ruamel's to judge, and to report
        fast = None
    composed = fast if fast is not None else _compose_ruamel(file)
    check_alias_expansion(composed[0], file, "JSON" if _is_json(file) else "YAML")
    return composed


def _compose_ruamel(file: SourceFile) -> tuple[Node | None, Any, Any]:
    """The reference parse. Error positions come from the character offset,
    not ruamel's line count, which also counts U+2028/U+0085 as line breaks."""
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
    return node, data, YAML(typ="safe", pure=True).constructor


# ---------------------------------------------------------------- fast path

class _Fallback(Exception):
    """The fast path leaves this file to ruamel."""


# Deeper files go to ruamel, whose recursion limit decides where its "nested
# too deeply" error starts; request files nest about a dozen levels.
_FAST_MAX_DEPTH = 64
_UNICODE_BREAK = re.compile("[\x85\u2028\u2029]")
# An anchor or alias whose name libyaml ends early, or a tag other than !!name.
_PROPERTY = re.compile(r"[&*][\w-]*[?:%@`]|!!?\S*", re.ASCII)
_CORE_TAG = re.compile(r"!![a-z]+")
# A block scalar's indicators, then a space or the line's end: libyaml also
# takes `|#...` as a header with a comment, ruamel refuses it.
_BLOCK_HEADER = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9]?)?(?:[ \r\n]|\Z)")
_LINE_END = re.compile(r"\r\n|[\r\n]")
_SPACES_LINE = re.compile(r" +[\r\n]")
_MERGE_TAG = "tag:yaml.org,2002:merge"
_VALUE_TAG = "tag:yaml.org,2002:value"


def _core_resolvers() -> dict[str | None, list]:
    """ruamel's YAML 1.2 implicit resolvers (its safe loader's, for a file
    without a %YAML directive) in ruamel's order, as a PyYAML table: booleans
    are only true/false, no yes/no/on/off, no sexagesimal 1:20, octal is 0o."""
    table: dict[str | None, list] = {}
    for versions, tag, regexp, first in _RUAMEL_RESOLVERS:
        if (1, 2) in versions:
            for ch in first if first is not None else [None]:
                table.setdefault(ch, []).append((tag, re.compile(regexp.pattern, regexp.flags)))
    return table


if _pyyaml is not None:
    class _FastLoader(getattr(_pyyaml, "CSafeLoader", _pyyaml.SafeLoader)):
        """libyaml's composer (PyYAML's own without libyaml) with ruamel's
        resolvers. Data is built as ruamel's safe constructor builds it:
        strings, lists and dicts here, every other scalar by ruamel itself;
        whatever could come out different raises _Fallback."""

        yaml_implicit_resolvers = _core_resolvers()

        def __init__(self, text: str):
            super().__init__(text)
            self._ruamel = None

        def construct_object(self, node, deep=False):
            if isinstance(node, _pyyaml.ScalarNode):
                if node.tag == _STR_TAG:
                    return node.value
                if self._ruamel is None:
                    self._ruamel = YAML(typ="safe", pure=True).constructor
                return self._ruamel.construct_object(ScalarNode(node.tag, node.value, style=node.style or None),
                                                     deep=True)
            if node.tag not in (_MAP_TAG, _SEQ_TAG):  # !!set, !!omap, !!pairs, custom tags
                raise _Fallback(f"collection tag {node.tag}")
            return _pyyaml.constructor.SafeConstructor.construct_object(self, node, deep)

        def construct_mapping(self, node, deep=False):
            if not isinstance(node, _pyyaml.MappingNode):
                raise _Fallback("not a mapping")
            mapping: dict = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, _pyyaml.ScalarNode) or key_node.tag in (_MERGE_TAG, _VALUE_TAG):
                    raise _Fallback("collection key, merge key or value key")
                key = self.construct_object(key_node, deep=True)
                if key in mapping:
                    raise _Fallback("duplicate key")  # ruamel refuses it, with its message
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping


def _covers(spans: list[tuple[int, int]], offset: int) -> bool:
    """Whether one of `spans` (sorted, not overlapping) holds `offset`."""
    i = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return i >= 0 and offset < spans[i][1]


def _content_span(node: Any, text: str) -> tuple[int, int]:
    """Where a scalar's own text lies (as `_Builder.decode` finds it): after
    any anchor or tag, inside the quotes, below a block scalar's header."""
    start, end, style = node.start_mark.index, node.end_mark.index, node.style
    if style in ('"', "'"):
        return text.index(style, start) + 1, end - 1
    if style in ("|", ">"):
        nl = text.find("\n", start, end)
        return (end if nl == -1 else nl + 1), end
    while start < end and text[start] in "&!":
        while start < end and not text[start].isspace():
            start += 1
        while start < end and text[start].isspace():
            start += 1
    return start, end


def _in_comment(text: str, offset: int, content: list[tuple[int, int]]) -> bool:
    """Whether `offset` follows a `#` that starts a comment on its line."""
    line = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    hash_ = text.find("#", line, offset)
    while hash_ != -1:
        if (hash_ == line or text[hash_ - 1] in " \t") and not _covers(content, hash_):
            return True
        hash_ = text.find("#", hash_ + 1, offset)
    return False


def _block_header_ok(node: Any, text: str) -> bool:
    """A block scalar header both parsers read alike. Where the indentation is
    detected, ruamel refuses a first line of spaces followed by a deeper one
    ("more indented follow up line"); libyaml takes it, so any first line of
    spaces is left to ruamel."""
    at = text.index(node.style, node.start_mark.index)
    header = _BLOCK_HEADER.match(text, at)
    if header is None:
        return False
    if any(ch.isdigit() for ch in header.group()):
        return True
    eol = _LINE_END.search(text, at)
    return eol is None or not _SPACES_LINE.match(text, eol.end())


def _check_fast_tree(root: Any, text: str) -> None:
    """Raise _Fallback where libyaml's tree or verdict may differ from ruamel's:
    - an empty node: ruamel marks it at the next token;
    - a block scalar header with a comment right after its indicators, or a
      first line of spaces below it (ruamel's indentation rule differs);
    - a tab outside a flow collection or inside a plain scalar: libyaml takes
      it as whitespace there, ruamel refuses it;
    - NEL, LS or PS outside a quoted scalar: libyaml breaks lines there,
      ruamel does not always;
    - an anchor or alias name running into `:?%@` and any tag but `!!name`
      (outside scalar text and comments): libyaml's names are [A-Za-z0-9_-],
      ruamel's are YAML 1.2's;
    - an alias that loops, or nesting deeper than _FAST_MAX_DEPTH."""
    flows: list[tuple[int, int]] = []  # outermost flow collections
    scalars: list[Any] = []
    heights: dict[int, int] = {}  # id -> subtree height; 0 while on the path

    def walk(node: Any, depth: int, in_flow: bool) -> int:
        if depth > _FAST_MAX_DEPTH:
            raise _Fallback("nested deeper than the fast path goes")
        if isinstance(node, _pyyaml.ScalarNode):
            if not node.value and not node.style:
                raise _Fallback("empty node")
            if node.style in ("|", ">") and not _block_header_ok(node, text):
                raise _Fallback("block scalar header or leading blank line")
            scalars.append(node)
            return 1
        seen = heights.get(id(node))
        if seen is not None:  # an alias of a collection
            if not seen or depth + seen - 1 > _FAST_MAX_DEPTH:
                raise _Fallback("recursive alias or too deep")
            return seen
        heights[id(node)] = 0
        if node.flow_style and not in_flow:
            flows.append((node.start_mark.index, node.end_mark.index))
        inner = in_flow or bool(node.flow_style)
        children = [n for pair in node.value for n in pair] if isinstance(node, _pyyaml.MappingNode) else node.value
        height = 1 + max((walk(child, depth + 1, inner) for child in children), default=0)
        heights[id(node)] = height
        return height

    walk(root, 1, False)
    if "\t" in text:
        plain = sorted({(n.start_mark.index, n.end_mark.index) for n in scalars if not n.style})
        for tab in re.finditer("\t", text):
            if not _covers(flows, tab.start()) or _covers(plain, tab.start()):
                raise _Fallback("tab in block context or in a plain scalar")
    if _UNICODE_BREAK.search(text):
        quoted = sorted({_content_span(n, text) for n in scalars if n.style in ('"', "'")})
        for brk in _UNICODE_BREAK.finditer(text):
            if not _covers(quoted, brk.start()):
                raise _Fallback("NEL, LS or PS outside a quoted scalar")
    content: list[tuple[int, int]] | None = None
    for prop in _PROPERTY.finditer(text):
        if _CORE_TAG.fullmatch(prop.group()) and text[prop.end():prop.end() + 1] in (" ", "\r", "\n"):
            continue  # !!str and its like: read alike
        if content is None:
            content = sorted({_content_span(n, text) for n in scalars})
        if not _covers(content, prop.start()) and not _in_comment(text, prop.start(), content):
            raise _Fallback("anchor, alias or tag libyaml may read differently")


def _compose_fast(file: SourceFile) -> tuple[Any, Any, Any]:
    """`_compose` by PyYAML (libyaml where built with it): the same nodes
    (tag, value, style, start/end character offsets) and data as ruamel's,
    about 17x faster. Raises where that is not certain: no PyYAML, a BOM or a
    directive, anything libyaml refuses (control characters JSON allows,
    surrogate escapes ...), or what `_FastLoader` and `_check_fast_tree` find."""
    if _pyyaml is None:
        raise _Fallback("PyYAML is not installed")
    text = file.text
    if "\ufeff" in text or text.startswith("%") or "\n%" in text or "\r%" in text:
        raise _Fallback("byte-order mark or directive")  # %YAML 1.1 switches ruamel to 1.1 resolvers
    loader = _FastLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None, loader
        _check_fast_tree(node, text)
        return node, loader.construct_document(node), loader
    finally:
        loader.dispose()


def _child(node: Node | None, key: str) -> Node | None:
    if isinstance(node, _MAPPING_NODES):
        for k, v in node.value:
            if isinstance(k, _SCALAR_NODES) and k.value == key:
                return v
    return None


def _key_node(node: MappingNode, key: str) -> Node | None:
    for k, _ in node.value:
        if isinstance(k, _SCALAR_NODES) and k.value == key:
            return k
    return None


def _is_str(node: Node | None) -> bool:
    return isinstance(node, _SCALAR_NODES) and node.tag == _STR_TAG


def _descend(node: Node, data: Any, key: Any) -> tuple[Node, Any]:
    """Follow one step of a `_locate` path in the node tree and the data."""
    if isinstance(node, _SEQUENCE_NODES):
        return node.value[key], data[key]
    for k, v in node.value:
        if isinstance(k, _SCALAR_NODES) and k.value == str(key):
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
        if not isinstance(value, _MAPPING_NODES):
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
            if isinstance(n, _MAPPING_NODES):
                lit("{", start, start)
                pairs = [(k, v) for k, v in n.value if not (isinstance(k, _SCALAR_NODES) and k.value in skip_keys)]
                for i, (k, v) in enumerate(pairs):
                    key = self.scalar(k) if isinstance(k, _SCALAR_NODES) else self.construct(k)
                    lit(("," if i else "") + json.dumps(key if isinstance(key, str) else str(key),
                                                        ensure_ascii=False) + ":", k.start_mark.index, k.end_mark.index)
                    walk(v, isinstance(key, str) and key in _TEMPLATED_TOOL_KEYS, frozenset())
                lit("}", end, end)
            elif isinstance(n, _SEQUENCE_NODES):
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
        if node is None or (isinstance(node, _SCALAR_NODES) and node.tag.endswith(":null")):
            return []
        if _is_str(node):
            return self.string(node)
        if isinstance(node, _SEQUENCE_NODES):
            return [part for block in node.value for part in self.block(block)]
        return self.json_parts(node)

    def block(self, node: Node) -> list[Part]:
        """One content block; a breakpoint it carries follows its parts."""
        if not isinstance(node, _MAPPING_NODES):
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
        for tool in node.value if isinstance(node, _SEQUENCE_NODES) else [node]:
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
        if isinstance(tools, _SEQUENCE_NODES) and tools.value:
            sections.append(self.tools(tools))
        for key in ("system", "instructions"):
            system = _child(node, key)
            if system is not None:
                sections.append(Section("system", self.content(system), self.node_span(system)))
        messages = _child(node, "messages")
        if messages is None:
            messages = _child(node, "input")
        if isinstance(messages, _SEQUENCE_NODES):
            items = data.get("messages", data.get("input"))
            sections += [self.message(n, d) for n, d in zip(messages.value, items)]
        elif _is_str(messages):
            sections.append(Section("user", self.string(messages), self.node_span(messages)))
        model = data.get("model") or data.get("modelId")
        return PromptTemplate(name, self.file, fmt, sections, model=str(model) if model else None, span=span)


_TEMPLATE_SYNTAX = re.compile(r"\{%-?\s*[a-z]|\{\{-?\s*[A-Za-z_]")


def _template_first(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate] | None:
    """A JSON or YAML file that is valid only once rendered (an eval tool's
    templated chat file: `{% for m in messages %}{"role": ...}{% endfor %}`)
    read as the Jinja template it is, one prompt over the whole text; None
    when it is not one either."""
    if not _TEMPLATE_SYNTAX.search(file.text):
        return None
    try:
        parts = parse_template_string(file.text, file, None, ctx, "jinja")
    except SourceError:
        return None
    section = Section(ctx.default_role, parts, Span(file, 0, len(file.text)))
    return [PromptTemplate(file.path.stem, file, "jinja", [section])]


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """Every request in a message file, one template each (a file that is a
    single request is named after its stem; others `stem:name`); otherwise
    the prompt-bearing values of a config file (sources/config_prompts.py).
    TOML goes to the config reader; a file that parses only once rendered
    is read as its template."""
    from promptlint.sources import config_prompts

    if file.path.suffix.lower() == ".toml":
        found_toml = config_prompts.read_toml(file, ctx)
        if not found_toml:
            raise NotAPrompt(file.display_path, 1, NO_PROMPTS)
        return found_toml
    try:
        node, data, constructor = _compose(file)
    except SourceError:
        templated = _template_first(file, ctx)
        if templated is not None:
            return templated
        raise
    found = _locate(data)
    if not found:
        prompts = config_prompts.from_nodes(file, ctx, node, _Builder(file, ctx, constructor))
        if not prompts:
            raise NotAPrompt(file.display_path, 1, NO_PROMPTS)  # skipped, with the reason in -v
        return prompts
    builder = _Builder(file, ctx, constructor)
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


# ---------------------------------------------------------------- for rules
# Rules that need more of a request's structure than the IR keeps (PL004
# counts content blocks for Anthropic's lookback) read the file with these,
# so there is one parser and one set of node helpers for message files.
MAPPING_NODES, SEQUENCE_NODES, SCALAR_NODES = _MAPPING_NODES, _SEQUENCE_NODES, _SCALAR_NODES
child, key_node, is_str = _child, _key_node, _is_str


def compose_nodes(file: SourceFile) -> Node | None:
    """The node tree of a message file (libyaml fast path, ruamel otherwise),
    or None if it does not parse."""
    try:
        return _compose(file)[0]
    except SourceError:
        return None
