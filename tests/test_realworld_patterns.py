"""The layouts found in public repositories while building the real-world
evaluation set (bench/realworld/cases.toml), reproduced in our own words in
tests/data/realworld/: each file gives exactly its findings, with exact
positions, whether named on the command line or found by a folder walk, and
the files that are not prompts are skipped, with the reason `-v` prints."""

from pathlib import Path


from promptlint.audit import run_audit, select_models
from promptlint.config import from_table
from tests.helpers import check_under, fixture_tree_tests, invoke

DATA = Path(__file__).parent / "data" / "realworld"

# (path, rule, line, column, severity) of every finding, and why it is right
EXPECTED = {
    # SWE-style agent config: the issue text sits ahead of the task instructions;
    # the working directory has no evidence either way (a hint, not an error)
    "agent_configs/swe/default.yaml": [("PL008", 7, 43, "info"), ("PL001", 10, 7, "error")],
    # a str.format system prompt: {max_actions} is a setting, {{...}} are escaped braces
    "browser_agent/system_prompt.md": [],
    # a timestamp ahead of the conversation history costs the conversation every turn
    "chat/system.j2": [("PL001", 1, 15, "error")],
    # text under `{% if repo_skills %}` is stable text; a computed and an optional missing
    # include are regions of unknown content; the clock on line 5 is the breaker
    "coding_agent/prompts/extra_info.j2": [("PL008", 1, 1, "info"), ("PL001", 5, 30, "error")],
    # a `.prompt` file written in Jinja
    "coding_agent/prompts/review.prompt": [("PL008", 1, 30, "info")],
    # a project template: its pyproject.toml is not TOML until rendered, which is no error
    "cookiecutter/system_prompt.md": [],
    # an agent definition (role, goal, backstory) read as one prompt: the run's topic comes first
    "crew/config/agents.yaml": [("PL001", 3, 5, "error")],
    # a chat file that is JSON only once rendered, read as the template it is
    "evals/chat.json": [("PL001", 2, 42, "warning")],
    # a pattern file with {{var}} substitution and a literal {{}} that is not Jinja
    "fabricish/patterns/summarise/system.md": [("PL001", 3, 41, "warning")],
    # a Go template's date: rebuilt once a day
    "gotmpl/research_lead_agent.md": [("PL001", 2, 21, "info")],
    # prompt fragments in a translation file: retrieved memory ahead of fixed rules
    "i18n/en.json": [("PL001", 9, 57, "warning")],
    # Semantic Kernel: a per-user variable and the TimePlugin's date
    "kernel/WriterPlugin/Outline/skprompt.txt": [("PL001", 1, 7, "warning"), ("PL001", 1, 32, "info")],
    # prompt values under arbitrary keys of a YAML file in a prompts/ folder
    "prompts/planner.yaml": [("PL001", 7, 5, "error")],
    # a TOML config's system prompt, positions mapped into the TOML file
    "tomlcfg/assistant.toml": [("PL001", 7, 20, "error")],
}
SKIPPED = {
    "docs/how-to.md": "in a documentation folder",
    "webapp/templates/welcome.html.j2": "Jinja template of a .html file, not a prompt",
    "cookiecutter/pyproject.toml": "a project file",
    "README.rst": "not a kind of file promptlint reads",
}


def _check(paths):
    return check_under(DATA, paths)


test_named_file_gives_exactly_its_findings, _walk = fixture_tree_tests(DATA, EXPECTED)


def test_folder_walk_finds_every_prompt_and_the_same_findings():
    result = _walk()
    assert result.files == len(EXPECTED)


def test_walk_says_why_each_file_was_read_or_skipped():
    config = from_table({}, None, DATA)
    notes = run_audit([DATA], config, select_models(config), display_root=DATA).notes
    for rel, why in SKIPPED.items():
        assert any(n.startswith(f"{rel}: skipped ({why}") for n in notes), (rel, notes)
    assert "agent_configs/swe/default.yaml: read (data file with prompt-bearing keys)" in notes
    assert "browser_agent/system_prompt.md: read (its name says it is a prompt)" in notes
    assert any(n.startswith("coding_agent/prompts/extra_info.j2:6:1: {% include template_name %}: an include "
                            "with a computed name is not followed") for n in notes)


def test_config_values_map_to_their_lines_and_roles():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "agent_configs" / "swe" / "default.yaml"], config, select_models(config))
    names = {p.template.name: p.template for p in audit.prompts}
    assert set(names) == {"default:agent.templates.system_template", "default:agent.templates.instance_template",
                          "default:agent.templates.next_step_template"}
    assert names["default:agent.templates.instance_template"].sections[0].role == "user"
    assert names["default:agent.templates.system_template"].sections[0].role == "system"
    assert names["default:agent.templates.instance_template"].span.line_col == (6, 24)  # its `|-`


def test_multi_turn_loss_is_reported_per_turn():
    (finding,) = _check([DATA / "chat" / "system.j2"]).findings
    assert "it also sits ahead of the conversation history ({% for message in history %} at 5:1)" in finding.message
    assert "every turn of a session re-sends about" in finding.message


def test_cli_verbose_names_the_skipped_files():
    result = invoke(DATA, "check", "-v", "docs/how-to.md", "prompts/planner.yaml")
    assert result.exit_code == 1
    assert "note: docs/how-to.md: skipped (in a documentation folder" in result.stderr
    assert "prompts/planner.yaml:7:5: PL001 {{ task }} changes per request" in result.stdout


def test_conversation_in_the_audit_json_follows_its_formula():
    from promptlint.report.json_report import build

    config = from_table({"traffic": {"history-tokens-per-turn": 300}}, None, DATA)
    audit = run_audit([DATA / "chat" / "system.j2"], config, select_models(config))
    chat = build(audit, config)["prompts"][0]["conversation"]
    turns = 50_000 / (2_000 * 3)  # requests per session under the default traffic model
    assert chat["history"]["location"]["line"] == 5 and chat["breaker"]["slot"] == "{{ now }}"
    assert chat["turns_per_session"] == round(turns, 4) and chat["history_tokens_per_turn"] == 300
    assert chat["mean_history_tokens"] == round(300 * (turns - 1) / 2, 2)
    assert chat["tokens_lost_per_turn"] == round(chat["stable_tokens_after_breaker"] + 300 * (turns - 1) / 2, 2)
    assert audit.prompts[0].has_breaker  # the audit exits 1 for it, though little template text follows


def test_a_history_with_nothing_per_request_ahead_of_it_costs_nothing_per_turn(tmp_path):
    path = tmp_path / "system.j2"
    path.write_text("You are the help desk assistant for the Fernhill public library.\n"
                    "{% for message in history %}{{ message.content }}\n{% endfor %}Time: {{ now }}\n", encoding="utf-8")
    config = from_table({}, None, tmp_path)
    (prompt,) = run_audit([path], config, select_models(config)).prompts
    assert prompt.conversation is not None and prompt.conversation.breaker is None
    assert prompt.conversation.lost_per_turn == 0 and not prompt.turn_breaker

