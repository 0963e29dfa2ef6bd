"""Cost gates on `promptlint diff` end to end: three pushes of a pull
request (+$2.88, +$301.27, back to +$2.88 a month) and a fourth change (-$299.35)
against `--min-change-usd 10 --fail-above-usd 100`, each posted through
`comment github` to the fake GitHub API: no comment, a failing run with
its comment, the comment deleted when the change went away, a passing run
with its comment; and hide-and-new hiding the old one through GraphQL."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git_repo
from test_comment_github import MARKER, FakeGitHub, post, quick  # noqa: F401 - quick: no real sleeping

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ROOT = Path(__file__).resolve().parent.parent
STABLE = ("You are the support assistant for Harbor & Pine, an outdoor gear retailer. Answer questions about "
          "orders, returns, warranties and product care. Be concise and friendly, never invent order details, "
          "and always offer to connect the customer with a human agent when a refund over $200 is requested. "
          "Policies: returns within 60 days with a receipt; lifetime warranty on stitching and buckles.\n") * 44
GOOD = STABLE + "Question: {{ question }}\n"
LONGER = GOOD + ("Answer in one short paragraph, in the language of the question, and end by asking whether "
                 "anything else is needed today.\n")
TIME_FIRST = "Time: {{ now }}\n" + GOOD
TIME_LAST = GOOD + "Time: {{ now }}\n"
GATES = ("--min-change-usd", "10", "--fail-above-usd", "100")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    git_repo(tmp_path)
    (tmp_path / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n[traffic]\nrequests_per_day = 2000\n')
    return tmp_path


@pytest.fixture
def gh():
    fake = FakeGitHub()
    yield fake
    fake.close()


def commit(repo: Path, text: str, message: str) -> str:
    (repo / "answer.j2").write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def diff(repo: Path, base: str, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    body = repo / "diff.md"
    run = subprocess.run([sys.executable, "-m", "promptlint", "diff", "answer.j2", "--base", base, "--format",
                          "markdown", "-o", str(body), *GATES, *extra], cwd=repo, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    return run, body


def test_three_pushes_no_comment_a_failing_comment_then_the_comment_withdrawn(repo, gh):
    base = commit(repo, GOOD, "base")
    commit(repo, LONGER, "push 1: a longer instruction after the question")
    small, body = diff(repo, base)
    assert small.returncode == 0, small.stderr
    assert "promptlint diff: the monthly cost change ($2.88) is under --min-change-usd 10: no comment" in small.stderr
    assert "<!-- promptlint: below-threshold -->" in body.read_text()
    posted = post(gh, body)
    assert posted.exit_code == 0 and "No comment posted" in posted.stdout and gh.bodies() == []

    commit(repo, TIME_FIRST, "push 2: the time on top")
    big, body = diff(repo, base)
    assert big.returncode == 1
    assert "fails the cost gate: +$301.27/month is above --fail-above-usd 100" in big.stderr
    text = body.read_text()
    assert "> **Fails the cost gate: +$301.27/month is above --fail-above-usd 100.**" in text
    assert "below-threshold" not in text
    assert post(gh, body).exit_code == 0 and len(gh.bodies()) == 1 and "+$301.27/month" in gh.bodies()[0]

    commit(repo, LONGER, "push 3: the time taken out again")
    back, body = diff(repo, base)
    assert back.returncode == 0
    withdrawn = post(gh, body)
    assert withdrawn.exit_code == 0 and "deleted 1 earlier comment" in withdrawn.stdout
    assert gh.bodies() == []


def test_a_fall_passes_with_its_comment_and_hide_and_new_hides_the_old_one(repo, gh):
    base = commit(repo, TIME_FIRST, "base: the time on top")
    old = gh.add(f"{MARKER}\nan earlier push's report")
    commit(repo, TIME_LAST, "the time moved to the end")
    fall, body = diff(repo, base, "--fail-above-pct", "50")
    assert fall.returncode == 0, fall.stderr
    assert "-$299.35/month" in body.read_text().splitlines()[1] and "Fails the cost gate" not in body.read_text()
    posted = post(gh, body, "--behavior", "hide-and-new")
    assert posted.exit_code == 0 and posted.stdout.startswith("Hid 1 old comment and created a new comment")
    assert gh.comments[old]["minimized"] == "OUTDATED" and len(gh.bodies()) == 2


def test_the_percentage_gate_and_the_json_verdict(repo):
    base = commit(repo, GOOD, "base")
    commit(repo, TIME_FIRST, "the time on top")
    run = subprocess.run([sys.executable, "-m", "promptlint", "diff", "answer.j2", "--base", base, "--format", "json",
                          "--fail-above-pct", "200", "--min-change-pct", "1"], cwd=repo, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert run.returncode == 1
    import json

    gate = json.loads(run.stdout)["gate"]
    assert gate["material"] is True and gate["quiet_reason"] is None
    assert gate["change_per_month_usd"] == pytest.approx(301.27, abs=0.01)
    assert gate["failed"] == [f"+{gate['change_pct']:,.1f}% is above --fail-above-pct 200"]
    assert gate["change_pct"] > 200
