"""`promptlint diff`: a base revision read from git objects (or an earlier
JSON audit report) beside the working tree, prompt by prompt, in real
temporary git repositories; the Markdown pull-request comment and its
truncation under GitHub's limit."""

import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.commands.diff import diff as diff_command
from promptlint.diff import (
    Figures,
    FindingRecord,
    compare,
    match_findings,
    match_prompts,
)
from promptlint.report.diff_report import GITHUB_COMMENT_LIMIT, MARKER, render_markdown

if "diff" not in main.commands:  # until the lead wires it into cli.py
    main.add_command(diff_command)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_WORDS = ["policy", "refund", "customer", "support", "order", "shipping", "account", "billing", "warranty", "escalation", "agent", "tone", "answer", "invoice", "replacement", "delivery", "tracking", "courteous", "concise", "verify", "identity"]


def long_body(lines: int = 150, seed: int = 7) -> str:
    """Static instructions, about 2,000 o200k tokens."""
    rnd = random.Random(seed)
    return "\n".join(" ".join(rnd.choice(_WORDS) for _ in range(12)) + "." for _ in range(lines))


BODY = long_body()
INDENTED = BODY.replace("\n", "\n    ")  # the body as a YAML block scalar's lines


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=str(repo.parent))
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
                           "-c", "init.defaultBranch=main", *args], cwd=repo, check=True, capture_output=True,
                          text=True, env=env).stdout


def write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


CONFIG = """[tool.promptlint]
providers = ["openai/gpt-4.1", "anthropic/claude-sonnet-4.5"]

[tool.promptlint.traffic]
requests-per-day = 50000
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"promptlint.toml": CONFIG})
    return repo


def run(*args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def diff_json(*args, cwd: Path):
    result = run("diff", *args, "--format", "json", cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    return result, json.loads(result.stdout)


def timestamp_moved_to_top(repo: Path) -> None:
    write(repo, {"prompts/system.j2": f"You are Acme's support assistant.\n{BODY}\nCurrent time: {{{{ now }}}}\n\n"
                                      "Question: {{ question }}\n"})
    commit(repo, "stable system prompt, timestamp last")
    write(repo, {"prompts/system.j2": f"Current time: {{{{ now }}}}\nYou are Acme's support assistant.\n{BODY}\n\n"
                                      "Question: {{ question }}\n"})
    commit(repo, "show the time first")


# -- --base REF -----------------------------------------------------------------

def test_timestamp_moved_to_top_shows_the_loss_in_markdown(repo):
    timestamp_moved_to_top(repo)
    result = run("diff", "--base", "HEAD~1", "--format", "markdown", cwd=repo)
    assert result.exit_code == 0, result.output
    body = result.stdout
    lines = body.splitlines()
    assert lines[0] == MARKER
    headline = lines[1]
    m = re.search(r"Cacheable prefix falls from ([\d,]+) to ([\d,]+) tokens: \+\$([\d,.]+)/month", headline)
    assert m, headline
    before, after = (int(g.replace(",", "")) for g in m.groups()[:2])
    assert before > 1500 and after < 64
    assert "on openai/gpt-4.1 at 50,000 requests/day" in headline
    row = next(line for line in lines if line.startswith("| `prompts/system.j2`"))
    assert "changed" in row and f"{before:,} → {after:,}" in row and "| +$" in row
    # the finding is introduced, nothing resolved
    introduced = body.split("#### Findings introduced (1)", 1)[1]
    assert "**PL001**" in introduced and "`{{ now }}`" in introduced
    # the comment gives check's one-clause summary, not the whole reason
    assert re.search(r"`\{\{ now \}\}`: \{\{ now \}\} changes per request, ahead of [\d,]+ stable tokens "
                     r"uncached \([\d,]+ tokens", introduced), introduced[:400]
    assert "the name suggests" not in introduced
    assert "Findings: 1 introduced, 0 resolved." in body
    # every figure has its source: the provider table's date and the traffic
    assert re.search(r"Provider table dated \d{4}-\d\d-\d\d; traffic 50,000 requests/day", body)
    assert "<details>" in body and len(body) <= GITHUB_COMMENT_LIMIT
    assert "promptlint-diff-" not in body  # no temporary paths leak
    # the same in JSON: the report's own numbers, and the exit code on request
    result, data = diff_json("--base", "HEAD~1", cwd=repo)
    (prompt,) = data["prompts"]
    assert prompt["status"] == "changed" and prompt["path"] == "prompts/system.j2"
    assert prompt["before"]["stable_prefix_tokens"] == before and prompt["after"]["stable_prefix_tokens"] == after
    assert prompt["after"]["per_month_usd"] > prompt["before"]["per_month_usd"]
    assert prompt["after"]["cached_tokens"] == 0 < prompt["before"]["cached_tokens"]
    assert data["totals"]["per_month_usd"]["change"] > 0
    assert [f["code"] for f in data["findings"]["introduced"]] == ["PL001"]
    assert data["findings"]["resolved"] == []
    assert data["base"]["commit"] == git(repo, "rev-parse", "HEAD~1").strip()
    assert run("diff", "--base", "HEAD~1", "--fail-on-increase", cwd=repo).exit_code == 1
    # and the other way round: the saving, and a resolved finding
    result, back = diff_json("--base", "HEAD", cwd=repo)
    assert back["totals"]["per_month_usd"]["change"] == 0
    git(repo, "revert", "--no-edit", "HEAD")
    result, back = diff_json("--base", "HEAD~1", cwd=repo)
    assert back["totals"]["per_month_usd"]["change"] < 0
    assert [f["code"] for f in back["findings"]["resolved"]] == ["PL001"]
    assert run("diff", "--base", "HEAD~1", "--fail-on-increase", cwd=repo).exit_code == 0


def test_text_output_and_running_from_a_subfolder(repo):
    timestamp_moved_to_top(repo)
    result = run("diff", "--base", "HEAD~1", ".", cwd=repo / "prompts")
    assert result.exit_code == 0, result.output
    assert "Cacheable prefix falls from" in result.stdout
    assert "prompts/system.j2:1:" in result.stdout and "PL001" in result.stdout  # repo-relative paths


def test_moved_lines_are_neither_introduced_nor_resolved(repo):
    write(repo, {"prompts/agent.j2": f"Time: {{{{ now }}}}\n{BODY}\n"})
    commit(repo, "base")
    write(repo, {"prompts/agent.j2": f"# Agent\n\nTime: {{{{ now }}}}\n{BODY}\n"})  # the breaker moves two lines down
    commit(repo, "heading")
    _, data = diff_json("--base", "HEAD~1", cwd=repo)
    assert data["findings"]["introduced"] == [] and data["findings"]["resolved"] == []


def test_includes_resolve_against_the_base_files(repo):
    write(repo, {"prompts/partials/header.j2": f"You are Acme's assistant.\n{BODY}\n",
                 "prompts/chat.j2": '{% include "partials/header.j2" %}\nQuestion: {{ question }}\n',
                 # outside the audited folder, not a prompt file: found from the include, at the config root
                 "shared/policy.md": f"Policy.\n{long_body(40, 9)}\n",
                 "prompts/policy.j2": '{% include "shared/policy.md" %}\nQuestion: {{ question }}\n'})
    commit(repo, "base")
    write(repo, {"prompts/partials/header.j2": f"Now: {{{{ now }}}}\nYou are Acme's assistant.\n{BODY}\n",
                 "shared/policy.md": f"Policy for {{{{ user_name }}}}.\n{long_body(40, 9)}\n"})
    commit(repo, "time in the partial, a user in the policy")
    _, data = diff_json("--base", "HEAD~1", "prompts", cwd=repo)
    chat, policy = (next(p for p in data["prompts"] if p["path"] == f"prompts/{n}.j2") for n in ("chat", "policy"))
    assert chat["status"] == policy["status"] == "changed"
    # the base's partials (no timestamp, no user) were read, not the working tree's
    assert chat["before"]["stable_prefix_tokens"] > 1500 > chat["after"]["stable_prefix_tokens"]
    assert policy["before"]["stable_prefix_tokens"] > 400 > policy["after"]["stable_prefix_tokens"]
    assert {f["location"]["path"] for f in data["findings"]["introduced"]} == {"prompts/partials/header.j2",
                                                                              "shared/policy.md"}
    assert data["notes"] == [] and data["errors"] == []


def test_prompts_found_by_content_are_read_from_the_base_too(repo):
    """A system prompt kept as Markdown outside prompts/, and an agent config's
    prompt value, are prompts in the base revision as in the working tree."""
    write(repo, {"agent/system_prompt.md": f"You are Acme's support assistant.\n{BODY}\nTime: {{{{ now }}}}\n",
                 "agent/config.yaml": "planner:\n  system_prompt: |\n    " + INDENTED + "\n    Time: {now}\n"})
    commit(repo, "base")
    write(repo, {"agent/system_prompt.md": f"Time: {{{{ now }}}}\nYou are Acme's support assistant.\n{BODY}\n",
                 "agent/config.yaml": "planner:\n  system_prompt: |\n    Time: {now}\n    " + INDENTED + "\n"})
    _, data = diff_json("--base", "HEAD", cwd=repo)
    got = {(p["status"], p["path"]) for p in data["prompts"]}
    assert got == {("changed", "agent/system_prompt.md"), ("changed", "agent/config.yaml")}
    assert {(f["code"], f["location"]["path"]) for f in data["findings"]["introduced"]} == {
        ("PL001", "agent/system_prompt.md"), ("PL001", "agent/config.yaml")}


def test_added_removed_and_renamed_prompts(repo):
    write(repo, {"prompts/alpha.j2": f"{BODY}\nQ: {{{{ question }}}}\n",
                 "prompts/beta.j2": f"Beta.\n{long_body(40, 2)}\n{{{{ question }}}}\n",
                 "prompts/gamma.j2": f"Gamma.\n{long_body(60, 3)}\n{{{{ question }}}}\n",
                 "prompts/delta.j2": "Delta {{ question }}\n",
                 "prompts/keep.j2": f"Keep.\n{long_body(20, 4)}\n{{{{ question }}}}\n"})
    commit(repo, "base")
    (repo / "prompts/support").mkdir()
    git(repo, "mv", "prompts/alpha.j2", "prompts/support/first.j2")  # git sees the rename (name changes too)
    git(repo, "rm", "-q", "prompts/beta.j2")
    write(repo, {"prompts/epsilon.j2": f"Epsilon.\n{long_body(30, 5)}\n{{{{ question }}}}\n"})
    commit(repo, "reorganise")
    # moved without telling git, and edited: matched by its unambiguous name
    (repo / "prompts/gamma.j2").unlink()
    write(repo, {"prompts/other/gamma.j2": f"{{{{ now }}}} Gamma.\n{long_body(60, 3)}\n{{{{ question }}}}\n"})
    # two prompts named "delta" in new places: ambiguous, so removed + added
    (repo / "prompts/delta.j2").unlink()
    write(repo, {"prompts/x/delta.j2": "Delta {{ question }}\n", "prompts/y/delta.j2": "Delta 2 {{ question }}\n"})
    _, data = diff_json("--base", "HEAD~1", cwd=repo)
    got = {(p["status"], p["before"] and p["before"]["path"], p["after"] and p["after"]["path"], p["renamed_by"])
           for p in data["prompts"]}
    assert got == {
        ("renamed", "prompts/alpha.j2", "prompts/support/first.j2", "git"),
        ("removed", "prompts/beta.j2", None, None),
        ("renamed", "prompts/gamma.j2", "prompts/other/gamma.j2", "name"),
        ("removed", "prompts/delta.j2", None, None),
        ("added", None, "prompts/x/delta.j2", None),
        ("added", None, "prompts/y/delta.j2", None),
        ("added", None, "prompts/epsilon.j2", None),
        ("unchanged", "prompts/keep.j2", "prompts/keep.j2", None),
    }
    assert data["counts"] == {"changed": 0, "renamed": 2, "added": 3, "removed": 2, "unchanged": 1}
    removed = next(p for p in data["prompts"] if p["path"] == "prompts/beta.j2")
    assert removed["change_per_month_usd"] == -removed["before"]["per_month_usd"]
    # the renamed-and-edited gamma's new finding is introduced at its new path
    assert {(f["code"], f["location"]["path"]) for f in data["findings"]["introduced"]} >= {
        ("PL001", "prompts/other/gamma.j2")}
    md = run("diff", "--base", "HEAD~1", "--format", "markdown", cwd=repo).stdout
    assert "`prompts/alpha.j2` alpha → `prompts/support/first.j2` first" in md
    assert "renamed (git)" in md and "renamed (same name)" in md
    assert "1 unchanged prompt</summary>" in md


def test_a_path_that_did_not_exist_at_the_base(repo):
    write(repo, {"prompts/old.j2": f"{BODY}\n{{{{ question }}}}\n"})
    commit(repo, "base")
    write(repo, {"new/prompts/fresh.j2": f"{BODY}\n{{{{ question }}}}\n"})
    commit(repo, "new folder")
    result, data = diff_json("--base", "HEAD~1", "new", cwd=repo)
    assert result.exit_code == 0
    assert [(p["status"], p["path"]) for p in data["prompts"]] == [("added", "new/prompts/fresh.j2")]
    # a path that neither side has is an error
    assert run("diff", "--base", "HEAD~1", "nowhere", cwd=repo).exit_code == 2
    # a path only the base has: its prompts are removed
    shutil.rmtree(repo / "prompts")
    result, data = diff_json("--base", "HEAD~1", "prompts", cwd=repo)
    assert [(p["status"], p["path"]) for p in data["prompts"]] == [("removed", "prompts/old.j2")]


def test_bad_git_input_exits_2(repo, tmp_path):
    timestamp_moved_to_top(repo)
    result = run("diff", "--base", "no-such-ref", cwd=repo)
    assert result.exit_code == 2 and "unknown revision 'no-such-ref'" in result.stderr
    assert run("diff", "--base", "--output=x", cwd=repo).exit_code == 2  # never passed to git as an option
    plain = tmp_path / "plain"
    plain.mkdir()
    result = run("diff", "--base", "HEAD", cwd=plain)
    assert result.exit_code == 2 and "not inside a git repository" in result.stderr
    assert run("diff", cwd=repo).exit_code == 2  # neither --base nor --compare-to
    assert run("diff", "--base", "HEAD", "--compare-to", "x.json", cwd=repo).exit_code == 2


# -- --compare-to base.json -----------------------------------------------------

def test_compare_to_an_audit_report(repo):
    write(repo, {"prompts/system.j2": f"You are Acme's support assistant.\n{BODY}\nNow: {{{{ now }}}}\n",
                 "prompts/bye.j2": "Goodbye {{ user_name }}\n"})
    written = run("audit", "--format", "json", "-o", "base.json", cwd=repo)
    assert written.exit_code == 0, written.output
    write(repo, {"prompts/system.j2": f"Now: {{{{ now }}}}\nYou are Acme's support assistant.\n{BODY}\n"})
    (repo / "prompts/bye.j2").unlink()
    write(repo, {"prompts/hello.j2": "Hello {{ user_name }}\n"})
    result = run("diff", "--compare-to", "base.json", "prompts", "--format", "markdown", cwd=repo)
    assert result.exit_code == 0, result.output
    body = result.stdout
    assert body.splitlines()[0] == MARKER
    assert "Cacheable prefix (all prompts) falls from" in body and "the report `base.json`" in body
    assert "| `prompts/system.j2` system | changed |" in body
    assert "| `prompts/hello.j2` hello | added |" in body and "| `prompts/bye.j2` bye | removed |" in body
    assert "Findings are compared only with --base" in body
    _, data = diff_json("--compare-to", "base.json", "prompts", cwd=repo)
    base = json.loads((repo / "base.json").read_text())
    before = next(p for p in base["prompts"] if p["path"] == "prompts/system.j2")
    system = next(p for p in data["prompts"] if p["path"] == "prompts/system.j2")
    # the base figures are the report's own numbers
    assert system["before"]["stable_prefix_tokens"] == before["tokenizers"]["tiktoken:o200k_base"][
        "stable_prefix_tokens"]["global"]
    assert system["before"]["per_month_usd"] == before["models"][0]["cost"]["per_month_usd"]["cached"]
    assert data["findings"]["compared"] is False
    assert run("diff", "--compare-to", "base.json", "prompts", "--fail-on-increase", cwd=repo).exit_code == 1


def test_compare_to_same_name_in_another_path(repo):
    write(repo, {"prompts/a/solo.j2": f"{BODY}\n{{{{ question }}}}\n"})
    assert run("audit", "--format", "json", "-o", "base.json", cwd=repo).exit_code == 0
    (repo / "prompts/b").mkdir()
    (repo / "prompts/a/solo.j2").rename(repo / "prompts/b/solo.j2")
    _, data = diff_json("--compare-to", "base.json", "prompts", cwd=repo)
    (p,) = data["prompts"]
    assert (p["status"], p["renamed_by"], p["before"]["path"], p["path"]) == \
        ("renamed", "name", "prompts/a/solo.j2", "prompts/b/solo.j2")
    assert p["change_per_month_usd"] == 0


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ('{"schema_version": "2.0", "prompts": []}', "schema_version 2.0 is not supported"),
    ('{"schema_version": "1.0", "findings": []}', "a check report"),
    ('{"prompts": []}', "no schema_version"),
    ('{"schema_version": "1.0", "prompts": [{"path": "x"}]}', "prompts[0] lacks 'name'"),
    ("[]", "expected a JSON object"),
])
def test_compare_to_bad_reports_exit_2(tmp_path, content, message):
    (tmp_path / "base.json").write_text(content)
    result = run("diff", "--compare-to", "base.json", cwd=tmp_path)
    assert result.exit_code == 2
    assert message in result.stderr
    assert run("diff", "--compare-to", "missing.json", cwd=tmp_path).exit_code == 2


# -- matching and the comment's size --------------------------------------------

def test_findings_match_by_rule_path_and_text_not_line():
    def f(line, text="{{ now }}", path="p.j2", rule="PL001"):
        return FindingRecord(rule, "warning", path, line, 1, "m", text)
    introduced, resolved = match_findings([f(1), f(9, "{{ user }}")], [f(3), f(4), f(5, path="q.j2")],
                                          {"p.j2": "p.j2"})
    assert [(x.line, x.path) for x in introduced] == [(4, "p.j2"), (5, "q.j2")]  # a second copy is new
    assert [x.text for x in resolved] == ["{{ user }}"]
    introduced, resolved = match_findings([f(1, path="old.j2")], [f(7, path="new.j2")], {"old.j2": "new.j2"})
    assert introduced == resolved == []


def test_prompts_in_a_renamed_file_with_several_prompts():
    def fig(path, name):
        return Figures(path, name, 10, 0, 1.0, 20)
    changes, moves = match_prompts([fig("a.yaml", "a:x"), fig("a.yaml", "a:y")],
                                   [fig("b.yaml", "b:y"), fig("b.yaml", "b:x")], {"b.yaml": "a.yaml"})
    assert sorted((c.before.name, c.after.name, c.how) for c in changes) == [("a:x", "b:x", "git"),
                                                                              ("a:y", "b:y", "git")]
    assert moves == {"a.yaml": "b.yaml"}


def _report(n: int, stable: int, cost: float) -> dict:
    prompts = []
    for i in range(n):
        prompts.append({
            "path": f"prompts/team-{i % 40:02}/a-rather-long-prompt-file-name-{i:05}.j2", "name": f"prompt-{i:05}",
            "tokenizers": {"tiktoken:o200k_base": {"total_tokens": 3000, "stable_prefix_tokens": {
                "global": stable, "user": stable, "session": stable}}},
            "models": [{"model": "openai/gpt-4.1", "tokenizer": "tiktoken:o200k_base", "tokenizer_exact": True,
                        "total_tokens": 3000, "cached_tokens": {"global": stable // 128 * 128},
                        "cost": {"per_month_usd": {"uncached": 9000.0, "cached": cost + i / 100}}}],
            "cache_breaker": stable < 100,
            "first_breaker": {"scope": "global", "slot": "{{ now }}", "volatility": "request",
                              "location": {"path": f"prompts/p{i}.j2", "line": 1}} if stable < 100 else None,
        })
    return {"schema_version": "1.0", "provider_table": {"updated": "2026-01-01", "models": ["openai/gpt-4.1"]},
            "traffic": {"requests_per_day": 50000, "users": 2000}, "prompts": prompts}


def test_a_large_diff_is_cut_to_githubs_limit_with_a_visible_note():
    n_prompts, n_findings = 2500, 1500
    base, head = _report(n_prompts, 2000, 1000.0), _report(n_prompts, 13, 5000.0)
    head["prompts"] += _report(n_prompts + 300, 2000, 1.0)["prompts"][n_prompts:]  # 300 added
    before = [FindingRecord("PL003", "info", f"prompts/p{i}.j2", 1, 1, "old", f"x{i}") for i in range(200)]
    after = [FindingRecord("PL001", "warning", f"prompts/p{i}.j2", 1, 1,
                           "{{ now }} is request: it keeps 1,987 stable tokens after it | from being shared",
                           "{{ now }}") for i in range(n_findings)]
    d = compare(base, head, base_label="main (abc1234)", base_kind="git", base_findings=before, head_findings=after)
    body = render_markdown(d)
    assert len(body) <= GITHUB_COMMENT_LIMIT
    assert body.splitlines()[0] == MARKER
    assert "falls from 5,000,000 to 632,500 tokens" in body.splitlines()[1]
    m = re.search(r"\*\*Truncated:\*\* .*?; ([\d,]+) prompt rows?, ([\d,]+) findings? and ([\d,]+) cache-breaker rows? "
                  r"were left out", body)
    assert m, body[:2000]
    left_prompts, left_findings, left_breakers = (int(g.replace(",", "")) for g in m.groups())
    kept_rows = sum(1 for line in body.splitlines() if line.startswith("| `prompts/team-"))
    kept_findings = sum(1 for line in body.splitlines() if line.startswith("- **PL"))
    assert kept_rows + left_prompts == n_prompts + 300  # all changed or added (breaker rows start differently)
    assert kept_findings + left_findings == n_findings + 200
    assert left_breakers == n_prompts  # the whole breaker section went
    assert body.count("<details>") == body.count("</details>")  # no section cut in half
    assert "<sub>¹" in body and "Provider table dated 2026-01-01" in body  # the footnote always stays
    small = render_markdown(d, limit=10**7)
    assert "Truncated" not in small and len(small) > GITHUB_COMMENT_LIMIT
