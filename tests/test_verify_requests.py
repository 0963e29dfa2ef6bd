"""The requests verify replays: the generated stream's shape and labels,
each slot's value by its volatility (per-request values change on every
request and timestamps advance, per-session and per-user values hold within
their scope and differ across it, static text never changes), front-matter
samples first; and recorded JSONL requests in OpenAI and Batch API form,
with one error per broken line and the good lines still read.

No model here: these are plain Python (no torch)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from promptlint import config as config_mod
from promptlint.audit import find_candidates, load_templates
from promptlint.ir import Slot, SlotKind, SourceError, Volatility
from promptlint.verify.requests import START, STEP, StreamShape, messages_of, read_requests, stream, stream_value

ROOT = Path(__file__).resolve().parent.parent

STATIC = "You are the assistant for Harbor & Pine Outfitters. Answer briefly and never invent order details."
JINJA = (STATIC + "\n"
         "Support console version: {{ app_version }}\n"
         "Customer: {{ user_name }}\n"
         "Conversation notes: {{ session_summary }}\n"
         "Current time (UTC): {{ now }}\n"
         "Question: {{ question }}\n")
FIELDS = {"version": "Support console version", "user": "Customer", "session": "Conversation notes",
          "time": "Current time (UTC)", "question": "Question"}

PROMPTY = """---
name: Sampled support prompt
inputs:
  customer_name:
    type: string
    sample: Dana Whitfield
  question:
    type: string
    sample: "Where is my tent? It was due on Friday."
sample:
  customer_name: Dana Whitfield
  question: "Where is my tent? It was due on Friday."
---
system:
You are Pine, the support assistant for Harbor & Pine Outfitters. Customer: {{customer_name}}

user:
{{question}}
"""


def templates(path: Path):
    """Prompt templates in `path`, loaded as `promptlint verify` loads them."""
    config = config_mod.load(path, None)
    errors: list = []
    found = list(load_templates(find_candidates([path], config), config, errors))
    assert not errors, [str(e) for e in errors]
    return found


def fields(request) -> dict[str, str]:
    [message] = request.messages
    assert message["role"] == "system"
    lines = message["content"].splitlines()
    assert lines[0] == STATIC  # the static part never changes
    values = dict(line.split(": ", 1) for line in lines[1:])
    return {key: values[label] for key, label in FIELDS.items()}


@pytest.fixture(scope="module")
def jinja_template(tmp_path_factory):
    root = tmp_path_factory.mktemp("stream")
    (root / "support.j2").write_text(JINJA, encoding="utf-8")
    [template] = templates(root / "support.j2")
    return template


# ------------------------------------------------------------------ shape


def test_stream_shape_order_and_labels(jinja_template):
    shape = StreamShape(users=2, sessions=3, requests=2)
    assert shape.total == 12
    requests = stream(jinja_template, shape)
    assert len(requests) == 12
    assert [r.label for r in requests] == [f"user {u} session {s} request {r}"
                                           for u in (1, 2) for s in (1, 2, 3) for r in (1, 2)]
    for r in requests:
        assert r.prompt == jinja_template.name
        assert r.path == jinja_template.source.display_path and r.path.endswith("support.j2")
        assert r.line == 1


@pytest.mark.parametrize("name", ["users", "sessions", "requests"])
def test_stream_shape_refuses_zero(name):
    with pytest.raises(ValueError, match="at least 1"):
        StreamShape(**{name: 0})


# ------------------------------------------------------------------ values by volatility


def test_slot_volatilities_are_as_the_names_say(jinja_template):
    by_label = {p.label: p.volatility for _, p, _ in jinja_template.iter_parts() if isinstance(p, Slot)}
    assert by_label == {"{{ app_version }}": Volatility.DEPLOY, "{{ user_name }}": Volatility.USER,
                        "{{ session_summary }}": Volatility.SESSION, "{{ now }}": Volatility.REQUEST,
                        "{{ question }}": Volatility.REQUEST}


def test_values_change_by_volatility(jinja_template):
    shape = StreamShape(users=3, sessions=2, requests=3)
    requests = stream(jinja_template, shape)
    values = [fields(r) for r in requests]
    scopes = [(u, s) for u in range(3) for s in range(2) for _ in range(3)]

    # per-deploy: one value all day
    assert len({v["version"] for v in values}) == 1
    # per-request: a new value on every request
    assert len({v["question"] for v in values}) == len(values)
    assert len({v["time"] for v in values}) == len(values)
    # per-user: equal within a user, different across users
    for user in range(3):
        assert len({v["user"] for v, (u, _) in zip(values, scopes) if u == user}) == 1
    assert len({v["user"] for v in values}) == 3
    # per-session: equal within a session, different across every session (of any user)
    for scope in set(scopes):
        assert len({v["session"] for v, sc in zip(values, scopes) if sc == scope}) == 1
    assert len({v["session"] for v in values}) == 6


def test_timestamps_advance_through_the_day(jinja_template):
    requests = stream(jinja_template, StreamShape(users=2, sessions=2, requests=3))
    times = [datetime.strptime(fields(r)["time"], "%Y-%m-%dT%H:%M:%SZ") for r in requests]
    start = START.replace(tzinfo=None)
    assert times == [start + STEP * i for i in range(len(requests))]
    assert all(b - a == STEP > timedelta(0) for a, b in zip(times, times[1:]))
    assert times[-1].date() == start.date()  # the stream stays within a day


def test_front_matter_samples_come_first(tmp_path):
    (tmp_path / "sampled.prompty").write_text(PROMPTY, encoding="utf-8")
    [template] = templates(tmp_path / "sampled.prompty")
    requests = stream(template, StreamShape(users=2, sessions=1, requests=2))
    first = requests[0].messages
    assert first == [
        {"role": "system", "content": "You are Pine, the support assistant for Harbor & Pine Outfitters. "
                                      "Customer: Dana Whitfield"},
        {"role": "user", "content": "Where is my tent? It was due on Friday."},
    ]
    assert requests[1].messages[0] == first[0]  # same user, same name
    assert requests[1].messages[1]["content"] != first[1]["content"]  # a new question
    assert "Dana Whitfield" not in requests[2].messages[0]["content"]  # the second user is someone else
    assert len({r.messages[1]["content"] for r in requests}) == 4


def _slot(name: str, volatility: Volatility, samples: tuple[str, ...] = ()) -> Slot:
    return Slot(f"{{{{ {name} }}}}", SlotKind.VARIABLE, volatility, "test", names=(name,), samples=samples)


@pytest.mark.parametrize("name, samples", [
    ("customer_name", ()),
    ("customer_name", ("Dana Whitfield",)),
    # samples that are also generated values must not make two variants equal
    ("customer_name", ("Alice Johnson", "Bob Stone")),
    ("customer_name", ("Rahul Mehta",)),
    ("customer_name", ("Sofia Rossi", "Kenji Tanaka", "Rahul Mehta")),
    ("question", ("Can I get a refund for an annual plan I bought last week?",)),
    ("tier", ("Gold", "Free")),
    ("widget", ("Quartz",)),
    ("widget", ("Quartz", "Quartz 1", "Northwind 2")),  # samples that look like suffixed generated values
])
def test_every_variant_and_loop_item_gets_its_own_value(name, samples):
    slot = _slot(name, Volatility.USER, samples)
    values = [stream_value(slot, variant, item) for variant in range(40) for item in range(2)]
    assert len(set(values)) == len(values), [v for v in values if values.count(v) > 1]
    assert values[:len(samples)] == list(samples)  # known samples first


def test_generated_timestamps_follow_the_variant():
    slot = _slot("now", Volatility.REQUEST)
    stamps = [stream_value(slot, v, 0) for v in range(5)]
    assert stamps == [(START + STEP * v).strftime("%Y-%m-%dT%H:%M:%SZ") for v in range(5)]
    assert stream_value(slot, 2, 1) == (START + STEP * 2 + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_tools_go_into_the_system_message():
    [template] = templates(ROOT / "fixtures" / "agent-tools" / "good" / "agent.messages.json")
    assert [s.role for s in template.sections][:2] == ["tools", "system"]
    [request] = stream(template, StreamShape(1, 1, 1))
    roles = [m["role"] for m in request.messages]
    assert "tools" not in roles and roles[0] == "system" and roles.count("system") == 1
    assert '"type":"function"' in request.messages[0]["content"]


def test_messages_of_maps_roles_and_drops_empty_messages(jinja_template):
    class Section:
        def __init__(self, role):
            self.role = role

    class Template:
        sections = [Section("tools"), Section("developer"), Section("system"), Section("user"), Section("assistant")]

    out = messages_of(Template(), ["TOOLS", "DEV", "SYS", "Q", "  "])
    assert out == [{"role": "system", "content": "TOOLS\n\nDEV\n\nSYS"}, {"role": "user", "content": "Q"}]


# ------------------------------------------------------------------ recorded requests (JSONL)


def _line(obj) -> str:
    return json.dumps(obj)


def test_read_requests_forms_grouping_and_per_line_errors(tmp_path):
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]
    lines = [
        _line({"messages": msgs}),  # 1: OpenAI form
        "",  # 2: blank, skipped
        _line({"custom_id": "r-7", "method": "POST", "url": "/v1/chat/completions",
               "body": {"model": "gpt-4.1", "messages": msgs}}),  # 3: Batch API form
        _line({"messages": [{"role": "user", "content": [{"type": "text", "text": "part one, "},
                                                          {"type": "text", "text": "part two"}, "tail"]}]}),  # 4
        '{"messages": [',  # 5: broken JSON
        "[1, 2, 3]",  # 6: not an object
        _line({"prompt": "billing"}),  # 7: no messages
        _line({"messages": [{"content": "who am I?"}]}),  # 8: a message without a role
        _line({"prompt": "billing", "messages": msgs}),  # 9
        _line({"route": "refunds", "messages": msgs}),  # 10
        _line({"metadata": {"prompt": "billing"}, "messages": msgs}),  # 11
        _line({"messages": [{"role": "developer", "content": "D"}, {"role": "user", "content": "Q"}]}),  # 12
        _line({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}),  # 13
        _line({"messages": []}),  # 14: empty list
        "   ",  # 15: whitespace only, skipped
        _line({"messages": [{"role": "user"}]}),  # 16: no content is empty content
    ]
    path = tmp_path / "recorded.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    errors: list[SourceError] = []
    requests = read_requests(path, "recorded.jsonl", errors)

    assert [(e.line, e.path) for e in errors] == [(n, "recorded.jsonl") for n in (5, 6, 7, 8, 13, 14)]
    assert all(e.message.startswith("bad request line: ") for e in errors)
    why = {e.line: e.message for e in errors}
    assert "object" in why[6] and '"messages"' in why[7] and "role" in why[8]
    assert "text" in why[13] and '"messages"' in why[14]
    assert str(errors[0]).startswith("recorded.jsonl:5:1: bad request line: ")

    assert [r.line for r in requests] == [1, 3, 4, 9, 10, 11, 12, 16]
    assert [r.label for r in requests] == [f"recorded.jsonl:{r.line}" for r in requests]
    assert all(r.path == "recorded.jsonl" for r in requests)
    by_line = {r.line: r for r in requests}
    assert by_line[1].messages == msgs and by_line[3].messages == msgs
    assert by_line[4].messages == [{"role": "user", "content": "part one, part twotail"}]
    assert by_line[12].messages[0] == {"role": "system", "content": "D"}
    assert by_line[16].messages == [{"role": "user", "content": ""}]
    assert {line: r.prompt for line, r in by_line.items()} == {
        1: "recorded.jsonl", 3: "recorded.jsonl", 4: "recorded.jsonl", 9: "billing", 10: "refunds",
        11: "billing", 12: "recorded.jsonl", 16: "recorded.jsonl"}


def test_read_requests_unreadable_file_is_one_error(tmp_path):
    errors: list[SourceError] = []
    assert read_requests(tmp_path / "missing.jsonl", "missing.jsonl", errors) == []
    [error] = errors
    assert (error.path, error.line) == ("missing.jsonl", 1) and "cannot read requests" in error.message
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    errors = []
    assert read_requests(binary, "binary.jsonl", errors) == []
    assert len(errors) == 1 and "cannot read requests" in errors[0].message


def test_read_requests_line_numbers_count_every_physical_line(tmp_path):
    good = _line({"messages": [{"role": "user", "content": "hi"}]})
    path = tmp_path / "r.jsonl"
    path.write_text("\n\n" + good + "\n\nnot json\n" + good + "\n", encoding="utf-8")
    errors: list[SourceError] = []
    requests = read_requests(path, "r.jsonl", errors)
    assert [r.line for r in requests] == [3, 6]
    assert [e.line for e in errors] == [5]
    assert re.match(r"r\.jsonl:5:1: bad request line: ", str(errors[0]))
