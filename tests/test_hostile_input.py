"""Hostile but fair input (issue 14), one reproduction per finding of the
abuse campaign: nothing outside the project is read, reported or written;
special files never block; configuration mistakes are one line, exit 2;
an unexpected exception is one line and the run goes on; a fix keeps the
file's identity. The secrets cases live with the servers that echo them
(test_verify_http.py, test_comment_github.py)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import STABLE, invoke

ROOT = Path(__file__).resolve().parent.parent
MARK = "OUTSIDE-MARKER-7731"


def run(cwd: Path, *args, timeout: float = 60):
    """A real process (a FIFO must not block it; its streams are the real ones)."""
    return subprocess.run([sys.executable, "-m", "promptlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def project(tmp_path):
    """A git work tree inside tmp_path, with a file beside it (outside it) that must never be read."""
    (tmp_path / "secret.txt").write_text(f"{MARK} {{{{ now }}}} {{% bogus_tag %}}\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".git").mkdir()
    return proj


def _no_mark(*texts):
    for text in texts:
        assert MARK not in text


# ------------------------------------------------------------------ the project boundary


@pytest.mark.parametrize("include", ["../secret.txt", "{outside}/secret.txt"])
def test_an_include_out_of_the_project_is_not_read(project, include):
    name = include.format(outside=project.parent)
    (project / "a.j2").write_text(f'Intro.\n{{% include "{name}" %}}\n' + STABLE)
    for fmt in ("concise", "json", "sarif"):
        result = invoke(project, "check", "--show-info", "-v", "--output-format", fmt, "a.j2")
        assert result.exit_code in (0, 1)
        _no_mark(result.stdout, result.stderr)
    verbose = invoke(project, "check", "-v", "a.j2").stderr
    assert f"is outside the project: not read; read as a region of unknown content" in verbose
    audit = invoke(project, "audit", "a.j2")
    _no_mark(audit.stdout, audit.stderr)


def test_extends_and_partials_out_of_the_project_are_not_read(project):
    (project / "child.j2").write_text('{% extends "../secret.txt" %}{% block body %}Hi{% endblock %}\n' + STABLE)
    (project / "agent.prompt").write_text("---\nmodel: openai/gpt-4.1\n---\n{{> ../secret}}\n" + STABLE)
    (project.parent / "_secret.prompt").write_text(f"{MARK}\n")
    result = invoke(project, "check", "-v", "--show-info", ".")
    _no_mark(result.stdout, result.stderr)
    assert "is outside the project: not read; this file's blocks are read in place" in result.stderr


def test_fix_never_writes_through_a_link_out_of_the_project(project):
    body = "Tools:\n{% for name, tool in tools.items() %}- {{ name }}: {{ tool.description }}\n{% endfor %}\n" + STABLE
    outside = project.parent / "outside.j2"
    outside.write_text(body)
    (project / "linked.j2").symlink_to(outside)
    (project / "inside.j2").write_text(body)
    os.chmod(project / "inside.j2", 0o640)
    (project / "alias.j2").symlink_to("inside.j2")
    named = invoke(project, "fix", "linked.j2")
    assert "linked.j2: left unchanged: a link to a file outside the project" in named.stderr
    assert outside.read_text() == body  # untouched
    walked = invoke(project, "fix", ".")
    assert walked.exit_code == 0 and outside.read_text() == body
    # the link inside the project is written through: it stays a link, its target keeps its mode
    assert (project / "alias.j2").is_symlink() and "dictsort" in (project / "inside.j2").read_text()
    assert stat.S_IMODE((project / "inside.j2").stat().st_mode) == 0o640


# ------------------------------------------------------------------ special files


def test_a_fifo_a_device_and_link_loops_never_block_a_walk(project):
    (project / "good.j2").write_text("Current time: {{ now }}\n" + STABLE)
    os.mkfifo(project / "pipe.j2")
    (project / "zero.j2").symlink_to("/dev/zero")
    (project / "loop1.j2").symlink_to("loop2.j2")
    (project / "loop2.j2").symlink_to("loop1.j2")
    result = run(project, "check", "-v", ".", timeout=30)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stdout.startswith("good.j2:1:15: PL001")  # the good file beside them is reported
    assert "note: pipe.j2: skipped (a FIFO, not a regular file)" in result.stderr
    assert "note: zero.j2: skipped (a character device, not a regular file)" in result.stderr
    assert "note: loop1.j2: skipped (a symbolic link that leads nowhere or loops)" in result.stderr
    assert result.stdout.rstrip().endswith("1 prompt in 1 file; 4 files skipped (-v says why).")
    named = run(project, "check", "pipe.j2", "zero.j2", timeout=30)
    assert named.returncode == 2
    assert named.stderr.splitlines() == ["pipe.j2:1:1: a FIFO, not a regular file: not read",
                                         "zero.j2:1:1: a character device, not a regular file: not read"]


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(project):
    big = project / "big.j2"
    with big.open("wb") as fh:
        fh.truncate(6 * 1024 * 1024)  # sparse: nothing is actually written
    result = invoke(project, "check", "big.j2")
    assert result.exit_code == 2
    assert result.stderr.startswith("big.j2:1:1: file is 6,291,456 bytes, over the ")


# ------------------------------------------------------------------ one line, exit 2


@pytest.mark.parametrize("config, message", [
    ("[traffic]\nusers = inf\n", "traffic.users: expected a positive number up to 1e+12"),
    ("[traffic]\nrequests-per-day = 1e308\n", "traffic.requests-per-day: expected a positive number up to 1e+12"),
    ('exclude = ["[z-a]"]\n', "exclude: '[z-a]' is not a valid pattern (bad character range z-a"),
    ('[models."openai/gpt-4.1"]\ntokenizer = "nope"\n', "models: provider 'openai/gpt-4.1': field 'tokenizer' must"),
    ('[models."openai/gpt-4.1"]\ninput_price_per_mtok = nan\n', "must be a number from 0 to 1e+12"),
])
def test_configuration_mistakes_are_one_line_naming_the_file(project, config, message):
    (project / "promptlint.toml").write_text(config)
    (project / "a.j2").write_text("Current time: {{ now }}\n" + STABLE)
    result = invoke(project, "check", "a.j2")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {project / 'promptlint.toml'}: ") and message in line


def test_a_partial_or_include_name_too_long_for_the_file_system_is_one_line(project):
    long = "a" * 300
    (project / "long.prompt").write_text(f"Hi {{{{> {long}}}}}\n" + STABLE)
    (project / "long.j2").write_text(f'Hi {{% include "{long}.j2" %}}\n' + STABLE)
    result = invoke(project, "check", "long.prompt", "long.j2")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and all(":1:" in line and "internal error" not in line for line in lines)


def test_a_lone_surrogate_escape_does_not_crash_any_output(project):
    (project / "m.messages.json").write_text('[{"role": "system", "content": "Hi \\ud800 there. ' + STABLE
                                             + '"}, {"role": "user", "content": "{{ question }}"}]')
    for args in (["audit", "--format", "json"], ["audit"], ["check", "--format", "json"], ["check"]):
        result = run(project, *args, "m.messages.json")
        assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    json.loads(run(project, "audit", "--format", "json", "m.messages.json").stdout)


def test_an_unexpected_exception_in_one_file_is_its_error_and_the_run_goes_on(project, monkeypatch):
    from promptlint import sources

    (project / "bad.j2").write_text("Current time: {{ now }}\n" + STABLE)
    (project / "good.j2").write_text("Current time: {{ now }}\n" + STABLE)
    real = sources.load

    def load(path, fmt, ctx):
        if path.name == "bad.j2":
            raise RuntimeError("reader bug")
        return real(path, fmt, ctx)

    monkeypatch.setattr(sources, "load", load)
    result = invoke(project, "check", ".")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "bad.j2:1:1: internal error reading this file (RuntimeError: reader bug); please report it"]
    assert result.stdout.startswith("good.j2:1:15: PL001")


def test_an_unexpected_exception_at_the_top_is_one_line_exit_2(project, monkeypatch):
    import promptlint.lint

    (project / "a.j2").write_text("Hi\n")

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(promptlint.lint, "run_check", broken)
    result = invoke(project, "check", "a.j2")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "promptlint: internal error while running `promptlint check`: KeyError: 'boom'; please report it at "
        "https://github.com/promptlint/promptlint/issues"]


# ------------------------------------------------------------------ valid Python is read


def test_python_with_thousands_of_concatenated_strings_is_read_not_a_syntax_error(tmp_path):
    """libcst gives up on ~3,400 implicitly concatenated literals; CPython does not."""
    lines = ["SYSTEM_PROMPT = ("]
    lines += [f'    "Rule {i}: answer from the policy and cite its section. "' for i in range(3600)]
    lines += [")", "", "", "def build_prompt(now):", '    return f"Time: {now}\\n" + SYSTEM_PROMPT', ""]
    (tmp_path / "rules.py").write_text("\n".join(lines))
    result = invoke(tmp_path, "check", "rules.py")
    assert result.exit_code == 1, result.stderr
    assert result.stdout.startswith("rules.py:3606:21: PL001 now changes per request, ahead of ")


# ------------------------------------------------------------------ small inputs, bounded cost


def _timed_check(cwd: Path, name: str, limit: float):
    import time

    started = time.perf_counter()
    result = run(cwd, "check", "--show-info", name, timeout=limit * 4)
    elapsed = time.perf_counter() - started
    assert "Traceback" not in result.stderr, result.stderr
    assert elapsed < limit, f"{name}: {elapsed:.1f} s"
    return result


def test_twenty_nested_loops_render_in_linear_text(tmp_path):
    """2 items per loop rendered at every depth was 2^20 copies (60 s, 9 GB)."""
    depth = 20
    text = "".join(f"{{% for x{i} in xs{i} %}}{{{{ x{i} }}}}" for i in range(depth)) + STABLE
    (tmp_path / "nest.j2").write_text(text + "{% endfor %}" * depth + "\n")
    result = _timed_check(tmp_path, "nest.j2", 20)
    assert result.returncode in (0, 1)


def test_a_yaml_alias_bomb_is_refused_in_linear_time(tmp_path):
    bomb = 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n'
    for i in range(1, 9):
        prev, name = chr(96 + i), chr(97 + i)
        bomb += f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]\n"
    (tmp_path / "bomb.messages.yaml").write_text(bomb + "messages:\n  - role: system\n    content: hi\n")
    result = _timed_check(tmp_path, "bomb.messages.yaml", 20)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "bomb.messages.yaml:1:1: YAML aliases expand to more than 100,000 values (an alias bomb?): not read"]


def test_deeply_nested_python_is_an_info_line_not_gigabytes(tmp_path):
    expr = '"x"'
    for i in range(900):
        expr = f'("a{i}" if flag{i} else {expr})'
    (tmp_path / "cond.py").write_text("SYSTEM_PROMPT = " + expr + "\n")
    result = _timed_check(tmp_path, "cond.py", 20)
    assert result.returncode == 0
    assert "brackets nest 201 levels deep here, past the Python reader's limit of 200" in result.stderr


def test_include_fan_out_is_cut_at_the_expansion_limit(tmp_path):
    for level in range(7):
        body = "".join(f'{{% include "l{level + 1}.j2" %}}' for _ in range(5)) if level < 6 else "leaf text"
        (tmp_path / f"l{level}.j2").write_text(body + "\n")
    result = _timed_check(tmp_path, "l0.j2", 20)
    assert "past 1,000 included templates in one prompt: the rest are read as regions of unknown content" \
        in result.stderr


def test_a_library_warning_is_one_line(tmp_path):
    (tmp_path / "anchor.messages.yaml").write_text("- role: system\n  content: &x hi\n- role: user\n"
                                                   "  content: &x there\n")
    result = run(tmp_path, "check", "anchor.messages.yaml")
    assert result.returncode == 0
    [line] = result.stderr.splitlines()
    assert line.startswith("warning: found duplicate anchor 'x' ") and line.endswith("(ReusedAnchorWarning)")


@pytest.mark.parametrize("name, key", [("bomb.prompty", "sample"), ("bomb.prompt", "input:\n  default")])
def test_alias_bombs_in_front_matter_are_refused(tmp_path, name, key):
    lines = ['    a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 6):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"    {cur}: &{cur} [{', '.join(['*' + prev] * 9)}]")
    (tmp_path / name).write_text("---\nmodel: openai/gpt-4.1\n" + key + ":\n" + "\n".join(lines)
                                 + "\n---\nsystem:\nHello {{a}}\n")
    result = _timed_check(tmp_path, name, 20)
    assert result.returncode == 2
    assert f"{name}:1:1: front matter aliases expand to more than 100,000 values (an alias bomb?): not read" \
        in result.stderr.splitlines()


def test_macros_calling_macros_stay_bounded(tmp_path):
    text = "{% macro m0(x) %}[{{ x }}]{% endmacro %}\n"
    for i in range(1, 30):
        text += f"{{% macro m{i}(x) %}}{{{{ m{i - 1}(x) }}}}{{{{ m{i - 1}(x) }}}}{{{{ m{i - 1}(x) }}}}{{% endmacro %}}\n"
    (tmp_path / "macros.j2").write_text(text + "{{ m29(now) }} " + STABLE)
    result = _timed_check(tmp_path, "macros.j2", 20)
    assert result.returncode in (0, 1)


def test_a_lint_run_ends_with_its_status_and_all_of_its_output(tmp_path):
    """The lint commands end the process without the interpreter's teardown:
    every line is still written, and the exit status is the command's."""
    prompt = tmp_path / "system.j2"
    prompt.write_text("It is {{ current_time }}.\n" + "Follow the support policy. " * 60 + "\n")
    found = run(tmp_path, "check", "--no-cache", "--format", "json", str(prompt))
    assert found.returncode == 1 and json.loads(found.stdout)["findings"]
    missing = run(tmp_path, "check", "--no-cache", str(tmp_path / "nope.j2"))
    assert missing.returncode == 2 and "nope.j2:1:1: no such file or directory" in missing.stderr
