"""Front matter: finding it, safe YAML with file line numbers, and the
Prompty / dotprompt input declarations it carries."""

from __future__ import annotations

import pytest

from promptlint.analysis.volatility import Verdict, VariableTable
from promptlint.ir import SourceError, SourceFile, Variable, Volatility as V
from promptlint.sources.frontmatter import (
    DECLARED, DeclaredInputs, dotprompt_inputs, has_front_matter, markdown_inputs, prompty_inputs,
    sample_text, split_front_matter,
)


def fm(text: str, name: str = "p.prompty") -> SourceFile:
    return SourceFile(name, text)


def err(text: str) -> SourceError:
    with pytest.raises(SourceError) as info:
        split_front_matter(fm(text))
    return info.value


# -- splitting -----------------------------------------------------------------


def test_split_offsets_and_data():
    text = "---\nname: x\nmodel: gpt-4o\n---\nHello\n"
    data, yaml_start, body_start = split_front_matter(fm(text))
    assert data == {"name": "x", "model": "gpt-4o"}
    assert yaml_start == 4
    assert text[body_start:] == "Hello\n"


def test_split_crlf():
    text = "---\r\nname: x\r\n---\r\nHello\r\n"
    data, yaml_start, body_start = split_front_matter(fm(text))
    assert data == {"name": "x"}
    assert yaml_start == 5
    assert text[body_start:] == "Hello\r\n"


def test_mapping_positions_are_file_positions():
    text = "---\nname: x\ninputs:\n  q:\n    type: string\n---\nbody"
    data, _, _ = split_front_matter(fm(text))
    line, col = data["inputs"]["q"].lc.key("type")
    assert (line + 1, col + 1) == (5, 5)


def test_no_front_matter():
    assert split_front_matter(fm("Hello\n---\nx: 1\n---\n")) == (None, 0, 0)
    assert split_front_matter(fm("----\nx: 1\n----\n")) == (None, 0, 0)
    assert split_front_matter(fm("")) == (None, 0, 0)
    assert not has_front_matter(fm("Hello"))


def test_empty_front_matter_is_an_empty_mapping():
    data, yaml_start, body_start = split_front_matter(fm("---\n---\nHi"))
    assert data == {} and data is not None
    assert (yaml_start, body_start) == (4, 8)


def test_closing_line_at_end_of_file_and_trailing_spaces():
    text = "---  \nx: 1\n---"
    data, _, body_start = split_front_matter(fm(text))
    assert data == {"x": 1}
    assert body_start == len(text)


def test_yaml_error_names_the_file_line():
    e = err("---\nname: x\nmodel: a: b\n---\nbody\n")
    assert (e.line, e.col) == (3, 9)
    assert e.message == "front matter: mapping values are not allowed here"
    assert str(e) == "p.prompty:3:9: front matter: mapping values are not allowed here"


def test_yaml_error_line_in_crlf_file():
    e = err("---\r\nname: x\r\n\r\nmodel: a: b\r\n---\r\n")
    assert e.line == 4
    assert "\n" not in e.message


def test_unterminated_front_matter_is_line_1():
    e = err("---\nname: x\nHello\n")
    assert (e.line, e.message) == (1, "front matter: no closing '---' line")


def test_python_tags_are_refused():
    e = err("---\nname: x\nhook: !!python/object/apply:os.system ['echo hi']\n---\n")
    assert e.line == 3
    assert "!!python/object/apply:os.system" in e.message and "not allowed" in e.message


def test_duplicate_key_is_an_error_on_one_line():
    e = err("---\na: 1\na: 2\n---\n")
    assert e.line == 3
    assert e.message.startswith("front matter: found duplicate key")
    assert "\n" not in e.message


def test_front_matter_must_be_a_mapping():
    e = err("---\n- a\n- b\n---\n")
    assert (e.line, e.message) == (2, "front matter: expected a mapping, got a list")


# -- samples ------------------------------------------------------------------------


def test_sample_text():
    assert sample_text("hi") == "hi"
    assert sample_text(3) == "3"
    assert sample_text(True) == "true"
    assert sample_text(["a", {"b": 1}]) == '["a", {"b": 1}]'
    assert sample_text({"k": "é"}) == '{"k": "é"}'


# -- Prompty ------------------------------------------------------------------------

PROMPTY = """---
name: support
inputs:
  question:
    type: string
    sample: Where is my order?
  now:
    type: string
    volatility: request
  docs:
    type: list
    default: [a, {b: 1}]
  tier: string
sample:
  question: Can I get a refund?
  customer_name: Jane
  count: 3
---
system:
hi
"""


def test_prompty_inputs():
    file = fm(PROMPTY)
    data, _, _ = split_front_matter(file)
    declared = prompty_inputs(data, file)
    assert declared.names == ("question", "now", "docs", "tier")
    assert declared.verdicts == {"now": Verdict(V.REQUEST, DECLARED)}
    assert DECLARED == "declared in front matter"
    assert declared.samples == {
        "question": ("Where is my order?", "Can I get a refund?"),
        "docs": ('["a", {"b": 1}]',),
        "customer_name": ("Jane",),
        "count": ("3",),
    }


def test_prompty_list_inputs_and_file_sample_reference():
    file = fm("---\ninputs:\n  - name: q\n    sample: hi\n    volatility: session\nsample: ${file:s.json}\n---\n")
    data, _, _ = split_front_matter(file)
    declared = prompty_inputs(data, file)
    assert declared.names == ("q",)
    assert declared.samples == {"q": ("hi",)}
    assert declared.verdicts["q"].volatility is V.SESSION


def test_prompty_bad_volatility_points_at_the_value():
    file = fm("---\ninputs:\n  now:\n    volatility: sometimes\n---\n")
    data, _, _ = split_front_matter(file)
    with pytest.raises(SourceError) as info:
        prompty_inputs(data, file)
    assert (info.value.line, info.value.col) == (4, 17)
    assert info.value.message.startswith("front matter: inputs.now.volatility: unknown volatility 'sometimes'")


def test_prompty_inputs_without_front_matter():
    assert prompty_inputs(None, fm("x")) == DeclaredInputs()


# -- dotprompt ------------------------------------------------------------------------

DOTPROMPT = """---
model: googleai/gemini-2.0-flash
input:
  schema:
    name: string, the user's name
    history?(array): earlier turns
    topic?: string
    docs(array, retrieved passages):
      title: string
  default:
    name: Ann
    docs: [{title: A}]
promptlint:
  variables:
    now: request
    name: user
---
Hi {{name}}
"""


def test_dotprompt_picoschema_inputs():
    file = fm(DOTPROMPT, "a.prompt")
    data, _, _ = split_front_matter(file)
    declared = dotprompt_inputs(data, file)
    assert declared.names == ("name", "history", "topic", "docs")
    assert declared.samples == {"name": ("Ann",), "docs": ('[{"title": "A"}]',)}
    assert declared.verdicts == {"now": Verdict(V.REQUEST, DECLARED), "name": Verdict(V.USER, DECLARED)}


def test_dotprompt_json_schema_inputs():
    file = fm("---\ninput:\n  schema:\n    type: object\n    properties:\n      q: {type: string, default: hi,"
              " examples: [yo]}\n      ts: {type: string, volatility: request}\n---\n", "a.prompt")
    data, _, _ = split_front_matter(file)
    declared = dotprompt_inputs(data, file)
    assert declared.names == ("q", "ts")
    assert declared.samples == {"q": ("hi", "yo")}
    assert declared.verdicts == {"ts": Verdict(V.REQUEST, DECLARED)}


def test_dotprompt_named_schema_is_not_followed():
    file = fm("---\ninput:\n  schema: MyInput\n---\n", "a.prompt")
    assert dotprompt_inputs(split_front_matter(file)[0], file) == DeclaredInputs()


def test_extension_bad_volatility_line():
    file = fm("---\npromptlint:\n  variables:\n    now: often\n---\n", "a.prompt")
    with pytest.raises(SourceError) as info:
        dotprompt_inputs(split_front_matter(file)[0], file)
    assert info.value.line == 4
    assert "promptlint.variables.now" in info.value.message


def test_markdown_inputs_read_only_the_extension():
    file = fm("---\ntitle: x\npromptlint: {variables: {today: day}}\n---\n", "a.md")
    declared = markdown_inputs(split_front_matter(file)[0], file)
    assert declared.verdicts == {"today": Verdict(V.DAY, DECLARED)}


# -- handing declarations on -------------------------------------------------------------


def test_table_and_variables():
    declared = DeclaredInputs({"now": Verdict(V.DEPLOY, DECLARED)}, {"q": ("hi",)}, ("q", "now"))
    table = declared.table(VariableTable(overrides={"q": V.STATIC}))
    assert table.resolve("now") == Verdict(V.DEPLOY, DECLARED)  # declaration beats the name
    assert table.resolve("q").volatility is V.STATIC  # config beats everything
    assert table.samples_for("q") == ("hi",)
    assert declared.variables() == {
        "q": Variable("q", ("hi",), None, ""),
        "now": Variable("now", (), V.DEPLOY, DECLARED),
    }


def test_license_header_before_front_matter_only_when_allowed():
    text = "# Copyright 2025 Example\r\n\r\n---\r\nmodel: m\r\n---\r\nHi"
    assert split_front_matter(fm(text)) == (None, 0, 0)
    data, yaml_start, body_start = split_front_matter(fm(text), allow_header=True)
    assert data == {"model": "m"}
    assert text[body_start:] == "Hi"
    line, _ = data.lc.key("model")
    assert line + 1 == 4


def test_unterminated_after_header_names_the_opening_line():
    with pytest.raises(SourceError) as info:
        split_front_matter(fm("# header\n---\nmodel: m\n"), allow_header=True)
    assert info.value.line == 2
