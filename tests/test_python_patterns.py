"""How real Python builds prompts (issue 12), reproduced in our own words in
tests/data/realworld_python/: builders nobody in the file calls, sections
accumulated in a class, a keyword value that is a clock, a serialised dict in
an adapter, agent SDK instructions, branches and early returns, values
imported from other modules, tool lists assembled at run time and template
files loaded by the code. Each file gives exactly its findings, at the
position of the volatile part."""

from pathlib import Path

import pytest

from promptlint.audit import run_audit, select_models
from promptlint.config import from_table
from promptlint.lint import run_check

DATA = Path(__file__).parent / "data" / "realworld_python"

# (path, rule, line, column, severity) of every finding, and why it is right
EXPECTED = {
    # a builder function nobody in the file calls: the clock inside its f-string
    "assistant/templates.py": [("PL001", 7, 48, "error")],
    # parts.append / text += / "\n\n".join(parts): the clock read three lines earlier,
    # reported where it enters the text
    "assistant/context.py": [("PL001", 14, 43, "error")],
    # SYSTEM_PROMPT.format(system_time=datetime.now(...).isoformat()): the value decides, not `format`
    "assistant/graph.py": [("PL001", 7, 14, "error")],
    # json.dumps of call data without sort_keys ahead of fixed instructions (a user message follows)
    "adapters/tool_calls.py": [("PL005", 13, 66, "warning")],
    # Agent(instructions=...) of an agent SDK
    "agents/planner.py": [("PL001", 18, 34, "error")],
    # if/else: the timed arm wins; the early return's prompt has no stable text after it
    "research/branches.py": [("PL001", 9, 41, "error")],
}


def _check(paths):
    config = from_table({}, None, DATA)
    return run_check(paths, config, select_models(config))


def _found(result, rel):
    return sorted((f.rule, *f.line_col, f.severity.label) for f in result.findings
                  if f.span.file.path.resolve() == (DATA / rel).resolve())


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_named_file_gives_exactly_its_findings(rel):
    result = _check([DATA / rel])
    assert result.errors == []
    assert _found(result, rel) == sorted(EXPECTED[rel])


def test_folder_walk_gives_the_same_findings():
    result = _check([DATA])
    assert result.errors == []
    for rel, expected in EXPECTED.items():
        assert _found(result, rel) == sorted(expected), rel


def test_a_builder_is_a_prompt_at_its_return_even_when_nothing_calls_it():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "assistant" / "templates.py"], config, select_models(config))
    names = {p.template.name: p for p in audit.prompts}
    assert set(names) == {"templates:system_message_template", "templates:summary_prompt"}
    assert names["templates:system_message_template"].template.span.line_col == (5, 5)
    assert not names["templates:summary_prompt"].has_breaker  # {style} is a setting


def test_a_return_without_prompt_text_is_not_a_prompt_of_its_own():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "research" / "branches.py"], config, select_models(config))
    (prompt,) = audit.prompts  # `return header` alone carries no instructions
    assert prompt.template.span.line_col == (12, 5)
