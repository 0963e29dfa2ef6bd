"""The prompt IR: what a provider would receive, in the order it serialises it.

Every source format (Jinja, Prompty, dotprompt, message files, later Python)
reads its file into a `PromptTemplate`; everything after that stage (analysis,
rules, economics, reports) reads only this module's types. Each part keeps a
`Span` into the file the user edits, so a finding points at a line and column
even through includes and front matter.
"""

from __future__ import annotations

import bisect
import enum
import re
from dataclasses import dataclass, field
from pathlib import Path


_NEWLINE = re.compile("\n")


class Volatility(enum.IntEnum):
    """How often a slot's value changes; higher means more often.

    UNKNOWN is an input with no evidence either way. It sits just above
    STATIC so that combining it with anything known gives the known class,
    and no scope treats it as varying: findings need evidence. The audit
    also shows each prefix as it would be if the unknowns changed per
    request (`unknown_varies`)."""

    STATIC = 0
    UNKNOWN = 1
    DEPLOY = 2
    DAY = 3
    USER = 4
    SESSION = 5
    REQUEST = 6
    NONDETERMINISTIC = 7

    @property
    def label(self) -> str:
        return self.name.lower()

    @property
    def evidenced(self) -> bool:
        """Whether the class says how often the value changes."""
        return self is not Volatility.UNKNOWN

    @classmethod
    def parse(cls, text: str) -> "Volatility":
        """A class a user declares (config, front matter): never UNKNOWN."""
        try:
            value = cls[text.strip().upper()]
        except KeyError:
            value = None
        if value is None or not value.evidenced:
            names = ", ".join(v.label for v in cls if v.evidenced)
            raise ValueError(f"unknown volatility {text!r} (expected one of: {names})") from None
        return value


class Scope(enum.Enum):
    """Who shares a cached prefix. A slot breaks a scope's prefix when its
    volatility is at or above the scope's threshold."""

    GLOBAL = ("global", Volatility.USER)  # shared by all users
    USER = ("user", Volatility.SESSION)  # shared by one user's sessions
    SESSION = ("session", Volatility.REQUEST)  # shared by one session's requests

    def __init__(self, key: str, threshold: Volatility):
        self.key = key
        self.threshold = threshold

    def varies(self, volatility: Volatility, unknown_varies: bool = False) -> bool:
        """Whether a slot of this class changes between requests that share
        this scope's prefix; `unknown_varies` takes an input with no evidence
        as changing per request (the audit's "if the unknowns vary" view)."""
        if unknown_varies and volatility is Volatility.UNKNOWN:
            return True
        return volatility >= self.threshold


class SourceFile:
    """A file's decoded text and its line index (offsets are characters)."""

    def __init__(self, path: Path | str, text: str, display_path: str | None = None):
        self.path = Path(path)
        self.text = text
        self.display_path = display_path or str(path)
        self._starts: list[int] | None = None

    @property
    def _line_starts(self) -> list[int]:
        """Built on the first position asked for: a file served from the
        result cache often needs none."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    def offset_of_line(self, line: int) -> int:
        """Character offset of the start of a 1-based line."""
        line = max(1, min(line, len(self._line_starts)))
        return self._line_starts[line - 1]

    def __repr__(self) -> str:
        return f"SourceFile({self.display_path!r})"


@dataclass(frozen=True)
class Span:
    """Character offsets [start, end) in one source file."""

    file: SourceFile
    start: int
    end: int

    @property
    def line_col(self) -> tuple[int, int]:
        return self.file.position(self.start)

    @property
    def end_line_col(self) -> tuple[int, int]:
        return self.file.position(self.end)

    def location(self) -> str:
        line, col = self.line_col
        return f"{self.file.display_path}:{line}:{col}"

    @property
    def source_text(self) -> str:
        return self.file.text[self.start : self.end]


class SlotKind(enum.Enum):
    VARIABLE = "variable"  # {{ name }}
    EXPRESSION = "expression"  # {{ a ~ b | f }}, {{ now() }}
    LOOP = "loop"  # {% for %} region: children repeat per item
    CONDITIONAL = "conditional"  # {% if %} region: children or else_children
    CALL = "call"  # macro call: children are the macro body
    INCLUDE = "include"  # children are the included file's parts


@dataclass
class Text:
    """Literal text exactly as the provider receives it."""

    text: str
    span: Span | None = None


@dataclass
class Slot:
    """A templated value or region whose text is known only at request time.

    `volatility` and `reason` say how often it changes and why we think so.
    `samples` are known example values (from front matter or config); when
    there are none the analysis generates them from the volatility class.
    Regions (loops, conditionals, calls, includes) carry `children`.
    """

    label: str  # what the user wrote, e.g. "{{ now }}" or "for doc in documents"
    kind: SlotKind
    volatility: Volatility
    reason: str
    span: Span | None = None
    names: tuple[str, ...] = ()  # the inputs it depends on
    samples: tuple[str, ...] = ()
    children: list["Part"] = field(default_factory=list)
    else_children: list["Part"] = field(default_factory=list)
    order_varies: bool = False  # loop order can change between identical requests (a set: evidence)
    # iterates a mapping in its insertion order (`.items()`, `@key`): the same
    # as long as the code builds it the same way, so no evidence it changes
    insertion_order: bool = False
    # What a fixer needs, when the source says exactly how to make the value
    # stable: {"kind": "json_sort_keys" | "sorted_iteration", "span": (start, end)}, or
    # {"kind": "manual", "advice": "..."} when only a person can make the fix
    # with the character offsets of the expression to rewrite (the Python reader sets it).
    fix: dict | None = None
    # where a loop of code is written whole, when its items' text comes before its head
    # (a comprehension's element precedes its `for`): the reader reports the item there
    written: Span | None = None

    @property
    def is_region(self) -> bool:
        return self.kind in (SlotKind.LOOP, SlotKind.CONDITIONAL, SlotKind.CALL, SlotKind.INCLUDE)


def names_in(parts: list["Part"]) -> list[str]:
    """Every input the slots of `parts` (and their regions) depend on."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, Slot):
            out += part.names
            out += names_in(part.children)
            out += names_in(part.else_children)
    return out


@dataclass
class Breakpoint:
    """An explicit cache breakpoint (Anthropic `cache_control`, Bedrock `cachePoint`)."""

    ttl: str = "5m"
    span: Span | None = None


Part = Text | Slot | Breakpoint


@dataclass
class Section:
    """One block of the request in provider order: tools, system, developer,
    user, assistant, tool (results)."""

    role: str
    parts: list[Part] = field(default_factory=list)
    span: Span | None = None


@dataclass
class Variable:
    """A declared input (front matter, schema, config) with what we know of it."""

    name: str
    samples: tuple[str, ...] = ()
    volatility: Volatility | None = None
    reason: str = ""


@dataclass
class PromptTemplate:
    """One prompt as a provider would receive it."""

    name: str
    source: SourceFile
    format: str  # jinja, text, prompty, dotprompt, messages-openai, messages-anthropic, python
    sections: list[Section] = field(default_factory=list)
    variables: dict[str, Variable] = field(default_factory=dict)
    model: str | None = None  # the model the file names, if any
    span: Span | None = None  # where the prompt starts (for prompts inside bigger files)

    def location(self) -> str:
        if self.span is not None:
            return self.span.location()
        return self.source.display_path

    def iter_parts(self):
        """Yield (section, part, depth) for every part, regions depth-first."""

        def walk(parts, section, depth):
            for part in parts:
                yield section, part, depth
                if isinstance(part, Slot):
                    yield from walk(part.children, section, depth + 1)
                    yield from walk(part.else_children, section, depth + 1)

        for section in self.sections:
            yield from walk(section.parts, section, 0)

    def slots(self) -> list[Slot]:
        return [p for _, p, _ in self.iter_parts() if isinstance(p, Slot)]

    def breakpoints(self) -> list[Breakpoint]:
        return [p for _, p, _ in self.iter_parts() if isinstance(p, Breakpoint)]


class SourceError(Exception):
    """Bad input: reported as one line `path:line:col: message`, exit code 2."""

    def __init__(self, path: str, line: int, message: str, col: int = 1):
        # one line whatever the reader quoted (a tag of the input that spans lines)
        message = " ".join(part.strip() for part in message.splitlines() if part.strip()) or message.strip()
        super().__init__(message)
        self.path = path
        self.line = line
        self.col = col
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"

    def __reduce__(self):  # back from a worker process (-j) with all its fields
        return type(self), (self.path, self.line, self.message, self.col)


class NotAPrompt(SourceError):
    """A file that looked like it could hold a prompt but holds none (a data
    YAML in a prompts folder): skipped, with the reason in `-v`, whether it
    was found by walking or named (pre-commit names every text file)."""
