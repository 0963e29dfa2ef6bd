"""The verify report: per prompt, the engine's measured reuse beside the
audit's prediction for every request, time to first token with and without
the cache, and speculative decoding. A rich table in a terminal, plain text
otherwise, or JSON (schema below)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from promptlint.fsutil import atomic_write
from promptlint.verify.replay import PromptReplay

if TYPE_CHECKING:  # torch: a simulated engine (verify.sim.SimulatedEngine) reports here too
    from promptlint.verify.engine import Engine

REQUEST_HEADERS = ("request", "tokens", "shared", "predicted", "measured", "", "TTFT warm", "TTFT cold")
SPEC_HEADERS = ("drafter", "gamma", "accept", "tokens/step", "c", "speedup", "predicted", "best gamma", "advice")
PREDICTION_NOTE = ("predicted = longest common token prefix with any earlier request (engine tokenizer and chat "
                   "template), rounded down to whole blocks, at least 1 token left to prefill; measured = tokens "
                   "the engine reused from its block cache")
RATIO_NOTE = "ideal TTFT ratio = prompt tokens / prefilled tokens (prefill work is at least linear in tokens)"
SPEC_NOTE = ("predicted speedup = (1 - a^(g+1)) / ((1 - a)(g*c + 1)) with the measured acceptance a and draft "
             "cost c (Leviathan, Kalman & Matias 2022, arXiv 2211.17192)")


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:,.0f} ms"


def ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def _summary(p: PromptReplay, word: str = "measured") -> list[str]:
    n = len(p.requests)
    lines = [f"{p.location}  {p.prompt}"]
    if not n:
        lines.append("  no request replayed")
        return lines
    lines.append(f"  {n} requests, {p.prompt_tokens / n:,.0f} tokens each on average; cached tokens predicted "
                 f"{p.predicted:,}, {word} {p.measured:,}; {p.agreeing}/{n} requests agree; "
                 f"hit rate {p.hit_rate:.0%}")
    if p.ttft_cold is not None:
        timed = len(p.timed)
        lines.append(f"  time to first token (median of {timed} cache hits): cold {ms(p.ttft_cold)}, warm "
                     f"{ms(p.ttft_warm)}: {ratio(p.measured_ratio)} faster (ideal from token counts "
                     f"{ratio(p.ideal_ratio)})")
    return lines


def _request_rows(p: PromptReplay) -> list[tuple[str, ...]]:
    return [(r.label, f"{r.prompt_tokens:,}", f"{r.shared_tokens:,}", f"{r.predicted:,}", f"{r.measured:,}",
             "ok" if r.agrees else "MISMATCH", ms(r.ttft_warm), ms(r.ttft_cold)) for r in p.requests]


def _mismatches(p: PromptReplay, capacity: int, word: str = "measured") -> list[str]:
    return [f"  {r.label}: predicted {r.predicted:,}, {word} {r.measured:,}: {r.explanation(capacity)}"
            for r in p.requests if not r.agrees]


def _spec_rows(p: PromptReplay) -> list[tuple[str, ...]]:
    rows = []
    for s in p.speculation:
        best_g, best_s = s.best
        rows.append((s.drafter, str(s.gamma), f"{s.acceptance:.0%}" if s.drafted else "-", f"{s.tokens_per_step:.2f}", f"{s.draft_cost:.2f}",
                     ratio(s.measured_speedup), ratio(s.predicted_speedup), f"{best_g} ({ratio(best_s)})",
                     s.recommendation.verdict))
    return rows


def _spec_notes(p: PromptReplay) -> list[str]:
    out = []
    for s in p.speculation:
        same = "identical to" if s.identical else "DIFFERENT FROM"
        drafted = (f"{s.accepted}/{s.drafted} draft tokens accepted" if s.drafted
                   else "nothing drafted (no n-gram of the output occurs earlier in the context)")
        out.append(f"  {s.drafter}: {s.new_tokens} tokens in {s.target_steps} target steps, {drafted}; output {same} "
                   f"plain greedy decoding; a verification pass cost {s.verify_cost:.2f} decode steps (the formula "
                   f"assumes 1), which predicts {ratio(s.adjusted_speedup)}; " + "; ".join(s.recommendation.reasons))
    return out


def _word(engine) -> str:
    return "simulated" if getattr(engine, "rules", None) else "measured"


def _headers(engine) -> tuple[str, ...]:
    """The request table's headers: a simulated engine's reuse is not measured."""
    if getattr(engine, "rules", None):
        return tuple("simulated" if h == "measured" else h for h in REQUEST_HEADERS)
    return REQUEST_HEADERS


def _table(rows: list[tuple[str, ...]], headers: tuple[str, ...]) -> list[str]:
    rows = [headers, *rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(headers))]
    return ["    " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def _footer(results: list[PromptReplay], engine: Engine) -> list[str]:
    loaded, cache = engine.loaded, engine.cache
    requests = sum(len(p.requests) for p in results)
    agree = sum(p.agreeing for p in results)
    stats = cache.stats
    simulated = getattr(engine, "rules", None)
    if simulated:
        described = (f"Simulated engine: {simulated} (no model run); tokens from {loaded.name} ({loaded.path}); "
                     f"{engine.granularity}; {stats.hits:,} of {stats.queries:,} prompt tokens reused, "
                     f"{stats.evicted_blocks:,} blocks evicted.")
    else:
        described = (f"Engine: {loaded.name} ({loaded.path}) on {loaded.device}, {loaded.dtype}; blocks of "
                     f"{cache.block_size} tokens, capacity {cache.capacity_blocks:,} blocks; {stats.hits:,} of "
                     f"{stats.queries:,} prompt tokens reused, {stats.evicted_blocks:,} blocks evicted.")
    word = "simulated" if simulated else "measured"
    return [
        f"{len(results)} prompts, {requests} requests; predicted and {word} cached tokens agree on {agree}/{requests}.",
        described,
        _prediction_note(engine) + ".",
    ] + ([] if simulated else [RATIO_NOTE + "."]) + ([SPEC_NOTE + "."] if any(p.speculation for p in results) else [])


def _prediction_note(engine) -> str:
    """How the prediction and the engine's figure are made, for this engine."""
    if not getattr(engine, "rules", None):
        return PREDICTION_NOTE
    note = PREDICTION_NOTE.replace("measured = tokens the engine reused from its block cache",
                                   "simulated = tokens the engine's rules reuse")
    return getattr(engine.sim, "prediction_note", note)


def render_plain(results: list[PromptReplay], engine: Engine) -> str:
    out: list[str] = []
    for p in results:
        out.extend(_summary(p, _word(engine)))
        if p.requests:
            out.extend(_table(_request_rows(p), _headers(engine)))
        out.extend(_mismatches(p, engine.cache.capacity_blocks, _word(engine)))
        if p.speculation:
            out.extend(_table(_spec_rows(p), SPEC_HEADERS))
            out.extend(_spec_notes(p))
        out.append("")
    out.extend(_footer(results, engine))
    return "\n".join(out) + "\n"


def print_rich(results: list[PromptReplay], engine: Engine, console) -> None:
    from rich.table import Table
    from rich.text import Text

    def table(headers, rows, bad=None):
        t = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
        for h in headers:
            t.add_column(h)
        for row in rows:
            t.add_row(*row, style="red" if bad and bad(row) else None)
        console.print(t)

    for p in results:
        head = _summary(p, _word(engine))
        console.print(Text(head[0], style="bold"))
        for line in head[1:]:
            console.print(Text(line))
        if p.requests:
            table(_headers(engine), _request_rows(p), bad=lambda row: row[5] != "ok")
        for line in _mismatches(p, engine.cache.capacity_blocks, _word(engine)):
            console.print(Text(line, style="red"))
        if p.speculation:
            table(SPEC_HEADERS, _spec_rows(p))
            for line in _spec_notes(p):
                console.print(Text(line, style="dim"))
        console.print()
    for line in _footer(results, engine):
        console.print(Text(line, style="dim" if line.startswith(("predicted", "ideal")) else None))


def build_json(results: list[PromptReplay], engine: Engine) -> dict:
    loaded, cache = engine.loaded, engine.cache
    return {
        "schema_version": "1.0",
        "engine": {"model": loaded.name, "path": str(loaded.path), "device": loaded.device, "dtype": loaded.dtype,
                   "block_size": cache.block_size, "capacity_blocks": cache.capacity_blocks,
                   "prompt_tokens_queried": cache.stats.queries, "prompt_tokens_reused": cache.stats.hits,
                   "evicted_blocks": cache.stats.evicted_blocks, "load_seconds": round(loaded.load_seconds, 3),
                   "simulated": getattr(engine, "rules", None)},
        "prediction": _prediction_note(engine),
        "prompts": [{
            "prompt": p.prompt, "location": p.location,
            "requests": [{
                "label": r.label, "prompt_tokens": r.prompt_tokens, "shared_tokens": r.shared_tokens,
                "predicted_cached_tokens": r.predicted, "measured_cached_tokens": r.measured,
                "agrees": r.agrees, "explanation": r.explanation(cache.capacity_blocks) or None,
                "evicted_tokens": r.evicted,
                "ttft_warm_seconds": None if r.ttft_warm is None else round(r.ttft_warm, 6),
                "ttft_cold_seconds": None if r.ttft_cold is None else round(r.ttft_cold, 6),
                "cold_first_token_matches": r.cold_first_token_matches,
                "cold_max_logit_diff": r.cold_max_logit_diff,
            } for r in p.requests],
            "totals": {"prompt_tokens": p.prompt_tokens, "predicted_cached_tokens": p.predicted,
                       "measured_cached_tokens": p.measured, "requests_agreeing": p.agreeing,
                       "hit_rate": round(p.hit_rate, 6)},
            "ttft": {"cold_seconds": p.ttft_cold, "warm_seconds": p.ttft_warm,
                     "measured_ratio": p.measured_ratio, "ideal_ratio": p.ideal_ratio},
            "speculation": [s.as_json() for s in p.speculation],
            "errors": [str(e) for e in p.errors],
        } for p in results],
    }


def write_verify_report(results: list[PromptReplay], engine: Engine, fmt: str, output: Path | None) -> None:
    if fmt == "json":
        text = json.dumps(build_json(results, engine), indent=2, ensure_ascii=False) + "\n"
    elif output is None and fmt == "auto" and sys.stdout.isatty():
        from rich.console import Console

        print_rich(results, engine, Console())
        return
    else:
        text = render_plain(results, engine)
    if output is not None:
        atomic_write(output, text, errors="backslashreplace")  # a report: a lone surrogate escaped
    else:
        sys.stdout.write(text)
