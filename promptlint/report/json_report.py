"""The JSON audit report: versioned, with stable keys, documented in
docs/json-report.md. The pull-request diff reads it back, so keys are only
ever added; a change of meaning bumps `schema_version`.
"""

from __future__ import annotations

from promptlint import __version__
from promptlint.analysis.conversation import FORMULA as CONVERSATION_FORMULA
from promptlint.analysis.prefix import unknown_inputs
from promptlint.audit import AuditResult, ModelResult, PromptResult
from promptlint.economics.providers import table_date
from promptlint.ir import Scope, Span

SCHEMA_VERSION = "1.1"  # 1.1: unknown_inputs, if_unknown_vary_stable_prefix_tokens; unknowns held fixed


def _location(span: Span | None) -> dict | None:
    if span is None:
        return None
    line, col = span.line_col
    end_line, end_col = span.end_line_col
    return {"path": span.file.display_path, "line": line, "column": col,
            "end_line": end_line, "end_column": end_col}


def _usd(x: float) -> float:
    return round(x, 6)


def _cost(est) -> dict:
    return {
        "expected_cached_tokens_per_request": round(est.expected_cached_tokens, 2),
        "prefill_saved_fraction": round(est.prefill_saved_fraction, 6),
        "warm_probability": {k: round(v, 6) for k, v in est.warm_probability.items()},
        "per_request_usd": {"uncached": _usd(est.cost_per_request_uncached),
                            "cached": _usd(est.cost_per_request_cached)},
        "per_1k_requests_usd": {"uncached": _usd(est.cost_per_1k_requests_uncached),
                                "cached": _usd(est.cost_per_1k_requests_cached)},
        "per_month_usd": {"uncached": _usd(est.cost_per_month_uncached), "cached": _usd(est.cost_per_month_cached)},
        "saving_per_month_usd": _usd(est.saving_per_month),
        "formula": est.formula,
        "inputs": est.inputs,
    }


def _model(m: ModelResult, prompt: PromptResult) -> dict:
    spec = m.spec
    out = {
        "model": spec.key,
        "provider": spec.provider,
        "tokenizer": spec.tokenizer,
        "tokenizer_exact": spec.tokenizer_exact,
        "tokenizer_note": spec.tokenizer_note,
        "total_tokens": prompt.analyses[spec.tokenizer].total_tokens,
        "cached_tokens": m.cached,
        "cached_cut_by": m.cut,
        "cost": _cost(m.cost),
        "if_fixed": None,
        "sources": dict(spec.sources),
    }
    if m.if_fixed is not None:
        out["if_fixed"] = {
            "cached_tokens": m.if_fixed_cached,
            "cost": _cost(m.if_fixed),
            "extra_saving_per_month_usd": _usd(m.if_fixed.saving_per_month - m.cost.saving_per_month),
        }
    return out


def _prompt(p: PromptResult) -> dict:
    t = p.template
    tokenizers = {}
    for spec, a in p.analyses.items():
        tokenizers[spec] = {
            "total_tokens": a.total_tokens,
            "stable_prefix_tokens": {s.key: a.stable(s.key) for s in Scope},
            "breakpoints": [{"token": pos, "ttl": ttl} for pos, ttl in a.breakpoint_tokens],
            "breakers": {
                s.key: _breaker(a.scopes[s.key]) for s in Scope if a.scopes[s.key].breaker is not None
            },
        }
        if spec in p.fixed:
            tokenizers[spec]["if_fixed_stable_prefix_tokens"] = {s.key: p.fixed[spec].stable(s.key) for s in Scope}
        if any(a.scopes[s.key].if_unknown_vary is not None for s in Scope):
            tokenizers[spec]["if_unknown_vary_stable_prefix_tokens"] = {
                s.key: a.scopes[s.key].if_unknown_vary if a.scopes[s.key].if_unknown_vary is not None
                else a.stable(s.key) for s in Scope}
    first = p.breaker
    return {
        "path": t.source.display_path,
        "name": t.name,
        "format": t.format,
        "model_in_file": t.model,
        "location": _location(t.span),
        "sections": [s.role for s in t.sections],
        "unknown_inputs": unknown_inputs(t),
        "conversation": _conversation(p),
        "tokenizers": tokenizers,
        "first_breaker": _breaker(first) if first is not None else None,
        "cache_breaker": p.has_breaker,
        "stable_tokens_lost": p.tokens_lost,
        "models": [_model(m, p) for m in p.models],
    }


def _conversation(p: PromptResult) -> dict | None:
    chat = p.conversation
    if chat is None:
        return None
    return {
        "history": {"slot": chat.history.label, "location": _location(chat.history.span)},
        "breaker": ({"slot": chat.breaker.label, "volatility": chat.breaker.volatility.label,
                     "location": _location(chat.breaker.span)} if chat.breaker is not None else None),
        "turns_per_session": round(chat.turns, 4),
        "history_tokens_per_turn": chat.tokens_per_turn,
        "mean_history_tokens": round(chat.mean_history, 2),
        "stable_tokens_after_breaker": chat.stable_after,
        "tokens_lost_per_turn": round(chat.lost_per_turn, 2),
        "formula": CONVERSATION_FORMULA,
    }


def _breaker(sp) -> dict:
    slot = sp.breaker
    return {
        "scope": sp.scope.key,
        "slot": slot.label,
        "kind": slot.kind.value,
        "volatility": slot.volatility.label,
        "reason": slot.reason,
        "location": _location(slot.span),
        "stable_prefix_tokens": sp.stable_tokens,
    }


def build(result: AuditResult, config) -> dict:
    prompts = [_prompt(p) for p in result.prompts]
    totals: dict[str, dict] = {}
    for p in result.prompts:
        for m in p.models:
            t = totals.setdefault(m.spec.key, {"per_month_usd_uncached": 0.0, "per_month_usd_cached": 0.0,
                                               "saving_per_month_usd": 0.0, "extra_saving_if_fixed_usd": 0.0})
            t["per_month_usd_uncached"] += m.cost.cost_per_month_uncached
            t["per_month_usd_cached"] += m.cost.cost_per_month_cached
            t["saving_per_month_usd"] += m.cost.saving_per_month
            if m.if_fixed is not None:
                t["extra_saving_if_fixed_usd"] += m.if_fixed.saving_per_month - m.cost.saving_per_month
    traffic = config.traffic
    totals = {model: {k: _usd(v) for k, v in t.items()} for model, t in totals.items()}
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "promptlint", "version": __version__},
        "provider_table": {"updated": table_date().isoformat(), "models": [m.key for m in result.models]},
        "traffic": {
            "requests_per_day": traffic.requests_per_day,
            "users": traffic.users,
            "sessions_per_user_per_day": traffic.sessions_per_user_per_day,
            "days_per_month": traffic.days_per_month,
            "session_minutes": traffic.session_minutes,
            "history_tokens_per_turn": traffic.history_tokens_per_turn,
            "note": "each prompt is assumed to receive this traffic",
        },
        "files": result.files,
        "prompts": prompts,
        "totals": totals,
        "errors": [{"path": e.path, "line": e.line, "column": e.col, "message": e.message} for e in result.errors],
    }
