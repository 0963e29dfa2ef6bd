"""The usage-log report: per prompt, the real cached-token rate and the
money lost against the audit's prediction, per model, with every price's
source. Plain text or JSON."""

from __future__ import annotations

import json

from promptlint.usage.summary import UsageSummary


def _money(x: float | None) -> str:
    if x is None:
        return "-"
    return f"-${-x:,.4f}" if x < 0 else f"${x:,.4f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def render_plain(summary: UsageSummary) -> str:
    out: list[str] = []
    for g in summary.groups:
        where = f"  ({g.location})" if g.location else ""
        out.append(f"{g.name} [{g.how}]{where}")
        out.append(f"  {g.requests:,} requests, {g.prompt_tokens:,} prompt tokens, {g.cached_tokens:,} cached "
                   f"({_pct(g.cached_rate)}), {g.cache_write_tokens:,} written to the cache")
        for m in g.models:
            line = (f"    {m.model or '(no model)'}: {m.requests:,} requests, cached {_pct(m.cached_rate)}; "
                    f"input cost {_money(m.actual_cost)}")
            if m.predicted_cached_per_request is not None and m.actual_cost is not None:
                line += (f"; with the audit's {m.predicted_cached_per_request:,} cached tokens per request "
                         f"{_money(m.predicted_cost)}: lost {_money(m.lost)} "
                         f"({_money(m.lost_per_1k_requests)} per 1,000 requests)")
            elif m.actual_cost is not None:
                line += "; no prediction (no template matched: pass the prompt files as PATHS)"
            out.append(line)
            out.append(f"      {m.note}" + (f"; prices: {m.price_source}" if m.price_source else ""))
        out += _why_missed_lines(g)
        out.append("")
    out.append(f"{summary.requests:,} requests, {summary.cached_tokens:,} of {summary.prompt_tokens:,} prompt tokens "
               f"cached ({_pct(summary.cached_rate)}); input cost {_money(summary.actual_cost)}, lost against the "
               f"audit's prediction {_money(summary.lost)}.")
    out.append(f"Cost formula: {summary.formula}")
    out.append(f"Prices: {summary.source}.")
    return "\n".join(out) + "\n"


def _why_missed_lines(g) -> list[str]:
    if not g.why_missed:
        return []
    missed = sum(c.requests for c in g.why_missed)
    out = [f"  missed the cache: {missed:,} of {g.requests:,} requests (nothing cached, against the previous "
           "request of this prompt)"]
    for cause in g.why_missed:
        where = f" at {cause.where}" if cause.where else ""
        out.append(f"    {cause.requests:,} x {_CAUSE_KIND[cause.kind]}{cause.label}{where}")
        for miss in cause.examples:
            out.append(f"      {miss.location}: {_miss_detail(miss)}")
    return out


_CAUSE_KIND = {"slot": "changed by slot ", "text": "", "ttl": "", "unexplained": ""}


def _miss_detail(miss) -> str:
    parts = []
    if miss.message is not None:
        token = f", token {miss.token:,} ({miss.tokenizer})" if miss.token is not None else ""
        parts.append(f"message {miss.message}, character {miss.offset:,}{token}: after {miss.before!r} the "
                     f"previous request had {miss.earlier!r}, this one {miss.now!r}")
    if miss.gap_seconds is not None:
        parts.append(f"{miss.gap_seconds:,.0f} s after the previous request")
    return "; ".join(parts) or "same prefix as the previous request"


def _why_missed_json(g) -> list[dict]:
    return [{"kind": c.kind, "label": c.label, "where": c.where, "requests": c.requests,
             "examples": [{"location": m.location, "message": m.message, "offset": m.offset, "token": m.token,
                           "tokenizer": m.tokenizer,
                           "before": m.before, "earlier": m.earlier, "now": m.now, "gap_seconds": m.gap_seconds}
                          for m in c.examples]} for c in g.why_missed]


def build_json(summary: UsageSummary) -> dict:
    return {
        "schema_version": "1.0",
        "source": summary.source, "table_date": summary.table_date.isoformat(), "formula": summary.formula,
        "totals": {"requests": summary.requests, "prompt_tokens": summary.prompt_tokens,
                   "cached_tokens": summary.cached_tokens, "cached_rate": summary.cached_rate,
                   "actual_cost": summary.actual_cost, "lost": summary.lost},
        "groups": [{
            "key": g.key, "name": g.name, "how": g.how, "location": g.location, "requests": g.requests,
            "prompt_tokens": g.prompt_tokens, "cached_tokens": g.cached_tokens, "cached_rate": g.cached_rate,
            "cache_write_tokens": g.cache_write_tokens, "actual_cost": g.actual_cost,
            "predicted_cost": g.predicted_cost, "lost": g.lost, "lost_per_1k_requests": g.lost_per_1k_requests,
            "models": [{
                "model": m.model, "resolved": m.spec.key if m.spec else None, "note": m.note,
                "requests": m.requests, "prompt_tokens": m.prompt_tokens, "cached_tokens": m.cached_tokens,
                "cached_rate": m.cached_rate, "cache_write_tokens": m.cache_write_tokens,
                "predicted_cached_per_request": m.predicted_cached_per_request, "actual_cost": m.actual_cost,
                "predicted_cost": m.predicted_cost, "lost": m.lost, "lost_per_1k_requests": m.lost_per_1k_requests,
                "price_source": m.price_source,
            } for m in g.models],
            "why_missed": _why_missed_json(g),
        } for g in summary.groups],
    }


def render(summary: UsageSummary, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(build_json(summary), indent=2, ensure_ascii=False) + "\n"
    return render_plain(summary)
