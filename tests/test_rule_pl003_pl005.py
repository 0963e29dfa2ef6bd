"""PL003, PL004 and PL005 beyond what the catalogue examples check (positions
only): severities, the numbers in messages and findings, block counting for
the lookback, the fixtures, and how the rules stay out of each other's way."""

from pathlib import Path

import pytest

from promptlint.audit import select_models
from promptlint.checks.base import Severity
from promptlint.config import from_table, load
from promptlint.lint import run_check

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
RULES = ("PL003", "PL004", "PL005")

STABLE = (
    "You are the support assistant for Harbor & Pine, an outdoor gear retailer. "
    "Answer questions about orders, returns, warranties and product care. Be concise "
    "and friendly, never invent order details, and always offer to connect the "
    "customer with a human agent when a refund over $200 is requested."
)
LONG = STABLE + (
    " Policies: returns within 60 days with a receipt; lifetime warranty on stitching and buckles;"
    " no returns on worn footwear; exchanges ship free; gift cards never expire."
)


def run(tmp_path: Path, files: dict[str, str], table: dict | None = None, select=RULES):
    for name, body in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    config = from_table(dict(table or {}), None, tmp_path)
    result = run_check([tmp_path / n for n in files], config, select_models(config), select=select)
    assert result.errors == []
    return result.findings


def fixture_findings(*parts):
    path = FIXTURES.joinpath(*parts)
    config = load(path)
    return run_check([path], config, select_models(config), select=RULES).findings


def brief(findings):
    return [(f.rule, f.severity.label, f.line_col) for f in findings]


# ---------------------------------------------------------------- fixtures

def test_query_rewrite_is_below_every_minimum():
    (f,) = fixture_findings("rag-answerer", "bad", "prompts", "query-rewrite.txt")
    assert (f.rule, f.severity, f.line_col) == ("PL003", Severity.INFO, (1, 1))
    assert "openai/gpt-4.1 (572 of 1,024 tokens, 452 short)" in f.message
    assert "no selected model caches this prompt" in f.message
    assert f.usd_per_month is None  # the money is an upper bound, named in the message only
    assert "were it cacheable, it would save up to ~$" in f.message


def test_support_bot_bad_anthropic_breakpoints():
    findings = [f for f in fixture_findings("support-bot", "bad", "support.anthropic.json") if f.rule == "PL004"]
    assert brief(findings) == [("PL004", "error", (9, 7)), ("PL004", "error", (30, 7))]
    volatile, too_many = findings
    assert "{{ current_time }} (request)" in volatile.message
    assert "the 4 breakpoints after it are in the same state" in volatile.message
    assert "6 cache breakpoints" in too_many.message and "at most 4" in too_many.message
    # every request writes everything after the tools breakpoint (the only one read)
    assert volatile.tokens > 2000
    assert volatile.usd_per_month == pytest.approx(volatile.tokens * 3.0 / 1e6 * 0.25 * 50_000 * 30)


def test_agent_tools_bad_anthropic_breakpoints():
    findings = fixture_findings("agent-tools", "bad", "agent.anthropic.yaml")
    assert ("PL004", "warning", (215, 5)) in brief(findings)  # memory: one session reads it
    assert ("PL004", "error", (275, 5)) in brief(findings)  # the per-turn counter: nobody reads it
    # a few stable tokens after the counter and no conversation after the system prompt: an info
    assert ("PL005", "info", (274, 33)) in brief(findings)


@pytest.mark.parametrize("project", ["agent-tools", "rag-answerer", "support-bot"])
def test_good_fixtures_have_nothing_above_info(project):
    findings = [f for f in fixture_findings(project, "good") if f.severity >= Severity.WARNING]
    assert findings == [], [f"{f.path}:{f.line_col}: {f.message}" for f in findings]


@pytest.mark.parametrize("name", ["agent-tools/good/agent.anthropic.yaml", "support-bot/good/support.anthropic.json"])
def test_good_anthropic_fixtures_have_no_breakpoint_findings(name):
    assert [f for f in fixture_findings(*name.split("/")) if f.rule == "PL004"] == []


# ---------------------------------------------------------------- PL003

def test_pl003_info_when_another_selected_model_caches_it(tmp_path):
    table = {"providers": ["openai/gpt-4.1", "anthropic/claude-sonnet-4.5"],
             "models": {"anthropic/claude-sonnet-4.5": {"min_tokens": 80}, "openai/gpt-4.1": {"min_tokens": 20}}}
    (f,) = run(tmp_path, {"p.txt": STABLE + "\n{question}\n"}, table)
    assert f.rule == "PL003" and f.severity is Severity.INFO
    assert "anthropic/claude-sonnet-4.5" in f.message and "openai/gpt-4.1" not in f.message
    assert "the other selected models do" in f.message


def test_pl003_small_prompt_far_below_every_minimum_is_not_reported(tmp_path):
    assert run(tmp_path, {"p.txt": "Translate to French:\n{text}\n"}) == []


def test_pl003_counts_the_what_if_layout_when_it_is_still_short(tmp_path):
    table = {"providers": ["openai/gpt-4.1"], "models": {"openai/gpt-4.1": {"min_tokens": 200}}}
    findings = run(tmp_path, {"p.j2": "Now: {{ now }}\n" + LONG + "\n"}, table, select=("PL001", "PL003"))
    assert [f.rule for f in findings] == ["PL003", "PL001"]  # 1:1, then 1:6
    assert findings[0].message.startswith("even with the volatile content moved last")


def test_pl003_skips_engines_with_a_one_block_minimum(tmp_path):
    table = {"providers": ["vllm/default", "sglang/default"]}
    assert run(tmp_path, {"p.txt": "Hi {name}.\n"}, table) == []


# ---------------------------------------------------------------- PL004

BEDROCK = """{
  "modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
  "toolConfig": {"tools": [
    {"toolSpec": {"name": "lookup", "description": "Order status.", "inputSchema": {"json": {"type": "object"}}}},
    {"cachePoint": {"type": "default"}}
  ]},
  "system": [%s
    {"cachePoint": {"type": "default"}}
  ],
  "messages": [{"role": "user", "content": [{"text": "{{ question }}"}]}]
}
"""


def test_pl004_lookback_counts_blocks_across_tools_system_and_cache_points(tmp_path):
    table = {"providers": ["bedrock/anthropic.claude-sonnet-4.5"]}
    blocks = "".join(f'\n    {{"text": "Policy {i}: be kind."}},' for i in range(21))
    (f,) = run(tmp_path, {"c.bedrock.json": BEDROCK % blocks}, table)
    assert (f.rule, f.severity, f.line_col) == ("PL004", Severity.WARNING, (29, 5))
    assert f.message.startswith("cache breakpoint 21 content blocks after the previous one (line 5)")
    assert run(tmp_path / "ok", {"c.bedrock.json": BEDROCK % blocks.replace('\n    {"text": "Policy 0: be kind."},', "")},
               table) == []


def test_pl004_uses_the_model_the_file_names_when_none_explicit_is_selected(tmp_path):
    body = ('model: claude-sonnet-4-5\nsystem:\n'
            + "".join(f'  - {{type: text, text: "Rule {i}.", cache_control: {{type: ephemeral}}}}\n' for i in range(5))
            + 'messages:\n  - {role: user, content: "{{ question }}"}\n')
    findings = run(tmp_path, {"a.anthropic.yaml": body}, {"providers": ["openai/gpt-4.1"]})
    assert brief(findings) == [("PL004", "error", (7, 35))]
    assert "anthropic/claude-sonnet-4.5 allows at most 4" in findings[0].message


def test_pl004_named_requests_count_their_own_blocks(tmp_path):
    convo = "".join(f'      - {{role: {"user" if i % 2 == 0 else "assistant"}, content: "turn {i}"}}\n'
                    for i in range(22))
    body = ("first:\n  model: claude-sonnet-4-5\n  system:\n"
            '    - {type: text, text: "Be kind.", cache_control: {type: ephemeral}}\n'
            "  messages:\n" + convo +
            '      - role: user\n        content: [{type: text, text: "{{ question }}", cache_control: {type: ephemeral}}]\n'
            "second:\n  model: claude-sonnet-4-5\n  system:\n"
            '    - {type: text, text: "Be kind.", cache_control: {type: ephemeral}}\n'
            "  messages:\n"
            '      - role: user\n        content: [{type: text, text: "{{ question }}", cache_control: {type: ephemeral}}]\n')
    findings = run(tmp_path, {"two.anthropic.yaml": body}, {"providers": ["anthropic/claude-sonnet-4.5"]})
    assert [(f.rule, f.line_col, f.prompt) for f in findings] == [("PL004", (29, 56), "two.anthropic:first")]


def test_pl004_missing_breakpoint_money_is_the_audit_saving(tmp_path):
    table = {"providers": ["anthropic/claude-sonnet-4.5"], "models": {"anthropic/claude-sonnet-4.5": {"min_tokens": 40}}}
    body = ('{"model": "claude-sonnet-4-5", "system": "' + STABLE
            + '", "messages": [{"role": "user", "content": "{{ question }}"}]}')
    (f,) = run(tmp_path, {"a.anthropic.json": body}, table)
    assert (f.rule, f.severity, f.line_col) == ("PL004", Severity.WARNING, (1, 1))
    assert f.usd_per_month > 0 and f.model == "anthropic/claude-sonnet-4.5"
    # a request-level cache_control (automatic placement) counts as a breakpoint
    auto = body.replace('{"model"', '{"cache_control": {"type": "ephemeral"}, "model"')
    assert run(tmp_path / "auto", {"a.anthropic.json": auto}, table) == []


def test_pl004_message_breakpoint_in_the_middle_after_a_per_request_value(tmp_path):
    body = ('model: claude-sonnet-4-5\nsystem: "' + STABLE + '"\nmessages:\n'
            '  - role: user\n    content: [{type: text, text: "Time {{ now }}", cache_control: {type: ephemeral}}]\n'
            '  - {role: assistant, content: "Noted."}\n'
            '  - {role: user, content: "{{ question }}"}\n')
    (f,) = run(tmp_path, {"a.anthropic.yaml": body}, {"providers": ["anthropic/claude-sonnet-4.5"]})
    assert (f.rule, f.severity, f.line_col) == ("PL004", Severity.ERROR, (5, 52))


# ---------------------------------------------------------------- PL005

def test_pl005_leaves_slots_with_stable_text_after_them_to_pl001(tmp_path):
    body = "---\nname: p\n---\nsystem:\nNow: {{ now }}\n" + LONG + "\n\nuser:\n{{ question }}\n"
    table = {"providers": ["openai/gpt-4.1"], "models": {"openai/gpt-4.1": {"min_tokens": 32}}}
    findings = run(tmp_path, {"p.prompty": body}, table, select=("PL001", "PL005"))
    assert [f.rule for f in findings] == ["PL001"]


def test_pl005_memory_in_a_developer_message(tmp_path):
    body = ('{"model": "gpt-4.1", "messages": ['
            '{"role": "developer", "content": "Be brief. Memory: {{ memory }}"},'
            '{"role": "user", "content": "{{ question }}"}]}')
    (f,) = run(tmp_path, {"a.messages.json": body}, select=("PL005",))
    assert (f.severity, f.line_col) == (Severity.INFO, (1, 87))
    assert "at the end of the developer prompt" in f.message and "per session" in f.message
