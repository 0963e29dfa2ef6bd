"""PL002 and PL006 beyond their catalogue examples: line endings (a catalogue
example cannot carry a raw CR, since docs/rules.md is compared after
universal-newline reading), the fixture projects, and the `owns` contract
PL001 relies on to leave these slots to the specific rule."""

from pathlib import Path

import pytest

from promptlint.audit import run_audit, select_models
from promptlint.checks import pl002_unstable_loop_order as pl002
from promptlint.checks import pl006_whitespace_drift as pl006
from promptlint.checks.base import CheckContext
from promptlint.config import from_table
from promptlint.lint import run_check

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
PROJECTS = ("support-bot", "rag-answerer", "agent-tools", "seed")

STABLE = (
    "Operating principles: read before you write; gather evidence with the\n"
    "read-only tools before any action that changes production, and state it in\n"
    "one or two sentences. Prefer the smallest safe step: roll back the one\n"
    "service that changed rather than restarting many. Say what you do not know:\n"
    "if metrics and logs disagree, or a tool returns nothing, say so instead of\n"
    "filling the gap. Never invent service names, deploy ids, alert ids or runbook\n"
    "links; they come from tool results only.\n"
)


def findings(tmp_path: Path, name: str, body: str, rule: str):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8", newline="")
    config = from_table({}, None, tmp_path)
    result = run_check([path], config, select_models(config), select=[rule])
    assert result.errors == []
    return [f for f in result.findings if f.rule == rule]


def contexts(path: Path):
    config = from_table({}, None, path.parent)
    audit = run_audit([path], config, select_models(config))
    return [CheckContext(p.template, p, config) for p in audit.prompts]


# -- PL006 (a): mixed line endings ------------------------------------------------------


def test_crlf_minority_in_a_text_prompt_is_reported_once_at_its_first_line_end(tmp_path):
    body = "You write hand-over notes.\nRead the whole transcript.\nRules\r\n- One note.\r\n" + STABLE + "{transcript}\n"
    found = findings(tmp_path, "prompts/note.txt", body, "PL006")
    assert [f.line_col for f in found] == [(3, 6)]
    assert "2 CRLF" in found[0].message and "the first CRLF is here" in found[0].message
    assert found[0].tokens and found[0].tokens > 64


def test_lf_minority_is_reported_at_the_first_lf(tmp_path):
    body = "One.\r\nTwo.\r\nThree.\nFour.\r\n" + STABLE.replace("\n", "\r\n")
    found = findings(tmp_path, "prompts/note.md", body, "PL006")
    assert [f.line_col for f in found] == [(3, 7)]
    assert "first LF" in found[0].message


def test_one_line_ending_throughout_is_clean(tmp_path):
    assert findings(tmp_path, "prompts/crlf.txt", STABLE.replace("\n", "\r\n") + "{question}\r\n", "PL006") == []
    assert findings(tmp_path, "prompts/lf.txt", STABLE + "{question}\n", "PL006") == []


def test_jinja_never_sends_a_cr(tmp_path):
    # Jinja renders every line break as \n, so the file's CRLF lines are not sent.
    body = "You are Beacon.\r\nRules:\r\n" + STABLE + "{{ question }}\n"
    assert findings(tmp_path, "system.j2", body, "PL006") == []
    prompty = "---\nname: x\n---\nsystem:\r\nYou are Beacon.\r\n" + STABLE + "\nuser:\n{{ question }}\n"
    assert findings(tmp_path, "x.prompty", prompty, "PL006") == []


def test_handlebars_keeps_line_ends_as_written(tmp_path):
    body = ("---\nmodel: googleai/gemini-2.5-flash\n---\n{{role \"system\"}}\nYou triage tickets.\n"
            "Rules:\r\n- Be brief.\r\n" + STABLE + "{{role \"user\"}}\n{{question}}\n")
    found = findings(tmp_path, "triage.prompt", body, "PL006")
    assert [f.line_col for f in found] == [(6, 7)]


def test_mixed_line_endings_with_no_stable_text_after_them_cost_nothing(tmp_path):
    # the only CRLF sits inside the per-request passages loop at the very end
    body = ("---\nmodel: googleai/gemini-2.5-flash\n---\n{{role \"system\"}}\n" + STABLE +
            "{{role \"user\"}}\n{{#each docs}}- {{this}}\r\n{{/each}}{{question}}")
    assert findings(tmp_path, "answer.prompt", body, "PL006") == []


# -- the fixture projects ---------------------------------------------------------------


def test_fixture_findings_are_exactly_the_known_faults():
    config = from_table({}, None, ROOT)
    result = run_check([FIXTURES / p for p in PROJECTS], config, select_models(config), select=["PL002", "PL006"])
    assert result.errors == []
    got = sorted((f.path, *f.line_col, f.rule, f.severity.label) for f in result.findings)
    assert got == [
        ("fixtures/agent-tools/bad/agent.j2", 5, 1, "PL002", "info"),  # a mapping: its insertion order
        ("fixtures/support-bot/bad/prompts/escalation-note.txt", 12, 6, "PL006", "warning"),
        ("fixtures/support-bot/bad/system.j2", 68, 1, "PL002", "info"),
    ]
    assert not any("/good/" in f.path for f in result.findings)


def test_fixture_messages_say_what_to_sort_by_and_what_it_costs():
    config = from_table({}, None, ROOT)
    result = run_check([FIXTURES / "agent-tools" / "bad"], config, select_models(config), select=["PL002"])
    (finding,) = result.findings
    assert "`tools | dictsort`" in finding.message
    assert finding.tokens > 1000
    assert finding.usd_per_month and finding.usd_per_month > 0 and finding.model


# -- the owns() contract ----------------------------------------------------------------


def test_pl002_owns_exactly_the_order_varies_loops_it_would_report(tmp_path):
    path = tmp_path / "a.j2"
    path.write_text("Intro.\n{% for k in tool_set %}{{ k }}{% endfor %}\n"
                    "{% for t in tools %}{{ t }}{% endfor %}\n{% for k, v in tools.items() %}{{ k }}{% endfor %}\n"
                    "{% for title in question_set %}{{ title }}{% endfor %}\n" + STABLE, encoding="utf-8")
    (ctx,) = contexts(path)
    loops = [s for s in ctx.template.slots() if s.label.startswith("for ")]
    owned = [s.label for s in loops if pl002.owns(ctx, s)]
    # the unsorted tool list and the mapping are PL002's hints, static to PL001 (no overlap);
    # a set of per-request items (questions) is PL001's: its order costs nothing more
    assert owned == ["for k in tool_set"]


def test_a_custom_sort_filter_is_owned_but_not_reported(tmp_path):
    path = tmp_path / "a.j2"
    path.write_text("Intro.\n{% for k in tool_set | sort_by_key %}{{ k }}{% endfor %}\n" + STABLE,
                    encoding="utf-8")
    (ctx,) = contexts(path)
    (loop,) = [s for s in ctx.template.slots() if s.label.startswith("for ")]
    assert loop.order_varies and pl002.owns(ctx, loop)
    assert list(pl002.check(ctx)) == []


def test_pl006_owns_whitespace_only_regions_only(tmp_path):
    path = tmp_path / "a.j2"
    path.write_text("Intro.\n{% if user_is_vip %}\n{% endif %}\n{% if memory %}Memory: {{ memory }}{% endif %}\n"
                    + STABLE, encoding="utf-8")
    (ctx,) = contexts(path)
    regions = {s.label: pl006.owns(ctx, s) for s in ctx.template.slots() if s.label.startswith("if ")}
    assert regions == {"if user_is_vip": True, "if memory": False}


@pytest.mark.parametrize("label,owned", [
    ('{{ "\\n" if user_verbose }}', True),
    ('{{ " " if user.a else "  " }}', True),
    ('{{ "\\n" if verbose }}', False),  # no evidence that `verbose` changes: nothing varies
    ('{{ "\\n" if a else "\\n" }}', False),  # the same whitespace either way: nothing varies
    ('{{ "Note:" if verbose }}', False),
])
def test_whitespace_expressions(tmp_path, label, owned):
    path = tmp_path / "a.j2"
    path.write_text("Intro." + label + "\n" + STABLE, encoding="utf-8")
    (ctx,) = contexts(path)
    (slot,) = ctx.template.slots()
    assert pl006.owns(ctx, slot) is owned
