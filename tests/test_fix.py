"""`promptlint fix`: safe fixes applied, unsafe ones only on request, the
file's bytes kept apart from the edit, verified before writing, idempotent."""

from pathlib import Path

from helpers import invoke

from promptlint.checks.base import Edit, Finding, Severity
from promptlint.config import Config
from promptlint.fixer import _still_raised
from promptlint.audit import select_models
from promptlint.ir import SourceFile, Span

STABLE = ("You are the on-call assistant for the platform team. Investigate alerts, read metrics, logs "
          "and deploy history, find the right runbook, and explain what you see and how sure you are. "
          "Leave decisions with real risk to the human on call, and never run a destructive action "
          "without an explicit confirmation from the engineer in the channel.\n")
MAPPING_LOOP = "{% for name, tool in tools.items() %}- {{ name }}: {{ tool.description }}\n{% endfor %}"
TOOL_LOOP = "{% for tool in tool_specs %}- {{ tool.name }}\n{% endfor %}"


def run(cwd: Path, *args):
    return invoke(cwd, "fix", *args)


def test_safe_fix_sorts_a_mapping_loop_and_keeps_bytes(tmp_path):
    path = tmp_path / "agent.j2"
    original = ("\ufeff" + "Tools:\r\n" + MAPPING_LOOP + STABLE).replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    path.write_bytes(original.encode("utf-8"))
    result = run(tmp_path, "agent.j2")
    assert result.stdout.splitlines()[0] == "agent.j2: fixed 1 (PL002)"
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # BOM kept
    assert data.count(b"\r\n") == original.count("\r\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert b"{% for name, tool in tools | dictsort %}" in data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.j2"]  # no temporary file left
    again = run(tmp_path, "agent.j2")
    assert again.stdout.startswith("Fixed 0 findings in 0 files")
    assert path.read_bytes() == data


def test_diff_writes_nothing(tmp_path):
    path = tmp_path / "agent.j2"
    path.write_text("Tools:\n" + MAPPING_LOOP + STABLE)
    before = path.read_bytes()
    result = run(tmp_path, "--diff", "agent.j2")
    assert "-{% for name, tool in tools.items() %}" in result.stdout
    assert "+{% for name, tool in tools | dictsort %}" in result.stdout
    assert result.exit_code == 1
    assert path.read_bytes() == before


def test_unsafe_fix_only_with_the_flag(tmp_path):
    path = tmp_path / "agent.j2"
    path.write_text("Tools:\n" + TOOL_LOOP + STABLE)
    run(tmp_path, "agent.j2")
    assert "tool_specs | sort" not in path.read_text()
    run(tmp_path, "--unsafe-fixes", "agent.j2")
    assert '{% for tool in tool_specs | sort(attribute="name") %}' in path.read_text()


def test_a_fix_that_would_not_parse_is_refused(tmp_path):
    path = tmp_path / "agent.j2"
    text = "Tools:\n" + MAPPING_LOOP + STABLE
    path.write_text(text)
    file = SourceFile(path, text, "agent.j2")
    start = text.index("tools.items()")
    finding = Finding("PL002", Severity.ERROR, "x: y", Span(file, start, start + 13),
                      edits=(Edit(Span(file, start, start + 13), "tools | dictsort %}{% endfor"),))
    broken = text[:start] + "tools | dictsort %}{% endfor" + text[start + 13:]
    config = Config(root=tmp_path)
    reason = _still_raised(path, broken, [finding], config, select_models(config))
    assert reason is not None and "would not parse" in reason


PY_STABLE = ("You are the support assistant for Harbor & Pine, an outdoor gear retailer. Answer questions about "
             "orders, returns, warranties and product care. Be concise and friendly, never invent order details, "
             "and always offer to connect the customer with a human agent when a refund over $200 is requested. "
             "Policies: returns within 60 days with a receipt; lifetime warranty on stitching and buckles.")


def test_python_fix_never_runs_the_module(tmp_path):
    """The module would write files at import; check and fix parse it with
    libcst only, so nothing is written, and the safe fix still applies."""
    app = tmp_path / "app.py"
    app.write_text(
        'import json, os\nfrom openai import OpenAI\n'
        'open("PWNED", "w").write("imported")\n'
        '__import__("os").system("touch PWNED2")\n'
        'client = OpenAI()\n\n'
        'def answer(question, schema):\n'
        f'    system = f"""Schema: {{json.dumps(schema)}}\n{PY_STABLE}"""\n'
        '    return client.chat.completions.create(model="gpt-4.1", messages=[\n'
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])\n')
    result = run(tmp_path, "app.py")
    assert result.stdout.splitlines()[0] == "app.py: fixed 1 (PL001)"
    assert "json.dumps(schema, sort_keys=True)" in app.read_text()
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "PWNED2").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.py"]


def test_python_clock_lowered_to_the_day_when_the_config_says_so(tmp_path):
    (tmp_path / "promptlint.toml").write_text('[fix]\ntimestamp-precision = "day"\n')
    app = tmp_path / "app.py"
    app.write_text('from datetime import datetime\nfrom openai import OpenAI\nclient = OpenAI()\n\n'
                   'def answer(question):\n'
                   f'    system = f"""Today: {{datetime.now()}}\n{PY_STABLE}"""\n'
                   '    return client.chat.completions.create(model="gpt-4.1", messages=[\n'
                   '        {"role": "system", "content": system}, {"role": "user", "content": question}])\n')
    run(tmp_path, "app.py")
    assert 'f"""Today: {datetime.now():%Y-%m-%d}' in app.read_text()
    (tmp_path / "promptlint.toml").write_text("")
    app.write_text(app.read_text().replace(":%Y-%m-%d}", "}"))
    run(tmp_path, "app.py")  # without the setting the clock is left alone
    assert 'f"""Today: {datetime.now()}' in app.read_text()
