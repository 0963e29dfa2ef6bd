"""Volatility from evidence: names that say what a value is, names that say
nothing (UNKNOWN, held fixed), presence tests, and the config keys that go
with them (variables, dialects, history-tokens-per-turn)."""

from pathlib import Path

import pytest

from promptlint import config
from promptlint.analysis.volatility import classify_name, presence_test
from promptlint.ir import Volatility as V
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources import jinja


@pytest.mark.parametrize("name,expected", [
    # strong signals
    ("now", V.REQUEST), ("now_time", V.REQUEST), ("current_datetime", V.REQUEST), ("request_id", V.REQUEST), ("timestamp", V.REQUEST),
    ("user_name", V.USER), ("session_id", V.SESSION), ("chat_history", V.SESSION), ("question", V.REQUEST),
    ("today", V.DAY), ("yesterday", V.DAY), ("current_date", V.DAY),
    # what a run is about
    ("task", V.REQUEST), ("problem_statement", V.REQUEST), ("goals", V.REQUEST), ("topic", V.REQUEST),
    ("lang_code", V.REQUEST), ("repo_name", V.SESSION), ("branch_name", V.SESSION), ("file_tree", V.SESSION),
    ("error_message", V.REQUEST), ("current_url", V.REQUEST), ("review_started_at", V.REQUEST),
    ("cur_url", V.REQUEST), ("cur_axtree_txt", V.REQUEST), ("curr_step", V.REQUEST),
    ("all_plan", V.SESSION), ("terminal_plan", V.SESSION), ("sub_plans", V.SESSION),
    ("instruction", V.REQUEST), ("user_instruction", V.REQUEST), ("research_topic", V.SESSION),
    ("navigation_goal", V.SESSION), ("weekly_goal", V.UNKNOWN),
    # the step before and this one of an agent run; one instruction held by a run's state object
    ("prev_step", V.SESSION), ("this_step", V.REQUEST), ("info_pool.instruction", V.REQUEST),
    ("doc_overviews", V.REQUEST), ("existing_facts", V.REQUEST), ("screen_info", V.REQUEST),
    ("parsed_screen", V.REQUEST), ("solution", V.REQUEST), ("reward", V.REQUEST), ("last_reward", V.REQUEST),
    ("reference", V.REQUEST), ("formatted_references", V.REQUEST),
    # a field of the request an endpoint is sent, whatever it is called
    ("request.jsonSchema", V.REQUEST), ("body.tool_schema", V.REQUEST), ("system_instructions", V.STATIC),
    # the system text a translator is configured with, whatever it is called
    ("system_content", V.STATIC), ("prompt_sys_msg", V.STATIC), ("sys_prompt", V.STATIC),
    # settings and configuration
    ("max_actions", V.STATIC), ("step_limit", V.STATIC), ("context_window", V.STATIC), ("output_format", V.STATIC),
    ("tools", V.STATIC), ("tool_names", V.STATIC), ("tools_section", V.STATIC), ("app_version", V.DEPLOY),
    ("instructions", V.STATIC), ("base_instruction", V.STATIC), ("user_message_head_template", V.STATIC),
    ("prompt_template", V.STATIC), ("personality_context", V.STATIC), ("agent_context", V.STATIC),
    ("retrieved_context", V.REQUEST), ("pr_diff", V.REQUEST), ("code_diff", V.REQUEST),
    ("memory.system_prompt", V.STATIC), ("expected_output", V.STATIC), ("tool_output", V.REQUEST),
    # media, pages and records a request carries; settings named for what they configure
    ("video_data_url", V.REQUEST), ("image_b64", V.REQUEST), ("url", V.REQUEST), ("cleaned_html", V.REQUEST),
    ("product_website", V.REQUEST), ("trajectories", V.REQUEST), ("premise", V.REQUEST), ("doc_titles", V.REQUEST),
    ("base_url", V.UNKNOWN), ("query_settings", V.UNKNOWN), ("query_settings.prompts", V.UNKNOWN),
    ("app_config.system_template", V.STATIC), ("settings.user_name", V.USER), ("request_params", V.REQUEST),
    # names that misfired before: no evidence either way
    ("isoformat", V.UNKNOWN), ("date_format", V.UNKNOWN), ("created_at_label", V.UNKNOWN), ("look_at", V.UNKNOWN),
    ("name", V.UNKNOWN), ("role", V.UNKNOWN), ("language", V.UNKNOWN), ("working_dir", V.UNKNOWN),
    ("command_docs", V.UNKNOWN), ("team_size", V.UNKNOWN), ("show_examples", V.UNKNOWN), ("use_tools", V.UNKNOWN),
    # data about a tool or function is its definition, not request data
    ("function_data.name", V.UNKNOWN), ("tool_data", V.UNKNOWN), ("metadata", V.UNKNOWN),
    ("form_data", V.REQUEST),
    # what a search found, who is in the thread, a run's problem, an environment object's field, a
    # switch named by what it leaves out
    ("graph_knowledges", V.REQUEST), ("retrieved_knowledge", V.REQUEST), ("domain_knowledge", V.UNKNOWN),
    ("users", V.SESSION), ("participants", V.SESSION), ("research_problem", V.SESSION),
    ("env.research_problem", V.SESSION), ("env", V.DEPLOY), ("grounded_no_context", V.UNKNOWN),
    ("no_tools", V.UNKNOWN), ("invoice_no", V.REQUEST), ("repos_str", V.SESSION),
    # the job a cover letter or a screening is written for
    ("job_title", V.REQUEST), ("job_role", V.REQUEST), ("title", V.UNKNOWN),
    # a loop's counter: which pass of the run this request is
    ("iteration", V.REQUEST), ("current_iteration", V.REQUEST), ("attempt", V.REQUEST),
])
def test_names(name, expected):
    assert classify_name(name).volatility is expected, classify_name(name).reason


def test_a_switch_says_so_and_unknown_says_what_to_do():
    assert "switch" in classify_name("include_hitl").reason
    assert "[tool.promptlint.variables]" in classify_name("ctx_blob").reason


def _slots(tmp_path, text):
    path = tmp_path / "t.j2"
    path.write_text(text, encoding="utf-8")
    ctx = SourceContext(root=tmp_path)
    (t,) = jinja.read(read_source(path, ctx), ctx)
    return [s for s in t.slots() if s.label.startswith("if ")]


@pytest.mark.parametrize("text,expected", [
    ("{% if memory %}Memory: {{ memory }}{% endif %}", V.SESSION),  # the block shows the value
    ("{% if not user_name %}Hello stranger.{% endif %}", V.UNKNOWN),  # only whether it is set
    ("{% if language is defined %}Answer in the user's language.{% endif %}", V.UNKNOWN),
    ("{% if user_is_vip %}Be brief.{% endif %}", V.USER),  # a flag: its truth is its value
    ("{% if question == 'refund' %}Refunds take 5 days.{% endif %}", V.REQUEST),  # a comparison reads the value
])
def test_presence_tests(tmp_path, text, expected):
    (region,) = _slots(tmp_path, text)
    assert region.volatility is expected, region.reason


def test_presence_test_of_a_release_value_is_left_as_it_is():
    verdict = classify_name("app_version")
    assert presence_test("app_version", verdict, []) is verdict  # changes only with a release anyway
    assert presence_test("today", classify_name("today"), []).volatility is V.UNKNOWN  # set every day


def _cfg(tmp_path, body):
    (tmp_path / "promptlint.toml").write_text(body, encoding="utf-8")
    return config.load(tmp_path)


def test_dialects_and_history_tokens_per_turn(tmp_path):
    cfg = _cfg(tmp_path, '[dialects]\n"agents/*.md" = "format"\n[traffic]\nhistory-tokens-per-turn = 350\n')
    assert cfg.dialects == {"agents/*.md": "format"} and cfg.traffic.history_tokens_per_turn == 350
    ctx = SourceContext(root=tmp_path, dialects=cfg.dialects)
    assert ctx.dialect_for(tmp_path / "agents" / "a.md") == "format"
    assert ctx.dialect_for(tmp_path / "b.md") == "auto"


@pytest.mark.parametrize("body,key", [
    ('[dialects]\n"*.md" = "liquid"\n', "dialects.*.md"),
    ('[variables]\nx = "unknown"\n', "variables.x"),  # a declaration must say something
])
def test_bad_dialect_and_unknown_declaration(tmp_path, body, key):
    with pytest.raises(config.ConfigError) as err:
        _cfg(tmp_path, body)
    assert f": {key}: " in str(err.value)


def test_a_dialect_set_in_config_is_the_users_word(tmp_path):
    path = tmp_path / "prompts" / "a.txt"
    path.parent.mkdir()
    path.write_text("Hello {{user_name}}, {question}", encoding="utf-8")
    from promptlint.sources import text

    for style, labels in (("format", ["{question}"]), ("mustache", ["{{user_name}}"]), ("text", [])):
        ctx = SourceContext(root=tmp_path, dialects={"prompts/*.txt": style})
        (t,) = text.read(read_source(path, ctx), ctx)
        assert [s.label for s in t.slots()] == labels, style
