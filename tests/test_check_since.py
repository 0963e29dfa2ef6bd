"""`check --since REF` in a temporary git repository: of 20 old findings
and one new, only the new one; a renamed file keeps its old findings out;
a prompt whose stable prefix an include edit shrank keeps its finding on a
line nobody touched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ROOT = Path(__file__).resolve().parent.parent
STABLE = ("You are the support assistant for Harbor & Pine, an outdoor gear retailer. Answer questions about "
          "orders, returns, warranties and product care. Be concise and friendly, never invent order details, "
          "and always offer to connect the customer with a human agent when a refund over $200 is requested. "
          "Policies: returns within 60 days with a receipt; lifetime warranty on stitching and buckles.\n")


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "promptlint", "check", "--no-cache", *args], cwd=repo,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def findings(result) -> list[str]:
    return [line.split(" ", 2)[0] + " " + line.split(" ", 2)[1] for line in result.stdout.splitlines()
            if " PL0" in line]


@pytest.fixture
def repo(tmp_path):
    git_repo(tmp_path)
    (tmp_path / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n')
    return tmp_path


def test_twenty_old_findings_and_one_new_shows_the_new_one(repo):
    prompts = repo / "prompts"
    prompts.mkdir()
    for i in range(20):
        (prompts / f"old{i:02}.j2").write_text(f"Current time: {{{{ now }}}}\n{STABLE}Question: {{{{ question }}}}\n")
    (prompts / "edited.j2").write_text(f"{STABLE}Question: {{{{ question }}}}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "twenty old cache breakers")
    (prompts / "edited.j2").write_text(f"{STABLE}Question: {{{{ question }}}}\n")
    (prompts / "edited.j2").write_text(f"Request {{{{ request_id }}}}.\n{STABLE}Question: {{{{ question }}}}\n")
    everything = run(repo, "prompts")
    assert len([f for f in findings(everything) if "PL001" in f]) == 21
    result = run(repo, "prompts", "--since", "HEAD")
    assert result.returncode == 1, result.stderr
    assert findings(result) == ["prompts/edited.j2:1:9: PL001"]
    assert "(20 older than HEAD)" in result.stdout.splitlines()[-1]
    git(repo, "mv", "prompts/old00.j2", "prompts/renamed.j2")  # a rename brings no old finding back
    assert findings(run(repo, "prompts", "--since", "HEAD")) == ["prompts/edited.j2:1:9: PL001"]
    (prompts / "brand-new.j2").write_text(f"Now: {{{{ now }}}}\n{STABLE}Question: {{{{ question }}}}\n")
    assert findings(run(repo, "prompts", "--since", "HEAD")) == ["prompts/brand-new.j2:1:6: PL001",
                                                                 "prompts/edited.j2:1:9: PL001"]


def test_an_include_edit_that_shrinks_the_prefix_keeps_the_finding_on_an_untouched_line(repo):
    """The long policy moves from the include before the time line to the one
    after it: the prompt file is untouched, its stable prefix shrank, and its
    old line 2 now breaks the cache for the text after it."""
    partials = repo / "partials"
    partials.mkdir()
    (partials / "intro.j2").write_text(STABLE * 3)
    (partials / "policy.j2").write_text("Be brief.\n")
    (repo / "answer.j2").write_text('{% include "partials/intro.j2" %}\nTime: {{ now }}\n'
                                    '{% include "partials/policy.j2" %}\nQuestion: {{ question }}\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the policy first")
    assert findings(run(repo, "answer.j2")) == []
    (partials / "intro.j2").write_text("Be brief.\n")
    (partials / "policy.j2").write_text(STABLE * 3)
    result = run(repo, "answer.j2", "--since", "HEAD")
    assert result.returncode == 1
    assert findings(result) == ["answer.j2:2:7: PL001"]


def test_a_bad_revision_is_one_clear_error(repo):
    (repo / "a.j2").write_text(STABLE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    result = run(repo, "a.j2", "--since", "no-such-branch")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "no-such-branch" in result.stderr
