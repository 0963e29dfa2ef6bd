"""The result cache of `promptlint check`: a second run reuses what did not
change, gives the same report, and re-analyses a file whose include or
imported module changed (or appeared where an import looked)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
STABLE = "Follow the support policy. " * 40


@pytest.fixture
def cached(monkeypatch, tmp_path):
    """`check` with the cache on, in a folder of this test's own."""
    monkeypatch.delenv("PROMPTLINT_NO_CACHE", raising=False)
    folder = tmp_path / "cache"

    def run(*args):
        result = CliRunner().invoke(main, ["check", "--cache-dir", str(folder), "-v", "--format", "json", *args])
        assert result.exit_code in (0, 1), result.output
        report = json.loads(result.stdout)
        reused = [line for line in result.stderr.splitlines() if "result cache:" in line]
        return report, reused[0] if reused else ""

    run.folder = folder
    return run


def _app(folder: Path, imports: str, system: str) -> None:
    """app.py: a chat call whose system message is `system`, from values `imports` brings in."""
    (folder / "app.py").write_text(
        f"from openai import OpenAI\n{imports}\n\n\n"
        "def answer(client: OpenAI, question):\n"
        '    return client.chat.completions.create(model="gpt-4.1", messages=[\n'
        f'        {{"role": "system", "content": {system}}},\n'
        '        {"role": "user", "content": question}])\n')


def _lines(report) -> list[tuple[str, int, str]]:
    return [(f["location"]["path"], f["location"]["line"], f["code"]) for f in report["findings"]]


def test_second_run_reuses_every_file_and_reports_the_same(cached, tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "support-bot", tree)
    monkeypatch.chdir(tree)
    first, said = cached(".")
    assert "0 of" in said and first["findings"]
    second, said = cached(".")
    files = first["summary"]["files"] if "summary" in first else None
    assert second == first
    assert said.startswith("note: result cache:") and " of " in said
    hits, total = said.split("result cache: ")[1].split(" files")[0].split(" of ")
    assert hits == total and int(total) > 0, (said, files)


def test_a_changed_include_re_analyses_the_template_that_includes_it(cached, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "header.j2").write_text("You are the support assistant.\n")
    (tmp_path / "system.j2").write_text('{% include "header.j2" %}\n' + STABLE + "\n")
    before, _ = cached("system.j2")
    assert not [f for f in _lines(before) if f[2] == "PL001"]
    (tmp_path / "header.j2").write_text("You are the support assistant. It is {{ current_time }}.\n")
    after, said = cached("system.j2")
    assert ("header.j2", 1, "PL001") in _lines(after), after  # found in the include, through the template
    assert "0 of 1" in said


def test_a_changed_imported_module_re_analyses_its_importer(cached, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts.py").write_text(f'SYSTEM_PROMPT = "You are the assistant."\nRULES = "{STABLE}"\n')
    _app(tmp_path, "from prompts import SYSTEM_PROMPT, RULES", "SYSTEM_PROMPT + RULES")
    before, _ = cached("app.py")
    assert not [f for f in _lines(before) if f[2] == "PL001"]
    (tmp_path / "prompts.py").write_text(
        "from datetime import datetime\n"
        f'SYSTEM_PROMPT = f"You are the assistant. Now: {{datetime.now()}}"\nRULES = "{STABLE}"\n')
    after, said = cached("app.py")
    assert [f for f in _lines(after) if f[2] == "PL001"], after
    assert "0 of 1" in said
    again, said = cached("app.py")
    assert again == after and "1 of 1" in said


def test_a_module_created_where_an_import_looked_is_read(cached, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _app(tmp_path, "from helpers import SYSTEM_PROMPT", "SYSTEM_PROMPT")
    before, _ = cached("app.py")
    assert not [f for f in _lines(before) if f[2] == "PL001"]
    (tmp_path / "helpers.py").write_text(
        f'from datetime import datetime\nSYSTEM_PROMPT = f"Now: {{datetime.now()}}. {STABLE}"\n')
    after, said = cached("app.py")
    assert [f for f in _lines(after) if f[2] == "PL001"], after
    assert "0 of 1" in said


def test_a_module_created_that_fills_a_template_re_analyses_the_template(cached, tmp_path, monkeypatch):
    """A template's field takes what the tree's fill sites pass (fills): a
    module added anywhere in the tree can be one, so the entry checks them all."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts.py").write_text(f'ORDER_TEMPLATE = """Follow this order: {{order}}\n\n{STABLE}"""\n')
    before, _ = cached("prompts.py")
    assert [f[2] for f in _lines(before)] == ["PL008"]
    again, said = cached("prompts.py")
    assert again == before and "1 of 1" in said
    (tmp_path / "relay.py").write_text(
        "from prompts import ORDER_TEMPLATE\n\n\ndef relay(user_message):\n"
        "    return ORDER_TEMPLATE.format(order=user_message)\n")
    after, said = cached("prompts.py")
    assert _lines(after) == [("prompts.py", 1, "PL001")] and "0 of 1" in said
    assert "filled at relay.py:5" in after["findings"][0]["message"]


def test_a_caller_changed_in_another_module_re_analyses_the_function_it_calls(cached, tmp_path, monkeypatch):
    """A parameter no code of its module passes takes what the tree's other
    modules pass (flow.parameter, fills.callers): a caller edited elsewhere
    changes the finding, so the entry is not reused."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "writer.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\ndef write(kind):\n"
        f'    text = f"Write a {{kind}}.\\n\\n{STABLE}"\n'
        '    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])\n')
    (tmp_path / "cli.py").write_text("from writer import write\n\nwrite('release notes')\n")
    before, _ = cached("writer.py")
    assert [f[2] for f in _lines(before)] == ["PL008"]
    (tmp_path / "cli.py").write_text("from writer import write\n\n\ndef handle(request):\n"
                                     "    return write(request.body)\n")
    after, said = cached("writer.py")
    assert _lines(after) == [("writer.py", 7, "PL001")] and "0 of 1" in said
    assert "cli.py:5 passes request.body" in after["findings"][0]["message"]


def test_a_damaged_entry_is_a_miss_and_no_cache_writes_nothing(cached, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "system.j2").write_text("It is {{ current_time }}.\n" + STABLE + "\n")
    first, _ = cached("system.j2")
    entries = list(cached.folder.rglob("*.json"))
    assert len(entries) == 1
    entries[0].write_text('{"key": "')  # a run killed mid-write by hand
    second, said = cached("system.j2")
    assert second == first and "0 of 1" in said
    shutil.rmtree(cached.folder)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--cache-dir", str(cached.folder), "system.j2"])
    assert result.exit_code == 1 and not cached.folder.exists()


def test_paths_are_shown_from_where_each_run_starts(cached, tmp_path, monkeypatch):
    sub = tmp_path / "prompts"
    sub.mkdir()
    (sub / "system.j2").write_text("It is {{ current_time }}.\n" + STABLE + "\n")
    monkeypatch.chdir(tmp_path)
    top, _ = cached("prompts/system.j2")
    monkeypatch.chdir(sub)
    inside, _ = cached("system.j2")
    assert {f["location"]["path"] for f in top["findings"]} == {"prompts/system.j2"}
    assert {f["location"]["path"] for f in inside["findings"]} == {"system.j2"}


def test_a_tree_is_read_again_only_when_its_files_stat_changed_or_were_edited_just_before(tmp_path, monkeypatch):
    """The sha256 of a tree's Python files (what a template's fill sites
    depend on) is kept with their sizes and mtimes: an unchanged tree is not
    read again, a changed one is, and so is one edited within RACY_SECONDS
    of the hash (same size, same clock tick: git's racily-clean case)."""
    import os
    import time

    from promptlint.result_cache import RACY_SECONDS, ResultCache

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "relay.py").write_text("x = 'aaaa'\n")
    folder = tmp_path / "cache"
    first = ResultCache(folder, "run").tree_sha(str(tree))
    (tree / "relay.py").write_text("x = 'bbbb'\n")  # same size, just after the hash: read again
    racy = ResultCache(folder, "run").tree_sha(str(tree))
    assert racy != first
    old = time.time() - 10 * RACY_SECONDS
    os.utime(tree / "relay.py", (old, old))
    settled = ResultCache(folder, "run").tree_sha(str(tree))
    assert settled == racy

    real = type(tree).read_bytes

    def unread(self):
        assert self.suffix != ".py", f"{self} read again"
        return real(self)

    monkeypatch.setattr(type(tree), "read_bytes", unread)
    assert ResultCache(folder, "run").tree_sha(str(tree)) == settled  # from sizes and mtimes alone
    monkeypatch.undo()
    (tree / "relay.py").write_text("x = 'cccc'\n")
    (tree / "new.py").write_text("y = 1\n")
    assert ResultCache(folder, "run").tree_sha(str(tree)) not in (first, settled)
