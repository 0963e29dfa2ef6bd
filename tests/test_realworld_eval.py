"""bench/realworld_eval.py scores real repositories from a mirror of git
directories: here a two-commit repository made in the test stands in for a
fetched one, so the scorer itself is tested (named files, folder walks,
misses, false alarms, and files the snapshot lacks)."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import realworld_eval as rw  # noqa: E402

from tests.helpers import STABLE  # noqa: E402

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="needs git")


def _git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def mirror(tmp_path):
    work = tmp_path / "work"
    (work / "agent").mkdir(parents=True)
    (work / "agent" / "system_prompt.md").write_text("Current time: {{ now }}\n" + STABLE)
    (work / "agent" / "answer.md").write_text("You are helpful.\n" + STABLE + "Question: {{ question }}\n")
    (work / "agent" / "notes_prompt.md").write_text("Plan: {{ weekly_focus }}\n" + STABLE)
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "prompts")
    mirror = tmp_path / "mirror"
    (mirror / "acme+bot").mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror / "acme+bot" / "repo")], check=True)
    return mirror, _git(work, "rev-parse", "HEAD")


def _cases(tmp_path, commit):
    cases = tmp_path / "cases.toml"
    rows = [("flag-time", "agent/system_prompt.md", "flag", 1),   # found, on its line
            ("clean-question", "agent/answer.md", "clean", 0),    # nothing to find
            ("flag-goal", "agent/notes_prompt.md", "flag", 1)]    # weekly_focus has no evidence: a miss
    cases.write_text("".join(f'[[case]]\nid = "{i}"\nrepo = "acme/bot"\ncommit = "{commit}"\npath = "{p}"\n'
                             f'subtree = "agent"\nverdict = "{v}"\nline = {n}\nconstruct = "x"\n\n'
                             for i, p, v, n in rows))
    return cases


def test_scores_named_files_and_walks(tmp_path, mirror):
    mirror_dir, commit = mirror
    report = rw.evaluate(rw.load_cases(_cases(tmp_path, commit)), mirror_dir, "both", None, 1)
    for mode in ("named", "walk"):
        r = report[mode]
        assert (r["flags"], r["detected"], r["line_exact"], r["false_alarms"]) == (2, 1, 1, 0), r
        assert r["recall"] == 0.5 and r["precision"] == 1.0 and r["line_exact_rate"] == 1.0
        assert len(r["misses"]) == 1 and r["misses"][0].startswith("flag-goal: agent/notes_prompt.md:1 [flag]: missed")
    assert report["walk"]["folders"][0]["files"] == 3


def test_bad_cases_file_is_one_line_error(tmp_path):
    bad = tmp_path / "cases.toml"
    bad.write_text('[[case]]\nid = "x"\nrepo = "a/b"\ncommit = "c"\npath = "p"\nverdict = "maybe"\n')
    with pytest.raises(rw.CaseError, match="verdict must be one of flag, low, clean"):
        rw.load_cases(bad)
