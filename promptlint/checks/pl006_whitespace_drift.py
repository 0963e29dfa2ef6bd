"""PL006: whitespace in the text a provider receives that differs between
requests or between deployments while the words stay the same, so the cached
prefix breaks on bytes nobody sees.

Two faults, both read from the file text and the IR (nothing is executed):

- mixed line endings (a): the text sent from one file has both CRLF and LF
  line ends. Git (core.autocrlf, `.gitattributes` eol), editors and
  formatters normalise such files, so checkouts and deployments end up
  sending different bytes. Reported once per file, at the first line end of
  the minority kind. Jinja turns every line break into `\\n` when it renders
  (and the IR's text shows it), so `.j2` and Prompty files are not affected;
  plain text, Markdown and Handlebars (dotprompt) keep line ends as written.
- whitespace-only variation (b): a region or value whose branches, item
  count or outcomes differ only in whitespace, ahead of stable content: an
  `{% if %}`/`{{#if}}` whose body is a blank line, two branches with the same
  words and different spacing, a loop whose body renders only line breaks,
  `{{ "\\n" if x }}`. The words after it never change, but the bytes do with
  the condition, so the prefix is lost at the condition's scope. Counted as
  PL001 counts a slot (at least 64 stable tokens after it, at the widest scope
  its condition breaks); PL001 skips the slots this rule owns (`owns`).

Whitespace that changes because a value changes (`Hello {{ name }}` with an
empty name) is not reported here: the value itself already ends the shared
prefix (PL001), and whitespace after the first differing token costs nothing
more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from promptlint.analysis.render import CONTAINERS, varies_in
from promptlint.checks.base import CheckContext, Finding, Severity
from promptlint.checks.measure import (
    MIN_BREAKER_GAIN,
    candidates,
    monthly_cost,
    stable_tokens_after,
    widest_scope,
)
from promptlint.ir import (
    Breakpoint,
    Part,
    Scope,
    Slot,
    SlotKind,
    SourceFile,
    Span,
    Text,
    Volatility,
)
from promptlint.tokenizers import get_tokenizer

RULE = "PL006"

SCOPE_WORDS = {"global": "all users", "user": "one user's sessions", "session": "one session's requests"}
_LINE_END = re.compile(r"\r\n|\n|\r")
_KIND_NAMES = {"\r\n": "CRLF", "\n": "LF", "\r": "CR"}
_ENV = None  # a Jinja environment, made when a Jinja expression is first read (other formats never import Jinja)


# -- (a) mixed line endings -----------------------------------------------------------


def _line_ends(ctx: CheckContext) -> dict[str, tuple[SourceFile, list[tuple[str, int, Text]]]]:
    """Per file: (kind, file offset, part) of every line end in text that is sent.
    Offsets are exact where a literal's text is its source text; a literal
    rewritten by its reader (escapes, folding) is skipped."""
    out: dict[str, tuple[SourceFile, list[tuple[str, int, Text]]]] = {}
    seen: set[int] = set()
    for _, part, _ in ctx.template.iter_parts():
        if not isinstance(part, Text) or part.span is None or id(part) in seen:
            continue
        seen.add(id(part))
        if part.text != part.span.source_text or ("\r" not in part.text and "\n" not in part.text):
            continue
        file = part.span.file
        _, ends = out.setdefault(file.display_path, (file, []))
        for m in _LINE_END.finditer(part.text):
            ends.append((m.group(), part.span.start + m.start(), part))
    return out


def _stable_tokens_from(ctx: CheckContext, part: Text, offset: int, scope: Scope) -> int:
    """Tokens of the reference render from a character of `part` (a file
    offset) to the end, leaving out what varies at `scope`."""
    render = ctx.primary.reference
    start = None
    for piece in render.pieces:
        if piece.part is part:
            start = piece.start + (offset - part.span.start)
            break
    if start is None:
        return 0
    vary = lambda s: scope.varies(s.volatility)
    text = "".join(render.text[max(p.start, start):p.end] for p in render.pieces
                   if p.end > start and not any(varies_in(s, vary) for s in p.slots))
    return len(get_tokenizer(ctx.primary.tokenizer).encode(text)) if text else 0


def _mixed_line_endings(ctx: CheckContext) -> Iterator[Finding]:
    for file, ends in _line_ends(ctx).values():
        counts: dict[str, int] = {}
        first: dict[str, tuple[int, Text]] = {}
        for kind, offset, part in sorted(ends, key=lambda e: e[1]):
            counts[kind] = counts.get(kind, 0) + 1
            first.setdefault(kind, (offset, part))
        if len(counts) < 2:
            continue
        # the minority kind; on a tie, the kind that appears later
        minority = min(counts, key=lambda k: (counts[k], -first[k][0]))
        offset, part = first[minority]
        span = Span(file, offset, offset + len(minority))
        tally = ", ".join(f"{counts[k]} {_KIND_NAMES[k]}" for k in sorted(counts, key=lambda k: -counts[k]))
        tokens = _stable_tokens_from(ctx, part, offset, Scope.GLOBAL)
        if tokens == 0:  # only varying text follows: normalising it changes no cached byte
            continue
        yield Finding(
            RULE, Severity.WARNING,
            f"mixed line endings in the text sent from this file ({tally}); the first {_KIND_NAMES[minority]} "
            f"is here: a checkout, editor or formatter that normalises them sends different bytes, so each "
            f"deployment built that way rebuilds the cache of the {tokens:,} stable "
            f"token{'s' if tokens != 1 else ''} from here on",
            span, tokens=tokens, usd_per_month=0.0, model=ctx.models[0].spec.key,
            summary=f"mixed line endings ({tally}), first {_KIND_NAMES[minority]} here: normalising them "
                    f"re-caches {tokens:,} stable tokens",
            fix=f"use one line ending in the whole file (LF), and pin it in .gitattributes "
                f"(`*{file.path.suffix or '.txt'} text eol=lf`)",
        )


# -- (b) whitespace-only variation ------------------------------------------------------


def _blank_literals(label: str) -> tuple[str, ...] | None:
    """The outcomes of a Jinja expression that can only print whitespace
    (`{{ "\\n" if x }}`, `{{ " " if x else "" }}`), or None."""
    if not label.startswith("{{") or "if" not in label:
        return None
    global _ENV
    import jinja2
    from jinja2 import nodes

    if _ENV is None:
        _ENV = jinja2.Environment(autoescape=False)
    try:
        node = _ENV.parse(label).body[0].nodes[0]  # type: ignore[attr-defined]
    except (jinja2.TemplateSyntaxError, IndexError, AttributeError):
        return None
    if not isinstance(node, nodes.CondExpr):
        return None
    outcomes = []
    for branch in (node.expr1, node.expr2):
        if branch is None:
            outcomes.append("")
        elif isinstance(branch, nodes.Const) and isinstance(branch.value, str) and not branch.value.strip():
            outcomes.append(branch.value)
        else:
            return None
    return tuple(outcomes)


def _blank_only(parts: list[Part]) -> bool:
    """Every output of these parts is whitespace (or nothing)."""
    for part in parts:
        if isinstance(part, Breakpoint):
            continue
        if isinstance(part, Text):
            if part.text.strip():
                return False
        elif part.kind is SlotKind.VARIABLE:
            return False
        elif part.kind is SlotKind.EXPRESSION:
            if _blank_literals(part.label) is None:
                return False
        elif not (_blank_only(part.children) and _blank_only(part.else_children)):
            return False
    return True


def _prints_something(parts: list[Part]) -> bool:
    for part in parts:
        if isinstance(part, Text) and part.text:
            return True
        if isinstance(part, Slot):
            if part.kind is SlotKind.EXPRESSION and any(_blank_literals(part.label) or ()):
                return True
            if _prints_something(part.children) or _prints_something(part.else_children):
                return True
    return False


def _literal(parts: list[Part]) -> str | None:
    """The text of parts that are all literal, else None."""
    if not all(isinstance(p, (Text, Breakpoint)) for p in parts):
        return None
    return "".join(p.text for p in parts if isinstance(p, Text))


def whitespace_only(slot: Slot) -> str | None:
    """How a slot's output varies in whitespace alone ('branch', 'items',
    'value'), or None when its words vary (or it never varies)."""
    if slot.volatility <= Volatility.UNKNOWN or slot.kind in CONTAINERS:
        return None
    if slot.kind is SlotKind.EXPRESSION:
        outcomes = _blank_literals(slot.label)
        return "value" if outcomes and len(set(outcomes)) > 1 else None
    if slot.kind is SlotKind.CONDITIONAL:
        a, b = _literal(slot.children), _literal(slot.else_children)
        if a is not None and b is not None:
            return "branch" if a != b and a.split() == b.split() else None
        if _blank_only(slot.children) and _blank_only(slot.else_children) and (
                _prints_something(slot.children) or _prints_something(slot.else_children)):
            return "branch"
        return None
    if (slot.kind is SlotKind.LOOP and _blank_only(slot.children) and _blank_only(slot.else_children)
            and _prints_something(slot.children)):
        return "items"
    return None


def _drifting(ctx: CheckContext) -> Iterator[tuple[Slot, str]]:
    for section in ctx.template.sections:
        for slot in candidates(section.parts):
            how = whitespace_only(slot)
            if how is not None and slot.span is not None:
                yield slot, how


def owns(ctx: CheckContext, slot: Slot) -> bool:
    """Whether PL006 is the rule for this slot (PL001 then skips it): its
    output varies only in whitespace."""
    return any(s is slot for s, _ in _drifting(ctx))


_HOW = {
    "branch": "only adds or removes whitespace (the same words either way)",
    "items": "prints only whitespace per item, so its item count changes the blank lines",
    "value": "prints only whitespace, and which whitespace depends on its condition",
}


def _whitespace_variation(ctx: CheckContext) -> Iterator[Finding]:
    for slot, how in _drifting(ctx):
        scope = widest_scope(slot.volatility)
        tokens = stable_tokens_after(ctx, slot, scope)
        if tokens < MIN_BREAKER_GAIN:
            continue
        usd, model = monthly_cost(ctx, tokens, scope)
        if slot.volatility in (Volatility.DAY, Volatility.DEPLOY):
            period = "once a day" if slot.volatility is Volatility.DAY else "on every release"
            effect = f"the cache of the {tokens:,} stable tokens after it is rebuilt {period}"
            usd, severity = 0.0, Severity.INFO
        else:
            driver = "item count" if how == "items" else "condition"
            effect = (f"the bytes after it change with its {slot.volatility.label} {driver}, so the "
                      f"{tokens:,} stable tokens after it are not shared by {SCOPE_WORDS[scope.key]}")
            severity = Severity.WARNING
        yield Finding(
            RULE, severity, f"{slot.label} {_HOW[how]}: {effect}", slot.span,
            tokens=tokens, usd_per_month=usd, model=model,
            fix="remove the whitespace-only region, or make its whitespace fixed "
                "(`{%- ... -%}` in Jinja, `{{~ ... ~}}` in Handlebars)",
        )


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from _mixed_line_endings(ctx)
    yield from _whitespace_variation(ctx)
