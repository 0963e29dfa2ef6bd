"""Message files (YAML/JSON chat requests) -> IR, with exact spans."""

from __future__ import annotations

import dataclasses
import datetime
import json
from pathlib import Path

import pytest

from promptlint.ir import Breakpoint, NotAPrompt, SourceError, SourceFile, Span, Text
from promptlint.sources import messages
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources.messages import looks_like_messages, read


def load(tmp_path, name: str, text: str, newline: str = "\n"):
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    ctx = SourceContext(root=tmp_path)
    return read(read_source(path, ctx), ctx)


def slots(template):
    return [(s.label, s.span.line_col) for s in template.slots()]


def literal(parts) -> str:
    return "".join(p.text for p in parts if isinstance(p, Text))


# ------------------------------------------------------------- JSON positions

def test_json_slot_after_escapes(tmp_path):
    src = (
        '{\n'
        '  "model": "gpt-4o",\n'
        '  "messages": [\n'
        '    {"role": "system", "content": "A\\n\\"q\\" caf\\u00e9 {{ user_name }}!"},\n'
        '    {"role": "user", "content": [{"type": "text", "text": "\\ud83d\\ude00 {question}"}]}\n'
        '  ]\n'
        '}\n'
    )
    [t] = load(tmp_path, "chat.json", src)
    assert t.name == "chat" and t.format == "messages-openai" and t.model == "gpt-4o"
    assert [s.role for s in t.sections] == ["system", "user"]
    # line 4: `    {"role": "system", "content": "A\n\"q\" caf\u00e9 {{ user_name }}!"},`
    #          col 35 is the opening quote; A=36, \n=37, \"=39, q=41, \"=42, space=44, caf=45,
    #          \u00e9=48..53, space=54, {{=55
    assert slots(t) == [("{{ user_name }}", (4, 55)), ("{question}", (5, 73))]
    system = t.sections[0].parts
    assert system[0].text == 'A\n"q" café '
    assert system[0].span.line_col == (4, 36)
    assert system[0].span.end == system[1].span.start
    assert system[1].span.source_text == "{{ user_name }}"
    assert system[2].text == "!" and system[2].span.source_text == "!"
    # a surrogate pair is one character, as JSON decodes it
    user = t.sections[1].parts
    assert user[0].text == "\U0001F600 " and user[0].span.source_text == "\\ud83d\\ude00 "


def test_json_crlf_and_tabs(tmp_path):
    src = '{\n\t"messages": [\n\t\t{"role": "user", "content": "Hi {{ name }}"}\n\t]\n}\n'
    [t] = load(tmp_path, "crlf.json", src, newline="\r\n")
    assert slots(t) == [("{{ name }}", (3, 35))]
    assert t.slots()[0].span.source_text == "{{ name }}"


# ------------------------------------------------------------- YAML positions

YAML_STYLES = """\
model: gpt-4.1
messages:
  - role: system
    content: You help {{ user_name }} with
      billing at {{ company }}.
  - role: user
    content: 'It''s {{ question }}'
  - role: user
    content: "Tab\\there {{ a }} \\\\ {{ b }}"
  - role: assistant
    content: |  # note {{ not_a_slot }}
      C:\\dir {{ path }}
        indented {{ c }}
  - role: user
    content: >-
      folded
      {{ d }}
"""


def test_yaml_scalar_styles(tmp_path):
    [t] = load(tmp_path, "styles.yaml", YAML_STYLES)
    assert [s.role for s in t.sections] == ["system", "user", "user", "assistant", "user"]
    assert slots(t) == [
        ("{{ user_name }}", (4, 23)),  # plain scalar
        ("{{ company }}", (5, 18)),  # plain scalar, folded onto the next line
        ("{{ question }}", (7, 21)),  # single-quoted, after a '' escape
        ("{{ a }}", (9, 25)),  # double-quoted, after \t
        ("{{ b }}", (9, 36)),  # double-quoted, after \\
        ("{{ path }}", (12, 14)),  # literal block: backslash is literal, header comment skipped
        ("{{ c }}", (13, 18)),
        ("{{ d }}", (17, 7)),  # folded block
    ]
    for slot in t.slots():
        assert slot.span.source_text == slot.label
    plain = t.sections[0].parts
    assert plain[0].text == "You help " and plain[2].text == " with billing at "
    assert t.sections[1].parts[0].text == "It's "
    assert t.sections[3].parts[0].text == "C:\\dir "
    assert t.sections[4].parts[0].text == "folded "


def test_yaml_line_breaks_and_properties(tmp_path):
    src = """\
messages:
  - role: user
    content: "abc\\
      def {{ a }}
      ghi {{ b }}"
  - role: user
    content: !!str "tagged {{ c }}"
  - role: user
    content: |2-
        two-indented {{ e }}
  - role: user
    content: 'multi
      line {{ h }}'
"""
    [t] = load(tmp_path, "breaks.yaml", src)
    assert slots(t) == [("{{ a }}", (4, 11)), ("{{ b }}", (5, 11)), ("{{ c }}", (7, 28)),
                        ("{{ e }}", (10, 22)), ("{{ h }}", (13, 12))]
    for slot in t.slots():
        assert slot.span.source_text == slot.label  # ends exactly, not in the next line's indent
    first = t.sections[0].parts
    assert [p.text for p in first if isinstance(p, Text)] == ["abcdef ", " ghi "]
    assert first[2].span.source_text == "\n      ghi "  # the folded break is part of the text


def test_yaml_alias_points_at_anchor(tmp_path):
    src = """\
shared: &sys "Today is {{ today }}"
prompts:
  - name: a
    system: *sys
    messages: [{role: user, content: hi}]
"""
    [t] = load(tmp_path, "alias.yaml", src)
    assert t.name == "alias:a" and t.format == "messages-anthropic"
    assert slots(t) == [("{{ today }}", (1, 24))]


# ------------------------------------------------------------- Anthropic

ANTHROPIC = """\
{
  "model": "claude-sonnet-4-5",
  "tools": [
    {"name": "search", "input_schema": {"type": "object", "properties": {}}, "description": "Search",
     "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    {"name": "fetch", "description": "Fetch a page", "input_schema": {"type": "object"}}
  ],
  "system": [
    {"type": "text", "text": "Be terse."},
    {"type": "text", "text": "Rules v{{ version }}", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
  ],
  "messages": [
    {"role": "user", "content": [
      {"type": "text", "text": "{{ history }}", "cache_control": {"type": "ephemeral"}},
      {"type": "text", "text": "{{ question }}"}
    ]}
  ]
}
"""


def test_anthropic_sections_and_breakpoints(tmp_path):
    [t] = load(tmp_path, "claude.json", ANTHROPIC)
    assert t.format == "messages-anthropic" and t.model == "claude-sonnet-4-5"
    assert [s.role for s in t.sections] == ["tools", "system", "user"]
    assert [bp.ttl for bp in t.breakpoints()] == ["1h", "1h", "5m"]
    tools, system, user = (s.parts for s in t.sections)
    assert [type(p).__name__ for p in tools] == ["Text", "Breakpoint", "Text"]
    assert [type(p).__name__ for p in system] == ["Text", "Text", "Slot", "Breakpoint"]
    assert [type(p).__name__ for p in user] == ["Slot", "Breakpoint", "Slot"]
    bp = system[3]
    assert bp.span.source_text == '"cache_control": {"type": "ephemeral", "ttl": "1h"}'
    assert bp.span.line_col == (10, 54)
    assert tools[1].span.line_col == (5, 6)


def test_tools_first_compact_json_in_file_order(tmp_path):
    [t] = load(tmp_path, "claude.json", ANTHROPIC)
    data = json.loads(ANTHROPIC)
    tools = t.sections[0].parts
    first = dict(data["tools"][0])
    del first["cache_control"]  # not part of the definition the model sees
    assert tools[0].text == json.dumps(first, ensure_ascii=False, separators=(",", ":"))
    assert tools[0].text.startswith('{"name":"search","input_schema":')  # file order, not sorted
    assert tools[2].text == json.dumps(data["tools"][1], ensure_ascii=False, separators=(",", ":"))
    assert tools[2].span.source_text == (
        '{"name": "fetch", "description": "Fetch a page", "input_schema": {"type": "object"}}')


def test_openai_tool_description_slot(tmp_path):
    src = """\
model: gpt-4o
tools:
  - type: function
    function:
      name: lookup
      description: Look up orders for {{ customer_id }}.
      parameters: {type: object, properties: {id: {type: string, pattern: "^[a-z]{3}$"}}}
messages:
  - {role: developer, content: Answer briefly.}
  - {role: user, content: "{{ question }}"}
"""
    [t] = load(tmp_path, "tools.yaml", src)
    assert [s.role for s in t.sections] == ["tools", "developer", "user"]
    parts = t.sections[0].parts
    assert [type(p).__name__ for p in parts] == ["Text", "Slot", "Text"]
    assert parts[1].label == "{{ customer_id }}" and parts[1].span.line_col == (6, 39)
    assert parts[0].text == '{"type":"function","function":{"name":"lookup","description":"Look up orders for '
    assert parts[2].text == ('.","parameters":{"type":"object","properties":{"id":'
                             '{"type":"string","pattern":"^[a-z]{3}$"}}}}}')
    assert parts[0].span.line_col == (3, 5)


# ------------------------------------------------------------- other shapes

def test_multiple_prompts_in_mapping(tmp_path):
    src = """\
version: 1
prompts:
  triage:
    model: gpt-4o-mini
    messages:
      - {role: system, content: Classify.}
      - {role: user, content: "{{ ticket }}"}
  answer:
    model: claude-opus-4-1
    system: Answer {{ user_name }}.
    messages:
      - {role: user, content: "{{ question }}"}
"""
    triage, answer = load(tmp_path, "support.yaml", src)
    assert (triage.name, triage.format, triage.model) == ("support:triage", "messages-openai", "gpt-4o-mini")
    assert (answer.name, answer.format, answer.model) == ("support:answer", "messages-anthropic", "claude-opus-4-1")
    assert triage.span.line_col == (4, 5) and answer.span.line_col == (9, 5)
    assert [s.role for s in answer.sections] == ["system", "user"]
    assert slots(answer) == [("{{ user_name }}", (10, 20)), ("{{ question }}", (12, 32))]


def test_list_of_named_requests(tmp_path):
    src = json.dumps([
        {"name": "one", "messages": [{"role": "user", "content": "a"}]},
        {"name": "two", "messages": [{"role": "user", "content": "b"}]},
        {"messages": [{"role": "user", "content": "c"}]},
    ], indent=1)
    assert [t.name for t in load(tmp_path, "many.json", src)] == ["many:one", "many:two", "many:3"]
    # in a mapping the key names the prompt, whatever the request's own `name` says
    [t] = load(tmp_path, "keyed.yaml", "triage:\n  name: Triage bot\n  messages: [{role: user, content: x}]\n")
    assert t.name == "keyed:triage"


def test_bare_message_list_and_responses(tmp_path):
    [bare] = load(tmp_path, "bare.yaml", "- role: system\n  content: S\n- role: user\n  content: '{{ q }}'\n")
    assert bare.format == "messages-openai" and [s.role for s in bare.sections] == ["system", "user"]
    src = """\
model: gpt-5
instructions: You are {{ assistant_name }}.
input:
  - role: user
    content: [{type: input_text, text: "{{ question }}"}]
  - {type: function_call_output, call_id: c1, output: "42"}
"""
    [t] = load(tmp_path, "resp.yaml", src)
    assert [s.role for s in t.sections] == ["system", "user", "tool"]
    assert slots(t) == [("{{ assistant_name }}", (2, 23)), ("{{ question }}", (5, 41))]
    assert literal(t.sections[2].parts) == '{"type":"function_call_output","call_id":"c1","output":"42"}'
    [s] = load(tmp_path, "resp2.yaml", "model: gpt-5\ninput: Hello {{ name }}\n")
    assert [x.role for x in s.sections] == ["user"] and slots(s) == [("{{ name }}", (2, 14))]


def test_bedrock_cache_points(tmp_path):
    src = """\
modelId: anthropic.claude-sonnet-4-5
system:
  - text: Policies.
  - cachePoint: {type: default}
toolConfig:
  tools:
    - toolSpec: {name: t, description: d, inputSchema: {json: {type: object}}}
    - cachePoint: {type: default}
messages:
  - role: user
    content:
      - text: "{{ question }}"
"""
    [t] = load(tmp_path, "bedrock.yaml", src)
    assert t.format == "messages-anthropic" and t.model == "anthropic.claude-sonnet-4-5"
    assert [s.role for s in t.sections] == ["tools", "system", "user"]
    assert [type(p).__name__ for p in t.sections[0].parts] == ["Text", "Breakpoint"]
    assert [type(p).__name__ for p in t.sections[1].parts] == ["Text", "Breakpoint"]
    assert t.breakpoints()[1].span.source_text == "cachePoint: {type: default}"


def test_message_level_cache_control_and_null_content(tmp_path):
    src = """\
messages:
  - role: assistant
    content: null
    tool_calls: [{id: c1, type: function, function: {name: f, arguments: "{}"}}]
  - role: user
    content: Hi
    cache_control: {type: ephemeral, ttl: 5m}
"""
    [t] = load(tmp_path, "m.yaml", src)
    assert literal(t.sections[0].parts).startswith('[{"id":"c1"')
    assert isinstance(t.sections[1].parts[-1], Breakpoint)
    assert t.sections[1].parts[-1].span.line_col == (7, 5)


# ------------------------------------------------------------- errors

@pytest.mark.parametrize("name, src, line", [
    ("bad.json", '{\n  "messages": [\n    {"role": "user" "content": "x"}\n  ]\n}\n', 3),
    ("bad.json", '{\n  "messages": [\n    {"role": "user", "content": "x"}\n', 4),
    ("dup.json", '{\n  "messages": [],\n  "messages": []\n}\n', 3),
    ("bad.yaml", "messages:\n  - role: user\n    content: a: b\n", 3),
    ("bad.yaml", "messages:\n  - role: user\n\tcontent: x\n", 3),
])
def test_malformed_input_reports_line(tmp_path, name, src, line):
    with pytest.raises(SourceError) as info:
        load(tmp_path, name, src)
    assert info.value.line == line
    assert info.value.path == name
    assert "\n" not in str(info.value)
    assert info.value.message.startswith("invalid JSON" if name.endswith(".json") else "invalid YAML")


def test_python_tags_are_refused(tmp_path):
    with pytest.raises(SourceError, match="invalid YAML"):
        load(tmp_path, "evil.yaml", "messages: !!python/object/apply:os.system ['echo hi']\n")


@pytest.mark.parametrize("src", [
    "name: build\non: [push]\njobs: {test: {runs-on: ubuntu-latest}}\n",
    "",
    "just a string\n",
    "- 1\n- 2\n",
])
def test_not_a_message_file(tmp_path, src):
    with pytest.raises(SourceError) as info:
        load(tmp_path, "ci.yaml", src)
    assert info.value.line == 1
    assert info.value.message.startswith("no prompt found: not a message file ('messages', 'system' or 'input')")
    assert isinstance(info.value, NotAPrompt)  # skipped when found by walking a tree


def test_looks_like_messages():
    assert looks_like_messages({"messages": [{"role": "user", "content": "x"}]})
    assert looks_like_messages([{"role": "user", "content": "x"}])
    assert looks_like_messages({"system": "x"})
    assert looks_like_messages({"instructions": "x", "input": "y"})
    assert looks_like_messages({"prompts": {"a": {"messages": []}}})
    assert not looks_like_messages({"messages": ["not", "messages"]})
    assert not looks_like_messages({"input": "x"})
    assert not looks_like_messages({"a": {"b": {"c": {"messages": []}}}})  # too deep to be a prompt file
    assert not looks_like_messages(None)


def test_non_text_blocks_and_tool_results(tmp_path):
    src = """\
messages:
  - role: user
    content:
      - {type: image, source: {type: base64, media_type: image/png, data: AAAA}}
      - type: tool_result
        tool_use_id: t1
        content: "{{ tool_output }}"
        cache_control: {type: ephemeral}
"""
    [t] = load(tmp_path, "blocks.yaml", src)
    parts = t.sections[0].parts
    assert [type(p).__name__ for p in parts] == ["Text", "Slot", "Breakpoint"]
    assert parts[0].text == '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}'
    assert parts[1].span.line_col == (7, 19)


def test_tool_description_text_is_json_escaped(tmp_path):
    src = '{"tools": [{"name": "t", "description": "Say \\"hi\\"\\n to {{ user_name }}"}], "messages": []}'
    [t] = load(tmp_path, "esc.json", src)
    text, slot, end = t.sections[0].parts
    assert text.text == '{"name":"t","description":"Say \\"hi\\"\\n to '
    assert slot.span.source_text == "{{ user_name }}" and end.text == '"}'


try:
    from hypothesis import given, settings, strategies as st
except ImportError:  # a test extra: without it only the property test is skipped
    given = None

if given is not None:
    _TEXT = st.text(st.characters(blacklist_characters="{}", blacklist_categories=("Cs",)), max_size=12)

    @settings(max_examples=60, deadline=None)
    @given(before=_TEXT, after=_TEXT, ascii_only=st.booleans())
    def test_json_escapes_never_shift_a_slot(tmp_path_factory, before, after, ascii_only):
        """Any JSON escaping (\\uXXXX, surrogate pairs, raw DEL/NEL/U+2028) keeps the slot exact."""
        content = before + "{{ user_name }}" + after
        src = json.dumps({"messages": [{"role": "user", "content": content}]}, ensure_ascii=ascii_only)
        path = tmp_path_factory.mktemp("prop") / "p.json"
        path.write_text(src, encoding="utf-8")
        ctx = SourceContext(root=path.parent)
        [t] = read(read_source(path, ctx), ctx)
        [slot] = t.slots()
        assert slot.span.source_text == "{{ user_name }}"

    @settings(max_examples=200, deadline=None)
    @given(value=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), ascii_only=st.booleans())
    def test_every_decoded_character_maps_to_its_source(value, ascii_only):
        """align_offsets (runs of plain characters mapped at once): each character of a JSON
        string points at itself in the file or at the backslash of its escape, in order."""
        from promptlint.sources.base import align_offsets

        raw = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        offsets = align_offsets(raw, value, 7)
        assert len(offsets) == len(value) + 1 and offsets[-1] == 7 + len(raw)
        assert offsets == sorted(offsets)
        for ch, at in zip(value, offsets):
            assert raw[at - 7] in (ch, "\\")


# ------------------------------------------------------------- fast path (PyYAML) against ruamel

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MESSAGE_FIXTURES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".yaml"))
try:  # a dependency; without it every file goes through ruamel and these tests skip
    import yaml
except ImportError:  # pragma: no cover
    yaml = None
needs_pyyaml = pytest.mark.skipif(yaml is None, reason="PyYAML not installed: no fast path")


def _ruamel_only(file):
    """Stands in for `_compose_fast`: every file goes to ruamel, as before."""
    raise messages._Fallback("test: ruamel path")


def snapshot(obj):
    """Templates as comparable values: spans as offsets, the file left out."""
    if isinstance(obj, Span):
        return ("span", obj.start, obj.end)
    if isinstance(obj, SourceFile):
        return "file"
    if dataclasses.is_dataclass(obj):
        return type(obj).__name__, tuple((f.name, snapshot(getattr(obj, f.name))) for f in dataclasses.fields(obj))
    if isinstance(obj, (list, tuple)):
        return tuple(snapshot(x) for x in obj)
    if isinstance(obj, dict):
        return tuple((k, snapshot(v)) for k, v in obj.items())
    return obj


def outcome(file, ctx, ruamel: bool = False):
    """What `read` makes of a file: the templates, or the error it reports."""
    with pytest.MonkeyPatch.context() as mp:
        if ruamel:
            mp.setattr(messages, "_compose_fast", _ruamel_only)
        try:
            return snapshot(read(file, ctx))
        except SourceError as exc:
            return type(exc).__name__, exc.path, exc.line, exc.col, exc.message


def node_tree(node, memo=None):
    """A node tree as values (plain style is None in ruamel, '' in libyaml)."""
    memo = {} if memo is None else memo
    if id(node) in memo:
        return "alias", memo[id(node)]
    memo[id(node)] = len(memo)
    head = (type(node).__name__, node.tag, node.start_mark.index, node.end_mark.index)
    if isinstance(node, messages._SCALAR_NODES):
        return head + (node.style or None, node.value)
    if isinstance(node, messages._MAPPING_NODES):
        return head + tuple((node_tree(k, memo), node_tree(v, memo)) for k, v in node.value)
    return head + tuple(node_tree(n, memo) for n in node.value)


@needs_pyyaml
def test_fast_loader_is_libyaml():
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML built without libyaml: the pure-Python SafeLoader is used")
    assert issubclass(messages._FastLoader, yaml.CSafeLoader)


@needs_pyyaml
@pytest.mark.parametrize("path", MESSAGE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixtures_take_the_fast_path(monkeypatch, path):
    def no_ruamel(file):
        raise AssertionError(f"{file.display_path} fell back to ruamel")

    monkeypatch.setattr(messages, "_compose_ruamel", no_ruamel)
    ctx = SourceContext(root=FIXTURES)
    templates = read(read_source(path, ctx), ctx)
    assert templates and all(t.sections for t in templates)


@needs_pyyaml
@pytest.mark.parametrize("path", MESSAGE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixtures_same_on_both_paths(path):
    ctx = SourceContext(root=FIXTURES)
    file = read_source(path, ctx)
    node, data, _ = messages._compose_fast(file)
    ref_node, ref_data, _ = messages._compose_ruamel(file)
    assert node_tree(node) == node_tree(ref_node)
    assert repr(data) == repr(ref_data)  # types too: 1 vs 1.0 vs True
    fast, slow = outcome(file, ctx), outcome(file, ctx, ruamel=True)
    assert fast == slow
    assert fast[0][0] == "PromptTemplate"


# YAML 1.2 as ruamel reads it: no yes/no/on/off booleans, no sexagesimals.
@needs_pyyaml
@pytest.mark.parametrize("scalar, expected", [
    ("yes", "yes"), ("on", "on"), ("No", "No"), ("OFF", "OFF"), ("y", "y"),
    ("1:20", "1:20"), ("2026-11-29", datetime.date(2026, 11, 29)), ("~", None), ("null", None),
    ("NULL", None), ("0x1f", 31), ("0o17", 15), ("012", 12), ("0b101", 5), ("1_000", 1000), ("+12", 12),
    ("true", True), ("False", False), ("1e3", 1000.0), (".inf", float("inf")), ("-.5", -0.5),
    ("2001-12-14t21:59:43.10-05:00", None), ('"yes"', "yes"), ("'0x1f'", "0x1f"), ("!!str 1:20", "1:20"),
])
def test_scalars_resolve_like_ruamel(scalar, expected):
    file = SourceFile(Path("s.yaml"), f"value: {scalar}\nlist: [{scalar}]\n")
    node, data, constructor = messages._compose_fast(file)  # none of these needs ruamel
    ref_node, ref_data, ref_constructor = messages._compose_ruamel(file)
    assert node_tree(node) == node_tree(ref_node)
    assert repr(data) == repr(ref_data)
    value, ref_value = node.value[0][1], ref_node.value[0][1]
    built = constructor.construct_object(value, deep=True)  # what _Builder.scalar gets
    assert repr(built) == repr(ref_constructor.construct_object(ref_value, deep=True))
    if expected is not None:
        assert type(data["value"]) is type(expected) and data["value"] == expected


@needs_pyyaml
@pytest.mark.parametrize("name, src", [
    ("tab.yaml", "messages:\n  - role: user\n    content: hi\t\n"),  # ruamel refuses tabs libyaml skips
    ("tab-plain.yaml", "messages: [{role: user, content: a\tb}]\n"),
    ("tab-ok.json", '{\n\t"messages": [{"role": "user",\t"content": "a\tb {{ x }}"}]\n}\n'),
    ("anchor.yaml", 'messages:\n  - role: user\n    content: &x:y "v"\n'),  # 1.2 anchor names
    ("alias.yaml", "x: &k role\nmessages:\n  - *k: user\n    content: hi\n"),
    ("tag.yaml", "messages: [{role: user, content: !custom hi}]\n"),
    ("ls.yaml", "model: gpt-5\n\u2028input: Hello\n"),  # U+2028 is no line break in YAML 1.2
    ("ls.json", '{"messages": [{"role": "user", "content": "a\u2028b\x85c {{ x }}"}]}'),
    ("empty.yaml", "system:\nmessages: [{role: user, content: hi}]\n"),  # ruamel marks empty nodes elsewhere
    ("block-header.yaml", "messages:\n  - role: user\n    content: |#c\n      hi\n"),  # ruamel wants a space
    ("block-blank.yaml", "messages:\n  - role: user\n    content: |\n  \n      hi\n"),  # ruamel's indent rule
    ("merge.yaml", "base: &b {role: user}\nmessages: [{<<: *b, content: hi}]\n"),
    ("dup.yaml", "messages: []\nmessages: [{role: user, content: hi}]\n"),
    ("dup-int.yaml", "messages: [{role: user, content: hi}]\n1: a\n0x1: b\n"),
    ("v11.yaml", "%YAML 1.1\n---\nmessages: [{role: user, content: yes}]\n"),
    ("set.yaml", "messages: [{role: user, content: hi}]\ns: !!set {a}\n"),
    ("deep.json", '{"messages": [{"role": "user", "content": "x"}], "x": ' + "[" * 80 + "]" * 80 + "}"),
    ("loop.yaml", "model: gpt-4o\na: &a [*a]\nmessages: [{role: user, content: hi}]\n"),
    ("ctrl.json", '{"messages": [{"role": "user", "content": "a\x7fb\x9f {{ x }}"}]}'),
    ("surrogates.json", '{"messages": [{"role": "user", "content": "\\ud83d\\ude00 {{ x }}"}]}'),
    ("bom.yaml", "a: \ufeffb\nmessages: [{role: user, content: hi}]\n"),
])
def test_fast_path_steps_aside_where_ruamel_differs(tmp_path, name, src):
    """The fast path refuses (or libyaml fails) and ruamel's result or error
    stands, except where both are known to agree (tab-ok, ls.json)."""
    path = tmp_path / name
    path.write_bytes(src.encode("utf-8"))
    ctx = SourceContext(root=tmp_path)
    file = read_source(path, ctx)
    if name in ("tab-ok.json", "ls.json"):  # tabs in a flow collection, NEL/LS in quotes: both read alike
        messages._compose_fast(file)
    else:
        with pytest.raises((messages._Fallback, yaml.YAMLError)):
            messages._compose_fast(file)
    assert outcome(file, ctx) == outcome(file, ctx, ruamel=True)


if given is not None:
    # Mostly BMP text (which libyaml reads); control characters and astral
    # characters (surrogate escapes under ensure_ascii) send a file to ruamel.
    _ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc"), max_codepoint=0xFFFF), max_size=16)
    _STRING = st.lists(st.one_of(_ANY_TEXT, _ANY_TEXT, st.sampled_from([
        "{{ user_name }}", "{question}", "{% if x %}y{% endif %}", "{{", "}}", "\\", '"', "/", "\n", "\r\n",
        "\t", "\u2028", "\x85", "é", "日本", "**Note:** ", "&a: ", "*b*: ", "!", " # c", "- ", ": ",
    ]), st.sampled_from(["\x7f", "\x1b", "\x9f", "😀"])), max_size=6).map("".join)
    _VALUE = st.one_of(_STRING, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())

    @settings(max_examples=80, deadline=None)
    @given(system=_STRING, user=_STRING, description=_STRING, extra=st.dictionaries(_ANY_TEXT, _VALUE, max_size=3),
           anthropic=st.booleans(), ascii_only=st.booleans(), indent=st.sampled_from([None, 1, "\t"]))
    def test_json_same_on_both_paths(tmp_path_factory, system, user, description, extra, anthropic, ascii_only,
                                     indent):
        """Any JSON request (escapes, non-ASCII, raw controls and line
        separators, tab indents) gives the same templates on both paths."""
        tool = {"name": "lookup", "description": description, "input_schema": {"properties": extra}}
        if anthropic:
            request = {"model": "claude-sonnet-4-5", "tools": [tool],
                       "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                       "messages": [{"role": "user", "content": [{"type": "text", "text": user}]}], **extra}
        else:
            request = {"model": "gpt-4o", "tools": [{"type": "function", "function": tool}],
                       "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        path = tmp_path_factory.mktemp("fast") / "p.json"
        path.write_bytes(json.dumps(request, ensure_ascii=ascii_only, indent=indent).encode("utf-8"))
        ctx = SourceContext(root=path.parent)
        file = read_source(path, ctx)
        assert outcome(file, ctx) == outcome(file, ctx, ruamel=True)
