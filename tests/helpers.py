"""Shared by the CLI tests: a realistic stable instruction block, a small
project with one prompt per volatility class, and running the CLI in a
folder as a user would."""

import os
from pathlib import Path

from click.testing import CliRunner

from promptlint.cli import main

STABLE = (
    "You are the support assistant for Harbor & Pine, an outdoor gear retailer.\n"
    "Answer questions about orders, returns, warranties and product care. Be concise\n"
    "and friendly, never invent order details, and always offer to connect the\n"
    "customer with a human agent when a refund over $200 is requested. Policies:\n"
    "returns within 60 days with a receipt; lifetime warranty on stitching and\n"
    "buckles; no returns on worn footwear.\n"
)


def invoke(cwd: Path, *args, input: str | None = None):
    """`promptlint ARGS` run in `cwd` (paths in the output are relative to it), `input` on stdin."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    finally:
        os.chdir(old)


def git_repo(root: Path) -> Path:
    """An empty git repository at `root` with a committer set."""
    import subprocess

    for args in (("init", "-q"), ("config", "user.email", "dev@example.com"), ("config", "user.name", "Dev")):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def write_project(root: Path) -> Path:
    """Four prompts: a request-class, a user-class and a day-class value ahead
    of the stable text, and a clean one. A low minimum keeps them cacheable,
    so findings carry money."""
    (root / "promptlint.toml").write_text('providers = ["openai/gpt-4.1"]\n'
                                          '[models."openai/gpt-4.1"]\nmin_tokens = 64\n')
    (root / "time.j2").write_text("Current time: {{ now }}\n" + STABLE)
    (root / "user.j2").write_text("Hello {{ user_name }}.\n" + STABLE)
    (root / "date.j2").write_text("Today is {{ today }}.\n" + STABLE)
    (root / "clean.j2").write_text(STABLE + "Question: {{ question }}\n")
    return root


def check_under(data: Path, paths):
    """`promptlint check` in-process on `paths`, with the default config rooted at `data`."""
    from promptlint.audit import select_models
    from promptlint.config import from_table
    from promptlint.lint import run_check

    config = from_table({}, None, data)
    return run_check(paths, config, select_models(config))


def found_in(result, data: Path, rel: str) -> list[tuple]:
    """(rule, line, column, severity) of the findings of one file, sorted."""
    return sorted((f.rule, *f.line_col, f.severity.label) for f in result.findings
                  if f.span.file.path.resolve() == (data / rel).resolve())


def fixture_tree_tests(data: Path, expected: dict):
    """The two tests of a fixture tree whose files each give exactly their
    findings: named one by one, and found by a folder walk. A module binds
    them to test_* names; `walk()` returns the whole tree's result, for
    further assertions."""
    import pytest

    @pytest.mark.parametrize("rel", sorted(expected))
    def named(rel):
        result = check_under(data, [data / rel])
        assert result.errors == []
        assert found_in(result, data, rel) == sorted(expected[rel])

    def walk():
        result = check_under(data, [data])
        assert result.errors == []
        for rel, findings in expected.items():
            assert found_in(result, data, rel) == sorted(findings), rel
        return result

    return named, walk
