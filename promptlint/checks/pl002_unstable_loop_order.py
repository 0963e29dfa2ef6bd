"""PL002: a loop whose item order can change between identical requests
sits ahead of stable content, so the prompt's bytes (and its cached prefix)
change with the order.

Three kinds of loop are reported:

- order_varies loops (error): the source says the order is not fixed: an
  iterable named `*_set` (a set's order changes with the process's hash
  seed), a `| shuffle`, a Python set or directory listing (the Python reader
  marks those).
- mappings in insertion order (info): Jinja `for k, v in mapping.items()`
  (`.keys()`, `.values()`) and dotprompt `{{#each obj}}` reading `@key`
  without a sort. Python and JavaScript keep a mapping's insertion order, so
  this is stable as long as the code builds the mapping the same way; the
  template says nothing either way, and a sort makes it certain.
- tool lists iterated in the caller's order (info): a Jinja or Handlebars
  loop over an input named for tools or functions (`tools`, `tool_specs`,
  `mcp_tools`, `functions`, ...) without a sorting filter. The order is
  whatever the caller built (a registry dict, the order MCP servers answered
  a reconnect), which is how tool-order cache misses happen in practice, but
  nothing in the template is evidence that it changes.

A tool list the Python reader finds on its own (a list named for tools,
filled in a loop over a set or a folder listing, which its file does not
send: the app sends it elsewhere) is reported as a warning without a token
count: its size and what follows it are in another file.

Where: a loop is reported when at least MIN_BREAKER_GAIN stable tokens follow
it, counted at the widest scope the loop's *contents* do not already break
(a reordering costs only what would otherwise be shared): a loop over static
or per-release data at the all-users scope, over per-user data at the user
scope, over per-session data at the session scope. A loop whose items change
every request anyway (or that sits inside such a region) is left to PL001:
its order costs nothing more. PL001 skips the loops this rule owns (`owns`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from promptlint.analysis.render import CONTAINERS
from promptlint.analysis.volatility import VariableTable, Verdict, snake
from promptlint.audit import source_context
from promptlint.checks.base import CheckContext, Edit, Finding, Severity, brief
from promptlint.checks.source_fixes import describe, source_edits
from promptlint.checks.measure import (
    MIN_BREAKER_GAIN,
    monthly_cost,
    stable_tokens_after,
)
from promptlint.ir import PromptTemplate, Scope, Slot, SlotKind, Span, Volatility

RULE = "PL002"

SCOPE_WORDS = {"global": "all users", "user": "one user's sessions", "session": "one session's requests"}

# An input whose name says it holds tool or function definitions: the last
# dotted segment, snake_cased (`mcpTools` -> `mcp_tools`).
TOOL_NAME = re.compile(
    r"^(?:[a-z0-9]+_)*(?:tools|toolset|toolsets|toolbox|functions"
    r"|(?:tool|function)_(?:specs?|defs?|definitions?|list|schemas?|declarations?|registry|catalog(?:ue)?))$")
# An iterable that says it is sorted: `| sort`, `| dictsort`,
# `| sort(attribute="name")`, a custom `| sort_by_name` filter, a `sorted(...)`
# global, a Handlebars `(sortBy tools "name")` helper, an input named `sorted_tools`.
_SORTED = re.compile(r"sort", re.IGNORECASE)
_JINJA_FOR = re.compile(r"^for\s+(?P<targets>.+?)\s+in\s+(?P<iter>.+)$", re.DOTALL)
_JINJA_TAIL = re.compile(r"\s+(?:if\s.*|recursive\s*)$", re.DOTALL)
_EACH = re.compile(r"^\{\{~?\s*#each\s+(?P<iter>[^\s}~]+)")
_PROMOTED = "iterates "  # reason prefix the readers give a loop they made nondeterministic for its order


def _iterable(slot: Slot) -> str:
    """The iterable as written: `tools.items()`, `tools | sort(attribute="name")`, `limits`."""
    m = _JINJA_FOR.match(slot.label)
    if m:
        return _JINJA_TAIL.sub("", m.group("iter")).strip()
    m = _EACH.match(slot.label)
    return m.group("iter") if m else ""


def _is_handlebars(slot: Slot) -> bool:
    return slot.label.startswith("{{")


def _table(ctx: CheckContext) -> VariableTable:
    """The run's variable table (config overrides) with this prompt's own
    declarations on top: what the reader classified the inputs with."""
    template: PromptTemplate = ctx.template
    declared = {name: Verdict(v.volatility, v.reason or "declared")
                for name, v in template.variables.items() if v.volatility is not None}
    return source_context(ctx.config).variables.with_declared(declared)


def _content_volatility(slot: Slot, table: VariableTable) -> Volatility:
    """How often the loop's items change, leaving their order aside. The
    readers raise an order_varies loop to nondeterministic; its inputs tell
    the class it had before (a name bound in the template counts as static)."""
    if slot.order_varies and slot.reason.startswith(_PROMOTED):
        return max((table.resolve(name).volatility for name in slot.names), default=Volatility.STATIC)
    return slot.volatility


def _is_tool_loop(slot: Slot) -> bool:
    """A loop over a tool/function input without a sorting filter."""
    if slot.kind is not SlotKind.LOOP or slot.order_varies or slot.insertion_order or not slot.names:
        return False
    iterable = _iterable(slot)
    if not iterable or _SORTED.search(iterable):
        return False
    last = snake(re.split(r"[.\[\]]+", slot.names[0].strip("."))[-1])
    return bool(TOOL_NAME.match(last))


def _scope_for(volatility: Volatility) -> Scope | None:
    """The widest scope whose shared prefix content of this class does not
    already break; None when it changes every request."""
    for scope in Scope:
        if not scope.varies(volatility):
            return scope
    return None


def _loops(ctx: CheckContext) -> Iterator[tuple[Slot, Volatility]]:
    """Every loop with the class of what surrounds it: the most volatile
    enclosing region (containers only pass through)."""
    table = _table(ctx)

    def walk(parts, around: Volatility):
        for part in parts:
            if not isinstance(part, Slot):
                continue
            if part.kind is SlotKind.LOOP:
                yield part, around
            inner = around
            if part.kind not in CONTAINERS:
                inner = max(around, _content_volatility(part, table))
            yield from walk(part.children, inner)
            yield from walk(part.else_children, inner)

    for section in ctx.template.sections:
        yield from walk(section.parts, Volatility.STATIC)


def _classify(ctx: CheckContext):
    """(loop, kind, scope) for each loop this rule is about, kind being
    'order' (order_varies) or 'tools'."""
    table = _table(ctx)
    for slot, around in _loops(ctx):
        if slot.span is None:
            continue
        if slot.order_varies or slot.insertion_order:
            # a custom sorting filter or helper the reader does not know
            kind = ("sorted" if _SORTED.search(_iterable(slot)) else
                    "order" if slot.order_varies else "mapping")
        elif _is_tool_loop(slot):
            kind = "tools"
        else:
            continue
        scope = _scope_for(max(around, _content_volatility(slot, table)))
        if scope is not None:
            yield slot, kind, scope


def _lone_tool_list(template: PromptTemplate, slot: Slot) -> bool:
    """A prompt that is only a tool list (the Python reader's list named for
    tools, filled in an order that changes, which its file does not send)."""
    return (len(template.sections) == 1 and template.sections[0].role == "tools"
            and template.sections[0].parts == [slot])


def owns(ctx: CheckContext, slot: Slot) -> bool:
    """Whether PL002 is the rule for this slot (PL001 then skips it): an
    order_varies loop whose items, and whatever encloses them, change less
    often than every request."""
    return any(s is slot for s, kind, _ in _classify(ctx) if kind in ("order", "sorted"))


def _sort_advice(slot: Slot, kind: str) -> str:
    iterable = _iterable(slot)
    if _is_handlebars(slot):
        if kind in ("order", "mapping"):
            return ("Handlebars has no built-in sort helper: pass a list sorted by key (e.g. "
                    "`[{key, value}, ...]` from sorted(obj.items())) and iterate that")
        return "Handlebars has no built-in sort helper: sort the list by tool name in the code that builds the input"
    base = re.sub(r"\.(items|keys|values)\(\)\s*$", "", iterable).strip()
    method = re.search(r"\.(items|keys|values)\(\)\s*$", iterable)
    if kind == "tools":
        return f'sort by tool name: `{iterable} | sort(attribute="name")`'
    if method and method.group(1) == "items":
        return f"sort by key: `{base} | dictsort`"
    if method and method.group(1) == "keys":
        return f"sort the keys: `{base} | sort`"
    if method and method.group(1) == "values":
        return f"sort by key and take the values: `for _, value in {base} | dictsort`"
    return f"sort the items: `{iterable} | sort` (or `| sort(attribute=...)` for objects)"


def _cause(slot: Slot, kind: str) -> str:
    iterable = _iterable(slot) or slot.label
    if kind == "tools":
        return (f"{slot.label} lists {iterable} in the order the caller built it "
                "(often a dict, or the order MCP servers answered a reconnect)")
    if kind == "mapping":
        how = "reads @key" if _is_handlebars(slot) else "iterates a mapping without a sort"
        return (f"{slot.label} {how}, so it follows the order the code inserted the keys in, the same only "
                "while the code builds it the same way")
    if iterable == slot.label:
        # a collection handed on as it is (`tools=list(tools)` of a set): no loop in the text
        return f"{slot.label} has no fixed order ({slot.reason}), so the order it is sent in can change between requests"
    if any(re.search(r"(^|_)set$", snake(n.rsplit(".", 1)[-1])) for n in slot.names):
        what = "a set"
    else:
        what = iterable
    return f"{slot.label} iterates {what} without a sort, so its order can change between requests"


_TAG_ITERABLE = re.compile(r"\bin\s+(?P<iter>.+?)(?=\s+(?:if\s|recursive\b)|\s*-?%\})", re.DOTALL)


def sort_edit(slot: Slot, kind: str) -> tuple[tuple[Edit, ...], bool]:
    """The edit that sorts a Jinja loop's iterable in place, and whether it is
    unsafe. `.items()` -> `| dictsort` and `.keys()`/`_set` -> `| sort` keep
    the same items and only fix their order (safe); sorting tools by `name`
    assumes every tool has one (unsafe)."""
    if slot.span is None or _is_handlebars(slot):
        return (), False
    m = _TAG_ITERABLE.search(slot.span.source_text)
    if m is None:
        return (), False
    written = m.group("iter")
    method = re.search(r"\.(items|keys|values)\(\)\s*$", written)
    base = written[: method.start()].strip() if method else written.strip()
    if kind == "tools":
        new, unsafe = f'{base} | sort(attribute="name")', True
    elif method and method.group(1) == "items":
        new, unsafe = f"{base} | dictsort", False
    elif method and method.group(1) == "values":
        new, unsafe = f"{base} | dictsort | map(attribute=1)", False
    else:
        new, unsafe = f"{base} | sort", False
    start = slot.span.start + m.start("iter")
    return (Edit(Span(slot.span.file, start, start + len(written)), new),), unsafe


def check(ctx: CheckContext) -> Iterator[Finding]:
    for slot, kind, scope in _classify(ctx):
        if kind == "sorted":
            continue
        tokens = stable_tokens_after(ctx, slot, scope)
        lone = kind == "order" and _lone_tool_list(ctx.template, slot)
        if tokens < MIN_BREAKER_GAIN and not lone:
            continue
        advice = describe(slot) or _sort_advice(slot, kind)
        edits, unsafe = source_edits(slot), False
        if not edits and (slot.fix or {}).get("kind") != "manual":
            edits, unsafe = sort_edit(slot, kind)
        if tokens < MIN_BREAKER_GAIN:  # a tool list this file builds and another part of the app sends
            yield Finding(
                RULE, Severity.WARNING,
                f"{_cause(slot, kind)}: the list is named for tools, and the app offers them to the model in "
                "this order wherever it sends them (not in this file, so their size is not counted here); "
                f"each new order misses the cache for the tool definitions and all that follows them; {advice}",
                slot.span, fix=advice, edits=edits, unsafe=unsafe,
                summary=f"{brief(slot.label)} has no fixed order: the tools it builds change order",
            )
            continue
        usd, model = monthly_cost(ctx, tokens, scope)
        effect = ("each new order misses the cache" if kind == "order" else
                  "a change of order would miss the cache")
        yield Finding(
            RULE, Severity.ERROR if kind == "order" else Severity.INFO,
            f"{_cause(slot, kind)}: {effect} for the {tokens:,} stable tokens after it "
            f"(otherwise shared by {SCOPE_WORDS[scope.key]}); {advice}",
            slot.span, tokens=tokens, usd_per_month=usd, model=model, fix=advice,
            edits=edits, unsafe=unsafe,
            summary=f"{brief(slot.label)} has no fixed order: a reorder re-sends {tokens:,} stable tokens",
        )
