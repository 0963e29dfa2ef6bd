"""PL004: explicit cache breakpoints (Anthropic `cache_control`, Bedrock
`cachePoint`) placed where they cost money or break the request.

Five faults, each reported at the breakpoint (or the prompt) concerned:

(a) after volatile content: the text up to a breakpoint differs between the
    requests it is meant to serve, so its entry is written (at the write
    premium) and not read. Breakpoints on tools and system blocks are meant
    for every user; breakpoints on messages for the conversation (the last
    message's breakpoint is the moving conversation breakpoint, fine as long
    as nothing before that message changes per request). An error when the
    prefix changes with every request, a warning when only one user's or one
    session's requests can read it. One finding per kind, at the first such
    breakpoint; the message counts the others.
(b) more breakpoints than the model allows (Anthropic: 4): error at the first
    one over the limit.
(c) a breakpoint more content blocks after the previous one than the
    provider looks back for earlier hits (Anthropic: about 20): warning.
(d) a 1h breakpoint after a 5m one (longer TTLs must come first): error.
(e) an Anthropic request with no breakpoint at all, whose stable prefix an
    explicit-caching model would cache: warning at the prompt's start.

Content blocks (for the lookback) are counted in the message file itself:
each tool definition, each system block and each message content block, in
provider order (a string is one block; a `cachePoint` is a marker, no block).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import pairwise

from promptlint.analysis.prefix import common_prefix
from promptlint.audit import is_explicit_request
from promptlint.checks.base import CheckContext, Finding, Severity, brief
from promptlint.economics.cost import estimate
from promptlint.economics.providers import cacheable, load_table, resolve
from promptlint.ir import Breakpoint, PromptTemplate, Scope, Span

RULE = "PL004"
SHARED_ROLES = ("tools", "system", "developer")  # sent before the conversation: meant for every user
ONE_HOUR = "1h"


# ---------------------------------------------------------------- models

def explicit_specs(ctx: CheckContext, include_file_model: bool = True) -> list:
    """Selected models with explicit breakpoints; when none is selected, the
    model the file names, if the provider table knows it as explicit."""
    specs = [m.spec for m in ctx.models if m.spec.caching == "explicit"]
    if specs or not include_file_model or not ctx.template.model:
        return specs
    try:
        spec = resolve(ctx.template.model, load_table(getattr(ctx.config, "models", None) or None))
    except ValueError:
        return []
    return [spec] if spec.caching == "explicit" else []


def _write_multiplier(spec, ttl: str) -> float:
    if ttl == ONE_HOUR and spec.cache_write_multiplier_1h > 0:
        return spec.cache_write_multiplier_1h
    return spec.cache_write_multiplier


def _requests_per_month(ctx: CheckContext) -> float:
    return ctx.config.traffic.requests_per_day * ctx.config.traffic.days_per_month


# ---------------------------------------------------------------- blocks

def _key(node, key: str):
    from promptlint.sources.messages import MAPPING_NODES, key_node

    return key_node(node, key) if isinstance(node, MAPPING_NODES) else None


def _request_node(template: PromptTemplate):
    """The node of this template's request in its message file: the root, or
    (for a file holding several) the node its span starts at, read with the
    message reader's own composer."""
    from promptlint.sources.messages import MAPPING_NODES, SEQUENCE_NODES, compose_nodes

    try:
        root = compose_nodes(template.source)
    except RecursionError:
        return None
    if template.span is None:
        return root
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, MAPPING_NODES + SEQUENCE_NODES):
            if node.start_mark.index == template.span.start:
                return node
            children = [v for _, v in node.value] if isinstance(node, MAPPING_NODES) else node.value
            stack.extend(c for c in children if c.start_mark.index <= template.span.start < c.end_mark.index + 1)
    return None


def block_indices(template: PromptTemplate) -> tuple[dict[int, int], bool]:
    """For each breakpoint (by the file offset its span starts at: the
    `cache_control` key, or the `cachePoint` block), how many content blocks
    come before it, its own block included; and whether the request carries
    a request-level `cache_control`. Blocks in provider order: each tool
    definition, each system block, each message content block (a string is
    one block; a `cachePoint` marks a boundary and is no block)."""
    from promptlint.sources.messages import MAPPING_NODES, SCALAR_NODES, SEQUENCE_NODES
    from promptlint.sources.messages import child as _child

    request = _request_node(template)
    out: dict[int, int] = {}
    if request is None:
        return out, False
    count = 0

    def marks(node) -> None:
        key = _key(node, "cache_control")
        if key is not None and isinstance(_child(node, "cache_control"), MAPPING_NODES):
            out[key.start_mark.index] = count

    def blocks(node) -> None:
        nonlocal count
        if node is None or (isinstance(node, SCALAR_NODES) and node.tag.endswith(":null")):
            return
        for item in node.value if isinstance(node, SEQUENCE_NODES) else [node]:
            if _child(item, "cachePoint") is not None:
                out[item.start_mark.index] = count
                continue
            count += 1
            marks(item)

    top_level = False
    if isinstance(request, SEQUENCE_NODES):  # a bare list of messages
        conversation = request
    else:
        top_level = isinstance(_child(request, "cache_control"), MAPPING_NODES)
        tools = _child(request, "tools")
        if tools is None:
            tools = _child(_child(request, "toolConfig"), "tools")
        if isinstance(tools, SEQUENCE_NODES):
            blocks(tools)
        for key in ("system", "instructions"):
            blocks(_child(request, key))
        conversation = _child(request, "messages")
        if conversation is None:
            conversation = _child(request, "input")
    if isinstance(conversation, SEQUENCE_NODES):
        for message in conversation.value:
            content = _child(message, "content")
            if content is None and isinstance(message, MAPPING_NODES):
                count += 1  # an item with no content list (a Responses function_call_output)
            else:
                blocks(content if isinstance(message, MAPPING_NODES) else message)
            marks(message)
    return out, top_level


# ---------------------------------------------------------------- checks

def _first_difference(a: str, b: str) -> float:
    n = common_prefix(a, b)
    return math.inf if n == len(a) == len(b) else n


def _at(span: Span | None, ctx: CheckContext) -> Span:
    if span is not None:
        return span
    t = ctx.template
    if t.span is not None:
        return Span(t.span.file, t.span.start, t.span.start)
    return Span(t.source, 0, 0)


def _line(span: Span | None) -> str:
    return f"line {span.line_col[0]}" if span is not None else "earlier"


def _others(n: int) -> str:
    if n == 0:
        return ""
    return f"; {'the breakpoint' if n == 1 else f'the {n} breakpoints'} after it {'is' if n == 1 else 'are'} in the same state"


def after_volatile(ctx: CheckContext, specs) -> Iterator[Finding]:
    analysis = ctx.primary
    ref = analysis.reference
    template = ctx.template
    points = ref.breakpoints
    if not points:
        return
    diff = {scope.key: _first_difference(ref.text, analysis.scopes[scope.key].varied.text) for scope in Scope}
    section_of = {id(part): section for section, part, _ in template.iter_parts() if isinstance(part, Breakpoint)}
    index_of = {id(s): i for i, s in enumerate(template.sections)}
    last = len(template.sections) - 1
    last_start = ref.sections[-1][0] if ref.sections else 0

    kinds: list[str | None] = []
    for offset, bp in points:
        section = section_of.get(id(bp))
        idx = index_of.get(id(section), 0)
        if section is not None and section.role not in SHARED_ROLES:
            # a conversation breakpoint: read by the same session's next request
            reach = last_start if idx == last else offset
            kinds.append(None if diff["session"] >= reach else "request")
        elif diff["global"] >= offset:
            kinds.append(None)
        elif diff["session"] >= offset:
            kinds.append("narrow")
        else:
            kinds.append("request")

    tokens = [t for t, _ in analysis.breakpoint_tokens]
    spec = specs[0] if specs else None
    narrow = [i for i, k in enumerate(kinds) if k == "narrow"]
    if narrow:
        i = narrow[0]
        offset, bp = points[i]
        per_user = diff["user"] >= offset
        breaker = analysis.scopes["global" if per_user else "user"].breaker
        who = "user" if per_user else "session"
        what = f"{breaker.label} ({breaker.volatility.label})" if breaker else f"content that differs per {who}"
        mult = _write_multiplier(spec, bp.ttl) if spec else 0.0
        premium = f" at {mult:g}x the input price" if mult > 1 else ""
        yield Finding(
            RULE, Severity.WARNING,
            f"cache breakpoint after {what}: the {tokens[i]:,}-token prefix up to it differs per {who}, so every "
            f"new {who} writes its own copy{premium} and no other {who} can read it{_others(len(narrow) - 1)}",
            _at(bp.span, ctx), tokens=tokens[i],
            summary=f"breakpoint after {brief(what)}: each {who} writes its own {tokens[i]:,}-token copy",
            fix="put the per-user and per-session blocks after the last breakpoint meant for every user "
                "(tools and instructions first, breakpoint, then memory and names)",
        )
    request = [i for i, k in enumerate(kinds) if k == "request"]
    if request:
        i = request[0]
        offset, bp = points[i]
        breaker = analysis.scopes["session"].breaker
        what = f"{breaker.label} ({breaker.volatility.label})" if breaker else "content that changes per request"
        # tokens written and never read on every request: from the last
        # breakpoint that can be read (by anyone) to the last that cannot, each
        # segment at the write premium of the breakpoint that ends it
        read = max((tokens[j] for j in range(i) if kinds[j] != "request"), default=0)
        premium_tokens, usd, previous = 0, 0.0, read
        for j in request:
            segment = max(0, tokens[j] - previous)
            previous = max(previous, tokens[j])
            premium_tokens += segment
            if spec is not None:
                usd += segment * spec.input_price_per_mtok / 1e6 * max(0.0, _write_multiplier(spec, points[j][1].ttl) - 1)
        usd *= _requests_per_month(ctx)
        mult = f" at {_write_multiplier(spec, bp.ttl):g}x the input price" if spec and _write_multiplier(spec, bp.ttl) > 1 else ""
        yield Finding(
            RULE, Severity.ERROR,
            f"cache breakpoint after {what}: the prefix up to it changes with every request, so every request "
            f"writes {premium_tokens:,} tokens to the cache{mult} and no request reads them"
            f"{_others(len(request) - 1)}",
            _at(bp.span, ctx), tokens=premium_tokens, usd_per_month=usd if spec else None,
            summary=f"breakpoint after {brief(what)}: {premium_tokens:,} tokens cached, never read",
            model=spec.key if spec else None,
            fix="move the breakpoint to the last block before the volatile content, and the volatile content "
                "after it (the end of the last user message)",
        )


def too_many(ctx: CheckContext, specs) -> Iterator[Finding]:
    points = ctx.primary.reference.breakpoints
    limits = [s for s in specs if s.max_breakpoints > 0]
    if not limits:
        return
    spec = min(limits, key=lambda s: s.max_breakpoints)
    limit = spec.max_breakpoints
    if len(points) > limit:
        bp = points[limit][1]
        yield Finding(
            RULE, Severity.ERROR,
            f"{len(points)} cache breakpoints, and {spec.key} allows at most {limit} per request: "
            f"the API rejects the request; this is breakpoint {limit + 1}",
            _at(bp.span, ctx),
            summary=f"breakpoint {limit + 1} of {len(points)}: {spec.key} allows {limit}, the API rejects the request",
            fix=f"keep at most {limit}: one at the end of the tools and instructions shared by every user, "
                "one at the end of the conversation; drop the rest",
        )


def lookback(ctx: CheckContext, specs, blocks: dict[int, int]) -> Iterator[Finding]:
    reach = [s for s in specs if s.lookback_blocks > 0]
    if not reach or not blocks:
        return
    spec = min(reach, key=lambda s: s.lookback_blocks)
    points = [bp for _, bp in ctx.primary.reference.breakpoints if bp.span is not None and bp.span.start in blocks]
    for previous, bp in pairwise(points):
        gap = blocks[bp.span.start] - blocks[previous.span.start]
        if gap > spec.lookback_blocks:
            yield Finding(
                RULE, Severity.WARNING,
                f"cache breakpoint {gap} content blocks after the previous one ({_line(previous.span)}): when it "
                f"misses, {spec.key} looks for an earlier cache entry only about {spec.lookback_blocks} blocks "
                f"back, so an entry written further back (an earlier turn's) is not found and the prefix is "
                f"written again",
                _at(bp.span, ctx),
                summary=f"breakpoint {gap} blocks after the last, past {spec.key.split('/')[-1]}'s "
                        f"~{spec.lookback_blocks}-block lookback: a miss rewrites the prefix",
                fix=f"add a breakpoint within {spec.lookback_blocks} blocks before this one, on the last block "
                    "that stays the same between requests",
            )


def ttl_order(ctx: CheckContext) -> Iterator[Finding]:
    first_short = None
    for _, bp in ctx.primary.reference.breakpoints:
        if bp.ttl != ONE_HOUR:
            first_short = first_short or bp
        elif first_short is not None:
            yield Finding(
                RULE, Severity.ERROR,
                f"1h cache breakpoint after a {first_short.ttl} one ({_line(first_short.span)}): entries with the "
                "longer TTL must come first (tools, then system, then messages)",
                _at(bp.span, ctx),
                summary=f"1h cache breakpoint after a {first_short.ttl} one: the longer TTL must come first",
                fix='give the earlier breakpoints ttl "1h" too, or this one the default 5m',
            )


def missing(ctx: CheckContext) -> Iterator[Finding]:
    for model in ctx.models:
        spec = model.spec
        if spec.caching != "explicit":
            continue
        # what a breakpoint at the end of the stable prefix would cache, per
        # scope, and what that saves (computed here, not taken from the audit,
        # so that it stays right however the audit treats a request without
        # breakpoints)
        analysis = ctx.result.analyses[spec.tokenizer]
        cached = {s.key: cacheable(spec, analysis.stable(s.key)) for s in Scope}
        scope = next((s for s in Scope if cached[s.key] > 0), None)
        if scope is None:
            continue
        saving = estimate(spec, analysis.total_tokens, cached, ctx.config.traffic).saving_per_month
        tokens = cached[scope.key]
        words = {"global": "every user", "user": "one user's requests", "session": "one conversation"}[scope.key]
        yield Finding(
            RULE, Severity.WARNING,
            f"no cache breakpoint: {spec.key} caches nothing without cache_control, so the {tokens:,}-token "
            f"prefix shared by {words} is sent at full price on every request",
            _at(None, ctx), tokens=tokens, usd_per_month=saving, model=spec.key,
            summary=f"no cache breakpoint: the {tokens:,}-token shared prefix is never cached",
            fix='add "cache_control": {"type": "ephemeral"} to the last block before the volatile content '
                "(the last tool, or the last static system block)",
        )
        return


def check(ctx: CheckContext) -> Iterator[Finding]:
    points = ctx.primary.reference.breakpoints
    specs = explicit_specs(ctx)
    if not points and not specs:
        return
    if points:
        yield from after_volatile(ctx, specs)
        yield from too_many(ctx, specs)
        # the file is composed again only where the lookback can matter
        if (len(points) > 1 and any(s.lookback_blocks > 0 for s in specs)
                and ctx.template.format.startswith("messages")):
            yield from lookback(ctx, specs, block_indices(ctx.template)[0])
        yield from ttl_order(ctx)
    elif is_explicit_request(ctx.template):
        found = list(missing(ctx))
        # a request-level cache_control (message files) places its own breakpoint
        if found and not (ctx.template.format.startswith("messages") and block_indices(ctx.template)[1]):
            yield from found
