"""The hooks in .pre-commit-hooks.yaml under the real pre-commit tool: a bad
prompt fails the commit, a good one passes, and the fix hook repairs what it
can. Slow (pre-commit builds the hook's virtual environment from this repo
with pip), so marked; CI runs it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git_repo

ROOT = Path(__file__).resolve().parent.parent
STABLE = ("You are the support assistant for Harbor & Pine, an outdoor gear retailer. Answer questions about "
          "orders, returns, warranties and product care. Be concise and friendly, never invent order details, "
          "and always offer to connect the customer with a human agent when a refund over $200 is requested. "
          "Policies: returns within 60 days with a receipt; lifetime warranty on stitching and buckles.\n")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    pytest.importorskip("pre_commit")
    return tmp_path_factory.mktemp("pre-commit-home")


def git(repo: Path, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def try_repo(repo: Path, home: Path, hook: str):
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture
def repo(tmp_path):
    git_repo(tmp_path)
    (tmp_path / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n')
    (tmp_path / "good.j2").write_text(STABLE + "Customer: {{ user_name }}. Time: {{ now }}\n")
    (tmp_path / "bad.j2").write_text("Current time: {{ now }}\n" + STABLE)
    (tmp_path / "tools.j2").write_text("{% for name, spec in tools.items() %}{{ name }}: {{ spec }}\n{% endfor %}"
                                       + STABLE)
    return tmp_path


def test_bad_prompt_fails_the_commit_and_good_one_passes(repo, pre_commit_home):
    git(repo, "add", "promptlint.toml", "good.j2")
    good = try_repo(repo, pre_commit_home, "promptlint")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

    git(repo, "add", "bad.j2")
    bad = try_repo(repo, pre_commit_home, "promptlint")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "bad.j2:1:15: PL001 {{ now }} changes per request" in bad.stdout
    assert "good.j2" not in bad.stdout.split("Failed", 1)[1]


def test_prompts_found_by_what_they_are_are_checked_and_other_text_passes(repo, pre_commit_home):
    """The hook passes every text file: a system prompt in Markdown and an
    agent config anywhere are checked, a README and a script are skipped."""
    (repo / "agent").mkdir()
    (repo / "agent" / "system_prompt.md").write_text("The current time is {{ current_time }}.\n" + STABLE)
    (repo / "agent" / "planner.yaml").write_text("planner:\n  system_prompt: |\n    Today is {now}.\n    "
                                                 + STABLE.replace("\n", "\n    ") + "\n")
    (repo / "README.md").write_text("# Tools\nRun `make` to build {{ target }}.\n")
    (repo / "build.sh").write_text("#!/bin/sh\necho ${HOME}\n")
    git(repo, "add", "promptlint.toml", "agent/system_prompt.md", "README.md", "build.sh")
    result = try_repo(repo, pre_commit_home, "promptlint")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "agent/system_prompt.md:1:21: PL001 {{ current_time }} changes per request" in result.stdout
    assert "README.md" not in result.stdout and "build.sh" not in result.stdout
    git(repo, "rm", "-q", "--cached", "agent/system_prompt.md")
    git(repo, "add", "agent/planner.yaml")
    result = try_repo(repo, pre_commit_home, "promptlint")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "agent/planner.yaml:3:14: PL001 {now} changes per request" in result.stdout


def test_fix_hook_sorts_the_loop(repo, pre_commit_home):
    git(repo, "add", "promptlint.toml", "tools.j2")
    result = try_repo(repo, pre_commit_home, "promptlint-fix")
    assert result.returncode == 1  # files were modified, so pre-commit stops the commit
    assert "tools | dictsort" in (repo / "tools.j2").read_text()


def test_locked_hook_fails_on_an_include_that_changed_the_stable_prefix(repo, pre_commit_home):
    """promptlint-locked checks the whole tree: only the include is staged,
    and the prompt that includes it fails, at the include's line."""
    (repo / "bad.j2").unlink()
    (repo / "partials").mkdir()
    (repo / "partials" / "policy.j2").write_text("Returns within 60 days.\nLifetime warranty on stitching.\n")
    (repo / "main.j2").write_text(STABLE + '{% include "partials/policy.j2" %}\nQuestion: {{ question }}\n')
    lock = subprocess.run([sys.executable, "-m", "promptlint", "lock", "."], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert lock.returncode == 0, lock.stderr
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "locked")
    passed = try_repo(repo, pre_commit_home, "promptlint-locked")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    (repo / "partials" / "policy.j2").write_text("Returns within 60 days.\nToday is {{ today }}.\n"
                                                 "Lifetime warranty on stitching.\n")
    git(repo, "add", "partials/policy.j2")
    failed = try_repo(repo, pre_commit_home, "promptlint-locked")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "partials/policy.j2:2:1: PL009 prompt main.j2::main:" in failed.stdout
