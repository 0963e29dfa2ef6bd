"""`check -j N`: files analysed in N worker processes give the report one
process gives, in the same order, with the same exit code."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from promptlint.cli import main
from promptlint.parallel import PARALLEL_MIN_FILES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_jobs_give_the_same_report_as_one_process(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    runs = {}
    for jobs in ("1", "2"):
        result = CliRunner().invoke(main, ["check", "--no-cache", "-j", jobs, "--format", "json", "."])
        runs[jobs] = (result.exit_code, result.stdout)
    assert runs["1"][0] == 1 and '"PL001"' in runs["1"][1]
    assert runs["2"] == runs["1"]


def test_an_input_error_in_a_worker_is_reported_with_its_file_and_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(PARALLEL_MIN_FILES + 2):
        (tmp_path / f"p{i}.j2").write_text(f"Prompt {i} for {{{{ question }}}}.\n")
    (tmp_path / "broken.j2").write_text("Hello {% if %}\n")
    serial = CliRunner().invoke(main, ["check", "--no-cache", "-j", "1", "."])
    parallel = CliRunner().invoke(main, ["check", "--no-cache", "-j", "2", "."])
    assert serial.exit_code == parallel.exit_code == 2
    assert "broken.j2:1:" in parallel.stderr and parallel.stderr == serial.stderr
    assert parallel.stdout == serial.stdout


def test_audit_and_fix_with_jobs_give_what_one_process_gives(tmp_path, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    audits = [CliRunner().invoke(main, ["audit", "-j", j, "--format", "json", "corpus"]) for j in ("1", "2")]
    assert audits[0].exit_code == audits[1].exit_code == 1
    assert audits[0].stdout == audits[1].stdout and '"prompts"' in audits[0].stdout
    fixes = [CliRunner().invoke(main, ["fix", "--diff", "-j", j, "corpus"]) for j in ("1", "2")]
    assert fixes[0].exit_code == fixes[1].exit_code and fixes[0].output == fixes[1].output
    assert "Would fix" in fixes[0].output
