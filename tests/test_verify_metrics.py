"""Prometheus metrics of serving engines (promptlint.verify.metrics): the
relevant series of realistic vLLM, SGLang and llama.cpp expositions are
parsed (summed over labels except vLLM's draft `position`), everything else
is ignored; counters are reported as their change over the run and gauges
as read after it; the summary's rates follow the engines' own definitions,
checked with exact numbers.

Plain Python, no server: the HTTP side is in test_verify_http.py."""

from __future__ import annotations

import math

import pytest

from promptlint.verify.metrics import Scrape, deltas, parse, summary

POS = "vllm:spec_decode_num_accepted_tokens_per_pos_total"


def vllm_exposition(queries: float, hits: float, drafts: float, draft_tokens: float, accepted: float,
                    per_pos: tuple[float, ...]) -> str:
    """What vLLM's /metrics says (prometheus_client's text format), with the
    noise around the series that matter."""
    lines = [
        "# HELP python_gc_objects_collected_total Objects collected during gc",
        "# TYPE python_gc_objects_collected_total counter",
        'python_gc_objects_collected_total{generation="0"} 12345.0',
        "# HELP vllm:num_requests_running Number of requests in model execution batches.",
        "# TYPE vllm:num_requests_running gauge",
        'vllm:num_requests_running{engine="0",model_name="m"} 3.0',
        "# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage.",
        "# TYPE vllm:gpu_cache_usage_perc gauge",
        'vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.25',
        "# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.",
        "# TYPE vllm:prefix_cache_queries_total counter",
        f'vllm:prefix_cache_queries_total{{engine="0",model_name="m"}} {queries}',
        "# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.",
        "# TYPE vllm:prefix_cache_hits_total counter",
        f'vllm:prefix_cache_hits_total{{engine="0",model_name="m"}} {hits}',
        "# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.",
        "# TYPE vllm:spec_decode_num_drafts_total counter",
        f'vllm:spec_decode_num_drafts_total{{engine="0",model_name="m"}} {drafts}',
        "# TYPE vllm:spec_decode_num_draft_tokens_total counter",
        f'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} {draft_tokens}',
        "# TYPE vllm:spec_decode_num_accepted_tokens_total counter",
        f'vllm:spec_decode_num_accepted_tokens_total{{engine="0",model_name="m"}} {accepted}',
        f"# TYPE {POS} counter",
    ]
    lines += [f'{POS}{{engine="0",model_name="m",position="{i}"}} {v}' for i, v in enumerate(per_pos)]
    lines += [
        "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.",
        "# TYPE vllm:time_to_first_token_seconds histogram",
        'vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="m"} 0.0',
        'vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 7.0',
    ]
    return "\n".join(lines) + "\n"


SGLANG = """\
# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 2.0
# HELP sglang:cache_hit_rate The prefix cache hit rate.
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="m"} 0.42
# HELP sglang:spec_accept_rate The speculative acceptance rate.
# TYPE sglang:spec_accept_rate gauge
sglang:spec_accept_rate{model_name="m"} 0.625
# HELP sglang:spec_accept_length The average acceptance length of speculative decoding.
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{model_name="m"} 3.5
# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m"} 9000.0
"""


def llamacpp_exposition(prompt: int, predicted: int, seconds: float) -> str:
    return (
        "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
        "# TYPE llamacpp:prompt_tokens_total counter\n"
        f"llamacpp:prompt_tokens_total {prompt}\n"
        "# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.\n"
        "# TYPE llamacpp:tokens_predicted_total counter\n"
        f"llamacpp:tokens_predicted_total {predicted}\n"
        "# HELP llamacpp:prompt_tokens_seconds Average prompt throughput in tokens/s.\n"
        "# TYPE llamacpp:prompt_tokens_seconds gauge\n"
        f"llamacpp:prompt_tokens_seconds {seconds}\n"
    )


# ------------------------------------------------------------------ parse


def test_parse_keeps_the_vllm_cache_and_speculation_series_only():
    scrape = parse(vllm_exposition(1234.0, 200.0, 10.0, 40.0, 25.0, (10.0, 8.0, 7.0)))
    assert scrape.values == {
        "vllm:prefix_cache_queries_total": 1234.0,
        "vllm:prefix_cache_hits_total": 200.0,
        "vllm:spec_decode_num_drafts_total": 10.0,
        "vllm:spec_decode_num_draft_tokens_total": 40.0,
        "vllm:spec_decode_num_accepted_tokens_total": 25.0,
        f'{POS}{{position="0"}}': 10.0,  # the position label is kept, the others dropped
        f'{POS}{{position="1"}}': 8.0,
        f'{POS}{{position="2"}}': 7.0,
    }
    assert scrape.types["vllm:prefix_cache_queries_total"] == "counter"
    assert scrape.types["vllm:num_requests_running"] == "gauge"  # types are read for every metric


def test_parse_sums_a_series_over_its_labels_except_position():
    text = ("# TYPE vllm:prefix_cache_hits_total counter\n"
            'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 100\n'
            'vllm:prefix_cache_hits_total{engine="1",model_name="m"} 28.5\n'
            f'{POS}{{engine="0",model_name="m",position="0"}} 4\n'
            f'{POS}{{engine="1",model_name="m",position="0"}} 5\n'
            f'{POS}{{engine="1",model_name="a,\\"b\\"",position="1"}} 2\n')
    assert parse(text).values == {"vllm:prefix_cache_hits_total": 128.5, f'{POS}{{position="0"}}': 9.0,
                                  f'{POS}{{position="1"}}': 2.0}


def test_parse_sglang_gauges_and_ignores_its_other_series():
    scrape = parse(SGLANG)
    assert scrape.values == {"sglang:cache_hit_rate": 0.42, "sglang:spec_accept_rate": 0.625,
                             "sglang:spec_accept_length": 3.5}


def test_parse_llamacpp_series_without_labels():
    scrape = parse(llamacpp_exposition(350, 64, 1234.5))
    assert scrape.values == {"llamacpp:prompt_tokens_total": 350.0, "llamacpp:tokens_predicted_total": 64.0,
                             "llamacpp:prompt_tokens_seconds": 1234.5}


def test_parse_skips_nan_garbage_comments_and_blank_lines_and_reads_past_timestamps():
    text = ("\n# a comment\n"
            "vllm:prefix_cache_queries_total NaN\n"
            "vllm:prefix_cache_hits_total not-a-number\n"
            "llamacpp:prompt_tokens_total 350 1700000000000\n"  # an optional timestamp after the value
            "this is not a sample line\n"
            "sglang:cache_hit_rate +Inf\n")
    values = parse(text).values
    assert values["llamacpp:prompt_tokens_total"] == 350.0
    assert math.isinf(values["sglang:cache_hit_rate"])
    assert "vllm:prefix_cache_queries_total" not in values and "vllm:prefix_cache_hits_total" not in values


def test_parse_of_an_empty_or_foreign_exposition_is_empty():
    assert parse("").values == {}
    assert parse("# TYPE http_requests_total counter\nhttp_requests_total 5\n").values == {}


# ------------------------------------------------------------------ deltas


def test_deltas_subtract_counters_and_keep_gauges_as_read_after():
    before = parse(vllm_exposition(1234.0, 200.0, 10.0, 40.0, 25.0, (10.0, 8.0, 7.0)) + SGLANG.replace(
        "0.42", "0.10"))
    after = parse(vllm_exposition(2234.0, 600.0, 60.0, 240.0, 175.0, (60.0, 50.0, 40.0)) + SGLANG)
    assert deltas(before, after) == {
        "sglang:cache_hit_rate": 0.42,  # a gauge: the value after, not 0.42 - 0.10
        "sglang:spec_accept_length": 3.5,
        "sglang:spec_accept_rate": 0.625,
        "vllm:prefix_cache_hits_total": 400.0,
        "vllm:prefix_cache_queries_total": 1000.0,
        "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"0\"}": 50.0,
        "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\"}": 42.0,
        "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"2\"}": 33.0,
        "vllm:spec_decode_num_accepted_tokens_total": 150.0,
        "vllm:spec_decode_num_draft_tokens_total": 200.0,
        "vllm:spec_decode_num_drafts_total": 50.0,
    }


def test_deltas_of_llamacpp_counters_and_gauge():
    before = parse(llamacpp_exposition(350, 64, 1000.0))
    after = parse(llamacpp_exposition(1000, 112, 1234.5))
    assert deltas(before, after) == {"llamacpp:prompt_tokens_seconds": 1234.5, "llamacpp:prompt_tokens_total": 650.0,
                                     "llamacpp:tokens_predicted_total": 48.0}


def test_deltas_without_a_scrape_before_report_counters_in_full():
    after = parse(llamacpp_exposition(350, 64, 1.5))
    assert deltas(None, after) == {"llamacpp:prompt_tokens_seconds": 1.5, "llamacpp:prompt_tokens_total": 350.0,
                                   "llamacpp:tokens_predicted_total": 64.0}


def test_a_series_new_after_the_run_counts_from_zero():
    before = parse("# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total 5\n")
    after = parse(f"# TYPE {POS} counter\n"
                  "# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total 9\n"
                  f'{POS}{{position="3"}} 4\n')
    assert deltas(before, after) == {"vllm:prefix_cache_hits_total": 4.0, f'{POS}{{position="3"}}': 4.0}


def test_counter_or_gauge_by_type_line_then_by_the_total_suffix():
    # OpenMetrics names a counter's TYPE without _total; with no TYPE line, _total means a counter
    before = Scrape({"vllm:prefix_cache_queries_total": 10.0, "llamacpp:requests_processing": 7.0,
                     "llamacpp:n_decode_total": 3.0})
    after = Scrape({"vllm:prefix_cache_queries_total": 25.0, "llamacpp:requests_processing": 2.0,
                    "llamacpp:n_decode_total": 8.0},
                   {"vllm:prefix_cache_queries": "counter"})
    assert deltas(before, after) == {"vllm:prefix_cache_queries_total": 15.0, "llamacpp:requests_processing": 2.0,
                                     "llamacpp:n_decode_total": 5.0}
    # a TYPE line saying gauge wins over the suffix
    gauge = Scrape({"llamacpp:odd_total": 4.0}, {"llamacpp:odd_total": "gauge"})
    assert deltas(Scrape({"llamacpp:odd_total": 3.0}), gauge) == {"llamacpp:odd_total": 4.0}


# ------------------------------------------------------------------ summary


def test_summary_rates_with_vllm_definitions_exactly():
    d = {"vllm:prefix_cache_queries_total": 1000.0, "vllm:prefix_cache_hits_total": 400.0,
         "vllm:spec_decode_num_drafts_total": 50.0, "vllm:spec_decode_num_draft_tokens_total": 200.0,
         "vllm:spec_decode_num_accepted_tokens_total": 150.0}
    assert summary(d) == {
        "vllm prefix cache hit rate": 0.4,  # hits / queries = 400 / 1000
        "vllm speculative acceptance rate": 0.75,  # accepted / draft tokens = 150 / 200
        "vllm mean acceptance length": 4.0,  # 1 + accepted / drafts = 1 + 150 / 50
    }


def test_summary_from_deltas_of_two_scrapes():
    before = parse(vllm_exposition(1234.0, 200.0, 10.0, 40.0, 25.0, (10.0,)))
    after = parse(vllm_exposition(1334.0, 225.0, 14.0, 56.0, 31.0, (14.0,)))
    assert summary(deltas(before, after)) == {"vllm prefix cache hit rate": 0.25,  # 25 / 100
                                              "vllm speculative acceptance rate": 0.375,  # 6 / 16
                                              "vllm mean acceptance length": 2.5}  # 1 + 6 / 4


def test_summary_copies_sglang_gauges_and_needs_nonzero_denominators():
    assert summary(deltas(None, parse(SGLANG))) == {"sglang:cache_hit_rate": 0.42, "sglang:spec_accept_rate": 0.625,
                                                    "sglang:spec_accept_length": 3.5}
    # no queries or drafts over the run: no rate (not a division by zero)
    assert summary({"vllm:prefix_cache_queries_total": 0.0, "vllm:prefix_cache_hits_total": 0.0,
                    "vllm:spec_decode_num_drafts_total": 0.0, "vllm:spec_decode_num_draft_tokens_total": 0.0}) == {}
    # hits missing: a rate of 0; accepted missing: acceptance 0 and length 1
    assert summary({"vllm:prefix_cache_queries_total": 8.0, "vllm:spec_decode_num_drafts_total": 2.0,
                    "vllm:spec_decode_num_draft_tokens_total": 6.0}) == {
        "vllm prefix cache hit rate": 0.0, "vllm speculative acceptance rate": 0.0, "vllm mean acceptance length": 1.0}
    assert summary(parse(llamacpp_exposition(1, 2, 3.0)).values) == {}


@pytest.mark.parametrize("hits, queries, rate", [(0, 16, 0.0), (16, 16, 1.0), (48, 64, 0.75)])
def test_hit_rate_is_hits_over_queries(hits, queries, rate):
    assert summary({"vllm:prefix_cache_queries_total": float(queries),
                    "vllm:prefix_cache_hits_total": float(hits)}) == {"vllm prefix cache hit rate": rate}
