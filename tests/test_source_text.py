"""Text prompts (.txt/.md) and the shared templated-string entry point:
str.format placeholders, escapes, JSON left alone, role lines, CRLF."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from promptlint.analysis.volatility import VariableTable
from promptlint.ir import Slot, SlotKind, SourceFile, Text, Volatility as V
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources.placeholders import detect_style, parse_format_fragment, parse_template_string
from promptlint.sources import text as text_reader


@pytest.fixture
def ctx(tmp_path) -> SourceContext:
    return SourceContext(root=tmp_path)


def read(tmp_path: Path, name: str, content: str, ctx: SourceContext):
    path = tmp_path / name
    path.write_bytes(content.encode())
    return text_reader.read(read_source(path, ctx), ctx)


def lc(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line:col of the nth occurrence of needle, counted by hand."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def slots(parts):
    return [p for p in parts if isinstance(p, Slot)]


# -- whole files --------------------------------------------------------------------


def test_plain_text_is_one_system_section_verbatim(tmp_path, ctx):
    (t,) = read(tmp_path, "greet.txt", "You are a helpful assistant.\n\nBe brief.\n", ctx)
    assert (t.name, t.format) == ("greet", "text")
    (section,) = t.sections
    assert section.role == "system"
    assert [p.text for p in section.parts] == ["You are a helpful assistant.\n\nBe brief.\n"]
    assert section.parts[0].span.line_col == (1, 1)
    assert section.parts[0].span.end_line_col == (4, 1)


def test_format_placeholders_spans_and_volatility(tmp_path, ctx):
    content = ("You work for {company_name}.\nToday is {current_date:%Y-%m-%d}.\n"
               "Q: {question!r:>10} {user.name} {docs[0]}\n")
    (t,) = read(tmp_path, "p.txt", content, ctx)
    got = [(s.label, s.names, s.span.line_col, s.volatility) for s in t.slots()]
    assert got == [
        ("{company_name}", ("company_name",), (1, 14), V.DEPLOY),
        ("{current_date:%Y-%m-%d}", ("current_date",), (2, 10), V.DAY),
        ("{question!r:>10}", ("question",), (3, 4), V.REQUEST),
        ("{user.name}", ("user.name",), (3, 21), V.USER),
        ("{docs[0]}", ("docs[0]",), (3, 33), V.REQUEST),
    ]
    assert all(s.kind is SlotKind.VARIABLE for s in t.slots())
    assert t.slots()[0].reason == "the name suggests a per-release value ('company_name')"
    assert t.slots()[0].span.end_line_col == (1, 28)


def test_escaped_braces_render_one_brace_with_a_two_char_span(tmp_path, ctx):
    content = 'Reply as {{"answer": "{answer_hint}"}}.'
    (t,) = read(tmp_path, "p.txt", content, ctx)
    parts = t.sections[0].parts
    assert [p.text if isinstance(p, Text) else p.label for p in parts] == \
        ["Reply as ", "{", '"answer": "', "{answer_hint}", '"', "}", "."]
    open_brace, close_brace = parts[1], parts[5]
    assert (open_brace.span.start, open_brace.span.end) == (9, 11)
    assert open_brace.span.source_text == "{{"
    assert close_brace.span.source_text == "}}"
    assert close_brace.span.line_col == lc(content, "}}")


def test_json_looking_braces_stay_text(tmp_path, ctx):
    content = 'Return {"answer": "yes", "n": 1} or {answer: string} or {0} or { name }.\n'
    (t,) = read(tmp_path, "p.txt", content, ctx)
    assert t.slots() == []
    assert "".join(p.text for p in t.sections[0].parts) == content


def test_unbalanced_braces_are_text_not_errors(ctx):
    file = SourceFile("p.txt", "a { b } c {x")
    parts = parse_format_fragment(file.text, file, None, ctx)
    assert [type(p) for p in parts] == [Text]
    assert parts[0].text == "a { b } c {x"


def test_role_lines_split_sections_and_are_trimmed(tmp_path, ctx):
    content = "Preamble.\n\nSYSTEM:\nYou are {bot_name}.\n\nuser:  \n{question}\nUser: this line is content\n"
    (t,) = read(tmp_path, "chat.txt", content, ctx)
    assert [s.role for s in t.sections] == ["system", "system", "user"]
    pre, system, user = t.sections
    assert [p.text for p in pre.parts] == ["Preamble."]
    assert system.span.line_col == (3, 1)
    assert [p.text if isinstance(p, Text) else p.label for p in system.parts] == ["You are ", "{bot_name}", "."]
    assert system.parts[1].span.line_col == (4, 9)
    assert user.parts[0].label == "{question}"
    assert user.parts[0].span.line_col == (7, 1)
    assert user.parts[-1].text == "\nUser: this line is content"


def test_crlf_file_spans(tmp_path, ctx):
    content = "system:\r\nYou are {bot_name}.\r\n\r\nuser:\r\n{question}\r\n"
    (t,) = read(tmp_path, "chat.txt", content, ctx)
    assert [s.role for s in t.sections] == ["system", "user"]
    bot, question = t.slots()
    assert bot.span.line_col == (2, 9)
    assert question.span.line_col == (5, 1)
    assert question.span.source_text == "{question}"
    assert t.sections[0].parts[-1].text == "."


def test_markdown_double_braces_and_comments(tmp_path, ctx):
    content = "# Assistant\n<!-- keep {{ note }} for the model -->\nHello {{ user_name }}!\n"
    (t,) = read(tmp_path, "p.md", content, ctx)
    texts = "".join(p.text for p in t.sections[0].parts if isinstance(p, Text))
    assert "<!-- keep " in texts and " for the model -->" in texts
    note, user = t.slots()
    assert (note.names, note.span.line_col) == (("note",), (2, 11))
    assert (user.names, user.span.line_col, user.volatility) == (("user_name",), (3, 7), V.USER)


def test_markdown_front_matter_is_skipped_and_declares(tmp_path, ctx):
    content = "---\ndescription: helper\npromptlint:\n  variables:\n    when: static\n---\nAt {{ when }}.\n"
    (t,) = read(tmp_path, "agent.md", content, ctx)
    (slot,) = t.slots()
    assert slot.span.line_col == (7, 4)
    assert (slot.volatility, slot.reason) == (V.STATIC, "declared in front matter")
    assert t.sections[0].parts[0].text == "At "
    assert t.variables["when"].volatility is V.STATIC


def test_markdown_rule_that_is_not_front_matter_stays_text(tmp_path, ctx):
    content = "---\n\nIntro: [not yaml\n---\nMore\n"
    (t,) = read(tmp_path, "notes.md", content, ctx)
    assert "".join(p.text for p in t.sections[0].parts) == content


def test_txt_front_matter_is_not_special(tmp_path, ctx):
    content = "---\na: 1\n---\nHi\n"
    (t,) = read(tmp_path, "p.txt", content, ctx)
    assert "".join(p.text for p in t.sections[0].parts) == content


def test_handlebars_text_prompt(tmp_path, ctx):
    content = "{{#each docs}}\n- {{this}}\n{{/each}}\n"
    (t,) = read(tmp_path, "p.txt", content, ctx)
    (loop,) = t.slots()[:1]
    assert loop.kind is SlotKind.LOOP and loop.span.line_col == (1, 1)


def test_config_override_reaches_text_slots(tmp_path):
    ctx = SourceContext(variables=VariableTable(overrides={"question": V.STATIC}), root=tmp_path)
    (t,) = read(tmp_path, "p.txt", "Q: {question}", ctx)
    (slot,) = t.slots()
    assert slot.volatility is V.STATIC
    assert slot.reason.startswith("set in config")


def test_empty_file(tmp_path, ctx):
    (t,) = read(tmp_path, "empty.txt", "", ctx)
    assert t.sections[0].parts == []


# -- the shared entry point ------------------------------------------------------------------


@pytest.mark.parametrize("text, style", [
    ("plain", "text"),
    ('{"json": 1}', "text"),
    ("Hi {name}", "format"),
    ('{{"a": 1}} and {name}', "format"),
    ("Hi {{ name }}", "jinja"),
    ("{% if x %}y{% endif %}", "jinja"),
    ("{# note #} text", "jinja"),
    ("{{#if x}}y{{/if}}", "handlebars"),
    ("{{{raw}}}", "handlebars"),
    ("{{! comment }}", "handlebars"),
])
def test_detect_style(text, style):
    assert detect_style(text) == style


def test_index_map_places_spans_in_the_file(ctx):
    # a YAML value `"Hi {user_name}!"` whose characters start at file offset 10
    file = SourceFile("m.yaml", 'content: "Hi {user_name}!"\n')
    value = "Hi {user_name}!"
    index_map = list(range(10, 10 + len(value) + 1))
    parts = parse_template_string(value, file, index_map, ctx)
    assert [p.span.source_text for p in parts] == ["Hi ", "{user_name}", "!"]
    assert parts[1].span.line_col == (1, 14)


def test_jinja_route_with_index_map(ctx):
    file = SourceFile("m.yaml", 'content: "Hi {{ user_name }}"\n')
    value = "Hi {{ user_name }}"
    parts = parse_template_string(value, file, list(range(10, 10 + len(value) + 1)), ctx)
    (slot,) = slots(parts)
    assert slot.span.line_col == (1, 14) and slot.names == ("user_name",)


def test_auto_falls_back_to_format_when_jinja_cannot_parse(ctx):
    value = '{{"answer": "{hint}"}}'
    file = SourceFile("p.txt", value)
    parts = parse_template_string(value, file, None, ctx)
    assert [p.label for p in slots(parts)] == ["{hint}"]
    assert parts[0].text == "{"


def test_forced_styles(ctx):
    file = SourceFile("p.txt", "{{x}} {y}")
    assert [p.text for p in parse_template_string(file.text, file, None, ctx, "text")] == ["{{x}} {y}"]
    formatted = parse_template_string(file.text, file, None, ctx, "format")
    assert [p.label for p in slots(formatted)] == ["{y}"]
    assert [p.text for p in formatted if isinstance(p, Text)][:3] == ["{", "x", "}"]
    with pytest.raises(ValueError):
        parse_template_string("x", file, None, ctx, "cobol")


def test_file_level_fallback_to_format(tmp_path, ctx):
    content = 'system:\nReturn {{"verdict": "{label}"}}\nuser:\n{{ question }} {text}\n'
    (t,) = read(tmp_path, "p.txt", content, ctx)
    assert [s.label for s in t.slots()] == ["{label}", "{text}"]
    assert t.slots()[1].span.line_col == (4, 16)


def test_jinja_text_file_with_a_real_error_still_fails(tmp_path, ctx):
    from promptlint.ir import SourceError
    with pytest.raises(SourceError) as info:
        read(tmp_path, "p.txt", "Hi {{ name }\n{% if %}\n", ctx)
    assert info.value.path.endswith("p.txt")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}ab_.!:0"[] \n\r')), max_size=40))
def test_format_parts_cover_the_source_in_order(text):
    file = SourceFile("p.txt", text)
    parts = parse_format_fragment(text, file, None, SourceContext())
    assert "".join(p.span.source_text for p in parts) == text
