"""Jinja source: exact spans, volatility per construct, includes, errors."""

from pathlib import Path

import pytest

from promptlint.analysis.volatility import VariableTable
from promptlint.ir import Slot, SlotKind, SourceError, Text, Volatility
from promptlint.sources import jinja
from promptlint.sources.base import SourceContext, read_source


def load(tmp_path: Path, text: str, name="t.j2", files: dict | None = None, **ctx_kw):
    for rel, body in (files or {}).items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body, encoding="utf-8", newline="")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    ctx = SourceContext(root=tmp_path, **ctx_kw)
    return jinja.read(read_source(path, ctx), ctx)[0]


def slots(t):
    return [p for _, p, _ in t.iter_parts() if isinstance(p, Slot)]


def by_label(t, label):
    return next(s for s in slots(t) if s.label == label)


def test_variable_span_and_volatility(tmp_path):
    t = load(tmp_path, "You are a helpful bot.\nCurrent time: {{ now }}\nBye {{ user_name }}!")
    now = by_label(t, "{{ now }}")
    assert now.span.line_col == (2, 15)
    assert now.span.end_line_col == (2, 24)
    assert now.volatility is Volatility.REQUEST
    assert "current time" in now.reason
    user = by_label(t, "{{ user_name }}")
    assert user.span.line_col == (3, 5)
    assert user.volatility is Volatility.USER
    texts = [p.text for p in t.sections[0].parts if isinstance(p, Text)]
    assert texts[0] == "You are a helpful bot.\nCurrent time: "


def test_crlf_offsets_map_back_to_the_file(tmp_path):
    t = load(tmp_path, "line one\r\nline two {{ question }}\r\n")
    q = by_label(t, "{{ question }}")
    assert q.span.line_col == (2, 10)
    assert q.span.source_text == "{{ question }}"


def test_calls_and_filters_set_volatility(tmp_path):
    t = load(tmp_path, "{{ uuid4() }} {{ items | random }} {{ now().strftime('%H:%M') }} {{ 'x' | upper }}")
    assert by_label(t, "{{ uuid4() }}").volatility is Volatility.NONDETERMINISTIC
    assert by_label(t, "{{ items | random }}").volatility is Volatility.NONDETERMINISTIC
    assert by_label(t, "{{ now().strftime('%H:%M') }}").volatility is Volatility.REQUEST
    const = by_label(t, "{{ 'x' | upper }}")
    assert const.volatility is Volatility.STATIC


def test_loop_over_a_set_is_nondeterministic_a_mapping_keeps_insertion_order(tmp_path):
    t = load(tmp_path, "{% for k in tag_set %}{{ k }}\n{% endfor %}"
                       "{% for t in tools | sort(attribute='name') %}{{ t.name }}{% endfor %}"
                       "{% for k, v in settings.items() %}{{ k }}={{ v }}\n{% endfor %}")
    loops = [s for s in slots(t) if s.kind is SlotKind.LOOP]
    assert loops[0].order_varies and loops[0].volatility is Volatility.NONDETERMINISTIC
    assert "without | sort" in loops[0].reason
    assert loops[2].insertion_order and not loops[2].order_varies  # a mapping: its insertion order
    assert not loops[1].order_varies and loops[1].volatility is Volatility.STATIC
    inner = loops[1].children[0]
    assert isinstance(inner, Slot) and inner.volatility is Volatility.STATIC  # item of a static list


def test_conditional_takes_condition_volatility(tmp_path):
    t = load(tmp_path, "{% if customer_tier == 'gold' %}VIP{% elif beta %}beta{% else %}std{% endif %}")
    cond = slots(t)[0]
    assert cond.kind is SlotKind.CONDITIONAL and cond.volatility is Volatility.USER
    assert cond.span.line_col == (1, 1)
    nested = cond.else_children[0]
    assert isinstance(nested, Slot) and nested.kind is SlotKind.CONDITIONAL


def test_set_and_macro_carry_volatility(tmp_path):
    t = load(tmp_path, "{% set greeting = 'Hi ' ~ user_name %}{{ greeting }}\n"
                       "{% macro line(x) %}- {{ x }}{% endmacro %}{{ line(question) }}")
    assert by_label(t, "{{ greeting }}").volatility is Volatility.USER
    call = by_label(t, "{{ line(question) }}")
    assert call.kind is SlotKind.CALL
    assert call.children[1].volatility is Volatility.REQUEST
    # the macro body's span points at the macro definition
    assert call.children[1].span.line_col == (2, 22)


def test_config_override_wins_over_name(tmp_path):
    ctx_vars = VariableTable(overrides={"now": Volatility.DAY})
    t = load(tmp_path, "{{ now }}", variables=ctx_vars)
    now = by_label(t, "{{ now }}")
    assert now.volatility is Volatility.DAY and "config" in now.reason


def test_include_spans_point_into_the_included_file(tmp_path):
    t = load(tmp_path, "Intro\n{% include 'partials/policy.j2' %}\nEnd",
             files={"partials/policy.j2": "Policy v{{ app_version }}"})
    inc = slots(t)[0]
    assert inc.kind is SlotKind.INCLUDE and inc.span.line_col == (2, 1)
    ver = inc.children[1]
    assert ver.span.file.display_path == "partials/policy.j2"
    assert ver.span.line_col == (1, 9)
    assert ver.volatility is Volatility.DEPLOY


def test_extends_replaces_blocks(tmp_path):
    t = load(tmp_path, "{% extends 'base.j2' %}{% block body %}Q: {{ question }}{% endblock %}",
             files={"base.j2": "Header\n{% block body %}default{% endblock %}\nFooter"})
    text = "".join(p.text for p in t.sections[0].parts if isinstance(p, Text))
    assert text == "Header\nQ: \nFooter"
    assert by_label(t, "{{ question }}").span.file.display_path == "t.j2"


@pytest.mark.parametrize("text,files,line,message", [
    ("ok\nok\n{% for x in %}\n", {}, 3, "Jinja syntax error"),
    ("ok\n{% include 'missing.j2' %}", {}, 2, "not found"),
    ("{% include 'b.j2' %}", {"b.j2": "x\n{% include 't.j2' %}"}, 2, "include cycle"),
])
def test_errors_name_the_line(tmp_path, text, files, line, message):
    with pytest.raises(SourceError) as err:
        load(tmp_path, text, files=files)
    assert err.value.line == line
    assert message in str(err.value)


def test_strftime_format_sets_the_precision(tmp_path):
    t = load(tmp_path, "{{ now().strftime('%Y-%m-%d') }} {{ now().strftime('%Y-%m-%d %H:%M') }}")
    day, minute = slots(t)
    assert day.volatility is Volatility.DAY and "once a day" in day.reason
    assert minute.volatility is Volatility.REQUEST


def test_caller_switches_are_unknown_not_static_content(tmp_path):
    t = load(tmp_path, "{% if show_examples %}\n\n{% endif %}{{ examples }}")
    flag, examples = slots(t)
    assert flag.volatility is Volatility.UNKNOWN and "switch" in flag.reason
    assert examples.volatility is Volatility.STATIC
