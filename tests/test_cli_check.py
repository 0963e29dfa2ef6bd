"""`promptlint check` end to end: exact output lines and exit codes for
selection, severities, per-file ignores, suppressions and bad input."""

import json
import re
from pathlib import Path

import pytest
from helpers import STABLE, invoke, write_project
from click.testing import CliRunner

from promptlint.cli import main



@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path)


def check(cwd: Path, *args, input: str | None = None):
    return invoke(cwd, "check", *args, input=input)


def codes(result):
    return [line.split(": ", 1)[1].split(" ", 1)[0] for line in result.stdout.splitlines() if ": PL" in line]


def test_findings_lines_and_exit_code(project):
    result = check(project, ".", "--show-info")
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"date\.j2:1:10: PL001 \{\{ today \}\} changes once a day, ahead of [\d,]+ stable tokens "
                        r"re-cached each time( \(~\$[\d,]+/mo, gpt-4\.1\))?", lines[0])
    assert re.fullmatch(r"time\.j2:1:15: PL001 \{\{ now \}\} changes per request, ahead of [\d,]+ stable tokens "
                        r"uncached \(~\$[\d,]+/mo, gpt-4\.1\)", lines[1])
    assert lines[2].startswith("user.j2:1:7: PL001 {{ user_name }} changes per user, ahead of ")
    assert all(len(l.split(": ", 1)[1]) <= 120 for l in lines)  # paths aside
    assert lines[3] == "Found 3 findings (1 error, 1 warning, 1 info): 4 prompts in 4 files."
    assert result.exit_code == 1
    # by default info findings are counted, not listed; --fail-on info lists them
    plain = check(project, ".")
    assert [l.split(":")[0] for l in plain.stdout.splitlines()[:-1]] == ["time.j2", "user.j2"]
    assert plain.stdout.splitlines()[-1] == ("Found 3 findings (1 error, 1 warning, 1 info): 4 prompts in 4 files; "
                                             "1 info not listed (--show-info).")
    assert check(project, ".", "--fail-on", "info").stdout == result.stdout


def test_fail_on_error_ignores_warnings(project):
    (project / "time.j2").unlink()
    assert check(project, ".", "--fail-on", "error").exit_code == 0
    assert check(project, ".", "--fail-on", "warning").exit_code == 1
    assert check(project, ".", "--fail-on", "info", "--select", "PL001", "--ignore", "PL001").exit_code == 0


def test_fail_on_from_config(project):
    (project / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\nfail-on = "error"\n'
                                              '[models."openai/gpt-4.1"]\nmin_tokens = 64\n')
    (project / "time.j2").unlink()
    assert check(project, ".").exit_code == 0


def test_select_and_ignore(project):
    assert codes(check(project, ".", "--select", "PL007")) == []
    result = check(project, ".", "--ignore", "PL001")
    assert codes(result) == [] and result.exit_code == 0
    assert result.stdout == "All checks passed: 4 prompts in 4 files.\n"


def test_per_file_ignores(project):
    (project / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n'
                                              '[models."openai/gpt-4.1"]\nmin_tokens = 64\n'
                                              '[per-file-ignores]\n"time.j2" = ["PL001"]\n"user*.j2" = ["PL00"]\n')
    result = check(project, ".", "--show-info")
    assert [l.split(":")[0] for l in result.stdout.splitlines()[:-1]] == ["date.j2"]


def test_line_suppression_and_unused_suppression(project):
    (project / "time.j2").write_text("Current time: {{ now }} {# promptlint: ignore[PL001] #}\n" + STABLE)
    (project / "clean.j2").write_text("{# promptlint: ignore[PL001] #}\n" + STABLE + "Question: {{ question }}\n")
    result = check(project, "time.j2", "clean.j2")
    assert result.stdout == (
        "clean.j2:1:1: PL007 unused suppression: {# promptlint: ignore[PL001] #} suppresses nothing (PL001)\n"
        "Found 1 finding (1 warning): 2 prompts in 2 files (1 suppressed).\n"
    )
    assert result.exit_code == 1


def test_comment_alone_on_its_line_covers_the_next_line_and_file_level(project):
    (project / "time.j2").write_text("{# promptlint: ignore[PL001] #}\nCurrent time: {{ now }}\n" + STABLE)
    (project / "user.j2").write_text("{# promptlint: ignore-file #}\nHello {{ user_name }}.\n" + STABLE)
    result = check(project, "time.j2", "user.j2")
    assert result.stdout == "All checks passed: 2 prompts in 2 files (2 suppressed).\n"
    assert result.exit_code == 0


def test_suppressions_in_handlebars_yaml_and_markdown(tmp_path):
    (tmp_path / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n')
    (tmp_path / "a.prompt").write_text("{{role \"system\"}}\nNow: {{now}} {{! promptlint: ignore[PL001] }}\n" + STABLE)
    (tmp_path / "b.messages.yaml").write_text(
        "messages:\n  - role: system\n    # promptlint: ignore[PL001]\n"
        f"    content: \"Now: {{{{ now }}}}. {STABLE.replace(chr(10), ' ')}\"\n")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "c.md").write_text("Now: {{now}} <!-- promptlint: ignore[PL001] -->\n" + STABLE)
    result = check(tmp_path, ".")
    assert result.stdout == "All checks passed: 3 prompts in 3 files (3 suppressed).\n", result.stdout


def test_syntax_error_reported_and_other_files_checked(project):
    (project / "broken.j2").write_text("ok\n{% if %}\n")
    result = check(project, ".", "--select", "PL001")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["broken.j2:2:1: Jinja syntax error: Expected an expression, got 'end of statement block'"]
    assert "time.j2:1:15: PL001" in result.stdout


def test_json_output(project):
    result = check(project, "time.j2", "--format", "json")
    report = json.loads(result.stdout)
    assert report["schema_version"] == "1.0"
    (finding,) = report["findings"]
    assert finding["code"] == "PL001" and finding["name"] == "volatile-before-stable"
    assert finding["severity"] == "error"
    assert finding["location"] == {"path": "time.j2", "line": 1, "column": 15, "end_line": 1, "end_column": 24}
    assert finding["tokens"] > 64 and finding["model"] == "openai/gpt-4.1"


def test_bad_selector_and_unknown_config_key(project):
    assert check(project, ".", "--select", "XX1").exit_code == 2
    (project / "promptlint.toml").write_text('slect = ["PL001"]\n')
    result = check(project, ".")
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("promptlint.toml: slect: unknown key")


def test_rules_and_explain():
    runner = CliRunner()
    listing = runner.invoke(main, ["rules"]).stdout
    assert listing.splitlines()[0].startswith("PL001  volatile-before-stable")
    doc = runner.invoke(main, ["explain", "PL001"])
    assert doc.exit_code == 0 and doc.stdout.startswith("# PL001 volatile-before-stable")
    assert "## Why it costs" in doc.stdout and "```jinja" in doc.stdout
    assert runner.invoke(main, ["explain", "PL999"]).exit_code == 2


def test_config_found_upward_from_each_checked_file(project):
    sub = project / "legacy"
    sub.mkdir()
    (sub / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\nignore = ["PL001"]\n')
    (sub / "old.j2").write_text("Current time: {{ now }}\n" + STABLE)
    result = check(project, "time.j2", "legacy/old.j2")
    assert codes(result) == ["PL001"]
    assert result.stdout.startswith("time.j2:1:15: PL001")
    assert "Found 1 finding (1 error): 2 prompts in 2 files." in result.stdout


# ------------------------------------------------------------------ summaries that never lie (issue 13)

def test_a_missing_path_is_said_in_the_summary_and_exits_2(project):
    result = check(project, "nope.j2")
    assert result.exit_code == 2
    assert result.stderr == "nope.j2:1:1: no such file or directory\n"
    assert result.stdout == "No findings: 0 prompts in 0 files; 1 path not found.\n"
    both = check(project, "nope.j2", "time.j2")
    assert both.exit_code == 2
    assert both.stdout.splitlines()[-1] == "Found 1 finding (1 error): 1 prompt in 1 file; 1 path not found."


def test_an_input_error_is_never_a_pass(project):
    (project / "only").mkdir()
    (project / "only" / "broken.j2").write_text("{% if %}\n")
    result = check(project, "only")
    assert result.exit_code == 2
    assert result.stdout == "No findings: 0 prompts in 1 file; 1 input error (see above).\n"


def test_a_folder_without_prompt_files_is_a_warning_and_exits_2(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.md").write_text("# Notes\n\nShopping list: eggs, milk.\n")
    for folder in ("empty", "notes"):
        result = check(tmp_path, folder)
        assert result.exit_code == 2
        assert result.stdout == "No prompt files found.\n"
        assert result.stderr.startswith(f"warning: no prompt files found in {folder}: promptlint reads *.j2, ")
        assert "`-v` says why each file was skipped, [tool.promptlint] include adds others" in result.stderr


def test_files_named_one_by_one_that_are_not_prompts_pass_for_pre_commit(tmp_path):
    # pre-commit hands the hook every staged text file: a commit of a README must not fail
    (tmp_path / "README.md").write_text("# Notes\n\nShopping list: eggs, milk.\n")
    (tmp_path / "tool.py").write_text("print('hello')\n")
    result = check(tmp_path, "README.md")
    assert result.exit_code == 0 and result.stdout == "No prompt files found.\n"
    assert result.stderr.startswith("warning: no prompt files found in README.md")
    python = check(tmp_path, "tool.py")
    assert python.exit_code == 0 and python.stdout == "No prompts found in 1 file.\n"


def test_a_selector_that_matches_no_rule_is_a_usage_error_with_a_suggestion(project):
    result = check(project, ".", "--select", "PL999")
    assert result.exit_code == 2 and result.stdout == ""
    assert ("Error: Invalid value for '--select': 'PL999' matches no rule (did you mean PL009? the rules are "
            "PL001-PL009; "
            "`promptlint rules` lists them)") in result.stderr
    typo = check(project, ".", "--ignore", "PL01")
    assert typo.exit_code == 2
    assert "Invalid value for '--ignore': 'PL01' matches no rule (did you mean PL001?" in typo.stderr
    (project / "promptlint.toml").write_text('select = ["PL0010"]\n')
    config = check(project, ".")
    assert config.exit_code == 2
    assert "promptlint.toml: select: 'PL0010' is not a rule code or prefix" in config.stderr
    (project / "promptlint.toml").write_text('ignore = ["PL9"]\n')
    assert "promptlint.toml: ignore: 'PL9' matches no rule" in check(project, ".").stderr


def test_counts_are_spelled_in_the_singular_where_they_are_one(project):
    result = check(project, "time.j2")
    assert result.stdout.splitlines()[-1] == "Found 1 finding (1 error): 1 prompt in 1 file."
    fixed = invoke(project, "fix", "--diff", "time.j2")
    assert fixed.stdout.splitlines()[-1].startswith("Would fix 0 findings in 0 files; 1 would not be fixed")
    audit = invoke(project, "audit", "nope/")
    assert audit.exit_code == 2
    assert "0 prompts in 0 files; 1 path not found." in audit.stdout.splitlines()


# ------------------------------------------------------------------ ruff's conventions (issue 13)

def test_output_format_full_shows_the_source_line_a_caret_and_the_fix(project):
    result = check(project, "time.j2", "--output-format", "full")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("time.j2:1:15: PL001 {{ now }} changes per request (")
    source = (project / "time.j2").read_text().splitlines()[0]
    assert lines[1] == "   1 | " + source
    assert lines[2] == " " * 7 + " " * 14 + "^" * len("{{ now }}")
    assert lines[3].startswith("  help: move it after the stable content")
    assert lines[-1] == "Found 1 finding (1 error): 1 prompt in 1 file."
    # --format stays an alias of --output-format, and text is concise
    assert check(project, "time.j2", "--format", "text").stdout == check(project, "time.j2",
                                                                            "--output-format", "concise").stdout


def test_quiet_statistics_and_json_lines(project):
    quiet = check(project, ".", "-q")
    assert quiet.exit_code == 1
    assert [l.split(":")[0] for l in quiet.stdout.splitlines()] == ["time.j2", "user.j2"]
    stats = check(project, ".", "--statistics", "--show-info")
    assert stats.stdout == "3\tPL001\tvolatile-before-stable\n" \
                           "Found 3 findings (1 error, 1 warning, 1 info): 4 prompts in 4 files.\n"
    assert stats.exit_code == 1
    rows = [json.loads(l) for l in check(project, ".", "--output-format", "json-lines").stdout.splitlines()]
    assert [(r["code"], r["location"]["path"], r["location"]["line"]) for r in rows] == [
        ("PL001", "date.j2", 1), ("PL001", "time.j2", 1), ("PL001", "user.j2", 1)]


@pytest.mark.parametrize("flag, env, coloured", [
    ("auto", {}, False), ("always", {}, True), ("never", {"FORCE_COLOR": "1"}, False),
    ("auto", {"FORCE_COLOR": "1"}, True), ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
])
def test_colour_by_flag_and_by_environment(project, monkeypatch, flag, env, coloured):
    for name in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = check(project, "time.j2", "--color", flag)
    assert ("\x1b[" in result.stdout) is coloured
    assert result.stdout.splitlines()[0].replace("\x1b[0m", "").replace("\x1b[1m", "").replace(
        "\x1b[1;31m", "").startswith("time.j2:1:15: PL001 {{ now }} changes per request, ahead of ")


# ------------------------------------------------------------------ fix guidance (issue 13)

def _clock_template(root):
    stable = " ".join(["Follow the support policy carefully and answer in a friendly tone."] * 40)
    (root / "clock.j2").write_text("Today is {{ now().strftime('%Y-%m-%d %H:%M') }}.\n" + stable + "\n")


def test_fix_says_which_setting_enables_a_gated_fix(tmp_path):
    _clock_template(tmp_path)
    result = invoke(tmp_path, "fix", "--diff", "clock.j2")
    assert result.exit_code == 1
    assert result.stdout == ('Would fix 0 findings in 0 files; 1 would not be fixed (1 fixable with '
                             '[tool.promptlint.fix] timestamp-precision = "day").\n')
    assert result.stderr.startswith('clock.j2:1:10: PL001 left as is: a safe fix exists once the day is precise '
                                    'enough: set [tool.promptlint.fix] timestamp-precision = "day"')
    # with the setting, the same finding is fixed
    (tmp_path / "promptlint.toml").write_text('[fix]\ntimestamp-precision = "day"\n')
    fixed = invoke(tmp_path, "fix", "clock.j2")
    assert fixed.stdout.splitlines()[0] == "clock.j2: fixed 1 (PL001)"
    assert (tmp_path / "clock.j2").read_text().startswith("Today is {{ now().strftime('%Y-%m-%d') }}.")


def test_show_fixes_marks_safe_and_unsafe_fixes_and_counts_them(tmp_path):
    (tmp_path / "promptlint.toml").write_text('[fix]\ntimestamp-precision = "day"\n')
    _clock_template(tmp_path)
    result = check(tmp_path, "clock.j2", "--show-fixes")
    assert result.stdout.startswith("clock.j2:1:10: PL001 [*] ")
    assert result.stdout.splitlines()[-1].endswith("; 1 fixable with `promptlint fix`.")
    assert "[*]" not in check(tmp_path, "clock.j2").stdout
    # --statistics marks the rule and says what [*] means, as ruff does
    assert check(tmp_path, "clock.j2", "--statistics").stdout.startswith(
        "1\tPL001\t[*] volatile-before-stable\n[*] fixable with `promptlint fix`\n")


def test_explain_shows_one_example_of_each_kind_and_renders_for_a_terminal():
    from promptlint import catalogue
    from promptlint.report.rule_docs import rule_markdown

    runner = CliRunner()
    rule = catalogue.by_code_or_name("PL001")
    bad = sum(e.kind == "bad" for e in rule.examples)
    good = sum(e.kind == "good" for e in rule.examples)
    piped = runner.invoke(main, ["explain", "PL001"]).stdout
    assert piped.count("\n```\n") <= 4  # one flagged (and its fixed form) and one clean example
    assert bad > 2 and good > 2
    assert f"*{bad - 1} more examples: `promptlint explain PL001 --all-examples`.*" in piped
    assert f"*{good - 1} more examples: `promptlint explain PL001 --all-examples`.*" in piped
    # --all-examples is the rule's whole section of docs/rules.md
    assert runner.invoke(main, ["explain", "PL001", "--all-examples"]).stdout == rule_markdown(rule)
    coloured = runner.invoke(main, ["explain", "PL001", "--color", "always"]).stdout
    assert "\x1b[" in coloured and "```" not in coloured and "PL001 volatile-before-stable" in coloured


# ------------------------------------------------------------------ baselines (issue 13)

def test_baseline_round_trip_reports_only_new_findings(project):
    written = check(project, ".", "--write-baseline", "baseline.json")
    assert written.exit_code == 0
    assert written.stdout == ("Wrote 3 findings to baseline.json: `promptlint check --baseline baseline.json` "
                              "reports only new ones.\n")
    data = json.loads((project / "baseline.json").read_text())
    assert data["version"] == 1 and data["fingerprint"] == "promptlint/v1"
    assert [(e["path"], e["line"], e["rule"]) for e in data["findings"]] == [
        ("date.j2", 1, "PL001"), ("time.j2", 1, "PL001"), ("user.j2", 1, "PL001")]
    same = check(project, ".", "--baseline", "baseline.json")
    assert same.exit_code == 0
    # baseline.json sits in the walked folder: looked at, not a prompt
    assert same.stdout == "All checks passed: 4 prompts in 4 files (3 in the baseline); 1 file skipped (-v says why).\n"
    # unrelated lines above an old finding keep it in the baseline; a new breaker is reported
    time_j2 = project / "time.j2"
    time_j2.write_text("A note added on top.\n" + time_j2.read_text())
    (project / "new.j2").write_text("Request {{ request_id }}. " + STABLE)
    later = check(project, ".", "--baseline", "baseline.json")
    assert later.exit_code == 1
    assert [l.split(" ")[0] for l in later.stdout.splitlines()[:-1]] == ["new.j2:1:9:"]
    assert later.stdout.splitlines()[-1] == ("Found 1 finding (1 error): 5 prompts in 5 files (3 in the baseline); "
                                             "1 file skipped (-v says why).")


def test_a_baseline_that_cannot_be_read_is_one_line_and_exit_2(project):
    missing = check(project, ".", "--baseline", "nope.json")
    assert missing.exit_code == 2
    assert missing.stderr == ("error: nope.json: no such baseline file (write one with --write-baseline "
                              "nope.json)\n")
    (project / "other.json").write_text('{"findings": []}')
    other = check(project, ".", "--baseline", "other.json")
    assert other.exit_code == 2 and other.stderr.startswith("error: other.json: not a promptlint baseline")


# ------------------------------------------------------------------ gitlab and junit (issue 13)

def test_gitlab_code_quality_report(project):
    import jsonschema

    (project / ".git").mkdir()  # paths are relative to the repository root
    schema = json.loads((Path(__file__).parent / "data" / "schemas" / "gitlab-codequality.schema.json").read_text())
    result = check(project, ".", "--output-format", "gitlab")
    assert result.exit_code == 1
    issues = json.loads(result.stdout)
    jsonschema.Draft7Validator(schema).validate(issues)
    assert [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"])
            for i in issues] == [("PL001 volatile-before-stable", "info", "date.j2", 1),
                                 ("PL001 volatile-before-stable", "major", "time.j2", 1),
                                 ("PL001 volatile-before-stable", "minor", "user.j2", 1)]
    sarif = json.loads(check(project, ".", "--output-format", "sarif").stdout)
    assert [i["fingerprint"] for i in issues] == [r["partialFingerprints"]["promptlint/v1"]
                                                   for r in sarif["runs"][0]["results"]]


def test_junit_report_has_a_failing_case_per_finding_and_an_error_per_input_error(project):
    from xml.etree import ElementTree as ET

    (project / ".git").mkdir()
    (project / "broken.j2").write_text("{% if %}\n")
    result = check(project, ".", "--output-format", "junit")
    assert result.exit_code == 2
    root = ET.fromstring(result.stdout)
    # date.j2's finding is info, below --fail-on warning: a skipped case, so the report fails as the run does
    assert root.tag == "testsuites"
    assert [root.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["4", "2", "1", "1"]
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sorted(suites) == ["broken.j2", "date.j2", "time.j2", "user.j2"]
    (case,) = suites["time.j2"].findall("testcase")
    assert case.get("name") == "PL001 at time.j2:1:15" and case.get("line") == "1"
    failure = case.find("failure")
    assert failure.get("type") == "error" and failure.get("message").startswith("PL001 {{ now }} changes per request")
    (info,) = suites["date.j2"].findall("testcase")
    assert info.find("failure") is None and info.find("skipped").get("message").startswith(
        "info, below --fail-on warning: PL001 {{ today }}")
    on_info = ET.fromstring(check(project, ".", "--output-format", "junit", "--fail-on", "info").stdout)
    assert on_info.get("failures") == "3" and on_info.get("skipped") == "0"
    (broken,) = suites["broken.j2"].findall("testcase")
    assert broken.find("error").get("message").startswith("Jinja syntax error")


def test_junit_report_reads_back_with_junitparser(project):
    """A consumer's reading of the report (junitparser, as CI dashboards use
    it): the suites, cases and results it sees are ours."""
    from junitparser import Error, Failure, JUnitXml, Skipped

    (project / ".git").mkdir()
    (project / "broken.j2").write_text("{% if %}\n")
    xml = JUnitXml.fromstring(check(project, ".", "--output-format", "junit").stdout)
    seen = {}
    for suite in xml:
        for case in suite:
            kinds = [type(r).__name__ for r in case.result]
            seen[suite.name] = (case.name, kinds)
            assert all(isinstance(r, (Error, Failure, Skipped)) for r in case.result)
    assert seen == {"broken.j2": ("read broken.j2", ["Error"]), "date.j2": ("PL001 at date.j2:1:10", ["Skipped"]),
                    "time.j2": ("PL001 at time.j2:1:15", ["Failure"]), "user.j2": ("PL001 at user.j2:1:7", ["Failure"])}
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (4, 2, 1, 1)


def test_json_findings_carry_the_rule_documentation_url(project):
    (finding, *_) = json.loads(check(project, ".", "--format", "json").stdout)["findings"]
    assert finding["url"].endswith("/docs/rules.md#pl001-volatile-before-stable")


def test_shell_completion_completes_commands_and_options():
    import os
    import subprocess
    import sys

    env = {**os.environ, "COMP_WORDS": "promptlint check --output-f", "COMP_CWORD": "2",
           "_PROMPTLINT_COMPLETE": "bash_complete"}
    script = Path(sys.executable).with_name("promptlint")
    if not script.exists():
        pytest.skip("the promptlint console script is not beside this interpreter")
    proc = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,--output-format" in proc.stdout.splitlines()


def test_help_lists_every_command_with_a_whole_summary():
    result = CliRunner().invoke(main, ["--help"], terminal_width=80)
    commands = result.stdout.split("Commands:\n", 1)[1].splitlines()
    assert len(commands) == 10
    for row in commands:
        assert not row.endswith("...") and len(row) <= 80, row


def test_exit_non_zero_on_fix(tmp_path):
    def write():
        (tmp_path / "tools.j2").write_text("Tools:\n{% for name, tool in tools.items() %}- {{ name }}: {{ tool }}\n"
                                           "{% endfor %}\n" + STABLE + "\n")

    write()
    plain = invoke(tmp_path, "fix", "tools.j2")  # the dictsort fix leaves nothing: exit 0
    assert plain.stdout == "tools.j2: fixed 1 (PL002)\nFixed 1 finding in 1 file; 0 remaining.\n"
    assert plain.exit_code == 0
    write()
    flagged = invoke(tmp_path, "fix", "--exit-non-zero-on-fix", "tools.j2")
    assert flagged.stdout == plain.stdout and flagged.exit_code == 1
    again = invoke(tmp_path, "fix", "--exit-non-zero-on-fix", "tools.j2")  # nothing left to fix
    assert again.stdout == "Fixed 0 findings in 0 files; 0 remaining.\n" and again.exit_code == 0


def test_stdin_with_stdin_filename_for_editors(project):
    text = "Now: {{ now }}\n" + STABLE
    given = check(project, "-", "--stdin-filename", "time.j2", input=text)
    unsaved = check(project, "-", "--stdin-filename", "drafts/new.j2", input=text)
    bare = invoke(project, "check", "-", input=text)
    # the text from standard input stands for time.j2 (whose own {{ now }} is at 1:15)
    assert given.exit_code == 1
    assert given.stdout.startswith("time.j2:1:6: PL001 {{ now }} changes per request, ahead of ")
    assert given.stdout.splitlines()[-1] == "Found 1 finding (1 error): 1 prompt in 1 file."
    assert unsaved.exit_code == 1 and unsaved.stdout.startswith("drafts/new.j2:1:6: PL001 ")
    assert bare.exit_code == 2 and "name the file it stands for with --stdin-filename" in bare.stderr


def test_a_slot_two_prompts_reach_is_reported_once(tmp_path):
    (tmp_path / "partials").mkdir()
    (tmp_path / "partials" / "clock.j2").write_text("Now: {{ now }}\n" + STABLE)
    (tmp_path / "a.j2").write_text("{% include 'partials/clock.j2' %}\nAnswer the billing question.\n")
    (tmp_path / "b.j2").write_text("{% include 'partials/clock.j2' %}\n" + STABLE + "\nAnswer the shipping question.\n")
    result = check(tmp_path, ".")
    found = [l for l in result.stdout.splitlines() if ": PL001 " in l]
    assert found and all(l.startswith("partials/clock.j2:1:6: PL001 {{ now }}") for l in found)
    assert len(found) == 1, result.stdout  # b.j2's, with more stable tokens after the slot
    assert result.stdout.splitlines()[-1].startswith("Found 1 finding (1 error): ")


def test_concise_lines_fit_120_columns_on_the_bundled_fixtures():
    """Every concise line of the fixtures' check, info included, is at most
    120 columns after `path:line:col: ` (ruff's concise lines are as short)."""
    root = Path(__file__).resolve().parent.parent
    result = check(root, "--show-info", "fixtures")
    bodies = [line.split(": ", 1)[1] for line in result.stdout.splitlines() if re.match(r"\S+:\d+:\d+: PL", line)]
    assert len(bodies) > 150
    assert max(len(b) for b in bodies) <= 120, max(bodies, key=len)


def test_the_summary_counts_the_files_skipped_and_v_says_why(tmp_path):
    """Files a folder walk looked at and did not read as prompts are counted
    (a README, licence or manifest is not: every project has them)."""
    (tmp_path / "p.j2").write_text("Question: {{ question }}\n")
    (tmp_path / "notes.txt").write_text("Shopping list: eggs, milk.\n")
    (tmp_path / "README.md").write_text("# Notes\n")
    result = check(tmp_path, ".")
    assert result.exit_code == 0
    assert result.stdout == "All checks passed: 1 prompt in 1 file; 1 file skipped (-v says why).\n"
    verbose = check(tmp_path, ".", "-v")
    assert "note: notes.txt: skipped (" in verbose.stderr and "note: README.md: skipped (a project file" in verbose.stderr
    audit = invoke(tmp_path, "audit", ".")
    assert "1 prompt in 1 file; 1 file skipped (-v says why)." in audit.stdout.splitlines()
