"""Strings of the Python source reader, character by character.

A string the data flow builds is a list of segments: `Lit` (literal text
with the file offset of every character, so a placeholder found in it later
still has an exact span) and `Slot` (a value known only at run time). This
module decodes Python literals into `Lit`s (escapes, raw strings, f-string
text with `{{`/`}}`, line continuations; line ends are `\\n`, as Python reads
a source file), and implements the string operations prompts are built with
(`.strip()`, `textwrap.dedent`, `inspect.cleandoc`, joining) on segments, so
that every character that survives keeps its offset. It also scans the
placeholders of `str.format`, `%` and `string.Template` strings, as Python
itself would read them. Nothing here evaluates user code.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from promptlint.ir import Slot


@dataclass
class Lit:
    """Literal text; offsets[i] is the file offset of text[i], offsets[-1]
    the end of the last character's source (len(text) + 1 entries)."""

    text: str
    offsets: list[int]

    @classmethod
    def synthetic(cls, text: str, start: int, end: int) -> "Lit":
        """Text that is not written character by character in the file (a
        `json.dumps` result): every character points at the expression."""
        return cls(text, [start] * len(text) + [end])


Seg = Lit | Slot


# literal characters a string needs to count as text a prompt's author wrote (not a value passed on)
MIN_PROMPT_TEXT = 40


def has_words(value, minimum: int = 1) -> bool:
    """Whether a string value has literal text (at least `minimum` non-space characters)."""
    return sum(len("".join(s.text.split())) for s in getattr(value, "segs", ()) if isinstance(s, Lit)) >= minimum


def merge(segs: list[Seg]) -> list[Seg]:
    """Adjacent Lits joined into one, empty Lits dropped."""
    out: list[Seg] = []
    for seg in segs:
        if isinstance(seg, Lit):
            if not seg.text:
                continue
            if out and isinstance(out[-1], Lit):
                prev = out[-1]
                out[-1] = Lit(prev.text + seg.text, prev.offsets[:-1] + seg.offsets)
                continue
        out.append(seg)
    return out


# ---------------------------------------------------------------- literals

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a",
                   "b": "\b", "f": "\f", "v": "\v"}
_HEX = re.compile(r"[0-9a-fA-F]+")


def decode_body(raw: str, base: int, is_raw: bool, fstring: bool = False) -> Lit:
    """The value of a literal's body `raw` (between the quotes) that starts
    at file offset `base`. In f-string text `{{`/`}}` are one brace."""
    out: list[str] = []
    offs: list[int] = []
    p, n = 0, len(raw)
    while p < n:
        ch = raw[p]
        if ch == "\\" and not is_raw and p + 1 < n:
            nxt = raw[p + 1]
            if nxt in "\r\n":  # an escaped line end: nothing
                p += 3 if raw.startswith("\r\n", p + 1) else 2
                continue
            value, width = _escape(raw, p)
            if value is not None:
                out.append(value)
                offs.extend([base + p] * len(value))
                p += width
                continue
            out.append("\\")  # an unknown escape keeps its backslash
            offs.append(base + p)
            p += 1
            continue
        if ch == "\r":  # Python reads every line end of a source file as \n
            out.append("\n")
            offs.append(base + p)
            p += 2 if raw.startswith("\r\n", p) else 1
            continue
        if fstring and ch in "{}" and raw.startswith(ch * 2, p):
            out.append(ch)
            offs.append(base + p)
            p += 2
            continue
        out.append(ch)
        offs.append(base + p)
        p += 1
    offs.append(base + n)
    return Lit("".join(out), offs)


def _escape(raw: str, p: int) -> tuple[str | None, int]:
    """The character of the escape at raw[p] (a backslash) and its width."""
    nxt = raw[p + 1]
    if nxt in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[nxt], 2
    if nxt in "01234567":
        m = re.match(r"[0-7]{1,3}", raw[p + 1:p + 4])
        return chr(int(m.group(), 8)), 1 + len(m.group())
    widths = {"x": 2, "u": 4, "U": 8}
    if nxt in widths:
        digits = raw[p + 2:p + 2 + widths[nxt]]
        if len(digits) == widths[nxt] and _HEX.fullmatch(digits):
            try:
                return chr(int(digits, 16)), 2 + widths[nxt]
            except ValueError:
                return None, 0
        return None, 0
    if nxt == "N" and raw.startswith("{", p + 2):
        close = raw.find("}", p + 3)
        if close != -1:
            try:
                return unicodedata.lookup(raw[p + 3:close]), close - p + 1
            except KeyError:
                return None, 0
    return None, 0


def split_prefix(token: str) -> tuple[str, str, int, int]:
    """(lower-cased prefix, quote, body start, body end) of a string token."""
    i = 0
    while i < len(token) and token[i] not in "'\"":
        i += 1
    quote = token[i:i + 3] if token[i:i + 3] in ('"""', "'''") else token[i:i + 1]
    return token[:i].lower(), quote, i + len(quote), len(token) - len(quote)


def decode_simple(token: str, base: int) -> Lit | None:
    """A plain (non-f) string token starting at file offset `base`; None for bytes."""
    prefix, _, start, end = split_prefix(token)
    if "b" in prefix:
        return None
    return decode_body(token[start:end], base + start, "r" in prefix)


# ---------------------------------------------------------------- operations on segments
# An atom is one character with its offsets (ch, start, end) or a Slot.

def atoms(segs: list[Seg]) -> list:
    out: list = []
    for seg in segs:
        if isinstance(seg, Lit):
            out.extend((ch, seg.offsets[i], seg.offsets[i + 1]) for i, ch in enumerate(seg.text))
        else:
            out.append(seg)
    return out


def from_atoms(items: list) -> list[Seg]:
    segs: list[Seg] = []
    run: list = []

    def flush():
        if run:
            segs.append(Lit("".join(a[0] for a in run), [a[1] for a in run] + [run[-1][2]]))
            run.clear()

    for a in items:
        if isinstance(a, tuple):
            if run and a[1] != run[-1][2]:  # the next character comes from elsewhere in the file
                flush()
            run.append(a)
        else:
            flush()
            segs.append(a)
    flush()
    return segs


def _is_char(a, chars: str | None) -> bool:
    if not isinstance(a, tuple):
        return False
    return a[0].isspace() if chars is None else a[0] in chars


def strip(segs: list[Seg], chars: str | None = None, left: bool = True, right: bool = True) -> list[Seg]:
    items = atoms(segs)
    i, j = 0, len(items)
    while left and i < j and _is_char(items[i], chars):
        i += 1
    while right and j > i and _is_char(items[j - 1], chars):
        j -= 1
    return from_atoms(items[i:j])


def _lines(items: list) -> list[list]:
    lines: list[list] = [[]]
    for a in items:
        lines[-1].append(a)
        if isinstance(a, tuple) and a[0] == "\n":
            lines.append([])
    return lines


def _indent(line: list, chars: str = " \t") -> int:
    k = 0
    while k < len(line) and isinstance(line[k], tuple) and line[k][0] in chars:
        k += 1
    return k


def _blank(line: list) -> bool:
    return all(isinstance(a, tuple) and a[0] in " \t\n" for a in line)


def dedent(segs: list[Seg]) -> list[Seg]:
    """textwrap.dedent: the common leading whitespace of non-blank lines is
    removed; whitespace-only lines become empty. A slot counts as text."""
    lines = _lines(atoms(segs))
    margin: list[str] | None = None
    for line in lines:
        if _blank(line):
            continue
        lead = [a[0] for a in line[:_indent(line)]]
        if margin is None:
            margin = lead
        else:
            k = 0
            while k < min(len(margin), len(lead)) and margin[k] == lead[k]:
                k += 1
            margin = margin[:k]
    cut = len(margin or [])
    out: list = []
    for line in lines:
        if _blank(line):
            out.extend(a for a in line if a[0] == "\n")
        else:
            out.extend(line[cut:])
    return from_atoms(out)


def cleandoc(segs: list[Seg]) -> list[Seg]:
    """inspect.cleandoc: strip the first line's leading whitespace, remove the
    smallest indentation of the other lines that have content, drop empty
    lines at both ends. (Tabs count as one column; cleandoc expands them.)"""
    lines = _lines(atoms(segs))
    ends = [line[-1] if line and isinstance(line[-1], tuple) and line[-1][0] == "\n" else None for line in lines]
    body = [line[:-1] if end is not None else line for line, end in zip(lines, ends)]

    def lead(line: list) -> int:
        k = 0
        while k < len(line) and isinstance(line[k], tuple) and line[k][0].isspace():
            k += 1
        return k

    margin = min((lead(line) for line in body[1:] if lead(line) < len(line)), default=0)
    body = [body[0][lead(body[0]):]] + [line[margin:] for line in body[1:]]
    keep = list(range(len(body)))
    while keep and not body[keep[-1]]:
        keep.pop()
    while keep and not body[keep[0]]:
        keep.pop(0)
    out: list = []
    for k, i in enumerate(keep):
        if k:
            out.append(ends[keep[k - 1]] or ("\n", 0, 0))
        out.extend(body[i])
    return from_atoms(out)


def replace(segs: list[Seg], old: str, new: str) -> list[Seg]:
    """str.replace inside each literal run (a slot's text is unknown)."""
    return regex_replace(segs, re.compile(re.escape(old)), new) if old else merge(segs)


def replace_with(segs: list[Seg], old: str, new) -> list[Seg]:
    """str.replace(old, value) where the value is not literal text: its
    segments (a slot where the value enters) in place of each `old`."""
    return regex_replace(segs, re.compile(re.escape(old)), new) if old else merge(segs)


def regex_replace(segs: list[Seg], pattern: re.Pattern, new) -> list[Seg]:
    """`pattern.sub(new, ...)` inside each literal run; `new` is plain text,
    the segments of a value, or a function of the match's file offsets
    (start, end) giving them (a value placed at the marker it replaces)."""
    out: list[Seg] = []
    for seg in merge(segs):
        if not isinstance(seg, Lit):
            out.append(seg)
            continue
        pieces: list[Seg] = []
        i = 0
        for m in pattern.finditer(seg.text):
            pieces.append(Lit(seg.text[i:m.start()], seg.offsets[i:m.start() + 1]))
            if isinstance(new, str):
                pieces.append(Lit.synthetic(new, seg.offsets[m.start()], seg.offsets[m.end()]))
            else:
                pieces.extend(new(seg.offsets[m.start()], seg.offsets[m.end()]) if callable(new) else new)
            i = m.end()
        pieces.append(Lit(seg.text[i:], seg.offsets[i:]))
        out.extend(pieces)
    return merge(out)


# ---------------------------------------------------------------- placeholder scanners
# Each returns a list of ("text", start, end, value) and ("field", start, end,
# name, conversion, spec) items over a string, or None when Python would
# refuse the string (then it is literal text to us).

def scan_format(text: str) -> list[tuple] | None:
    """`str.format` fields: `{name}`, `{0}`, `{}`, `{a.b[0]!r:>{w}}`; `{{`/`}}`."""
    items: list[tuple] = []
    i = lit_start = 0
    n = len(text)
    buf: list[str] = []

    def flush(end):
        if buf:
            items.append(("text", lit_start, end, "".join(buf)))
            buf.clear()

    while i < n:
        ch = text[i]
        if ch in "{}" and text.startswith(ch * 2, i):
            if not buf:
                lit_start = i
            buf.append(ch)
            i += 2
            continue
        if ch == "}":
            return None
        if ch == "{":
            flush(i)
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            if depth:
                return None
            field = text[i + 1:j - 1]
            k, bracket = 0, False
            while k < len(field) and (bracket or field[k] not in "!:"):
                bracket = (bracket or field[k] == "[") and field[k] != "]"
                k += 1
            name, rest = field[:k], field[k:]
            conv = spec = None
            if rest.startswith("!"):
                conv, rest = rest[1:2], rest[2:]
            if rest.startswith(":"):
                spec = rest[1:]
            items.append(("field", i, j, name, conv, spec))
            i = lit_start = j
            continue
        if not buf:
            lit_start = i
        buf.append(ch)
        i += 1
    flush(n)
    return items


_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])")


def scan_percent(text: str) -> list[tuple] | None:
    items: list[tuple] = []
    i = 0
    for m in _PERCENT.finditer(text):
        if m.start() > i:
            items.append(("text", i, m.start(), text[i:m.start()]))
        if m.group("type") == "%":
            items.append(("text", m.start(), m.end(), "%"))
        else:
            items.append(("field", m.start(), m.end(), m.group("key"), None,
                          m.group(0)[1:] if m.group("key") is None else None))
        i = m.end()
    if i < len(text):
        items.append(("text", i, len(text), text[i:]))
    return items


_DOLLAR = re.compile(r"\$(?:(?P<escaped>\$)|(?P<named>[_a-zA-Z][_a-zA-Z0-9]*)|\{(?P<braced>[_a-zA-Z][_a-zA-Z0-9]*)\})")


_JINJA_FIELD = re.compile(r"\{\{-?\s*(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*(?:\|[^{}]*)?-?\}\}")


def scan_jinja_fields(text: str) -> list[tuple]:
    """The `{{ name }}` / `{{ a.b | filter }}` fields of a Jinja template a
    `.render(...)` call fills (filters kept out: they keep the value's
    volatility); tags, comments and other expressions stay text."""
    items: list[tuple] = []
    i = 0
    for m in _JINJA_FIELD.finditer(text):
        if m.start() > i:
            items.append(("text", i, m.start(), text[i:m.start()]))
        items.append(("field", m.start(), m.end(), m.group("name"), None, None))
        i = m.end()
    if i < len(text):
        items.append(("text", i, len(text), text[i:]))
    return items


_JINJA_SET = re.compile(r"\{%-?\s*set\s+(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?P<expr>.*?)-?%\}", re.S)
_JINJA_FOR = re.compile(r"\{%-?\s*for\s+(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+in\s+(?P<expr>.*?)-?%\}",
                        re.S)
_JINJA_WORD = re.compile(r"(?<![.\w'\"])[A-Za-z_]\w*")
_JINJA_KEYWORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False",
                             "None", "recursive", "loop", "defined", "undefined"})


def jinja_bindings(text: str) -> dict[str, tuple[str, ...]]:
    """Names a Jinja template binds itself (`{% set x = expr %}`, `{% for x
    in expr %}`), each with the names its expression reads (filters and
    tests left out): a field of such a name is not an input of the template
    but derived from those."""
    out: dict[str, tuple[str, ...]] = {}
    for pattern in (_JINJA_SET, _JINJA_FOR):
        for m in pattern.finditer(text):
            expr = re.sub(r"\|\s*[A-Za-z_]\w*|\bis\s+(?:not\s+)?[A-Za-z_]\w*|(['\"]).*?\1", " ", m.group("expr"))
            reads = tuple(dict.fromkeys(w for w in _JINJA_WORD.findall(expr) if w not in _JINJA_KEYWORDS))
            for name in re.split(r"\s*,\s*", m.group("names").strip()):
                out.setdefault(name, reads)
    return out


def scan_dollar(text: str) -> list[tuple]:
    """string.Template: `$name`, `${name}`, `$$`."""
    return _scan_matches(text, _DOLLAR, lambda m: ("text", m.start(), m.end(), "$") if m.group("escaped") else
                         ("field", m.start(), m.end(), m.group("named") or m.group("braced"), None, None))


def _scan_matches(text: str, pattern: re.Pattern, item) -> list[tuple]:
    """The text between the matches of `pattern`, and `item(match)` for each."""
    items: list[tuple] = []
    i = 0
    for m in pattern.finditer(text):
        if m.start() > i:
            items.append(("text", i, m.start(), text[i:m.start()]))
        items.append(item(m))
        i = m.end()
    if i < len(text):
        items.append(("text", i, len(text), text[i:]))
    return items


# Google ADK's session-state placeholders in an agent's instruction: `{name}`, `{user:name}`, `{name?}`
# (optional); braces around anything else (JSON examples) stay text, as ADK leaves them
_ADK_STATE = re.compile(r"\{((?:app:|user:|temp:)?[A-Za-z_]\w*)\??\}")


def scan_adk_state(text: str) -> list[tuple]:
    """The state placeholders ADK fills into an instruction at each run."""
    return _scan_matches(text, _ADK_STATE, lambda m: ("field", m.start(), m.end(), m.group(1).split(":")[-1],
                                                      None, None))


def sub_lit(lit: Lit, start: int, end: int, text: str | None = None) -> Lit:
    """The part of `lit` between two indices of its text; `text` replaces
    what it says (`{{` read as `{`): every character points at the source."""
    if text is None or text == lit.text[start:end]:
        return Lit(lit.text[start:end], lit.offsets[start:end + 1])
    if len(text) == end - start:
        return Lit(text, lit.offsets[start:end + 1])
    # `{{` -> `{`: map each output character to the start of its source pair
    offs: list[int] = []
    k = start
    for ch in text:
        offs.append(lit.offsets[k])
        k += 2 if lit.text.startswith(ch * 2, k) and ch in "{}$%" else 1
    return Lit(text, offs + [lit.offsets[end]])
