"""The catalogue's examples are the rules' tests: every bad example yields
exactly its listed findings of its rule, every good example none. Also: the
catalogue is complete and docs/rules.md is generated from it."""

import importlib
from pathlib import Path

import pytest

from promptlint import catalogue
from promptlint import lockfile
from promptlint.audit import run_audit, select_models
from promptlint.checks import module_name
from promptlint.config import from_table
from promptlint.fixer import run_fix
from promptlint.lint import run_check
from promptlint.report.rule_docs import catalogue_markdown

ROOT = Path(__file__).resolve().parent.parent
RULES = catalogue.load()
EXAMPLES = [pytest.param(rule, ex, id=f"{rule.id}-{ex.kind}-{i + 1}-{ex.file}")
            for rule in RULES.values() for i, ex in enumerate(rule.examples)]


def _write(tmp_path: Path, example, code: str, files: dict) -> Path:
    for rel, body in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body, encoding="utf-8", newline="")
    path = tmp_path / example.file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code, encoding="utf-8", newline="")
    return path


def run_example(tmp_path: Path, example):
    """`check` on the example; for a lock example (PL009), `lock` on the
    files as they were (`locked`, `locked_files`), then `check --locked`."""
    config = from_table(dict(example.config), None, tmp_path)
    models = select_models(config)
    lock = None
    if example.locked is not None:
        path = _write(tmp_path, example, example.locked, example.locked_files or example.files)
        lock = lockfile.snapshot(run_audit([path], config, models).prompts, tmp_path)
    path = _write(tmp_path, example, example.code, example.files)
    if lock is None:
        return run_check([path], config, models)
    return run_check([path], config, models, audit=run_audit([path], config, models), locked=(lock, tmp_path))


@pytest.mark.parametrize("rule,example", EXAMPLES)
def test_catalogue_example(tmp_path, rule, example):
    result = run_example(tmp_path, example)
    assert result.errors == []
    found = sorted(f.line_col for f in result.findings if f.rule == rule.id)
    assert found == sorted(example.findings), [f.message for f in result.findings if f.rule == rule.id]


FIXES = [pytest.param(rule, ex, id=f"{rule.id}-fix-{i + 1}-{ex.file}")
         for rule in RULES.values() for i, ex in enumerate(rule.examples) if ex.fixed is not None]


@pytest.mark.parametrize("rule,example", FIXES)
def test_catalogue_fix_example(tmp_path, rule, example):
    run_example(tmp_path, example)  # writes the files
    config = from_table(dict(example.config), None, tmp_path)
    path = tmp_path / example.file
    if example.unsafe_fix:  # a safe run leaves an unsafe fix alone
        run_fix([path], config, select_models(config), unsafe=False, select=[rule.id])
        assert path.read_text(encoding="utf-8") == example.code
    result = run_fix([path], config, select_models(config), unsafe=example.unsafe_fix, select=[rule.id])
    assert [f.skipped for f in result.files] == [None]
    assert path.read_text(encoding="utf-8") == example.fixed
    again = run_fix([path], config, select_models(config), unsafe=example.unsafe_fix, select=[rule.id])
    assert again.files == [] and path.read_text(encoding="utf-8") == example.fixed  # idempotent


def test_there_are_fix_examples():
    assert len(FIXES) >= 3


@pytest.mark.parametrize("rule", RULES.values(), ids=list(RULES))
def test_rule_is_complete(rule):
    importlib.import_module(module_name(rule.id, rule.name))
    bad = [e for e in rule.examples if e.kind == "bad"]
    good = [e for e in rule.examples if e.kind == "good"]
    assert len(bad) >= 2 and len(good) >= 2
    formats = {Path(e.file).suffix for e in rule.examples}
    assert len(formats) >= 2, "examples in more than one source format"
    assert rule.path == f"{rule.id}-{rule.name}.toml"


def test_rule_docs_are_generated_from_the_catalogue():
    docs = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert docs == catalogue_markdown(RULES), "docs/rules.md is stale: run `promptlint rules --format markdown > docs/rules.md`"
