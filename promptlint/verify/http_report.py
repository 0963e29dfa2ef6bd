"""The report of a replay through a serving engine: per prompt and request,
the cached tokens the server reported beside the prediction, the draft
acceptance it reported, and the metrics' change over the run. Plain text
(the same in a terminal) or JSON."""

from __future__ import annotations

import json

from promptlint.verify.http_engine import HttpRun

HEADERS = ("request", "server tokens", "our tokens", "predicted", "measured", "", "latency", "draft accepted")


def _n(x: int | None) -> str:
    return "-" if x is None else f"{x:,}"


def _rows(p) -> list[tuple[str, ...]]:
    rows = []
    for r in p.requests:
        state = {True: "ok", False: "MISMATCH", None: "-"}[r.agrees]
        draft = "-" if not r.draft_tokens else f"{r.draft_accepted or 0}/{r.draft_tokens}"
        rows.append((r.label, _n(r.prompt_tokens), _n(r.tokenized), _n(r.predicted), f"{r.measured:,}", state,
                     f"{r.seconds * 1000:,.0f} ms", draft))
    return rows


def _table(rows) -> list[str]:
    rows = [HEADERS, *rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    return ["    " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def render_plain(run: HttpRun) -> str:
    out: list[str] = []
    for p in run.prompts:
        n = len(p.requests)
        out.append(f"{p.location}  {p.prompt}")
        if n:
            measured = sum(r.measured for r in p.requests)
            total = sum(r.prompt_tokens or 0 for r in p.requests)
            line = f"  {n} requests; the server reported {measured:,} of {total:,} prompt tokens cached"
            if p.predicted_count:
                predicted = sum(r.predicted or 0 for r in p.requests)
                line += f"; predicted {predicted:,}; {p.agreeing}/{p.predicted_count} requests agree"
            drafted = sum(r.draft_tokens or 0 for r in p.requests)
            if drafted:
                accepted = sum(r.draft_accepted or 0 for r in p.requests)
                line += f"; draft acceptance {accepted}/{drafted} ({accepted / drafted:.0%})"
            out.append(line)
            out.extend(_table(_rows(p)))
            for r in p.requests:
                why = r.explanation()
                if why:
                    out.append(f"  {r.label}: predicted {r.predicted:,}, measured {r.measured:,}: {why}")
        else:
            out.append("  no request completed")
        out.append("")
    requests = sum(len(p.requests) for p in run.prompts)
    predicted = sum(p.predicted_count for p in run.prompts)
    agree = sum(p.agreeing for p in run.prompts)
    out.append(f"{len(run.prompts)} prompts, {requests} requests completed; predicted and measured cached tokens "
               f"agree on {agree}/{predicted} predicted requests.")
    out.append(f"Server: {run.base_url} ({run.engine}), model {run.model}; prediction in blocks of {run.block_size} "
               f"tokens, reuse policy '{run.policy}', tokens from {run.tokenizer}.")
    if run.metrics:
        out.append("Metrics over the run: " + ", ".join(f"{k} {v:g}" for k, v in run.metrics.items()))
    for k, v in run.metrics_summary.items():
        out.append(f"  {k}: {v:.4g}")
    if run.metrics_error:
        out.append(f"Metrics: {run.metrics_error}.")
    if run.aborted:
        out.append(f"Run stopped early: {run.aborted}")
    return "\n".join(out) + "\n"


def build_json(run: HttpRun) -> dict:
    return {
        "schema_version": "1.0",
        "server": {"base_url": run.base_url, "engine": run.engine, "model": run.model, "block_size": run.block_size,
                   "policy": run.policy, "tokenizer": run.tokenizer},
        "prompts": [{
            "prompt": p.prompt, "location": p.location,
            "requests": [{
                "label": r.label, "prompt_tokens": r.prompt_tokens, "tokenized_tokens": r.tokenized,
                "shared_tokens": r.shared_tokens, "predicted_cached_tokens": r.predicted,
                "measured_cached_tokens": r.measured, "cached_field": r.cached_field, "agrees": r.agrees,
                "explanation": r.explanation() or None, "seconds": round(r.seconds, 6),
                "draft_tokens": r.draft_tokens, "draft_accepted": r.draft_accepted,
            } for r in p.requests],
            "errors": [str(e) for e in p.errors],
        } for p in run.prompts],
        "metrics": run.metrics, "metrics_summary": run.metrics_summary, "metrics_error": run.metrics_error,
        "aborted": run.aborted,
    }


def render(run: HttpRun, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(build_json(run), indent=2, ensure_ascii=False) + "\n"
    return render_plain(run)
