"""Group logged requests per prompt.

A record goes to a group by, in order:

1. its explicit route: ``"route"`` or ``"prompt"`` on the log line, or
   ``metadata.route`` / ``metadata.prompt`` (see `parse`). A route that names
   a template (its name, its location ``path:line:col`` or its file's path) is
   linked to that template;
2. else the prompt template its logged request matches (below);
3. else the group ``(unmatched)`` (no route and no logged request, or a
   request that matches no template well enough).

Matching a request to a template. A template's *static text* is its literal
text outside every slot that varies (text inside includes and macro calls
counts; text inside loops and conditionals does not, as it may repeat or be
left out), concatenated per section between slots, and cut into lines;
each line, stripped, of at least `MIN_PIECE` characters is a piece. A piece
is found when it appears in the request's text (every message's content, and
the tool definitions as compact JSON). The request matches the template with
the most matched characters, provided at least `MIN_FOUND` (half) of that
template's static characters were found; ties go to the template with the
larger found fraction, then to the first one. Lines that a slot cuts (the
text just before or after a slot) are searched as substrings; whole lines
are looked up among the request's lines, which keeps matching fast on large
logs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from promptlint.ir import Breakpoint, Part, PromptTemplate, Slot, SlotKind, Text

from .parse import UsageRecord

__all__ = [
    "MIN_FOUND",
    "MIN_PIECE",
    "UNMATCHED",
    "StaticText",
    "UsageGroup",
    "group_records",
    "match_template",
    "static_text",
]

UNMATCHED = "(unmatched)"
MIN_PIECE = 20  # characters: shorter lines ("Rules:", "---") say nothing about which prompt it is
MIN_FOUND = 0.5  # the share of a template's static characters a request must contain
_CONTAINERS = (SlotKind.CALL, SlotKind.INCLUDE)  # their children are the template's own text


@dataclass
class UsageGroup:
    """The records of one prompt. ``key`` is the route, or the template's
    location when a template is known, or ``(unmatched)``; ``how`` says how
    the first record got here: "route", "template" (matched by its text) or
    "unmatched"."""

    key: str
    name: str
    how: str
    template: PromptTemplate | None = None
    records: list[UsageRecord] = field(default_factory=list)  # kept by group_records, not by a stream
    requests: int = 0  # records routed here


@dataclass(frozen=True)
class StaticText:
    """A template's static pieces; ``whole[i]`` is False for a line a slot cuts."""

    pieces: tuple[str, ...]
    whole: tuple[bool, ...]

    @property
    def chars(self) -> int:
        return sum(len(p) for p in self.pieces)


def _runs(parts: list[Part]) -> list[tuple[str, bool, bool]]:
    """(text, starts at a section edge, ends at a section edge) per static run."""
    runs: list[tuple[str, bool, bool]] = []
    current: list[str] = []
    starts_hard = True

    def walk(items: list[Part]):
        nonlocal current, starts_hard
        for part in items:
            if isinstance(part, Text):
                current.append(part.text)
            elif isinstance(part, Breakpoint):
                continue
            elif isinstance(part, Slot) and part.kind in _CONTAINERS:
                walk(part.children)
            else:  # a slot whose text is known only at request time cuts the run
                runs.append(("".join(current), starts_hard, False))
                current, starts_hard = [], False

    walk(parts)
    runs.append(("".join(current), starts_hard, True))
    return runs


def static_text(template: PromptTemplate) -> StaticText:
    """The template's static pieces, in order, each once."""
    seen: dict[str, bool] = {}
    for section in template.sections:
        for text, starts_hard, ends_hard in _runs(section.parts):
            lines = text.split("\n")
            for i, line in enumerate(lines):
                piece = line.strip()
                if len(piece) < MIN_PIECE:
                    continue
                cut = (i == 0 and not starts_hard) or (i == len(lines) - 1 and not ends_hard)
                seen[piece] = seen.get(piece, True) and not cut
    return StaticText(tuple(seen), tuple(seen.values()))


def request_text(messages: Sequence[dict]) -> str:
    """A request as promptlint reads hosted prompts: its messages' text
    joined by newlines (a hosted model's own chat format is not public)."""
    return "\n".join(str(m.get("content") or "") for m in messages)


def tokens_before(tokenizer, messages: Sequence[dict], index: int, offset: int) -> int:
    """Tokens of the request text (`request_text`) before character
    `offset` of message `index`."""
    text = request_text(messages[:index]) + ("\n" if index else "")
    return len(tokenizer.encode(text + str(messages[index].get("content") or "")[:offset]))


def _found(static: StaticText, text: str, lines: set[str]) -> int:
    return sum(len(piece) for piece, whole in zip(static.pieces, static.whole)
               if (piece in lines if whole else piece in text))


def match_template(messages: Sequence[dict], templates: Sequence[PromptTemplate],
                   statics: Sequence[StaticText] | None = None) -> PromptTemplate | None:
    """The template the request's messages were rendered from, or None (see
    the module docstring). ``statics`` (``static_text`` of each template, in
    the same order) saves recomputing them per request."""
    if statics is None:
        statics = [static_text(t) for t in templates]
    text = request_text(messages)
    lines = {line.strip() for line in text.split("\n")}
    best: tuple[int, float] | None = None
    chosen = None
    for template, static in zip(templates, statics):
        total = static.chars
        if not total:
            continue
        found = _found(static, text, lines)
        if found < MIN_FOUND * total:
            continue
        score = (found, found / total)
        if best is None or score > best:
            best, chosen = score, template
    return chosen


def _by_route(route: str, templates: Sequence[PromptTemplate]) -> PromptTemplate | None:
    for template in templates:
        if route in (template.name, template.location(), template.source.display_path):
            return template
    return None


class Router:
    """The group of each record, one record at a time (a stream keeps no
    records, only its groups): by the record's route, else by the template
    its request's text matches; groups in order of first appearance."""

    def __init__(self, templates: Sequence[PromptTemplate] = ()) -> None:
        self.templates = list(templates)
        self.statics = [static_text(t) for t in self.templates]
        self.groups: dict[str, UsageGroup] = {}
        self.unmatched = UsageGroup(UNMATCHED, UNMATCHED, "unmatched")

    def group_of(self, record: UsageRecord) -> UsageGroup:
        template = None
        if record.route is not None:
            template = _by_route(record.route, self.templates)
            how = "route"
        elif record.request_messages and self.templates:
            template = match_template(record.request_messages, self.templates, self.statics)
            how = "template"
        if template is not None:
            key, name = template.location(), template.name
        elif record.route is not None:
            key, name = record.route, record.route
        else:
            self.unmatched.requests += 1
            return self.unmatched
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = UsageGroup(key, name, how, template)
        group.requests += 1
        return group

    def all_groups(self) -> list[UsageGroup]:
        """The groups seen, ``(unmatched)`` last (when a record went there)."""
        out = list(self.groups.values())
        if self.unmatched.requests:
            out.append(self.unmatched)
        return out


def group_records(records: Iterable[UsageRecord],
                  templates: Sequence[PromptTemplate] = ()) -> list[UsageGroup]:
    """Records per prompt, groups in order of first appearance and
    ``(unmatched)`` last (each group keeps its records)."""
    router = Router(templates)
    for record in records:
        router.group_of(record).records.append(record)
    return router.all_groups()
