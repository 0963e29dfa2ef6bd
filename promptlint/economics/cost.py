"""Traffic model and money: what a layout's cacheable prefix is worth.

A prefix shared at some scope (all users, one user, one session) is warm when
another request with the same prefix arrived within the cache TTL. With
Poisson arrivals at rate r per second that probability is 1 - exp(-r * ttl).
The cached tokens a request can expect, and the prices from the provider
table, give the cost with and without caching. Every input of the formula is
returned with the result so reports can show it (``--verbose``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .providers import ModelSpec

__all__ = ["SCOPES", "Traffic", "CostEstimate", "warm_probability", "estimate", "FORMULA"]

SCOPES = ("global", "user", "session")
SECONDS_PER_DAY = 86_400.0

FORMULA = (
    "cached = c_global*P_global + (c_user-c_global)*P_user + (c_session-c_user)*P_session, "
    "P = 1 - exp(-rate*ttl); cost/request = ((total-cached) + cached*read_mult)*price/1e6 "
    "+ sum(segment*(1-P))*(write_mult-1)*price/1e6 [write term only if write_mult > 1]; "
    "cost/month = cost/request * requests_per_day * days_per_month"
)


@dataclass
class Traffic:
    """How often requests that share a prefix arrive.

    Rates per second: global = requests_per_day / 86400; per user = global /
    users; per session = global / (users * sessions_per_user_per_day). That
    spreads a user's requests over the whole day. A session's requests
    arrive within ``session_minutes`` of each other (default 30: a
    conversation, not a day); set it to None to spread them over the day,
    a lower bound on warmth.
    """

    requests_per_day: float = 50_000
    users: int = 2_000
    sessions_per_user_per_day: float = 3.0
    days_per_month: float = 30.0
    session_minutes: float | None = 30.0
    # tokens one exchange (a user turn and the reply) adds to a conversation's
    # history: an assumption of this traffic model, set it from your logs
    history_tokens_per_turn: float = 200.0

    def __post_init__(self) -> None:
        for name in ("requests_per_day", "users", "sessions_per_user_per_day", "days_per_month"):
            if getattr(self, name) < 0:
                raise ValueError(f"traffic: {name} must be >= 0")
        if self.session_minutes is not None and self.session_minutes <= 0:
            raise ValueError("traffic: session_minutes must be > 0")

    def rate(self, scope: str) -> float:
        """Requests per second that share a prefix at ``scope``."""
        per_second = self.requests_per_day / SECONDS_PER_DAY
        if scope == "global":
            return per_second
        if scope == "user":
            return per_second / self.users if self.users else 0.0
        if scope == "session":
            sessions = self.users * self.sessions_per_user_per_day
            if not sessions:
                return 0.0
            if self.session_minutes is not None:
                return (self.requests_per_day / sessions) / (self.session_minutes * 60.0)
            return per_second / sessions
        raise ValueError(f"unknown scope {scope!r}; expected one of {SCOPES}")

    @property
    def requests_per_month(self) -> float:
        return self.requests_per_day * self.days_per_month


def warm_probability(rate_per_second: float, ttl_seconds: float) -> float:
    """P(cache warm) = 1 - exp(-rate * ttl).

    Assumes requests sharing the prefix arrive as a Poisson process and the
    entry lives ``ttl`` seconds after its last use (refreshed on hit, as
    Anthropic documents and OpenAI's inactivity expiry implies): the time
    since the previous request is then exponential, and the entry is warm
    when that time is below the TTL.
    """
    if rate_per_second < 0 or ttl_seconds < 0:
        raise ValueError("rate and ttl must be >= 0")
    return -math.expm1(-rate_per_second * ttl_seconds)


@dataclass
class CostEstimate:
    """Expected cached tokens per request and the money, per request and per month (USD)."""

    model: str
    total_tokens: int
    cached_by_scope: dict[str, int]
    warm_probability: dict[str, float]
    expected_cached_tokens: float
    prefill_tokens_per_request: float
    prefill_tokens_saved_per_request: float
    prefill_saved_fraction: float
    cost_per_request_uncached: float
    cost_per_request_cached: float
    cache_write_cost_per_request: float
    cost_per_1k_requests_uncached: float
    cost_per_1k_requests_cached: float
    requests_per_month: float
    cost_per_month_uncached: float
    cost_per_month_cached: float
    saving_per_month: float
    inputs: dict[str, Any] = field(default_factory=dict)
    formula: str = FORMULA


def _cumulative(cached_by_scope: dict[str, int], total: int) -> dict[str, int]:
    """Cached tokens per scope, made cumulative.

    A prefix shared by all users is also shared by one user's and one
    session's requests, so a narrower scope caches at least as much as a wider
    one: a missing or smaller value takes the wider scope's.
    """
    unknown = set(cached_by_scope) - set(SCOPES)
    if unknown:
        raise ValueError(f"unknown scope(s) {sorted(unknown)}; expected {SCOPES}")
    out: dict[str, int] = {}
    previous = 0
    for scope in SCOPES:
        value = int(cached_by_scope.get(scope, previous))
        if value < 0:
            raise ValueError(f"cached tokens for {scope} must be >= 0, got {value}")
        out[scope] = previous = max(previous, value)
    if previous > total:
        raise ValueError(f"cached tokens ({previous}) exceed total tokens ({total})")
    return out


def _as_traffic(traffic: Any) -> Traffic:
    """Accept any object with Traffic's fields (e.g. the config's dataclass)."""
    if traffic is None:
        return Traffic()
    if isinstance(traffic, Traffic):
        return traffic
    return Traffic(
        requests_per_day=traffic.requests_per_day,
        users=traffic.users,
        sessions_per_user_per_day=traffic.sessions_per_user_per_day,
        days_per_month=traffic.days_per_month,
        session_minutes=getattr(traffic, "session_minutes", None),
        history_tokens_per_turn=getattr(traffic, "history_tokens_per_turn", Traffic.history_tokens_per_turn),
    )


def estimate(
    spec: ModelSpec,
    total_tokens: int,
    cached_by_scope: dict[str, int],
    traffic: Any = None,
    warm: dict[str, float] | None = None,
) -> CostEstimate:
    """Expected caching and cost for one prompt layout under ``traffic``.

    ``cached_by_scope`` holds cumulative cached-token counts already passed
    through ``cacheable``: {"global": c_g, "user": c_u, "session": c_s}, a
    missing scope adding nothing. ``traffic`` is a ``Traffic`` or any object
    with its fields (default: ``Traffic()``). ``warm`` fixes the warm probability of some
    scopes (for example 1.0 for a cache known to be warm) instead of the
    Poisson model. See ``FORMULA``.
    """
    traffic = _as_traffic(traffic)
    total = int(total_tokens)
    if total < 0:
        raise ValueError("total_tokens must be >= 0")
    cached = _cumulative(cached_by_scope, total)
    ttl = float(spec.ttl_seconds)
    rates = {s: traffic.rate(s) for s in SCOPES}
    probs = {s: warm_probability(rates[s], ttl) for s in SCOPES}
    # A session's requests are some of its user's, and a user's some of all
    # users': a wider prefix is warm whenever a narrower one is.
    probs["user"] = max(probs["user"], probs["session"])
    probs["global"] = max(probs["global"], probs["user"])
    for scope, p in (warm or {}).items():
        if scope not in SCOPES or not 0.0 <= p <= 1.0:
            raise ValueError(f"warm probability for {scope!r} must be a scope and in [0, 1]")
        probs[scope] = float(p)

    segments, previous = {}, 0
    for scope in SCOPES:
        segments[scope] = cached[scope] - previous
        previous = cached[scope]
    expected = sum(segments[s] * probs[s] for s in SCOPES)

    per_token = spec.input_price_per_mtok / 1e6
    uncached = total * per_token
    read = (total - expected) * per_token + expected * per_token * spec.cached_read_multiplier
    write = 0.0
    if spec.cache_write_multiplier > 1.0:
        cold = sum(segments[s] * (1.0 - probs[s]) for s in SCOPES)
        write = cold * per_token * (spec.cache_write_multiplier - 1.0)
    with_cache = read + write
    per_month = traffic.requests_per_month

    inputs: dict[str, Any] = {
        "model": spec.key,
        "total_tokens": total,
        **{f"cached_{s}": cached[s] for s in SCOPES},
        "input_price_per_mtok": spec.input_price_per_mtok,
        "cached_read_multiplier": spec.cached_read_multiplier,
        "cache_write_multiplier": spec.cache_write_multiplier,
        "ttl_seconds": spec.ttl_seconds,
        "requests_per_day": traffic.requests_per_day,
        "users": traffic.users,
        "sessions_per_user_per_day": traffic.sessions_per_user_per_day,
        "session_minutes": traffic.session_minutes,
        "days_per_month": traffic.days_per_month,
        **{f"rate_{s}_per_second": rates[s] for s in SCOPES},
        **{f"P_{s}": probs[s] for s in SCOPES},
        "warm_from": "given: " + ", ".join(sorted(warm)) if warm else "poisson",
    }
    return CostEstimate(
        model=spec.key,
        total_tokens=total,
        cached_by_scope=cached,
        warm_probability=probs,
        expected_cached_tokens=expected,
        prefill_tokens_per_request=total - expected,
        prefill_tokens_saved_per_request=expected,
        prefill_saved_fraction=expected / total if total else 0.0,
        cost_per_request_uncached=uncached,
        cost_per_request_cached=with_cache,
        cache_write_cost_per_request=write,
        cost_per_1k_requests_uncached=uncached * 1000.0,
        cost_per_1k_requests_cached=with_cache * 1000.0,
        requests_per_month=per_month,
        cost_per_month_uncached=uncached * per_month,
        cost_per_month_cached=with_cache * per_month,
        saving_per_month=(uncached - with_cache) * per_month,
        inputs=inputs,
    )
