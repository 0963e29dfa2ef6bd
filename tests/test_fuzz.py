"""The fuzz tier (issue 14): mutations of the bundled fixtures, one seed per
reader, through check, audit and fix. Whatever the bytes, a run exits 0, 1
or 2, prints no traceback and no "internal error" (the top-level handler's
line: a bug), every error is one line, and each input finishes within a
time bound. `fix` keeps its promises on what it writes: the file re-parses,
a second fix changes nothing, the mode is kept, nothing outside the project
is written.

The default run tries FAST examples per reader; CI's slow tier runs the
longer profile (`-m slow`). A failing example is printed by hypothesis and
kept in its database for the next run."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from helpers import invoke
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {
    "jinja": ROOT / "fixtures/corpus/jinja/rag-answer.j2",
    "prompty": ROOT / "fixtures/seed/seed.prompty",
    "dotprompt": ROOT / "fixtures/corpus/dotprompt/kb-answer.prompt",
    "messages-json": ROOT / "fixtures/seed/seed.messages.json",
    "messages-yaml": ROOT / "fixtures/corpus/openai/analytics-copilot.messages.yaml",
    "markdown": next(iter(sorted((ROOT / "fixtures").rglob("*.md")))),
    "python": next(iter(sorted((ROOT / "fixtures/corpus/python").glob("*.py")))),
}
FAST, LONG = 12, 150
SECONDS_PER_INPUT = 20.0

# what a hostile edit inserts: template syntax of every reader, deep nesting, aliases, long names
INSERTS = [b"{{", b"}}", b"{%", b"%}", b"{% for x in y %}", b"{% endfor %}", b"{% if a %}", b"{% include 'x' %}",
           b"{{#each items}}", b"{{/each}}", b"{{> " + b"p" * 300 + b"}}", b"{{ now }}", b"${now}", b"{now}",
           b"&a [1, *a]", b"*a", b"- role: system\n  content: ", b'{"role": "user", "content": "', b"\\ud800",
           b"\xff\xfe", b"\xef\xbb\xbf", b"\r\n", b"\x00", b"(" * 50, b"[" * 50, b"'''", b'"""', b"---\n",
           b"\t" * 40, b"if x:\n" * 30]


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["truncate", "flip", "duplicate", "insert", "insert", "delete"]))
        # half of the edits land where the syntax is: beside a tag, a quote or a line start
        marks = [i for i in range(len(data)) if data[i:i + 1] in (b"{", b'"', b"\n", b":")]
        at = draw(st.sampled_from(marks)) if marks and draw(st.booleans()) else \
            draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "duplicate":
            lines = bytes(data).split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            lines[i:i] = [lines[i]] * draw(st.integers(1, 20))
            data = bytearray(b"\n".join(lines))
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from(INSERTS))
        elif data:
            del data[at:at + draw(st.integers(1, 40))]
    if draw(st.booleans()):
        data = bytearray(bytes(data).replace(b"\n", b"\r\n"))
    return bytes(data)


def _assert_well_behaved(result, seconds: float):
    assert result.exit_code in (0, 1, 2), result.exit_code
    text = result.stdout + result.stderr
    assert "Traceback" not in text and "internal error" not in text, result.stderr[-2000:]
    for line in result.stderr.splitlines():
        assert line.strip(), "an empty error line"
    assert seconds < SECONDS_PER_INPUT, f"{seconds:.1f} s"


def _campaign(reader: str, examples: int):
    seed = SEEDS[reader].read_bytes()

    @settings(max_examples=examples, deadline=None, database=None, derandomize=examples == FAST,
              suppress_health_check=list(HealthCheck))
    @given(data=mutated(seed))
    def run(tmp_path_factory, data):
        project = tmp_path_factory.mktemp("fuzz")
        (project / ".git").mkdir()
        target = project / SEEDS[reader].name
        target.write_bytes(data)
        os.chmod(target, 0o640)
        outside = project.parent / f"outside-{project.name}.txt"
        outside.write_text("never written\n")
        for command in (["check", "--show-info", "--output-format", "json"], ["check"], ["audit"]):
            started = time.perf_counter()
            result = invoke(project, *command, target.name)
            _assert_well_behaved(result, time.perf_counter() - started)
        started = time.perf_counter()
        fixed = invoke(project, "fix", "--unsafe-fixes", target.name)
        _assert_well_behaved(fixed, time.perf_counter() - started)
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        assert outside.read_text() == "never written\n"
        if fixed.exit_code != 2 and target.read_bytes() != data:
            # the fixed file re-parses (no input error) and a second fix changes nothing
            after = target.read_bytes()
            again = invoke(project, "fix", "--unsafe-fixes", target.name)
            assert target.read_bytes() == after, "fix is not idempotent"
            assert again.exit_code in (0, 1) and "error" not in again.stderr.lower()

    return run


@pytest.mark.parametrize("reader", sorted(SEEDS))
def test_fuzz_fast(reader, tmp_path_factory):
    _campaign(reader, FAST)(tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("reader", sorted(SEEDS))
def test_fuzz_long(reader, tmp_path_factory):
    _campaign(reader, LONG)(tmp_path_factory)
