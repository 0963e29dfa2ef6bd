"""Provider table, cache-length rules, traffic model and cost arithmetic."""

from __future__ import annotations

import datetime as dt
import math
import re

import pytest

from promptlint.economics import (
    SCOPES,
    Traffic,
    cacheable,
    estimate,
    load_table,
    resolve,
    table_date,
    warm_probability,
)
from promptlint.economics.providers import NUMERIC_FIELDS, USER_SOURCE
from promptlint.tokenizers import known_specs

TABLE = load_table()


# ---------------------------------------------------------------- the table


def test_table_date_parses():
    assert table_date() == dt.date(2026, 11, 29)


def test_every_numeric_field_has_a_source():
    for key, spec in TABLE.items():
        for name in NUMERIC_FIELDS:
            source = spec.sources.get(name, "")
            assert isinstance(source, str) and source.strip(), f"{key}.{name} has no source"


def test_prices_cite_a_url_or_an_assumption():
    for key, spec in TABLE.items():
        for name in ("input_price_per_mtok", "cached_read_multiplier"):
            source = spec.sources[name]
            assert "https://" in source or source.startswith("assumption"), f"{key}.{name}"
            if "https://" in source and name == "input_price_per_mtok":
                assert re.search(r"as listed \d{4}-\d{2}", source), f"{key}.{name} lacks a month"


def test_tokenizers_are_known_and_proxies_explained():
    for key, spec in TABLE.items():
        assert spec.tokenizer in known_specs(), key
        if not spec.tokenizer_exact:
            assert spec.tokenizer_note.strip(), f"{key} is a proxy without a note"


def test_required_coverage():
    expected = {
        "openai/gpt-4o", "openai/gpt-4.1", "openai/gpt-5", "openai/gpt-5-mini", "openai/gpt-5-nano",
        "anthropic/claude-opus-4.1", "anthropic/claude-opus-4.5", "anthropic/claude-sonnet-4",
        "anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4.6", "anthropic/claude-haiku-3.5",
        "anthropic/claude-haiku-4.5", "google/gemini-2.5-flash", "google/gemini-2.5-pro",
        "deepseek/deepseek-chat", "bedrock/anthropic.claude-sonnet-4.5", "bedrock/amazon.nova-pro",
        "vllm/default", "sglang/default", "llamacpp/default",
    }
    assert expected <= set(TABLE)


def test_known_values():
    assert {k: TABLE[f"openai/{k}"].cached_read_multiplier for k in
            ("gpt-4o", "gpt-4.1", "gpt-5", "gpt-5-mini", "gpt-5-nano")} == {
        "gpt-4o": 0.5, "gpt-4.1": 0.25, "gpt-5": 0.1, "gpt-5-mini": 0.1, "gpt-5-nano": 0.1}
    for key, spec in TABLE.items():
        if spec.provider == "anthropic":
            assert (spec.cache_write_multiplier, spec.cache_write_multiplier_1h,
                    spec.cached_read_multiplier) == (1.25, 2.0, 0.1), key
            assert (spec.max_breakpoints, spec.lookback_blocks, spec.caching) == (4, 20, "explicit")
        if spec.provider == "openai":
            assert (spec.min_tokens, spec.increment, spec.caching) == (1024, 128, "automatic")
    ds = TABLE["deepseek/deepseek-chat"]
    assert (ds.tokenizer, ds.tokenizer_exact, ds.increment) == ("hf:deepseek", True, 64)
    assert TABLE["vllm/default"].increment == 16
    assert TABLE["sglang/default"].increment == TABLE["llamacpp/default"].increment == 1


# ---------------------------------------------------------------- resolve


@pytest.mark.parametrize(
    "name, key",
    [
        ("openai/gpt-4.1", "openai/gpt-4.1"),
        ("gpt-4.1", "openai/gpt-4.1"),
        ("GPT-5", "openai/gpt-5"),
        ("gpt-5-mini", "openai/gpt-5-mini"),
        ("claude-sonnet-4.5", "anthropic/claude-sonnet-4.5"),
        ("sonnet-4.5", "anthropic/claude-sonnet-4.5"),
        ("claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5"),
        ("haiku-4.5", "anthropic/claude-haiku-4.5"),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/anthropic.claude-sonnet-4.5"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/anthropic.claude-sonnet-4.5"),
        ("amazon.nova-pro-v1:0", "bedrock/amazon.nova-pro"),
        ("gemini-2.5-pro", "google/gemini-2.5-pro"),
        ("deepseek-chat", "deepseek/deepseek-chat"),
        ("vllm", "vllm/default"),
    ],
)
def test_resolve(name, key):
    assert resolve(name).key == key


def test_resolve_unknown():
    with pytest.raises(ValueError, match="did you mean"):
        resolve("gpt-4.2")
    with pytest.raises(ValueError, match="unknown model"):
        resolve("nothing-like-it")


# ---------------------------------------------------------------- cacheable


@pytest.mark.parametrize(
    "stable, cached",
    [(0, 0), (1023, 0), (1024, 1024), (1151, 1024), (1152, 1152), (1279, 1152), (1280, 1280), (1500, 1408)],
)
def test_openai_increments(stable, cached):
    assert cacheable(TABLE["openai/gpt-4.1"], stable) == cached


@pytest.mark.parametrize(
    "model, minimum",
    [
        ("claude-opus-4.1", 1024), ("claude-opus-4.5", 4096), ("claude-sonnet-4", 1024),
        ("claude-sonnet-4.5", 1024), ("claude-sonnet-4.6", 2048), ("claude-haiku-3.5", 2048),
        ("claude-haiku-4.5", 4096),
    ],
)
def test_anthropic_minimum(model, minimum):
    spec = TABLE[f"anthropic/{model}"]
    assert spec.min_tokens == minimum
    assert cacheable(spec, minimum - 1) == 0
    assert cacheable(spec, minimum) == minimum
    assert cacheable(spec, minimum + 37) == minimum + 37  # token granularity


def test_anthropic_breakpoints():
    sonnet = TABLE["anthropic/claude-sonnet-4.5"]
    assert cacheable(sonnet, 3000, [500, 1500, 2800, 3500]) == 2800
    assert cacheable(sonnet, 3000, [500]) == 0  # only breakpoint is below the minimum
    assert cacheable(sonnet, 3000, []) == 0  # explicit provider, no breakpoint: nothing cached
    assert cacheable(sonnet, 3000, None) == 3000  # assumed placed at the end of the stable prefix
    assert cacheable(sonnet, 3000, [3200]) == 0  # breakpoint after the first volatile token
    haiku = TABLE["anthropic/claude-haiku-4.5"]
    assert cacheable(haiku, 5000, [2000, 4100]) == 4100
    assert cacheable(haiku, 4000, [2000, 3900]) == 0


def test_bedrock_minimums():
    assert cacheable(TABLE["bedrock/anthropic.claude-sonnet-4.5"], 1023) == 0
    assert cacheable(TABLE["bedrock/anthropic.claude-sonnet-4.5"], 1024, [1024]) == 1024
    assert cacheable(TABLE["bedrock/amazon.nova-pro"], 1100, [1050]) == 1050


@pytest.mark.parametrize("stable, cached", [(0, 0), (15, 0), (16, 16), (17, 16), (1000, 992), (1007, 992), (1008, 1008)])
def test_vllm_block_floor(stable, cached):
    assert cacheable(TABLE["vllm/default"], stable) == cached


def test_token_granularity_and_deepseek_units():
    assert cacheable(TABLE["sglang/default"], 1001) == 1001
    assert cacheable(TABLE["llamacpp/default"], 7) == 7
    ds = TABLE["deepseek/deepseek-chat"]
    assert [cacheable(ds, n) for n in (63, 64, 127, 130)] == [0, 64, 64, 128]
    flash = TABLE["google/gemini-2.5-flash"]
    assert [cacheable(flash, n) for n in (2047, 2048, 2049)] == [0, 2048, 2049]


# ---------------------------------------------------------------- traffic


def test_warm_probability_values():
    assert warm_probability(0.0, 300) == 0.0
    assert warm_probability(1.0, 0.0) == 0.0
    assert warm_probability(1 / 300, 300) == pytest.approx(1 - math.exp(-1))
    assert warm_probability(0.01, 300) == pytest.approx(1 - math.exp(-3))
    assert warm_probability(1e9, 300) == 1.0
    with pytest.raises(ValueError):
        warm_probability(-1, 300)


def test_traffic_rates():
    t = Traffic()
    assert t.rate("global") == pytest.approx(50_000 / 86_400)
    assert t.rate("user") == pytest.approx(50_000 / 86_400 / 2_000)
    # by default a session's ~8.3 requests arrive within 30 minutes
    assert t.rate("session") == pytest.approx((50_000 / 6_000) / 1_800)
    spread = Traffic(session_minutes=None)
    assert spread.rate("session") == pytest.approx(50_000 / 86_400 / 6_000)
    assert t.requests_per_month == 1_500_000
    bursty = Traffic(session_minutes=10)
    assert bursty.rate("session") == pytest.approx((50_000 / 6_000) / 600)
    with pytest.raises(ValueError):
        t.rate("tenant")


# ---------------------------------------------------------------- cost


def test_seed_example_1500_plus_100_is_94_percent():
    spec = TABLE["anthropic/claude-sonnet-4.5"]
    stable = cacheable(spec, 1500)
    assert stable == 1500
    est = estimate(spec, 1600, {"global": stable}, warm={s: 1.0 for s in SCOPES})
    assert est.prefill_tokens_per_request == 100
    assert est.prefill_tokens_saved_per_request == 1500
    assert est.prefill_saved_fraction == 0.9375
    assert f"{est.prefill_saved_fraction:.0%}" == "94%"
    # Same result from the traffic model when the prefix is certainly warm.
    busy = estimate(spec, 1600, {"global": 1500}, Traffic(requests_per_day=1e12))
    assert busy.warm_probability["global"] == 1.0
    assert busy.prefill_tokens_per_request == 100


def test_cost_arithmetic_by_hand():
    spec = TABLE["anthropic/claude-sonnet-4.5"]  # $3/MTok, read 0.1x, write 1.25x
    est = estimate(
        spec, 3000, {"global": 1500, "user": 2500, "session": 2500},
        warm={"global": 1.0, "user": 0.5, "session": 0.0},
    )
    # expected cached = 1500*1 + 1000*0.5 + 0*0 = 2000
    assert est.expected_cached_tokens == 2000
    # uncached: 3000 * 3e-6 = 0.009
    assert est.cost_per_request_uncached == pytest.approx(0.009)
    # reads: 1000*3e-6 + 2000*3e-6*0.1 = 0.0036; writes: (1000*0.5)*3e-6*0.25 = 0.000375
    assert est.cache_write_cost_per_request == pytest.approx(0.000375)
    assert est.cost_per_request_cached == pytest.approx(0.003975)
    assert est.cost_per_1k_requests_cached == pytest.approx(3.975)
    # 50,000/day * 30 days = 1.5M requests
    assert est.cost_per_month_uncached == pytest.approx(13_500)
    assert est.cost_per_month_cached == pytest.approx(5_962.5)
    assert est.saving_per_month == pytest.approx(7_537.5)
    assert est.inputs["P_user"] == 0.5 and est.inputs["cached_user"] == 2500
    assert "exp(-rate*ttl)" in est.formula


def test_cost_with_poisson_model_automatic_provider():
    spec = TABLE["openai/gpt-4.1"]  # $2/MTok, read 0.25x, no write premium
    # sessions spread over the day, so no session is warmer than its user
    est = estimate(spec, 2000, {"global": 1024, "user": 1920}, Traffic(session_minutes=None))
    p_g = 1 - math.exp(-(50_000 / 86_400) * 300)
    p_u = 1 - math.exp(-(50_000 / 86_400 / 2_000) * 300)
    assert est.warm_probability["global"] == pytest.approx(p_g)
    assert est.warm_probability["user"] == pytest.approx(p_u)
    assert est.warm_probability["user"] == pytest.approx(0.0831, abs=1e-4)
    expected = 1024 * p_g + 896 * p_u
    assert est.expected_cached_tokens == pytest.approx(expected)
    per_token = 2.0 / 1e6
    assert est.cost_per_request_cached == pytest.approx(
        (2000 - expected) * per_token + expected * per_token * 0.25
    )
    assert est.cache_write_cost_per_request == 0.0
    for name in ("total_tokens", "input_price_per_mtok", "ttl_seconds", "requests_per_day",
                 "users", "sessions_per_user_per_day", "days_per_month", "rate_user_per_second"):
        assert name in est.inputs


def test_wider_scope_is_at_least_as_warm_as_a_narrower_one():
    spec = TABLE["openai/gpt-4.1"]
    est = estimate(spec, 2000, {"global": 0, "user": 1024, "session": 1920})  # bursty sessions
    p_s = 1 - math.exp(-((50_000 / 6_000) / 1_800) * 300)
    assert est.warm_probability["session"] == pytest.approx(p_s)
    assert est.warm_probability["user"] == pytest.approx(p_s)  # a warm session keeps its user's prefix warm
    assert est.expected_cached_tokens == pytest.approx(1920 * p_s)


def test_traffic_duck_typed():
    """The config's own traffic dataclass (same fields) is accepted."""
    from dataclasses import dataclass

    @dataclass
    class ConfigTraffic:
        requests_per_day: float = 10_000.0
        users: int = 100
        sessions_per_user_per_day: float = 2.0
        days_per_month: float = 31.0

    spec = TABLE["openai/gpt-4.1"]
    est = estimate(spec, 2000, {"global": 1920}, ConfigTraffic())
    assert est.requests_per_month == 310_000
    assert est.inputs["rate_user_per_second"] == pytest.approx(10_000 / 86_400 / 100)
    assert est.inputs["warm_from"] == "poisson"


def test_cold_explicit_cache_can_cost_more():
    """Per-session content before a breakpoint pays writes with few reads."""
    spec = TABLE["anthropic/claude-sonnet-4.5"]
    est = estimate(spec, 3000, {"session": 2900}, warm={"session": 0.0})
    assert est.cost_per_request_cached > est.cost_per_request_uncached
    assert est.saving_per_month < 0


def test_estimate_validates_inputs():
    spec = TABLE["openai/gpt-4.1"]
    # A narrower scope caches at least what a wider one does.
    assert estimate(spec, 3000, {"global": 2000, "user": 1000}).cached_by_scope == {
        "global": 2000, "user": 2000, "session": 2000}
    with pytest.raises(ValueError, match=">= 0"):
        estimate(spec, 3000, {"global": -1})
    with pytest.raises(ValueError, match="exceed"):
        estimate(spec, 1000, {"global": 2000})
    with pytest.raises(ValueError, match="unknown scope"):
        estimate(spec, 1000, {"tenant": 10})
    zero = estimate(spec, 0, {})
    assert zero.prefill_saved_fraction == 0.0


# ---------------------------------------------------------------- overrides


def test_override_existing_model():
    table = load_table({"openai/gpt-4.1": {"input_price_per_mtok": 1.8, "ttl_seconds": 600}})
    spec = table["openai/gpt-4.1"]
    assert spec.input_price_per_mtok == 1.8 and spec.ttl_seconds == 600
    assert spec.sources["input_price_per_mtok"] == USER_SOURCE
    assert spec.sources["min_tokens"] != USER_SOURCE
    assert load_table()["openai/gpt-4.1"].input_price_per_mtok == 2.0  # packaged table untouched


def test_override_by_alias_and_int_for_float():
    table = load_table({"sonnet-4.5": {"input_price_per_mtok": 4}})
    assert table["anthropic/claude-sonnet-4.5"].input_price_per_mtok == 4.0
    table = load_table({"vllm/default": {"tokenizer": "hf:deepseek", "tokenizer_exact": True,
                                         "input_price_per_mtok": 0.05}})
    assert table["vllm/default"].tokenizer == "hf:deepseek"


def test_override_new_model():
    fields = {
        "provider": "acme", "tokenizer": "tiktoken:cl100k_base", "caching": "automatic",
        "min_tokens": 512, "increment": 64, "ttl_seconds": 600, "input_price_per_mtok": 1.0,
        "cached_read_multiplier": 0.2, "cache_write_multiplier": 1.0,
    }
    spec = load_table({"acme/llm-1": fields})["acme/llm-1"]
    assert spec.family == "llm-1" and spec.max_breakpoints == 0
    assert cacheable(spec, 700) == 704 - 64  # 512 + 2*64
    assert all(spec.sources[n] for n in NUMERIC_FIELDS)
    with pytest.raises(ValueError, match="acme/llm-2.*needs.*increment"):
        load_table({"acme/llm-2": {k: v for k, v in fields.items() if k != "increment"}})


@pytest.mark.parametrize(
    "override, match",
    [
        ({"openai/gpt-4.1": {"input_price": 1.0}}, r"openai/gpt-4\.1.*unknown field 'input_price'"),
        ({"openai/gpt-4.1": {"min_tokens": "1024"}}, r"openai/gpt-4\.1.*'min_tokens' must be int"),
        ({"openai/gpt-4.1": {"min_tokens": 1024.0}}, r"'min_tokens' must be int"),
        ({"openai/gpt-4.1": {"min_tokens": True}}, r"'min_tokens' must be int"),
        ({"openai/gpt-4.1": {"tokenizer_exact": 1}}, r"'tokenizer_exact' must be bool"),
        ({"openai/gpt-4.1": {"caching": "magic"}}, r"'caching' must be one of"),
        ({"openai/gpt-4.1": {"increment": 0}}, r"'increment' must be >= 1"),
        ({"openai/gpt-4.1": {"input_price_per_mtok": -1}}, r"must be a number from 0 to 1e\+12"),
        ({"openai/gpt-4.1": {"input_price_per_mtok": float("inf")}}, r"must be a number from 0 to 1e\+12"),
        ({"openai/gpt-4.1": {"input_price_per_mtok": float("nan")}}, r"must be a number from 0 to 1e\+12"),
        ({"openai/gpt-4.1": {"tokenizer": "nope"}}, r"field 'tokenizer' must be one of tiktoken:o200k_base"),
        ({"openai/gpt-4.1": "cheap"}, r"must be a table"),
        ({"gpt-9": {"ttl_seconds": 60}}, r"unknown model 'gpt-9'"),
    ],
)
def test_override_errors(override, match):
    with pytest.raises(ValueError, match=match):
        load_table(override)
