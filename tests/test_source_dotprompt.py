"""dotprompt (.prompt) files: front matter, the Handlebars lexer's spans,
whitespace rules, roles, regions and their volatility, partials, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from promptlint.analysis.volatility import VariableTable
from promptlint.ir import Slot, SlotKind, SourceError, SourceFile, Text, Volatility as V
from promptlint.sources import dotprompt
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources.placeholders import parse_template_string


@pytest.fixture
def ctx(tmp_path) -> SourceContext:
    return SourceContext(root=tmp_path)


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode())
    return path


def read(tmp_path: Path, content: str, ctx: SourceContext, name: str = "p.prompt"):
    (template,) = dotprompt.read(read_source(write(tmp_path, name, content), ctx), ctx)
    return template


def body(content: str) -> str:
    return "---\nmodel: m\n---\n" + content


def error(tmp_path, content, ctx, name="p.prompt") -> SourceError:
    with pytest.raises(SourceError) as info:
        read(tmp_path, content, ctx, name)
    return info.value


def rendered(parts) -> str:
    """Literal text with each slot shown as its label (regions flattened)."""
    out = []
    for p in parts:
        if isinstance(p, Text):
            out.append(p.text)
        elif isinstance(p, Slot):
            inner = f"[{p.label}:{rendered(p.children)}|{rendered(p.else_children)}]"
            out.append(inner if p.is_region else p.label)
    return "".join(out)


def lc(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


EXAMPLE = """---
model: googleai/gemini-2.0-flash
config:
  temperature: 0.2
input:
  schema:
    customer_name: string
    question: string
    docs?(array): retrieved passages
  default:
    customer_name: Jane
---
{{role "system"}}
You are a support agent. {{! not sent }}
{{!-- also not sent, even with }} inside --}}
{{role "user"}}
Hi, I am {{customer_name}}. {{question}}

{{role "model"}}
Sure.
"""


def test_example_file(tmp_path, ctx):
    t = read(tmp_path, EXAMPLE, ctx, "support.prompt")
    assert (t.name, t.format, t.model) == ("support", "dotprompt", "googleai/gemini-2.0-flash")
    assert [s.role for s in t.sections] == ["system", "user", "assistant"]
    system, user, model = t.sections
    assert rendered(system.parts) == "\nYou are a support agent. \n"
    assert rendered(user.parts) == "\nHi, I am {{customer_name}}. {{question}}\n\n"
    assert rendered(model.parts) == "\nSure."
    name, question = t.slots()
    assert name.span.line_col == lc(EXAMPLE, "{{customer_name}}") == (17, 10)
    assert (name.volatility, name.samples) == (V.USER, ("Jane",))
    assert question.span.line_col == (17, 29) and question.volatility is V.REQUEST
    assert user.span.line_col == (16, 16)
    assert set(t.variables) == {"customer_name", "question", "docs"}


def test_text_outside_roles_is_user_and_body_is_trimmed(tmp_path, ctx):
    t = read(tmp_path, body("\n\n  Hello {{name}}  \n\n"), ctx)
    (section,) = t.sections
    assert section.role == "user"
    assert rendered(section.parts) == "Hello {{name}}"


def test_default_role_from_extension_and_no_front_matter(tmp_path, ctx):
    t = read(tmp_path, "---\npromptlint: {default_role: system}\n---\nRules.", ctx)
    assert [s.role for s in t.sections] == ["system"]
    t = read(tmp_path, "  Hi\n", ctx, "bare.prompt")  # no front matter: not trimmed
    assert rendered(t.sections[0].parts) == "  Hi\n" and t.sections[0].role == "user"


def test_triple_stash_ampersand_and_dotted(tmp_path, ctx):
    content = body("{{{raw_html}}} {{& user.email}} {{ order.id }}")
    t = read(tmp_path, content, ctx)
    labels = [(s.label, s.names, s.span.line_col) for s in t.slots()]
    assert labels == [("{{{raw_html}}}", ("raw_html",), (4, 1)),
                      ("{{& user.email}}", ("user.email",), (4, 16)),
                      ("{{ order.id }}", ("order.id",), (4, 33))]


def test_whitespace_control(tmp_path, ctx):
    t = read(tmp_path, body("A  \n  {{~name~}}  \n  B {{~! gone ~}}  C"), ctx)
    assert rendered(t.sections[0].parts) == "A{{~name~}}BC"


def test_standalone_block_lines_are_removed(tmp_path, ctx):
    content = body("Docs:\n  {{#each docs}}\n- {{title}}\n  {{/each}}\nEnd {{#if x}}inline{{/if}}\n{{! note }}\nZ")
    t = read(tmp_path, content, ctx)
    assert rendered(t.sections[0].parts) == \
        "Docs:\n[{{#each docs}}:- {{title}}\n|]End [{{#if x}}:inline|]\nZ"


def test_escaped_mustache_is_text(tmp_path, ctx):
    content = body("Write \\{{name}} literally, \\\\{{name}} renders.")
    t = read(tmp_path, content, ctx)
    parts = t.sections[0].parts
    assert [p.text if isinstance(p, Text) else p.label for p in parts] == \
        ["Write ", "{{", "name}} literally, ", "\\", "{{name}}", " renders."]
    assert parts[1].span.source_text == "\\{{"
    assert len(t.slots()) == 1


def test_json_braces_are_text(tmp_path, ctx):
    content = body('Answer as {"answer": {"text": "..."}} }} or { }.')
    t = read(tmp_path, content, ctx)
    assert t.slots() == []
    assert rendered(t.sections[0].parts) == 'Answer as {"answer": {"text": "..."}} }} or { }.'


def test_raw_block(tmp_path, ctx):
    t = read(tmp_path, body("{{{{raw}}}}{{not_a_var}}{{{{/raw}}}}"), ctx)
    assert t.slots() == [] and rendered(t.sections[0].parts) == "{{not_a_var}}"


# -- loops and scopes ---------------------------------------------------------------------

LOOP = body("""{{#each documents as |doc i|}}
{{@index}}. {{doc.title}} {{this.body}} {{summary}} {{../customer_name}} {{@root.app_version}}
{{else}}
No documents for {{customer_name}}.
{{/each}}""")


def test_each_loop(tmp_path, ctx):
    t = read(tmp_path, LOOP, ctx)
    (loop,) = t.sections[0].parts
    assert loop.kind is SlotKind.LOOP
    assert (loop.label, loop.names, loop.span.line_col) == ("{{#each documents as |doc i|}}", ("documents",), (4, 1))
    assert loop.span.end_line_col == (8, 10)
    inner = [(s.label, s.volatility, s.names) for s in loop.children if isinstance(s, Slot)]
    assert inner == [
        ("{{@index}}", V.REQUEST, ("documents",)),
        ("{{doc.title}}", V.REQUEST, ("documents",)),
        ("{{this.body}}", V.REQUEST, ("documents",)),
        ("{{summary}}", V.REQUEST, ("documents",)),  # bare names refer to the item
        ("{{../customer_name}}", V.USER, ("customer_name",)),
        ("{{@root.app_version}}", V.DEPLOY, ("app_version",)),
    ]
    item = loop.children[0]
    assert item.reason == "item of documents: the name suggests per-request input ('documents')"
    assert item.span.line_col == (5, 1)
    assert rendered(loop.else_children) == "No documents for {{customer_name}}.\n"
    assert loop.volatility is V.REQUEST


def test_loop_over_static_list_takes_its_items_volatility(tmp_path, ctx):
    t = read(tmp_path, body("{{#each examples}}{{input}} -> {{output}}\n{{/each}}"), ctx)
    (loop,) = t.slots()[:1]
    assert loop.volatility is V.STATIC
    assert all(s.volatility is V.STATIC for s in loop.children if isinstance(s, Slot))


def test_conditional_takes_its_conditions_volatility_not_its_childrens(tmp_path, ctx):
    t = read(tmp_path, body("{{#if examples}}As of {{now}}:{{/if}}"), ctx)
    (region,) = t.sections[0].parts
    assert region.kind is SlotKind.CONDITIONAL and region.names == ("examples",)
    assert region.volatility is V.STATIC and "contains" not in region.reason
    (now,) = [p for p in region.children if isinstance(p, Slot)]
    assert now.volatility is V.REQUEST  # the child keeps its own class


def test_conditional_on_a_volatile_condition(tmp_path, ctx):
    t = read(tmp_path, body("{{#if user_is_vip}}Static text.{{/if}}{{#unless request_id}}{{request_id}}{{/unless}}"), ctx)
    first, second = t.sections[0].parts
    assert (first.volatility, first.names) == (V.USER, ("user_is_vip",))  # a flag: its truth is its value
    assert (second.volatility, second.names) == (V.REQUEST, ("request_id",))  # the block shows the value


def test_a_presence_test_alone_is_no_evidence(tmp_path, ctx):
    """`{{#if user_tier}}` with static text inside: a value set on every
    request keeps the branch fixed, so nothing says the text changes."""
    t = read(tmp_path, body("{{#if user_tier}}Static text.{{/if}}"), ctx)
    (first,) = t.sections[0].parts
    assert first.volatility is V.UNKNOWN and "only tests whether user_tier is set" in first.reason


def test_with_and_inverse_take_their_arguments_volatility(tmp_path, ctx):
    content = "{{#with rules}}{{@root.now}}{{/with}}{{^rules}}{{uuid}}{{/rules}}{{#with session_id}}x{{/with}}"
    t = read(tmp_path, body(content), ctx)
    with_, inverse, with_session = t.sections[0].parts
    assert with_.kind is SlotKind.CONDITIONAL and with_.volatility is V.STATIC
    assert with_.children[0].volatility is V.REQUEST
    assert inverse.kind is SlotKind.CONDITIONAL and inverse.volatility is V.STATIC
    assert inverse.children[0].volatility is V.NONDETERMINISTIC
    assert with_session.volatility is V.SESSION


def test_loop_takes_its_iterables_volatility_not_its_childrens(tmp_path, ctx):
    t = read(tmp_path, body("{{#each examples}}{{this}} at {{@root.now}} for {{../user_name}}\n{{/each}}"), ctx)
    (loop,) = t.sections[0].parts
    assert loop.kind is SlotKind.LOOP and loop.volatility is V.STATIC and not loop.order_varies
    got = [(s.label, s.volatility) for s in loop.children if isinstance(s, Slot)]
    assert got == [("{{this}}", V.STATIC), ("{{@root.now}}", V.REQUEST), ("{{../user_name}}", V.USER)]


def test_each_by_key_follows_insertion_order(tmp_path, ctx):
    """An object's key order is the order it was built in: no evidence it
    changes, so the loop keeps its iterable's class (PL002 gives a hint)."""
    t = read(tmp_path, body("{{#each examples}}{{@key}}: {{this}}\n{{/each}}"), ctx)
    (loop,) = t.sections[0].parts
    assert loop.insertion_order and not loop.order_varies and loop.volatility is V.STATIC


def test_key_of_an_outer_or_inner_loop(tmp_path, ctx):
    # @key inside a nested if still reads this loop's key
    t = read(tmp_path, body("{{#each a}}{{#if x}}{{@key}}{{/if}}{{/each}}"), ctx)
    assert t.sections[0].parts[0].insertion_order
    # an inner each's @key is the inner loop's; @../key reaches the outer one
    t = read(tmp_path, body("{{#each a}}{{#each b}}{{@key}}{{/each}}{{/each}}"), ctx)
    (outer,) = t.sections[0].parts
    (inner,) = outer.children
    assert not outer.insertion_order and inner.insertion_order
    t = read(tmp_path, body("{{#each a}}{{#each b}}{{@../key}}{{/each}}{{/each}}"), ctx)
    (outer,) = t.sections[0].parts
    assert outer.insertion_order and not outer.children[0].insertion_order
    # an index, a list's items, or @key in the else branch: not by key
    t = read(tmp_path, body("{{#each a as |item i|}}{{@index}} {{i}} {{item}}{{else}}{{@key}}{{/each}}"), ctx)
    assert not t.sections[0].parts[0].insertion_order


def test_custom_block_helper_is_a_container(tmp_path, ctx):
    t = read(tmp_path, body("{{#markdown}}As of {{now}}{{/markdown}}"), ctx)
    (call,) = t.sections[0].parts
    assert call.kind is SlotKind.CALL and call.volatility is V.REQUEST
    assert call.reason.startswith("contains {{now}}: ")


def test_static_conditional_does_not_break_the_prefix_its_child_does(tmp_path, ctx):
    from promptlint.analysis.prefix import analyze
    from promptlint.tokenizers import get_tokenizer

    content = ("---\nmodel: m\npromptlint:\n  variables:\n    show_tips: static\n---\n"
               "{{#if show_tips}}Tip: {{now}}{{/if}}\n" + "Always answer politely and cite sources. " * 40)
    t = read(tmp_path, content, ctx)
    (region, *_) = t.sections[0].parts
    assert region.kind is SlotKind.CONDITIONAL and region.volatility is V.STATIC
    analysis = analyze(t, get_tokenizer("tiktoken:o200k_base"))
    breaker = analysis.scopes["global"].breaker
    assert breaker is not None and breaker.label == "{{now}}"
    assert breaker.span.line_col == lc(content, "{{now}}") == (7, 23)
    # the branch is not flipped: the varied render still has the tip
    assert analysis.scopes["global"].varied.text.startswith("Tip: ")
    assert analysis.reference.text.startswith("Tip: ")


def test_if_else_if_chain_and_unless(tmp_path, ctx):
    content = body("{{#if premium}}P{{else if trial_days}}T{{else}}F{{/if}}|{{#unless user_is_vip}}U{{else}}N{{/unless}}")
    t = read(tmp_path, content, ctx)
    first, _, second = t.sections[0].parts
    assert rendered([first]) == "[{{#if premium}}:P|[{{else if trial_days}}:T|F]]"
    chained = first.else_children[0]
    assert chained.kind is SlotKind.CONDITIONAL and chained.names == ("trial_days",)
    assert chained.span.line_col == (4, 17)
    assert second.kind is SlotKind.CONDITIONAL and second.volatility is V.USER
    assert rendered([second]) == "[{{#unless user_is_vip}}:U|N]"


def test_with_block_keeps_paths(tmp_path, ctx):
    ctx = SourceContext(variables=VariableTable(overrides={"account": V.DEPLOY}), root=tmp_path)
    t = read(tmp_path, body("{{#with account}}{{plan}}{{/with}}"), ctx)
    (region,) = t.sections[0].parts
    (inner,) = region.children
    assert inner.names == ("account.plan",)
    assert inner.volatility is V.DEPLOY and inner.reason.startswith("set in config")


def test_inverse_section(tmp_path, ctx):
    t = read(tmp_path, body("{{^docs}}none{{/docs}}"), ctx)
    (region,) = t.sections[0].parts
    assert region.kind is SlotKind.CONDITIONAL and rendered(region.children) == "none"


# -- dotprompt helpers ------------------------------------------------------------------------


def test_history_is_a_session_slot_and_what_follows_is_the_model(tmp_path, ctx):
    content = body('{{role "system"}}\nRules.\n{{history}}\nThinking...\n{{role "user"}}\n{{question}}')
    t = read(tmp_path, content, ctx)
    assert [s.role for s in t.sections] == ["system", "user", "assistant", "user"]
    (history,) = t.sections[1].parts
    assert (history.volatility, history.reason) == (V.SESSION, "dotprompt {{history}} inserts the conversation history")
    assert history.names == ("history",) and history.span.line_col == (6, 1)
    assert rendered(t.sections[2].parts) == "\nThinking...\n"


def test_role_block(tmp_path, ctx):
    content = body('Intro\n{{#role "system"}}\nRules {{policy}}\n{{/role}}\nAsk {{question}}')
    t = read(tmp_path, content, ctx)
    assert [s.role for s in t.sections] == ["user", "system", "user"]
    assert rendered(t.sections[1].parts) == "Rules {{policy}}\n"


def test_media_section_json_and_unknown_helpers(tmp_path, ctx):
    content = body('{{media url=photo_url}}{{section "output"}}{{json customer}}'
                   '{{upper "x"}}{{uuid}}{{formatDate today}}')
    t = read(tmp_path, content, ctx)
    got = [(s.label, s.kind, s.volatility, s.names) for s in t.slots()]
    assert got == [
        ("{{media url=photo_url}}", SlotKind.VARIABLE, V.REQUEST, ("photo_url",)),
        ("{{json customer}}", SlotKind.EXPRESSION, V.USER, ("customer",)),
        ('{{upper "x"}}', SlotKind.EXPRESSION, V.STATIC, ()),
        ("{{uuid}}", SlotKind.VARIABLE, V.NONDETERMINISTIC, ("uuid",)),
        ("{{formatDate today}}", SlotKind.EXPRESSION, V.DAY, ("today",)),
    ]


def test_front_matter_declarations_and_config_precedence(tmp_path):
    content = "---\npromptlint:\n  variables:\n    snapshot: request\n    docs: static\n---\n{{snapshot}} {{docs}}"
    ctx = SourceContext(variables=VariableTable(overrides={"docs": V.DAY}), root=tmp_path)
    t = read(tmp_path, content, ctx)
    snapshot, docs = t.slots()
    assert (snapshot.volatility, snapshot.reason) == (V.REQUEST, "declared in front matter")
    assert docs.volatility is V.DAY  # config wins over front matter


def test_crlf_file(tmp_path, ctx):
    content = ('---\r\nmodel: m\r\n---\r\n{{role "system"}}\r\nHi {{user_name}}\r\n'
               '{{#each items}}\r\n* {{this}}\r\n{{/each}}\r\nEnd')
    t = read(tmp_path, content, ctx)
    user, loop = t.slots()[:2]
    assert user.span.line_col == (5, 4)
    assert loop.span.line_col == (6, 1)
    assert rendered(t.sections[0].parts) == "\r\nHi {{user_name}}\r\n[{{#each items}}:* {{this}}\r\n|]End"


# -- partials ------------------------------------------------------------------------------------


def test_partial_from_underscore_file(tmp_path, ctx):
    write(tmp_path, "_persona.prompt", "You are {{bot_name}}, helping {{customer_name}}.\n")
    content = body("{{>persona}}\nQ: {{question}}")
    t = read(tmp_path, content, ctx)
    include = t.sections[0].parts[0]
    assert include.kind is SlotKind.INCLUDE and include.label == "{{>persona}}"
    assert include.span.line_col == (4, 1)
    bot, customer = [p for p in include.children if isinstance(p, Slot)]
    assert bot.span.file.path.name == "_persona.prompt" and bot.span.line_col == (1, 9)
    assert include.volatility is V.USER and include.reason.startswith("contains {{customer_name}}")
    assert rendered(t.sections[0].parts).startswith("[{{>persona}}:You are")


def test_partial_from_partials_folder_with_context_and_hash(tmp_path, ctx):
    write(tmp_path, "partials/card.prompt", "{{name}} ({{label}})")
    t = read(tmp_path, body("{{> card customer label=tier}}"), ctx)
    (include,) = t.sections[0].parts
    name, label = [p for p in include.children if isinstance(p, Slot)]
    assert name.names == ("customer.name",) and label.names == ("tier",)


def test_static_partial_is_static(tmp_path, ctx):
    write(tmp_path, "_rules.prompt", "---\ndescription: rules\n---\n\nBe kind.\n")
    t = read(tmp_path, body("{{> rules}}"), ctx)
    (include,) = t.sections[0].parts
    assert include.volatility is V.STATIC
    assert rendered(include.children) == "Be kind."


def test_missing_partial(tmp_path, ctx):
    e = error(tmp_path, body("Hi\n  {{> nowhere}}"), ctx)
    assert (e.line, e.col, e.message) == (5, 3, "partial 'nowhere' not found")


def test_partial_cycle(tmp_path, ctx):
    write(tmp_path, "_a.prompt", "A {{> b}}")
    write(tmp_path, "_b.prompt", "B\n{{> a}}")
    e = error(tmp_path, body("{{> a}}"), ctx)
    assert e.path.endswith("_b.prompt") and e.line == 2
    assert e.message.startswith("partial cycle: ")


def test_partial_depth_limit(tmp_path):
    for n in range(5):
        write(tmp_path, f"_p{n}.prompt", f"{{{{> p{n + 1}}}}}")
    write(tmp_path, "_p5.prompt", "end")
    ctx = SourceContext(root=tmp_path, max_include_depth=3)
    e = error(tmp_path, body("{{> p0}}"), ctx)
    assert e.message == "partials nested deeper than 3"


# -- errors ----------------------------------------------------------------------------------------


def test_unclosed_block_points_at_the_opener(tmp_path, ctx):
    e = error(tmp_path, body("ok\n  {{#each docs}}\n{{this}}\n"), ctx)
    assert (e.line, e.col) == (5, 3)
    assert e.message == "'{{#each docs}}' is never closed"


def test_mismatched_closer(tmp_path, ctx):
    e = error(tmp_path, body("{{#if a}}\nx\n{{/each}}"), ctx)
    assert (e.line, e.col) == (6, 1)
    assert e.message == "'{{/each}}' does not match '{{#if a}}' opened at line 4:1"


def test_stray_else_and_closer_are_reported_and_the_rest_read(tmp_path, ctx):
    t = read(tmp_path, body("a {{else}}\n{{/if}}\n{{now}}"), ctx)
    first, second = ctx.diagnostics
    assert first.message == "{{else}} outside a block"
    assert (second.line, second.message) == (5, "'{{/if}}' closes a block that was never opened")
    assert [s.label for s in t.slots()] == ["{{now}}"]


def test_unclosed_tag_and_comment(tmp_path, ctx):
    e = error(tmp_path, body("Hi {{name\nthere"), ctx)
    assert (e.line, e.col) == (4, 4) and e.message.startswith("unclosed '{{'")
    e = error(tmp_path, body("x\n{{!-- never closed"), ctx)
    assert (e.line, e.message) == (5, "unclosed comment")


def test_partial_blocks_and_inline_decorators_are_read(tmp_path, ctx):
    """Handlebars accepts both, so promptlint must: a partial block keeps
    its body (the fallback), an inline decorator prints nothing."""
    t = read(tmp_path, body('{{#*inline "row"}}r{{/inline}}{{#> layout}}x {{now}}{{/layout}}'), ctx)
    (block,) = t.sections[0].parts
    assert block.kind is SlotKind.CALL and [s.label for s in t.slots()] == ["{{#> layout}}", "{{now}}"]
    assert ctx.diagnostics == []


def test_front_matter_error_line_and_the_body_is_still_read(tmp_path, ctx):
    t = read(tmp_path, "---\nmodel: m\ninput:\n  schema: [a\n---\nHi {{now}}", ctx)
    (e,) = ctx.diagnostics
    assert e.line == 5 and e.message.startswith("front matter: ")
    assert [s.label for s in t.slots()] == ["{{now}}"]  # the body after it is still checked


# -- as a fragment -------------------------------------------------------------------------------


def test_handlebars_fragment_through_the_shared_entry_point(ctx):
    file = SourceFile("m.yaml", 'content: "{{#if vip}}Hi {{user_name}}{{/if}}"\n')
    value = "{{#if vip}}Hi {{user_name}}{{/if}}"
    parts = parse_template_string(value, file, list(range(10, 10 + len(value) + 1)), ctx)
    (region,) = parts
    assert region.kind is SlotKind.CONDITIONAL and region.span.line_col == (1, 11)
    assert region.children[1].span.line_col == (1, 25)


def test_license_header_is_not_part_of_the_body(tmp_path, ctx):
    t = read(tmp_path, "# SPDX-License-Identifier: Apache-2.0\n---\nmodel: m\n---\nHi {{name}}", ctx)
    assert t.model == "m"
    assert rendered(t.sections[0].parts) == "Hi {{name}}"
    assert t.slots()[0].span.line_col == (5, 4)


_PIECES = st.sampled_from(list("{}#/^>!~&\\\"' \n\r.@ab") + [
    "{{", "}}", "each ", "if ", "else", "this", "../", "as |i|", "{{{", "}}}", "--", "{{!"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_any_input_gives_parts_in_bounds_or_a_source_error(text):
    file = SourceFile("x.prompt", text)
    try:
        parts = dotprompt.parse_handlebars_fragment(text, file, None, SourceContext())
    except SourceError:
        return

    def walk(ps):
        for p in ps:
            assert 0 <= p.span.start <= p.span.end <= len(text)
            if isinstance(p, Slot):
                walk(p.children)
                walk(p.else_children)

    walk(parts)


def test_a_tag_that_spans_lines_is_quoted_on_one_line(tmp_path):
    """A broken tag that runs over several lines (`{{Homely TRV), ... }}`, a
    fuzzed input) gives one error line: its first line, shortened."""
    from click.testing import CliRunner

    from promptlint.cli import main

    (tmp_path / ".git").mkdir()
    body = ("You help with radiator valves\n({{Homely TRV), room sensors and a hub,\n\n"
            "all managed from the app}} and nothing else.\n{{question}}\n")
    (tmp_path / "help.prompt").write_text("---\nmodel: openai/gpt-4.1\n---\n" + body)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(tmp_path / "help.prompt")])
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if "cannot parse" in line]
    assert len(result.stderr.strip().splitlines()) == 1 and len(errors) == 1, result.stderr
    assert errors[0].endswith("help.prompt:5:2: cannot parse '{{Homely TRV), room sensors and a hub,…'")
