"""Every `promptlint ...` command line in action.yml and in the README's
workflow examples uses commands and options the CLI really has."""

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from promptlint.cli import main

ROOT = Path(__file__).resolve().parent.parent


def command_lines() -> list[tuple[str, str]]:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    lines = []
    for step in action["runs"]["steps"]:
        for line in step.get("run", "").replace("\\\n", " ").splitlines():
            lines.append(("action.yml", line))
    readme = (ROOT / "README.md").read_text()
    for block in re.findall(r"```(?:yaml|sh)\n(.*?)```", readme, re.S):
        for line in block.splitlines():
            lines.append(("README.md", line))
    return [(where, line.strip().split("run: ", 1)[-1].split("&&")[-1].strip())
            for where, line in lines if re.search(r"(^|\s|run: )promptlint \w", line)]


CASES = command_lines()


def test_there_are_commands_to_check():
    assert {where for where, _ in CASES} == {"action.yml", "README.md"}
    assert len(CASES) >= 8


@pytest.mark.parametrize("where,line", CASES, ids=[f"{w}:{l[:40]}" for w, l in CASES])
def test_command_and_options_exist(where, line):
    words = shlex.split(re.sub(r"\$\{\{.*?\}\}", "X", line))
    words = words[words.index("promptlint") + 1:]
    ctx = click.Context(main)
    command = main.get_command(ctx, words[0])
    assert command is not None, f"{where}: no command {words[0]!r}"
    words = words[1:]
    if isinstance(command, click.Group):
        command = command.get_command(ctx, words[0])
        words = words[1:]
    known = {opt for p in command.params for opt in getattr(p, "opts", [])}
    for word in words:
        if word.startswith("-"):
            assert word.split("=")[0] in known, f"{where}: {line!r} uses unknown option {word}"
