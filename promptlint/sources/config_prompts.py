"""Prompts inside configuration files: YAML, JSON and TOML values that are
prompt templates.

Agent frameworks, SWE-style agents, planners and app configs keep their
prompts as values: `system_prompt:`, `instructions:`, `instance_template:`,
`backstory:`, a `prompts:` table, a translation file of prompt fragments.
A value is read as a prompt when

- its key is prompt-bearing (`system_prompt`, `system_message`,
  `instructions`, `prompt`, `template`, `*_prompt`, `*_template`,
  `persona`, `preamble`, `backstory`) and it holds text, not a file name,
  a format name or an identifier;
- it sits under such a key (`prompts: {triage: "..."}`) and reads as text;
- or the file as a whole reads as instructions to a model (a prompt file)
  and the value is prose with placeholders or instructions.

A mapping with `role`, `goal` and `backstory` (crewAI's agent definition) is
one prompt, in the order the framework sends them: role, backstory, goal.
Each value becomes one prompt named `file:key.path`, in one section whose
role comes from its key (`user`, `human`, `instance`, `task`, `input`: user;
otherwise the configured default); the value's template dialect is sniffed
(Jinja, str.format, Handlebars, Semantic Kernel, Go, `${}`) or set with
`[tool.promptlint] dialects`, and every position maps back to the file.

TOML has no parser with positions in the standard library: tomllib reads
the data (and refuses a bad file) and `_toml_strings` finds each string's
text in the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass

from promptlint.analysis.volatility import snake
from promptlint.sniff import directive_score, has_placeholders
from promptlint.ir import PromptTemplate, Section, SourceError, SourceFile, Span, Text
from promptlint.sources.base import SourceContext, align_offsets
from promptlint.sources.placeholders import parse_template_string

# Keys whose values are prompts.
PROMPT_KEY = re.compile(
    r"^(.+_)?(prompt|prompts|template|templates|instruction|instructions|system_message|system_messages|"
    r"system|persona|preamble|backstory|role_playing|custom_instructions|meta_prompt)(_.+)?$")
# ... unless the key names something about the prompt rather than its text.
_NOT_TEXT_KEY = re.compile(
    r"^.+_(file|files|path|paths|name|names|id|ids|format|type|types|version|key|keys|url|uri|dir|engine|style|"
    r"language|lang|vars|variables|args|params|tokens|length|size|enabled|mode|source|ref|role|class|kind)$|"
    r"^(template|prompt)_(file|path|name|id|format|type|engine)$")
_USER_KEY = re.compile(r"(^|_)(user|human|instance|task|input|query|question|next_step|observation|request)(_|$)")
_REFERENCE = re.compile(r"^\s*(?:file://|https?://|\$\{file:|[\w./\-]+\.(?:j2|jinja2?|txt|md|prompty?|ya?ml|json|"
                        r"toml|hbs|tmpl|py)\s*$)")
_AGENT_KEYS = ("role", "goal", "backstory")
MAX_PROMPTS_PER_FILE = 500  # a data dump with thousands of prose values is not a prompt file


@dataclass
class Value:
    """A string value: its decoded text, the span of the whole scalar, its
    key path, and the file offset of each character (mapped only for the
    values chosen as prompts: `decode` gives (text, offsets) on demand)."""

    text: str
    span: Span
    path: tuple
    decode: Callable[[], tuple[str, list[int]]] | None = None
    _offsets: list[int] | None = None

    @property
    def offsets(self) -> list[int]:
        if self._offsets is None:
            self.text, self._offsets = self.decode()
        return self._offsets


def _key_words(path: tuple) -> list[str]:
    return [snake(str(k)) for k in path if isinstance(k, str)]


def is_prompt_key(key: str) -> bool:
    k = snake(key)
    return bool(PROMPT_KEY.match(k)) and not _NOT_TEXT_KEY.match(k)


def _prose(text: str, minimum: int) -> bool:
    stripped = text.strip()
    return len(stripped) >= minimum and re.search(r"\s", stripped) is not None and not _REFERENCE.match(stripped)


def is_prompt_value(text: str, key_is_prompt: bool, under_prompt_key: bool, prompt_file: bool) -> bool:
    """Whether a string value is a prompt (see the module docstring)."""
    if key_is_prompt:
        return _prose(text, 20)
    if under_prompt_key:
        return _prose(text, 40) and (has_placeholders(text) or directive_score(text) >= 1 or "\n" in text.strip())
    if prompt_file:
        return _prose(text, 40) and (has_placeholders(text) and directive_score(text) >= 1
                                     or len(text) >= 200 and directive_score(text) >= 2)
    return False


def role_for(path: tuple, default: str) -> str:
    words = _key_words(path)
    if words and _USER_KEY.search(words[-1]):
        return "user"
    if any(w in ("system", "system_prompt", "system_message", "instructions", "backstory") or w.startswith("system_")
           for w in words):
        return "system"
    return default


def _name(file: SourceFile, path: tuple) -> str:
    dotted = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in path).replace(".[", "[")
    return f"{file.path.stem}:{dotted}" if dotted else file.path.stem


def _parts(value: Value, file: SourceFile, ctx: SourceContext):
    offsets = value.offsets  # decodes the value exactly, with its offsets
    return parse_template_string(value.text, file, offsets, ctx, ctx.dialect_for(file.path))


def build(file: SourceFile, ctx: SourceContext, values: list[Value],
          agents: list[tuple[tuple, dict]]) -> list[PromptTemplate]:
    """PromptTemplates of the chosen values and agent definitions."""
    if len(values) + len(agents) > MAX_PROMPTS_PER_FILE:
        raise SourceError(file.display_path, 1, f"{len(values) + len(agents):,} prompt-like values, over the limit "
                                                f"of {MAX_PROMPTS_PER_FILE} for one file (a data file, not prompts?)")
    out: list[PromptTemplate] = []
    for path, fields in agents:
        parts = []
        for key in ("role", "backstory", "goal"):
            if parts:
                parts.append(Text("\n"))
            parts += _parts(fields[key], file, ctx)
        span = Span(file, min(v.span.start for v in fields.values()), max(v.span.end for v in fields.values()))
        out.append(PromptTemplate(_name(file, path), file, "config", [Section("system", parts, span)], span=span))
    for value in values:
        section = Section(role_for(value.path, ctx.default_role), _parts(value, file, ctx), value.span)
        out.append(PromptTemplate(_name(file, value.path), file, "config", [section], span=value.span))
    return out


def choose(file: SourceFile, strings: list[Value], agents: list[tuple[tuple, dict]]) -> list[Value]:
    """The values that are prompts, given every string value of the file and
    the agent definitions (whose fields are taken as one prompt)."""
    taken = {id(v) for _, fields in agents for v in fields.values()}
    prompt_file = directive_score(file.text[:65_536]) >= 5
    chosen = []
    for value in strings:
        if id(value) in taken:
            continue
        keys = [str(k) for k in value.path if isinstance(k, str)]
        own = bool(keys) and isinstance(value.path[-1], str) and is_prompt_key(keys[-1])
        under = any(is_prompt_key(k) for k in keys[:-1]) or (bool(keys) and not isinstance(value.path[-1], str)
                                                             and is_prompt_key(keys[-1]))
        if is_prompt_value(value.text, own, under, prompt_file):
            chosen.append(value)
    return chosen


# ---------------------------------------------------------------- YAML and JSON

def from_nodes(file: SourceFile, ctx: SourceContext, node, builder) -> list[PromptTemplate]:
    """Prompts among the values of a composed YAML/JSON node tree; `builder`
    is the message reader's node builder (it decodes scalars with offsets)."""
    from promptlint.sources.messages import MAPPING_NODES, SCALAR_NODES, SEQUENCE_NODES, is_str

    strings: list[Value] = []
    agents: list[tuple[tuple, dict]] = []
    seen: set[int] = set()

    def value_of(n, path: tuple) -> Value:
        return Value(n.value, builder.node_span(n), path, lambda: builder.decode(n))

    def walk(n, path: tuple, depth: int) -> None:
        if n is None or id(n) in seen or depth > 64:
            return
        seen.add(id(n))
        if isinstance(n, MAPPING_NODES):
            fields = {}
            for k, v in n.value:
                if isinstance(k, SCALAR_NODES) and k.value in _AGENT_KEYS and is_str(v):
                    fields[k.value] = value_of(v, path + (k.value,))
            if len(fields) == len(_AGENT_KEYS):
                agents.append((path, fields))
            for k, v in n.value:
                if isinstance(k, SCALAR_NODES):
                    walk(v, path + (str(k.value),), depth + 1)
        elif isinstance(n, SEQUENCE_NODES):
            for i, item in enumerate(n.value):
                walk(item, path + (i,), depth + 1)
        elif is_str(n):
            strings.append(value_of(n, path))

    walk(node, (), 0)
    return build(file, ctx, choose(file, strings, agents), agents)


# ---------------------------------------------------------------- TOML

_TOML_TABLE = re.compile(r"^[ \t]*\[\[?[ \t]*(?P<name>[^\]\r\n]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$", re.M)
_TOML_KEY = re.compile(r"""^[ \t]*(?P<key>(?:[A-Za-z0-9_\-]+|"[^"\r\n]*"|'[^'\r\n]*')"""
                       r"""(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_\-]+|"[^"\r\n]*"|'[^'\r\n]*'))*)[ \t]*=[ \t]*"""
                       r"""(?P<quote>\"\"\"|'''|"|')""", re.M)


def _toml_key_path(text: str) -> tuple:
    parts = re.findall(r"""[A-Za-z0-9_\-]+|"[^"]*"|'[^']*'""", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def _toml_strings(file: SourceFile, data: dict) -> list[Value]:
    """Every `key = "string"` of the file with its decoded text and offsets.
    The text between the quotes is decoded by tomllib (the file's own
    parse, on the value alone) and aligned character by character."""
    text = file.text
    out: list[Value] = []
    tables = [(m.start(), _toml_key_path(m.group("name"))) for m in _TOML_TABLE.finditer(text)]
    for m in _TOML_KEY.finditer(text):
        quote = m.group("quote")
        start = m.end()
        end = text.find(quote, start) if len(quote) == 3 else _closing(text, start, quote)
        while len(quote) == 3 and end != -1 and text.startswith(quote[0], end + 3):
            end += 1  # up to two quotes may end the string before its closing delimiter
        if end == -1:
            continue
        raw = text[m.start("quote"):end + len(quote)]
        try:
            decoded = tomllib.loads("v = " + raw)["v"]
        except (tomllib.TOMLDecodeError, KeyError):
            continue
        if not isinstance(decoded, str):
            continue
        body_start = start
        if len(quote) == 3 and text.startswith(("\r\n", "\n"), start):
            body_start += 2 if text.startswith("\r\n", start) else 1  # a newline right after the opening is trimmed
        table = next((path for pos, path in reversed(tables) if pos < m.start()), ())
        path = table + _toml_key_path(m.group("key"))
        offsets = align_offsets(text[body_start:end], decoded, body_start, escapes=quote[0] == '"')
        out.append(Value(decoded, Span(file, m.start("quote"), end + len(quote)), path, _offsets=offsets))
    return out


def _closing(text: str, start: int, quote: str) -> int:
    i = start
    while i < len(text) and text[i] not in "\r\n":
        if quote == '"' and text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return -1


def read_toml(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    try:
        data = tomllib.loads(file.text)
    except tomllib.TOMLDecodeError as exc:
        line, col = getattr(exc, "lineno", 1) or 1, getattr(exc, "colno", 1) or 1
        raise SourceError(file.display_path, line, f"invalid TOML: {str(exc).split(' (at line')[0]}", col) from None
    strings = _toml_strings(file, data)
    agents = []
    by_table: dict[tuple, dict] = {}
    for v in strings:
        if v.path and v.path[-1] in _AGENT_KEYS:
            by_table.setdefault(v.path[:-1], {})[v.path[-1]] = v
    agents = [(path, fields) for path, fields in by_table.items() if len(fields) == len(_AGENT_KEYS)]
    return build(file, ctx, choose(file, strings, agents), agents)


__all__ = ["from_nodes", "read_toml", "is_prompt_key", "is_prompt_value", "PROMPT_KEY"]
