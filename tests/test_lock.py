"""`promptlint lock`, `lock --check` and `check --locked` (PL009) end to end,
in a temporary git repository: an edited include fails every prompt that
includes it at the include's line; a reorder no rule knows fails the lock;
a new lock passes; the lock file is deterministic and versioned."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

INTRO = "You are the support assistant for Harbor & Pine, an outdoor gear retailer.\n"
SCOPE = "Answer questions about orders, returns, warranties and product care.\n"
POLICY = "Returns within 60 days with a receipt.\nLifetime warranty on stitching and buckles.\n"


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return subprocess.run([sys.executable, "-m", "promptlint", *args], cwd=repo, capture_output=True, text=True,
                          env=env, timeout=300)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    git_repo(tmp_path)
    (tmp_path / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n')
    prompts = tmp_path / "prompts"
    (prompts / "partials").mkdir(parents=True)
    (prompts / "partials" / "policy.j2").write_text(POLICY)
    body = INTRO + SCOPE + '{% include "partials/policy.j2" %}\nQuestion: {{ question }}\n'
    (prompts / "orders.j2").write_text(body)
    (prompts / "returns.j2").write_text(body.replace("Question", "Return question"))
    (prompts / "faq.j2").write_text(INTRO + SCOPE + "Question: {{ question }}\n")
    assert run(tmp_path, "lock", "prompts").returncode == 0
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "prompts and their lock")
    return tmp_path


def pl009(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stdout.splitlines() if " PL009 " in line]


def test_a_per_request_value_in_an_include_fails_every_prompt_that_includes_it(repo):
    assert run(repo, "check", "--locked", "prompts").returncode == 0
    (repo / "prompts" / "partials" / "policy.j2").write_text(
        "Returns within 60 days with a receipt.\nOffer valid until {{ now }}.\n"
        "Lifetime warranty on stitching and buckles.\n")
    git(repo, "commit", "-qam", "a date in the shared policy")
    result = run(repo, "check", "--locked", "--no-cache", "prompts")
    assert result.returncode == 1, result.stderr
    found = pl009(result)
    assert len(found) == 2
    assert all(line.startswith("prompts/partials/policy.j2:2:1: PL009 ") for line in found)
    assert {line.split("prompt ")[1].split(":")[0] for line in found} == {"prompts/orders.j2", "prompts/returns.j2"}
    assert "faq.j2" not in result.stdout
    # the lock updated with the change: passes again
    assert run(repo, "lock", "prompts").returncode == 0
    assert run(repo, "check", "--locked", "--no-cache", "prompts").returncode == 0


def test_reordering_literal_lines_fails_the_lock_where_no_rule_fires(repo):
    (repo / "prompts" / "faq.j2").write_text(SCOPE + INTRO + "Question: {{ question }}\n")
    plain = run(repo, "check", "--no-cache", "prompts")
    assert plain.returncode == 0, plain.stdout  # no rule knows this pattern
    result = run(repo, "check", "--locked", "--no-cache", "prompts")
    assert result.returncode == 1
    assert pl009(result) == [
        "prompts/faq.j2:1:1: PL009 prompt prompts/faq.j2::faq: stable prefix differs from promptlint.lock from "
        "token 0"]
    full = run(repo, "check", "--locked", "--no-cache", "--output-format", "full", "prompts")
    assert "(within 16 tokens)" in full.stdout and "run `promptlint lock`" in full.stdout


def test_lock_check_says_which_prompts_are_out_of_date(repo):
    up = run(repo, "lock", "--check", "prompts")
    assert up.returncode == 0 and up.stdout == "promptlint.lock is up to date (3 prompts).\n"
    (repo / "prompts" / "faq.j2").write_text(INTRO + SCOPE + "Question: see below.\n{{ question }}\n")
    (repo / "prompts" / "new.j2").write_text(INTRO + "{{ question }}\n")
    stale = run(repo, "lock", "--check", "prompts")
    assert stale.returncode == 1
    assert stale.stdout.splitlines() == [
        "promptlint.lock: prompts/faq.j2::faq: stable prefix changed (tiktoken:o200k_base global, "
        "tiktoken:o200k_base session, tiktoken:o200k_base user)",
        "promptlint.lock: prompts/new.j2::new: not in the lock",
        "promptlint.lock is out of date for 2 prompts: run `promptlint lock`."]
    # a grown prefix is no finding for check --locked; only the lock is stale
    assert pl009(run(repo, "check", "--locked", "--no-cache", "prompts")) == []


def test_the_lock_is_the_same_file_from_anywhere_and_keeps_its_mode(repo):
    lock = repo / "promptlint.lock"
    first = lock.read_bytes()
    lock.chmod(0o640)
    assert run(repo / "prompts", "lock", "--lock-file", "../promptlint.lock", ".").returncode == 0
    assert lock.read_bytes() == first
    assert stat.S_IMODE(lock.stat().st_mode) == 0o640
    text = first.decode()
    assert text.startswith("# promptlint.lock") and "\nversion = 1\n" in text
    keys = [line for line in text.splitlines() if line.startswith("[prompts.")]
    assert keys == sorted(keys) and '[prompts."prompts/faq.j2::faq".prefixes."tiktoken:o200k_base"]' in keys
    assert '"openai/gpt-4.1" = { global = ' in text


@pytest.mark.parametrize("content,message", [
    ("version = 2\n", "promptlint.lock: lock version 2 was written by a newer promptlint (this one reads version 1); "
                      "upgrade promptlint"),
    ("[prompts\n", "promptlint.lock: not a promptlint lock ("),
    ("prompts = 1\n", "promptlint.lock: not a promptlint lock (no version)"),
])
def test_a_lock_this_version_cannot_read_is_one_clear_error(repo, content, message):
    (repo / "promptlint.lock").write_text(content)
    for args in (("check", "--locked", "prompts"), ("lock", "--check", "prompts")):
        result = run(repo, *args)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


def test_a_missing_lock_and_an_unreadable_prompt(repo):
    (repo / "promptlint.lock").unlink()
    missing = run(repo, "check", "--locked", "prompts")
    assert missing.returncode == 2 and "no lock file; write one with `promptlint lock`" in missing.stderr
    assert run(repo, "lock", "prompts").returncode == 0
    before = (repo / "promptlint.lock").read_bytes()
    (repo / "prompts" / "broken.j2").write_text("{% if %}\n")
    broken = run(repo, "lock", "prompts")
    assert broken.returncode == 2 and "prompts/broken.j2:1" in broken.stderr
    assert "promptlint.lock not written" in broken.stderr
    assert (repo / "promptlint.lock").read_bytes() == before


def test_a_lock_of_some_paths_keeps_the_other_entries(repo):
    full = (repo / "promptlint.lock").read_text()
    (repo / "prompts" / "faq.j2").write_text(SCOPE + INTRO + "Question: {{ question }}\n")
    result = run(repo, "lock", "prompts/faq.j2")
    assert result.returncode == 0 and result.stdout == (
        "Wrote promptlint.lock: 1 prompt (and 2 kept from outside prompts/faq.j2).\n")
    text = (repo / "promptlint.lock").read_text()
    assert text != full and text.count("[prompts.") == full.count("[prompts.")
    assert run(repo, "lock", "--check", "prompts/orders.j2").returncode == 0  # the others are not "gone"
    assert run(repo, "lock", "--check", "prompts").returncode == 0
    assert run(repo, "check", "--locked", "--no-cache", "prompts").returncode == 0


def test_an_unreadable_lock_is_never_overwritten(repo):
    (repo / "promptlint.lock").write_text("version = 9\n")
    result = run(repo, "lock", "prompts")
    assert result.returncode == 2 and "(delete promptlint.lock to write a new one)" in result.stderr
    assert (repo / "promptlint.lock").read_text() == "version = 9\n"


def test_a_suppression_comment_silences_pl009_and_is_not_unused_without_the_lock(repo):
    (repo / "prompts" / "faq.j2").write_text("{# promptlint: ignore[PL009] #}\n" + SCOPE + INTRO
                                             + "Question: {{ question }}\n")
    locked = run(repo, "check", "--locked", "--no-cache", "prompts")
    assert locked.returncode == 0 and pl009(locked) == [] and "(1 suppressed)" in locked.stdout
    plain = run(repo, "check", "--no-cache", "prompts")
    assert plain.returncode == 0 and "PL007" not in plain.stdout
