"""Templated strings whose syntax is not known from the file type: a message
content in YAML/JSON, a `.txt` prompt. One entry point,
`parse_template_string`, picks Jinja, Handlebars or Python `str.format`
syntax and returns IR parts with spans mapped back into the file.

The `str.format` parser is deliberately conservative: prompts are full of
JSON examples, so only `{identifier...}` is a placeholder and any brace
that does not form one is literal text, never an error.
"""

from __future__ import annotations

import re

from promptlint.analysis.volatility import Verdict, classify_call
from promptlint.ir import Part, Slot, SlotKind, SourceError, SourceFile, Text, Volatility
from promptlint.sources.base import SourceContext
from promptlint.sources.slots import span_of, text_part, variable_slot

# {name}, {name.attr}, {name[0]}, {name!r}, {name:>10}, {when:%Y-%m-%d}. The spec
# must look like a real format spec so `{answer: string}` in an example stays text.
# Nested fields in the spec ({x:{width}}) are not supported.
_SPEC = r"(?::(?:(?:.?[<>=^])?[+\- ]?z?#?0?\d*[,_]?(?:\.\d+)?[bcdeEfFgGnosxX%]?|[^{}\s]*%[^{}]*))?"
_FIELD = re.compile(
    r"\{(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\[\]{}]*\])*)"
    r"(?:![rsa])?" + _SPEC + r"\}"
)
# What sniffing counts as a str.format field: not a JSX attribute (`x={y}`) nor a
# literal (`{false}`, `{null}`), which are code in a prompt's examples.
_SNIFF_FIELD = re.compile(r"(?<!=)\{(?!(?:true|false|null|none|nil|undefined|this)\})" + _FIELD.pattern[2:],
                          re.IGNORECASE)
_JINJA_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.S)
_HANDLEBARS_TAG = re.compile(r"\{\{~?\s*(?:[#/^>!]|else\b)|\{\{\{~?\s*[A-Za-z_@]")
_DOUBLE_VAR = re.compile(r"\{\{-?\s*[A-Za-z_]")
# A single-brace `{name}` that is not half of a `{{name}}`: in a file that also
# has `{{...}}`, the doubled braces are str.format's escapes, not Jinja.
_LONE_FIELD = re.compile(r"(?<!\{)" + _SNIFF_FIELD.pattern + r"(?!\})", re.IGNORECASE)
# Semantic Kernel: {{$input}}, {{time.Date}}, {{recall $input}}; Go templates: {{.Name}}, {{ if .X }}
_SK = re.compile(r"\{\{\s*\$[A-Za-z_]")
_SK_TAG = re.compile(r"\{\{\s*(?P<body>(?:\$[A-Za-z_][\w]*|[A-Za-z_][\w.]*(?:\s+(?:\$[A-Za-z_]\w*|'[^']*'|\"[^\"]*\"|\w+=\S+))*))\s*\}\}")
_GO = re.compile(r"\{\{-?\s*\.[A-Za-z_]")
_GO_TAG = re.compile(r"\{\{-?\s*(?P<body>[^{}]*?)\s*-?\}\}")
_GO_FIELD = re.compile(r"(?<![\w)\]])\.(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
# ${name}: string.Template, JavaScript template literals, YAML configs resolved at load
_DOLLAR = re.compile(r"\$\{(?P<name>[A-Za-z_][\w.]*)\}")
# Python's string.Template: `$name` and `${name}` (`$$` is a dollar sign)
STRING_TEMPLATE = re.compile(r"\$(?:(?P<named>[A-Za-z_]\w*)|\{(?P<braced>[A-Za-z_]\w*)\})")
# what reads as a string.Template field in prose: a lower-case word of three or more
# letters (`$question`), not a shell variable (`$HOME`), a price or LaTeX (`$x$`)
BARE_DOLLAR_FIELD = re.compile(r"(?<![$\\\w])\$[a-z_][a-z0-9_]{2,}\b(?!\$)")
_NON_DOLLAR_FIELD = re.compile(r"(?<!\$)" + _SNIFF_FIELD.pattern, re.IGNORECASE)

# {{name}} / {{{name}}} substitution and nothing else
_MUSTACHE = re.compile(r"\{\{\{?\s*(?P<name>[A-Za-z_][\w.\-]*)\s*\}?\}\}")

STYLES = ("auto", "jinja", "handlebars", "format", "sk", "go", "dollar", "mustache", "text")


def detect_style(text: str) -> str:
    """The template syntax a string most likely uses: `jinja` for `{% %}`,
    `{# #}` or `{{ name ... }}`; `handlebars` for `{{#block}}`, `{{/x}}`,
    `{{! }}`, `{{> }}` or `{{{x}}}`; `sk` (Semantic Kernel) for `{{$var}}`;
    `go` for `{{.Name}}`; `format` for `{name}` placeholders (with
    `{{`/`}}` as escaped braces, also when `{{x}}` appears beside a lone
    `{name}`); `dollar` for `${name}`; otherwise `text`. See also
    fallback_style."""
    if _JINJA_TAG.search(text):
        return "jinja"
    if _SK.search(text):
        return "sk"
    if _GO.search(text):
        return "go"
    if _HANDLEBARS_TAG.search(text):
        return "handlebars"
    if _DOUBLE_VAR.search(text):
        return "format" if _LONE_FIELD.search(text) else "jinja"
    if _DOLLAR.search(text) and not _NON_DOLLAR_FIELD.search(text):
        return "dollar"
    if _SNIFF_FIELD.search(text):
        return "format"
    return "text"


def fallback_style(text: str, style: str) -> str | None:
    """The style to try when `style` fails to parse: `{{"a": {x}}}` is an
    escaped-brace format string, not Jinja, so a string that also has
    `{name}` fields is read as `format` when Jinja rejects it."""
    return "format" if style == "jinja" and _LONE_FIELD.search(text) else None


def style_chain(text: str, style: str) -> list[str]:
    """The styles to try in turn for a sniffed style: the sniffed one, the
    format fallback, then plain `{{name}}` substitution (what many apps do
    with a prompt file: fabric patterns, `.replace("{{X}}", ...)`), then
    text. A guess that does not parse is the guess's fault, not the file's;
    but `{% %}` tags are Jinja's own, so a Jinja file with them that does
    not parse is an error."""
    chain = [style, fallback_style(text, style)]
    if style == "jinja" and _JINJA_TAG.search(text):
        return [s for s in chain if s]
    if style in ("jinja", "handlebars", "go") and "{{" in text:
        chain.append("mustache")
    chain.append("text")
    return list(dict.fromkeys(s for s in chain if s))


def is_syntax_error(exc: SourceError) -> bool:
    """A template that does not parse (not a missing include or the like)."""
    message = exc.message.lower()
    return any(w in message for w in ("syntax error", "tag", "block", "unclosed", "{{else}}", "never closed",
                                      "does not match", "not supported"))


def parse_template_string(text: str, file: SourceFile, index_map: list[int] | None,
                          ctx: SourceContext, style: str = "auto") -> list[Part]:
    """IR parts of a templated string whose character i sits at file offset
    index_map[i] (len(text) + 1 entries; None: text is the file from 0)."""
    if style == "auto":
        chain = style_chain(text, detect_style(text))
        for attempt in chain[:-1]:
            try:
                return parse_template_string(text, file, index_map, ctx, attempt)
            except SourceError as exc:
                if not is_syntax_error(exc):
                    raise
        return parse_template_string(text, file, index_map, ctx, chain[-1])
    if style == "jinja":
        from promptlint.sources.jinja import parse_jinja_fragment

        # a templated string keeps its line ends: the app substitutes values, it
        # does not re-render the literal text through Jinja's newline handling
        return parse_jinja_fragment(text, file, index_map, ctx, keep_newlines=True)
    if style == "handlebars":
        from promptlint.sources.dotprompt import parse_handlebars_fragment

        return parse_handlebars_fragment(text, file, index_map, ctx)
    if style == "format":
        return parse_format_fragment(text, file, index_map, ctx)
    if style == "sk":
        return parse_sk_fragment(text, file, index_map, ctx)
    if style == "go":
        return parse_go_fragment(text, file, index_map, ctx)
    if style == "dollar":
        return _regex_fragment(text, file, index_map, ctx, _DOLLAR, lambda m: m.group("name"))
    if style == "string_template":
        return _regex_fragment(text, file, index_map, ctx, STRING_TEMPLATE,
                               lambda m: m.group("named") or m.group("braced"))
    if style == "mustache":
        return _regex_fragment(text, file, index_map, ctx, _MUSTACHE, lambda m: m.group("name"))
    if style == "text":
        return [text_part(text, file, index_map, 0, len(text))] if text else []
    raise ValueError(f"unknown template style {style!r} (expected one of: {', '.join(STYLES)})")


def parse_format_fragment(text: str, file: SourceFile, index_map: list[int] | None,
                          ctx: SourceContext) -> list[Part]:
    """`str.format` placeholders as slots; `{{`/`}}` become one literal brace
    (the span keeps both source characters); other braces stay text."""
    parts: list[Part] = []
    buf_start = 0  # start of pending literal text
    i = 0
    n = len(text)

    def flush(end: int) -> None:
        if end > buf_start:
            parts.append(text_part(text, file, index_map, buf_start, end))

    while i < n:
        ch = text[i]
        if ch in "{}" and text.startswith(ch * 2, i):
            flush(i)
            parts.append(Text(ch, span_of(file, index_map, i, i + 2)))
            i += 2
            buf_start = i
            continue
        if ch == "{":
            m = _FIELD.match(text, i)
            if m:
                flush(i)
                parts.append(variable_slot(m.group("name"), m.group(0), span_of(file, index_map, i, m.end()), ctx))
                i = buf_start = m.end()
                continue
        i += 1
    flush(n)
    return parts


def _regex_fragment(text: str, file: SourceFile, index_map: list[int] | None, ctx: SourceContext,
                    pattern: re.Pattern, slot_for) -> list[Part]:
    """Text with the matches of `pattern` as slots (`slot_for(match)` gives
    the input's name, or a ready Slot, or None to keep the match as text)."""
    parts: list[Part] = []
    pos = 0
    for m in pattern.finditer(text):
        made = slot_for(m)
        if made is None:
            continue
        if m.start() > pos:
            parts.append(text_part(text, file, index_map, pos, m.start()))
        span = span_of(file, index_map, m.start(), m.end())
        parts.append(made if isinstance(made, Slot) else variable_slot(made, m.group(0), span, ctx))
        pos = m.end()
    if pos < len(text):
        parts.append(text_part(text, file, index_map, pos, len(text)))
    return parts


# Semantic Kernel's TimePlugin and friends: what a function's result changes with.
_SK_DAY = {"date", "today", "year", "month", "day", "dayofweek", "monthnumber", "dayofmonth"}
_SK_NOW = {"now", "utcnow", "time", "hour", "minute", "second", "hournumber", "minutes", "seconds",
           "timezoneoffset", "timezonename"}


def parse_sk_fragment(text: str, file: SourceFile, index_map: list[int] | None, ctx: SourceContext) -> list[Part]:
    """Semantic Kernel prompt templates (skprompt.txt): `{{$name}}` is an
    input; `{{plugin.function $arg 'literal'}}` a function call, as volatile
    as the function (the TimePlugin's `time.Date` changes daily, `time.Now`
    every request) or its arguments."""
    def slot_for(m: re.Match):
        body = m.group("body").split()
        head, args = body[0], body[1:]
        span = span_of(file, index_map, m.start(), m.end())
        if head.startswith("$"):
            return variable_slot(head[1:], m.group(0), span, ctx)
        func = head.rsplit(".", 1)[-1].lower()
        inputs = [a[1:] for a in args if a.startswith("$")] + [a.split("=", 1)[1][1:] for a in args
                                                              if "=" in a and a.split("=", 1)[1].startswith("$")]
        verdicts = [ctx.variables.resolve(n) for n in inputs]
        if func in _SK_DAY:
            verdicts.append(Verdict(Volatility.DAY, f"calls {head}: the date changes once a day"))
        elif func in _SK_NOW:
            verdicts.append(Verdict(Volatility.REQUEST, f"calls {head}: the current time changes every request"))
        else:
            known = classify_call(head)
            verdicts.append(known or Verdict(Volatility.UNKNOWN, f"calls {head}: no evidence of how often its "
                                                                  "result changes"))
        best = max(verdicts, key=lambda v: v.volatility)
        return Slot(m.group(0), SlotKind.EXPRESSION, best.volatility, best.reason, span, names=tuple(inputs))

    return _regex_fragment(text, file, index_map, ctx, _SK_TAG, slot_for)


def parse_go_fragment(text: str, file: SourceFile, index_map: list[int] | None, ctx: SourceContext) -> list[Part]:
    """Go text/template actions (`{{.Name}}`, `{{ if .X }}`, `{{ range .Items }}`)
    as slots, each as volatile as the fields it reads; control actions print
    nothing of their own and are kept as empty slots of their fields (block
    structure is not modelled). Comments `{{/* */}}` stay text."""
    def slot_for(m: re.Match):
        body = m.group("body")
        if body.startswith("/*"):
            return None
        fields = [f.group("name") for f in _GO_FIELD.finditer(body)]
        span = span_of(file, index_map, m.start(), m.end())
        if not fields:
            return Slot(m.group(0), SlotKind.EXPRESSION, Volatility.STATIC, "constant expression", span)
        verdict = max((ctx.variables.resolve(f) for f in fields), key=lambda v: v.volatility)
        if len(fields) == 1 and body.strip().lstrip(".") == fields[0]:
            return variable_slot(fields[0], m.group(0), span, ctx)
        return Slot(m.group(0), SlotKind.EXPRESSION, verdict.volatility, verdict.reason, span, names=tuple(fields))

    return _regex_fragment(text, file, index_map, ctx, _GO_TAG, slot_for)


__all__ = ["parse_template_string", "parse_format_fragment", "detect_style", "fallback_style",
           "is_syntax_error", "parse_sk_fragment", "parse_go_fragment", "STYLES"]
