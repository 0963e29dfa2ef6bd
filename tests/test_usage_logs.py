"""Usage logs (`promptlint verify --usage-log`): logged provider responses
read into normalised records, grouped per prompt, and priced.

The logs under tests/data/usage/ are in each provider's documented response
format: OpenAI Chat Completions and Responses, Anthropic Messages, Gemini
generateContent (REST camelCase and the Python SDK's snake_case), request /
response pairs with routes, and a file of broken lines. Expected money is
computed here by hand from the provider table's values.

Plain Python: no torch, no model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from promptlint import config as config_mod
from promptlint.analysis.render import render, render_variants
from promptlint.audit import audit_template, find_candidates, load_templates
from promptlint.economics.providers import load_table, table_date
from promptlint.ir import SourceError
from promptlint.usage.group import UNMATCHED, group_records, match_template, static_text
from promptlint.usage.parse import (
    UsageRecord,
    parse_lines,
    parse_record,
    read_usage_log,
)
from promptlint.usage.summary import (
    predictor_from_audit,
    record_cost,
    resolve_model,
    summarize,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "usage"
TICKET = ROOT / "fixtures" / "support-bot" / "good" / "prompts" / "ticket-summary.md"
SEED = ROOT / "fixtures" / "seed" / "seed.prompty"

TABLE = load_table()
GPT41, GPT4O, GPT5, GPT5MINI = (TABLE[k] for k in ("openai/gpt-4.1", "openai/gpt-4o", "openai/gpt-5",
                                                   "openai/gpt-5-mini"))
SONNET, HAIKU = TABLE["anthropic/claude-sonnet-4.5"], TABLE["anthropic/claude-haiku-4.5"]
FLASH, PRO = TABLE["google/gemini-2.5-flash"], TABLE["google/gemini-2.5-pro"]


def price(spec, uncached=0, cached=0, writes=0, writes_1h=0):
    """USD by hand: every token class at its multiplier of the base price."""
    return spec.input_price_per_mtok / 1e6 * (uncached + cached * spec.cached_read_multiplier
                                              + writes * spec.cache_write_multiplier
                                              + writes_1h * spec.cache_write_multiplier_1h)


def read(name):
    errors: list[SourceError] = []
    records = read_usage_log(DATA / name, f"usage/{name}", errors)
    return records, errors


def load(path: Path):
    config = config_mod.load(path, None)
    errors: list = []
    found = list(load_templates(find_candidates([path], config), config, errors))
    assert not errors, [str(e) for e in errors]
    return found


@pytest.fixture(scope="module")
def templates():
    return load(TICKET) + load(SEED)


def tokens(records):
    return [(r.line, r.prompt_tokens, r.cached_tokens, r.cache_write_tokens, r.output_tokens) for r in records]


# ---------------------------------------------------------------- parsing


def test_openai_chat_completions():
    records, errors = read("openai-chat.jsonl")
    assert errors == []
    # line 5 is blank; line 3 has no prompt_tokens_details, line 4 a null one: cached 0
    assert tokens(records) == [(1, 2006, 1920, 0, 300), (2, 1500, 0, 0, 120), (3, 800, 0, 0, 64),
                               (4, 1200, 0, 0, 90), (6, 3000, 2048, 0, 150)]
    assert {(r.provider, r.api) for r in records} == {("openai", "chat.completions")}
    assert [r.model for r in records][:2] == ["gpt-4.1-2025-04-14"] * 2
    assert all(r.route is None and r.request_messages is None for r in records)
    assert records[0].uncached_tokens == 86 and records[0].location == "usage/openai-chat.jsonl:1"


def test_openai_responses_api():
    records, errors = read("openai-responses.jsonl")
    assert errors == []
    assert tokens(records) == [(1, 5000, 4864, 0, 420), (2, 5000, 0, 0, 380), (3, 2200, 1152, 0, 90)]
    assert {r.api for r in records} == {"responses"}
    # a reusable prompt reference names the route; so does metadata.route
    assert [r.route for r in records] == ["pmpt_68a1b2c3d4e5", "pmpt_68a1b2c3d4e5", "order-status"]


def test_anthropic_messages_writes_and_reads():
    records, errors = read("anthropic.jsonl")
    assert errors == []
    # prompt = input_tokens (after the last breakpoint) + cache creation + cache read
    assert tokens(records) == [(1, 1850, 0, 1800, 200), (2, 1860, 1800, 0, 180), (3, 2040, 0, 2000, 150),
                               (4, 900, 0, 0, 10), (5, 100, 0, 0, 12)]
    assert [r.cache_write_1h_tokens for r in records] == [0, 0, 2000, 0, 0]
    assert [r.uncached_tokens for r in records] == [50, 60, 40, 900, 100]
    assert {(r.provider, r.api) for r in records} == {("anthropic", "messages")}


def test_gemini_rest_and_sdk():
    rest, errors = read("gemini.jsonl")
    assert errors == []
    # output = candidates + thoughts (both billed as output); no cachedContentTokenCount on line 2
    assert tokens(rest) == [(1, 2100, 1024, 0, 80), (2, 2100, 0, 0, 405), (3, 2300, 2048, 0, 60)]
    assert {(r.provider, r.api, r.model) for r in rest} == {("google", "generateContent", "gemini-2.5-flash")}
    sdk, errors = read("gemini-sdk.jsonl")
    assert errors == []
    assert tokens(sdk) == [(1, 5000, 4096, 0, 950), (2, 5200, 0, 0, 752)]  # null cached count: 0
    assert {r.model for r in sdk} == {"gemini-2.5-pro"}


def test_pairs_routes_and_requests():
    records, errors = read("pairs.jsonl")
    assert errors == []
    assert [r.route for r in records] == ["checkout-help", "checkout-help", None, None, None, None, None, None,
                                          "order-status"]
    assert [r.api for r in records] == (["chat.completions"] * 4 + ["messages", "generateContent"]
                                        + ["chat.completions"] * 2 + ["responses"])
    assert records[0].request_messages == [
        {"role": "system", "content": "You help customers finish checkout at harborandpine.com."},
        {"role": "user", "content": "My promo code SPRING20 is rejected."}]
    # Anthropic system blocks, Gemini systemInstruction, Responses instructions + input_text items
    assert [m["role"] for m in records[4].request_messages] == ["system", "user"]
    assert records[4].request_messages[0]["content"].startswith("You are Pine, the customer support assistant")
    assert records[5].request_messages[1]["content"].startswith("Hi, I ordered the Ridgeline 3 tent")
    assert records[8].request_messages == [{"role": "system", "content": "You answer order-status questions."},
                                           {"role": "user", "content": "Where is HP-4439950?"}]
    # an OpenAI Batch API output line: the body is the response; no request logged
    assert records[7].prompt_tokens == 1400 and records[7].cached_tokens == 1280
    assert records[7].request_messages is None


def test_malformed_lines_are_errors_and_the_rest_is_read():
    records, errors = read("malformed.jsonl")
    # line 1 starts with a byte-order mark; line 7 is blank
    assert tokens(records) == [(1, 1100, 1024, 0, 50), (8, 1530, 1500, 0, 40)]
    assert [str(e) for e in errors] == [
        "usage/malformed.jsonl:2:141: bad JSON: Expecting value",
        ("usage/malformed.jsonl:3:1: no usage in this record (expected a provider response with usage, "
         'usageMetadata or usage_metadata, or a {"request", "response"} pair)'),
        "usage/malformed.jsonl:4:1: no usage.prompt_tokens (the prompt-token count) in the usage",
        "usage/malformed.jsonl:5:1: each line must be a JSON object",
        "usage/malformed.jsonl:6:1: an error response, no usage",
        "usage/malformed.jsonl:9:1: cached (200) and written (0) tokens exceed the prompt tokens (100)",
        "usage/malformed.jsonl:10:1: usage.prompt_tokens must be an integer, got '1200'",
    ]
    assert all(isinstance(e, SourceError) for e in errors)


def test_unreadable_file_and_bytes(tmp_path):
    errors: list[SourceError] = []
    assert read_usage_log(tmp_path / "missing.jsonl", "missing.jsonl", errors) == []
    assert len(errors) == 1 and str(errors[0]).startswith("missing.jsonl:1:1: cannot read usage log:")
    good = json.dumps({"type": "message", "model": "claude-haiku-4-5",
                       "usage": {"input_tokens": 10, "output_tokens": 1}}).encode()
    path = tmp_path / "log.jsonl"
    path.write_bytes(good + b"\n\xff\xfe not text\n\n" + good + b"\r\n")
    errors = []
    records = read_usage_log(path, "log.jsonl", errors)
    assert [r.line for r in records] == [1, 4]
    assert [str(e) for e in errors] == ["log.jsonl:2:1: not UTF-8 text: invalid start byte at byte 0"]


def test_records_need_the_prompt_count():
    with pytest.raises(ValueError, match="no usage.input_tokens"):
        parse_record({"type": "message", "model": "claude-sonnet-4-5",
                      "usage": {"cache_read_input_tokens": 10, "output_tokens": 3}})
    with pytest.raises(ValueError, match="no usageMetadata.promptTokenCount"):
        parse_record({"usageMetadata": {"candidatesTokenCount": 3}, "modelVersion": "gemini-2.5-flash"})
    # text lines are read as well as bytes
    errors: list[SourceError] = []
    [record] = parse_lines(["\ufeff" + json.dumps({"object": "chat.completion", "model": "gpt-4.1",
                                                   "usage": {"prompt_tokens": 5, "completion_tokens": 1}})],
                           "inline", errors)
    assert (record.prompt_tokens, record.cached_tokens, errors) == (5, 0, [])
    # DeepSeek's OpenAI-compatible usage names its cache hits itself
    deepseek = parse_record({"object": "chat.completion", "model": "deepseek-chat",
                             "usage": {"prompt_tokens": 1300, "completion_tokens": 20, "total_tokens": 1320,
                                       "prompt_cache_hit_tokens": 1280, "prompt_cache_miss_tokens": 20}})
    assert (deepseek.provider, deepseek.prompt_tokens, deepseek.cached_tokens) == ("deepseek", 1300, 1280)
    assert resolve_model(deepseek.model, TABLE)[0] is TABLE["deepseek/deepseek-chat"]


# ---------------------------------------------------------------- grouping


def test_static_text_of_a_template(templates):
    ticket, seed = templates
    static = static_text(ticket)
    assert static.pieces[0] == "# Ticket summary for the agent sidebar"
    assert "Thread (oldest first):" in static.pieces
    assert all(len(p) >= 20 for p in static.pieces)
    assert static_text(seed).chars > 6000  # the long system prompt; the user slot adds nothing


def test_a_rendered_request_matches_its_template(templates):
    for template in templates:
        # the reference request, and one with every slot at another value
        for rendered in (render(template, lambda slot: False, 0),
                         render_variants(template, lambda slot: 3)):
            messages = [{"role": s.role, "content": text}
                        for s, text in zip(template.sections, rendered.section_texts())]
            assert match_template(messages, templates) is template
    unrelated = [{"role": "system", "content": "You are a SQL assistant. Answer with one query."}]
    assert match_template(unrelated, templates) is None


def test_matching_needs_half_the_static_text(templates):
    seed = templates[1]
    lines = static_text(seed).pieces
    third = "\n".join(lines[: len(lines) // 3])
    assert match_template([{"role": "system", "content": third}], templates) is None
    most = "\n".join(lines[: len(lines) * 2 // 3])
    assert match_template([{"role": "system", "content": most}], templates) is seed


def test_ties_go_to_the_first_template(tmp_path, templates):
    copy = tmp_path / "seed-copy.prompty"
    copy.write_text(SEED.read_text(encoding="utf-8"), encoding="utf-8")
    [twin] = load(copy)
    seed = templates[1]
    messages = [{"role": "system", "content": "\n".join(static_text(seed).pieces)}]
    assert match_template(messages, [seed, twin]) is seed
    assert match_template(messages, [twin, seed]) is twin


def test_group_pairs_by_route_then_template(templates):
    records, _ = read("pairs.jsonl")
    groups = group_records(records, templates)
    assert [(g.key, g.how, [r.line for r in g.records]) for g in groups] == [
        ("checkout-help", "route", [1, 2]),
        (templates[0].location(), "template", [3, 4]),
        (templates[1].location(), "template", [5, 6]),  # line 6: Gemini, from an edited seed prompt
        ("order-status", "route", [9]),
        (UNMATCHED, "unmatched", [7, 8]),  # an unrelated prompt; a Batch line without its request
    ]
    assert groups[1].template is templates[0] and groups[1].name == "ticket-summary"
    assert groups[0].template is None
    # without templates, unrouted records are unmatched
    assert [g.key for g in group_records(records)] == ["checkout-help", "order-status", UNMATCHED]


def test_a_route_naming_a_template_links_it(templates):
    record = UsageRecord(1, "openai", "gpt-4.1", 1000, 0, 0, 10, "ticket-summary", None)
    [group] = group_records([record], templates)
    assert group.template is templates[0] and group.key == templates[0].location() and group.how == "route"


# ---------------------------------------------------------------- money


def test_model_names_resolve_to_the_table():
    assert resolve_model("gpt-4.1-2025-04-14", TABLE)[0] is GPT41
    assert resolve_model("claude-sonnet-4-5-20250929", TABLE)[0] is SONNET
    assert resolve_model("claude-sonnet-4-5@20250929", TABLE)[0] is SONNET
    assert resolve_model("gemini-2.5-flash", TABLE)[0] is FLASH
    assert resolve_model("models/gemini-2.5-pro", TABLE)[0] is PRO
    spec, note = resolve_model("gpt-4o-mini-2024-07-18", TABLE)
    assert spec is None
    assert "'gpt-4o-mini-2024-07-18' is not in the provider table" in note
    assert f"updated {table_date().isoformat()}" in note
    assert resolve_model(None, TABLE) == (None, "no model named in the log record")


def test_openai_chat_costs_and_losses():
    records, _ = read("openai-chat.jsonl")
    summary = summarize(group_records(records), TABLE, predicted={UNMATCHED: 1024})
    assert summary.table_date == table_date()
    assert summary.source.endswith(f"updated {table_date().isoformat()})")
    [group] = summary.groups
    assert (group.requests, group.prompt_tokens, group.cached_tokens, group.cache_write_tokens) == (5, 8506, 3968, 0)
    assert group.cached_rate == pytest.approx(3968 / 8506)
    gpt41, gpt4o, mini = group.models
    assert (gpt41.spec, gpt41.requests, gpt41.prompt_tokens, gpt41.cached_tokens) == (GPT41, 3, 4306, 1920)
    assert gpt41.cached_rate == pytest.approx(1920 / 4306)
    actual = price(GPT41, uncached=86 + 1500 + 800, cached=1920)
    assert gpt41.actual_cost == pytest.approx(actual)
    assert GPT41.cache_write_multiplier == 1.0  # OpenAI: no cache-write surcharge
    # predicted: each request reads min(1024, prompt) tokens
    predicted = (price(GPT41, uncached=2006 - 1024, cached=1024) + price(GPT41, uncached=1500 - 1024, cached=1024)
                 + price(GPT41, cached=800))
    assert gpt41.predicted_cost == pytest.approx(predicted)
    assert gpt41.lost == pytest.approx(actual - predicted)
    assert gpt41.lost_per_request == pytest.approx((actual - predicted) / 3)
    assert gpt41.lost_per_1k_requests == pytest.approx((actual - predicted) / 3 * 1000)
    assert gpt41.actual_cost == pytest.approx(2866 * 2.0 / 1e6)  # the same, spelled out for gpt-4.1 at $2/MTok
    assert "openai/gpt-4.1 in the promptlint provider table" in gpt41.price_source
    assert table_date().isoformat() in gpt41.price_source
    assert gpt4o.actual_cost == pytest.approx(price(GPT4O, uncached=1200))
    assert gpt4o.lost == pytest.approx(price(GPT4O, uncached=1200) - price(GPT4O, uncached=176, cached=1024))
    # an unknown model: counted, but no money, and the reason says so
    assert (mini.spec, mini.requests, mini.prompt_tokens, mini.cached_tokens) == (None, 1, 3000, 2048)
    assert mini.actual_cost is None and mini.lost is None and "not in the provider table" in mini.note
    assert not group.priced
    assert group.actual_cost == pytest.approx(gpt41.actual_cost + gpt4o.actual_cost)
    assert group.lost == pytest.approx(gpt41.lost + gpt4o.lost)
    assert group.lost_requests == 4
    assert group.lost_per_1k_requests == pytest.approx(group.lost / 4 * 1000)


def test_anthropic_costs_price_writes_apart():
    records, _ = read("anthropic.jsonl")
    [group] = summarize(group_records(records), TABLE).groups
    sonnet, haiku = group.models
    assert (sonnet.requests, sonnet.prompt_tokens, sonnet.cached_tokens, sonnet.cache_write_tokens,
            sonnet.cache_write_1h_tokens) == (3, 5750, 1800, 3800, 2000)
    expected = (price(SONNET, uncached=50, writes=1800) + price(SONNET, uncached=60, cached=1800)
                + price(SONNET, uncached=40, writes_1h=2000))
    assert sonnet.actual_cost == pytest.approx(expected)
    assert sonnet.actual_cost == pytest.approx((50 + 1800 * 1.25 + 60 + 180 + 40 + 2000 * 2.0) * 3.0 / 1e6)
    assert record_cost(records[2], SONNET) == pytest.approx(price(SONNET, uncached=40, writes_1h=2000))
    assert haiku.actual_cost == pytest.approx(price(HAIKU, uncached=1000))
    assert sonnet.predicted_cost is None and sonnet.lost is None  # no prediction given
    assert group.cached_rate == pytest.approx(1800 / (5750 + 1000))


def test_gemini_and_responses_costs():
    flash_records, _ = read("gemini.jsonl")
    [flash] = summarize(group_records(flash_records), TABLE).groups[0].models
    assert flash.actual_cost == pytest.approx(price(FLASH, uncached=1076, cached=1024) + price(FLASH, uncached=2100)
                                              + price(FLASH, uncached=252, cached=2048))
    sdk_records, _ = read("gemini-sdk.jsonl")
    [pro] = summarize(group_records(sdk_records), TABLE).groups[0].models
    assert pro.actual_cost == pytest.approx(price(PRO, uncached=904, cached=4096) + price(PRO, uncached=5200))
    records, _ = read("openai-responses.jsonl")
    summary = summarize(group_records(records), TABLE, predicted={"pmpt_68a1b2c3d4e5": 4864})
    routed, status = summary.groups
    assert (routed.key, routed.requests, status.key, status.requests) == ("pmpt_68a1b2c3d4e5", 2, "order-status", 1)
    [gpt5] = routed.models
    actual = price(GPT5, uncached=136, cached=4864) + price(GPT5, uncached=5000)
    assert gpt5.actual_cost == pytest.approx(actual)
    # the second request lost its whole cached prefix
    assert gpt5.lost == pytest.approx(price(GPT5, uncached=5000) - price(GPT5, uncached=136, cached=4864))
    assert status.models[0].actual_cost == pytest.approx(price(GPT5MINI, uncached=1048, cached=1152))
    assert status.lost is None
    assert summary.requests == 3 and summary.cached_tokens == 4864 + 1152
    assert summary.lost == pytest.approx(gpt5.lost)


def test_user_overrides_show_in_the_price_source():
    table = load_table({"openai/gpt-4.1": {"input_price_per_mtok": 1.8}})
    records, _ = read("openai-chat.jsonl")
    [group] = summarize(group_records(records[:1]), table).groups
    [cost] = group.models
    assert cost.actual_cost == pytest.approx(1.8 / 1e6 * (86 + 1920 * 0.25))
    assert "input_price_per_mtok from user config" in cost.price_source


def test_predictions_from_the_audit(templates):
    records, _ = read("pairs.jsonl")
    groups = group_records(records, templates)
    config = config_mod.load(SEED, None)
    seed = templates[1]
    result = audit_template(seed, [SONNET], config)
    predicted = result.models[0].cached["global"]
    assert predicted > 1024
    summary = summarize(groups, TABLE, predicted=predictor_from_audit([result]))
    seed_group = next(g for g in summary.groups if g.key == seed.location())
    sonnet, flash = seed_group.models
    assert sonnet.predicted_cached_per_request == predicted
    # line 5 wrote 1500 tokens and read none; the audit says it could read `predicted`
    assert sonnet.actual_cost == pytest.approx(price(SONNET, uncached=100, writes=1500))
    hit = min(predicted, 1600)
    assert sonnet.predicted_cost == pytest.approx(price(SONNET, uncached=1600 - hit, cached=hit))
    assert sonnet.lost > 0
    assert flash.predicted_cached_per_request is None  # the audit above ran only Sonnet
    # routed groups have no template, so no prediction
    assert next(g for g in summary.groups if g.key == "checkout-help").lost is None


def test_modules_import_without_torch_or_verify():
    code = ("import sys, promptlint.usage.parse, promptlint.usage.group, promptlint.usage.summary; "
            "print([m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers') "
            "or m.startswith('promptlint.verify') or m.startswith('promptlint.tokenizers')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_records_are_read_one_line_at_a_time():
    """iter_records never reads ahead: three records cost three lines of a long log."""
    import itertools

    from promptlint.usage.parse import iter_records

    line = (DATA / "openai-chat.jsonl").read_bytes().splitlines()[0]
    consumed = []

    def log():
        for number in range(1, 1001):
            consumed.append(number)
            yield line + b"\n"

    first = list(itertools.islice(iter_records(log(), "log", []), 3))
    assert [r.line for r in first] == [1, 2, 3] and consumed == [1, 2, 3]


def test_the_fast_decoder_refusing_a_line_keeps_the_standard_reading():
    """orjson is stricter than json: NaN, huge integers and lone surrogates
    fall back to json.loads and read (or fail) exactly as before."""
    from promptlint.usage.parse import iter_records

    lines = [b'{"usage": {"prompt_tokens": NaN}}', b'{"usage": {"prompt_tokens": 5, "x": "\\ud800"}}',
             b'{"usage": {"prompt_tokens": 99999999999999999999999}}', b"\xff{}", b'{"usage": {"prompt_tokens": 1}']
    errors: list[SourceError] = []
    records = list(iter_records(lines, "log", errors))
    assert [r.prompt_tokens for r in records] == [5]
    assert [(e.line, e.message) for e in errors] == [
        (1, "usage.prompt_tokens must be an integer, got nan"),
        (3, "usage.prompt_tokens is too large to be a token count"),
        (4, "not UTF-8 text: invalid start byte at byte 0"),
        (5, "bad JSON: Expecting ',' delimiter"),
    ]


def test_where_two_requests_first_differ():
    from promptlint.usage.why import divergence

    sys_a, sys_b = {"role": "system", "content": "Rules. Time: 10:00"}, {"role": "system", "content": "Rules. Time: 10:05"}
    user = {"role": "user", "content": "Hi"}
    assert divergence([sys_a, user], [sys_b, user]) == (0, 17)
    assert divergence([sys_a, user], [sys_a, {"role": "user", "content": "Hello"}]) == (1, 1)
    assert divergence([sys_a, {"role": "user", "content": "Hi"}], [sys_a, {"role": "assistant", "content": "Hi"}]) \
        == (1, 0)
    # a conversation that grew (messages added, or the last one extended) shares the whole earlier request
    assert divergence([sys_a, user], [sys_a, user, {"role": "assistant", "content": "Hello!"}, user]) is None
    assert divergence([sys_a, user], [sys_a, {"role": "user", "content": "Hi there"}]) is None
    assert divergence([sys_a, user], [sys_a, user]) is None
