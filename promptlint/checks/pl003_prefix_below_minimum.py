"""PL003: the prefix every user shares is shorter than a selected model's
minimum cacheable length, so that model never caches it, and says nothing.

One finding per prompt, at the prompt's start, naming every model that
misses its minimum and by how many tokens. A prompt whose stable prefix is
short only because volatile content sits ahead of stable content is PL001's:
the length used here is the stable prefix with the volatile content moved
last (the audit's what-if layout), so a model is listed only when even the
best layout of this prompt stays below its minimum.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from promptlint.checks.base import CheckContext, Finding, Severity
from promptlint.checks.measure import MIN_BREAKER_GAIN
from promptlint.ir import Span

RULE = "PL003"


@dataclass
class Shortfall:
    model: object  # audit.ModelResult
    stable: int  # tokens shared by all users, best layout
    moved: bool  # the length assumes the volatile content moved last

    @property
    def minimum(self) -> int:
        return self.model.spec.min_tokens

    @property
    def short(self) -> int:
        return self.minimum - self.stable

    def usd_if_cacheable(self, ctx: CheckContext) -> float:
        """What caching today's prefix would save per month if the model
        accepted it: stable x price x (1 - read multiplier) x P(warm, all
        users) x requests per month. An upper bound: reaching the minimum
        takes more tokens, and an explicit provider adds its write premium."""
        spec, cost = self.model.spec, self.model.cost
        p_warm = cost.warm_probability.get("global", 0.0)
        per_month = ctx.config.traffic.requests_per_day * ctx.config.traffic.days_per_month
        return self.stable * spec.input_price_per_mtok / 1e6 * (1 - spec.cached_read_multiplier) * p_warm * per_month


def applies(spec) -> bool:
    """Models with a minimum worth a finding. Engines whose minimum is at most
    one KV block (SGLang and llama.cpp: 0; vLLM: one 16-token block) cache
    any prefix longer than a block, so a shortfall there is a few tokens of
    an all-volatile prompt, never a layout decision."""
    if spec.min_tokens <= 0:
        return False
    return not (spec.caching == "engine" and spec.min_tokens <= spec.increment)


def shortfalls(ctx: CheckContext) -> list[Shortfall]:
    result = ctx.result
    out = []
    for model in ctx.models:
        spec = model.spec
        if not applies(spec):
            continue
        analysis = result.analyses[spec.tokenizer]
        stable = analysis.stable("global")
        fixed = result.fixed.get(spec.tokenizer)
        # the what-if layout counts only when moving the volatile content gains
        # as much as PL001 reports; smaller gains are labels moving with values
        moved = fixed is not None and fixed.stable("global") - stable >= MIN_BREAKER_GAIN
        best = fixed.stable("global") if moved else stable
        if 0 < best < spec.min_tokens:
            out.append(Shortfall(model, best, moved))
    return out


def _start(ctx: CheckContext) -> Span:
    t = ctx.template
    if t.span is not None:
        return Span(t.span.file, t.span.start, t.span.start)
    return Span(t.source, 0, 0)


def check(ctx: CheckContext) -> Iterator[Finding]:
    found = shortfalls(ctx)
    if not found:
        return
    # Only prompts within reach of a minimum (at least half of it: merging two
    # prompts, or moving shared instructions and examples in, gets there). A
    # prompt below half of every minimum it misses is a small prompt that is
    # simply not worth caching: no finding.
    if not any(s.stable * 2 >= s.minimum for s in found):
        return
    # Always info: a prompt's size is a fact to know, not a layout fault to fix
    # (the request around it, tools, history, may well reach the minimum), so
    # it never fails a run on its own.
    never_cached = len(found) == len(ctx.models)  # engines skipped by `applies` do cache it
    severity = Severity.INFO

    models = " and ".join(f"{s.model.spec.key} ({s.stable:,} of {s.minimum:,} tokens, {s.short:,} short)"
                          for s in found)
    head = "even with the volatile content moved last, " if any(s.moved for s in found) else ""
    if never_cached:
        effect = "no selected model caches this prompt, and the request says nothing"
    elif len(found) == 1:
        effect = "that model never caches it (the other selected models do), and the request says nothing"
    else:
        effect = "those models never cache it (the other selected models do), and the request says nothing"
    first = found[0]
    usd = first.usd_if_cacheable(ctx)
    money = f"; were it cacheable, it would save up to ~${usd:,.2f}/month on {first.model.spec.key}" if usd >= 0.005 else ""
    yield Finding(
        RULE, severity,
        f"{head}the prefix shared by all users is below the minimum cacheable length for {models}: {effect}{money}",
        _start(ctx), tokens=first.stable, usd_per_month=None, model=first.model.spec.key,
        summary=f"{first.stable:,} stable tokens, under {first.model.spec.key}'s {first.minimum:,}-token minimum: "
                + ("no selected model caches it" if never_cached else "not cached there")
                + (f" (and {len(found) - 1} more)" if len(found) > 1 and not never_cached else ""),
        fix="merge it with the prompt it is always sent with, or move shared instructions, examples or "
            "tool definitions ahead of the volatile content until the stable prefix reaches the minimum; "
            "otherwise accept that it is not cached",
    )
