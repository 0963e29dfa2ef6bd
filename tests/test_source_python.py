"""Python sources -> IR: call-site shapes, exact positions through the data
flow, volatility from expressions, errors, and that user code never runs."""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.analysis.volatility import VariableTable
from promptlint.cli import main
from promptlint.discover import Discovery, format_for
from promptlint.ir import Breakpoint, Slot, SlotKind, SourceError, Text, Volatility
from promptlint.sources.base import SourceContext, read_source
from promptlint.sources.python import read
from promptlint.sources.python.strings import Lit, cleandoc, decode_simple, dedent

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "tests" / "data" / "python_app"
V = Volatility


def load(tmp_path, text: str, name: str = "app.py", newline: str = "\n", ctx: SourceContext | None = None):
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    ctx = ctx or SourceContext(root=tmp_path)
    return read(read_source(path, ctx), ctx)


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the nth occurrence of `needle` in `text`."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    line = text.count("\n", 0, i) + 1
    return line, i - (text.rfind("\n", 0, i) + 1) + 1


def one(templates, name: str | None = None):
    if name is None:
        assert len(templates) == 1, [t.name for t in templates]
        return templates[0]
    found = [t for t in templates if t.name == name]
    assert found, [t.name for t in templates]
    return found[0]


def slot(template, label: str) -> Slot:
    found = [s for s in template.slots() if s.label == label]
    assert found, [s.label for s in template.slots()]
    return found[0]


def text_of(parts) -> str:
    return "".join(p.text for p in parts if isinstance(p, Text))


def roles(template) -> list[str]:
    return [s.role for s in template.sections]


# ------------------------------------------------------------------ call-site shapes

OPENAI = '''\
from openai import OpenAI

client = OpenAI()
TOOLS = [{"type": "function", "function": {"name": "lookup", "description": "Find an order."}}]


def answer(question):
    return client.chat.completions.create(
        model="gpt-4.1",
        tools=TOOLS,
        messages=[
            {"role": "system", "content": "You are Pine."},
            {"role": "developer", "content": "Answer briefly."},
            {"role": "user", "content": question},
        ],
    )
'''


def test_openai_chat_completions(tmp_path):
    t = one(load(tmp_path, OPENAI))
    assert t.name == "app:answer" and t.format == "python" and t.model == "gpt-4.1"
    assert t.span.line_col == at(OPENAI, "client.chat")
    assert roles(t) == ["tools", "system", "developer", "user"]  # tools first, then the messages in order
    tool = {"type": "function", "function": {"name": "lookup", "description": "Find an order."}}
    assert text_of(t.sections[0].parts) == json.dumps(tool, separators=(",", ":"))
    assert t.sections[0].parts[0].span.line_col == at(OPENAI, '{"type"')
    assert text_of(t.sections[1].parts) == "You are Pine."
    assert t.sections[1].parts[0].span.source_text == "You are Pine."
    question = slot(t, "question")
    assert question.volatility is V.REQUEST and question.span.line_col == at(OPENAI, "question},")
    assert "parameter of answer()" in question.reason


def test_openai_responses(tmp_path):
    src = '''\
import openai

def ask(q):
    openai.OpenAI().responses.create(model="gpt-4.1", instructions="Be brief.", input=q)

def ask_list(q):
    client.responses.create(input=[{"role": "developer", "content": "Dev."},
                                   {"role": "user", "content": [{"type": "input_text", "text": q}]},
                                   {"type": "function_call_output", "call_id": "c1", "output": "42"}])
'''
    first, second = load(tmp_path, src)
    assert roles(first) == ["system", "user"] and text_of(first.sections[0].parts) == "Be brief."
    line, col = at(src, "input=q")
    assert slot(first, "q").span.line_col == (line, col + len("input="))
    assert roles(second) == ["developer", "user", "tool"]
    assert slot(second, "q").span.line_col == at(src, "q}]}")


ANTHROPIC = '''\
import anthropic

POLICY = "Refunds within 60 days."


def escalate(transcript):
    return anthropic.Anthropic().messages.create(
        model="claude-sonnet-4-5",
        tools=[{"name": "refund", "description": "Refund.", "input_schema": {"type": "object"},
                "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        system=[{"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": [{"type": "text", "text": transcript,
                                                "cache_control": {"type": "ephemeral"}}]}],
    )
'''


def test_anthropic_messages_with_breakpoints(tmp_path):
    t = one(load(tmp_path, ANTHROPIC))
    assert roles(t) == ["tools", "system", "user"] and t.model == "claude-sonnet-4-5"
    tools, system, user = t.sections
    assert isinstance(tools.parts[-1], Breakpoint) and tools.parts[-1].ttl == "1h"
    assert "cache_control" not in text_of(tools.parts)  # the marker is not part of the tool's JSON
    assert tools.parts[-1].span.line_col == at(ANTHROPIC, '"cache_control"')
    assert tools.parts[-1].span.source_text == '"cache_control": {"type": "ephemeral", "ttl": "1h"}'
    assert text_of(system.parts) == "Refunds within 60 days."
    assert system.parts[0].span.line_col == at(ANTHROPIC, "Refunds")  # the constant's text, where it is written
    assert isinstance(system.parts[-1], Breakpoint) and system.parts[-1].ttl == "5m"
    assert system.parts[-1].span.line_col == at(ANTHROPIC, '"cache_control"', 1)
    assert isinstance(user.parts[0], Slot) and isinstance(user.parts[-1], Breakpoint)
    assert [b.span.line_col for b in t.breakpoints()] == [at(ANTHROPIC, '"cache_control"', i) for i in range(3)]
    assert "POLICY" not in [x.name.split(":")[-1] for x in load(tmp_path, ANTHROPIC)]  # sent: not a prompt of its own


def test_litellm_completion_and_acompletion(tmp_path):
    src = '''\
import litellm
from litellm import completion

def route(utterance):
    return completion(model="gpt-4o-mini", messages=[{"role": "user", "content": utterance}])

async def route_async(utterance):
    return await litellm.acompletion(model="gpt-4o-mini", messages=[{"role": "user", "content": utterance}])
'''
    first, second = load(tmp_path, src)
    assert (first.name, second.name) == ("app:route", "app:route_async")
    assert first.span.line_col == at(src, "completion(model")
    assert slot(second, "utterance").span.line_col == at(src, "utterance}])", 1)


LANGCHAIN = '''\
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate

RAG_SYSTEM = """Excerpts:
{context}

Answer from the excerpts. Output JSON like {{"answer": "..."}}."""

qa = ChatPromptTemplate.from_messages(
    [("system", RAG_SYSTEM), MessagesPlaceholder("history"), ("human", "{question}")]
)
greeter = ChatPromptTemplate.from_messages([("system", "Hi {{user_name}} {literal}")], template_format="mustache")
summary = PromptTemplate.from_template("Summarise for {audience}:\\n{text}")
'''


def test_langchain_templates(tmp_path):
    qa, greeter, summary = load(tmp_path, LANGCHAIN)
    assert qa.name == "app:8" and qa.span.line_col == at(LANGCHAIN, "ChatPromptTemplate.from_messages")
    assert roles(qa) == ["system", "user", "user"]
    context = slot(qa, "{context}")
    assert context.volatility is V.REQUEST and context.span.line_col == at(LANGCHAIN, "{context}")
    assert '{"answer": "..."}' in text_of(qa.sections[0].parts)  # {{ }} are escaped braces
    history = slot(qa, "MessagesPlaceholder('history')")
    assert history.volatility is V.SESSION and history.span.line_col == at(LANGCHAIN, "MessagesPlaceholder(")
    assert slot(qa, "{question}").span.line_col == at(LANGCHAIN, "{question}")
    # mustache: {{user_name}} is a slot, single braces are text
    assert slot(greeter, "{{user_name}}").volatility is V.USER
    assert "{literal}" in text_of(greeter.sections[0].parts)
    assert [s.label for s in summary.slots()] == ["{audience}", "{text}"]
    assert slot(summary, "{text}").span.line_col == at(LANGCHAIN, "{text}")


def test_langchain_messages_are_literal_and_invoke_is_one_prompt(tmp_path):
    src = '''\
from langchain_core.messages import HumanMessage, SystemMessage

def explain(llm, question):
    messages = [SystemMessage(content="Explain {like} this."), HumanMessage(content=question)]
    return llm.invoke(messages)

STANDALONE = [SystemMessage("Alone.")]
'''
    explain, standalone = load(tmp_path, src)
    assert explain.name == "app:explain" and roles(explain) == ["system", "user"]
    assert text_of(explain.sections[0].parts) == "Explain {like} this."  # message objects are not templates
    assert slot(explain, "question").span.line_col == at(src, "question)]")
    assert standalone.name == "app:7" and text_of(standalone.sections[0].parts) == "Alone."


def test_a_wrapper_that_passes_messages_through_is_no_prompt(tmp_path):
    src = "def chat(client, messages, **kw):\n    return client.chat.completions.create(messages=messages, **kw)\n"
    assert load(tmp_path, src) == []


def test_any_call_with_role_messages(tmp_path):
    src = '''\
import ollama

def chat(prompt_text):
    return ollama.chat(model="llama3", messages=[{"role": "system", "content": "Be kind."},
                                                 {"role": "user", "content": prompt_text}])

def not_a_prompt(items):
    return sorted(items, key=len)
'''
    t = one(load(tmp_path, src))
    assert t.name == "app:chat" and roles(t) == ["system", "user"]


def test_module_constants_and_prompt_functions(tmp_path):
    src = '''\
from openai import OpenAI

BOOKING_INSTRUCTIONS = "Book trips."
POLICY_INSTRUCTIONS = "Follow the policy."
SYSTEM_PROMPT = BOOKING_INSTRUCTIONS + "\\n" + POLICY_INSTRUCTIONS
HEADLINE_PROMPT = "Write a headline for {article} in {style}."
JINJA_TEMPLATE = "Hello {{ user_name }}{% if vip %}, welcome back{% endif %}."
UNUSED_PROMPT = "Nobody sends me."
USER_PROMPT_TEMPLATE = "Question: {question}"
NOT_A_PROMPT = 42


def build_onboarding_prompt(user_name):
    return f"Welcome {user_name}. Here is how the workspace, projects and dashboards work."


def _prompt_label(name):
    return f"{name}!"


def send(client):
    client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": SYSTEM_PROMPT}])
'''
    templates = load(tmp_path, src)
    assert [t.name for t in templates] == ["app:HEADLINE_PROMPT", "app:JINJA_TEMPLATE", "app:UNUSED_PROMPT",
                                           "app:USER_PROMPT_TEMPLATE", "app:build_onboarding_prompt", "app:send"]
    headline = one(templates, "app:HEADLINE_PROMPT")
    assert headline.span.line_col == at(src, "HEADLINE_PROMPT")
    assert [s.label for s in headline.slots()] == ["{article}", "{style}"]  # str.format placeholders
    jinja = one(templates, "app:JINJA_TEMPLATE")
    assert slot(jinja, "{{ user_name }}").span.line_col == at(src, "{{ user_name }}")
    assert any(s.kind is SlotKind.CONDITIONAL for s in jinja.slots())
    assert roles(one(templates, "app:USER_PROMPT_TEMPLATE")) == ["user"]
    onboarding = one(templates, "app:build_onboarding_prompt")
    assert slot(onboarding, "user_name").volatility is V.USER
    send = one(templates, "app:send")  # the fragments and SYSTEM_PROMPT are part of the sent prompt
    assert text_of(send.sections[0].parts) == "Book trips.\nFollow the policy."


def test_template_constants_outside_llm_code_are_not_prompts(tmp_path):
    src = 'URL_TEMPLATE = "https://example.com/{user}/{repo}"\nSCRIPT_TEMPLATE = "import sys\\n{body}"\n'
    assert load(tmp_path, src) == []
    assert [t.name for t in load(tmp_path, src + 'CHAT_TEMPLATE = "You are {bot}."\n', name="b.py")] == [
        "b:CHAT_TEMPLATE"]
    with_sdk = "from openai import OpenAI\n" + src
    assert [t.name for t in load(tmp_path, with_sdk, name="c.py")] == ["c:URL_TEMPLATE", "c:SCRIPT_TEMPLATE"]


# ------------------------------------------------------------------ positions through the data flow

def test_fstring_positions_with_escapes_tabs_and_unicode(tmp_path):
    src = (
        "from datetime import datetime\n"
        "def f(client, question):\n"
        "\tclient.chat.completions.create(messages=[{'role': 'system', 'content':\n"
        "\t\tf\"Café ☕ \\\"q\\\"\\n{{x}} Time: {datetime.now()} \\N{EM DASH} {question!r:>10}\"}])\n"
    )
    t = one(load(tmp_path, src))
    now = slot(t, "datetime.now()")
    assert now.span.line_col == at(src, "datetime.now()") == (4, 32)  # columns count characters, a tab is one
    assert now.span.source_text == "datetime.now()"
    texts = [p for p in t.sections[0].parts if isinstance(p, Text)]
    assert "".join(p.text for p in texts) == 'Café ☕ "q"\n{x} Time:  — '
    assert texts[0].span.line_col == (4, 5) and texts[0].span.source_text.startswith("Café")
    assert slot(t, "question").span.line_col == at(src, "question!r")


def test_crlf_line_ends(tmp_path):
    src = "def f(c, user_name):\n    c.chat.completions.create(messages=[{'role': 'user',\n        'content': f'Hi {user_name}'}])\n"
    t = one(load(tmp_path, src, newline="\r\n"))
    assert slot(t, "user_name").span.line_col == at(src, "user_name}")


FORMAT = '''\
SYSTEM_PROMPT = """You help {user} with {product}.
Today: {today}. Rules follow."""


def answer(client, name, question):
    system = SYSTEM_PROMPT.format(user=name, product="Acme", today=date.today())
    client.chat.completions.create(messages=[{"role": "system", "content": system},
                                             {"role": "user", "content": question}])
'''


def test_format_values_are_placed_where_they_enter_the_prompt(tmp_path):
    """`TEMPLATE.format(user=name, today=date.today())`: a value the call
    computes enters the prompt at its argument (`date.today()`); a name it
    only passes through enters at the field it fills (`{user}`: the text a
    fix moves). The template's own text keeps its characters' positions."""
    src = "from datetime import date\n" + FORMAT
    t = one(load(tmp_path, src))
    user = slot(t, "{user}")
    assert user.span.source_text == "{user}" and user.volatility is V.USER
    assert user.span.line_col == at(src, "{user}")
    assert "{user} is name" in user.reason
    today = slot(t, "{today}")
    assert today.volatility is V.DAY and today.span.source_text == "date.today()"
    acme = next(p for p in t.sections[0].parts if isinstance(p, Text) and p.text == "Acme")
    assert acme.span.line_col == at(src, 'Acme"') and acme.span.source_text == "Acme"  # the argument's literal
    assert text_of(t.sections[0].parts) == "You help  with Acme.\nToday: . Rules follow."


def test_percent_template_and_format_map(tmp_path):
    src = '''\
import string

GREETING = "Hello %(name)s, you are %s"
BODY = string.Template("Dear $customer, $$5 off ${item}.")

def f(client, user_name, tier):
    content = GREETING % {"name": user_name} + BODY.substitute(customer=user_name, item="boots")
    other = "Plan {tier}".format_map({"tier": tier})
    client.chat.completions.create(messages=[{"role": "user", "content": content + other}])
'''
    t = one(load(tmp_path, src))
    assert slot(t, "%(name)s").span.line_col == at(src, "%(name)s")  # a name passed through: at the field
    assert slot(t, "%s").volatility is V.UNKNOWN  # no argument for it: named by itself, no evidence
    assert slot(t, "%s").span.line_col == at(src, "%s")
    assert slot(t, "$customer").span.line_col == at(src, "$customer")
    assert "$5 off boots." in text_of(t.sections[0].parts)
    assert slot(t, "{tier}").volatility is V.USER and slot(t, "{tier}").span.line_col == at(src, "{tier}")


def test_concatenation_implicit_and_join(tmp_path):
    src = '''\
HEADER = ("You are Pine. "
          "Be brief.")

def f(client, question, history):
    body = "\\n".join([HEADER, f"History: {history}", "End."])
    client.chat.completions.create(messages=[{"role": "user", "content": body + " Q: " + question}])
'''
    t = one(load(tmp_path, src))
    assert text_of(t.sections[0].parts) == "You are Pine. Be brief.\nHistory: \nEnd. Q: "
    parts = t.sections[0].parts
    assert parts[0].span.line_col == at(src, "You are") and parts[1].span.line_col == at(src, "Be brief")
    assert slot(t, "history").span.line_col == at(src, "history}")
    assert slot(t, "question").span.line_col == at(src, "question}])")


def test_helper_functions_are_inlined(tmp_path):
    src = '''\
from datetime import datetime


def build_system(user_name, tone="friendly"):
    return f"You help {user_name} in a {tone} tone. Now: {datetime.now()}"


def render(text):
    return f"<{text}>"


def f(client, customer_name, blob):
    client.chat.completions.create(messages=[
        {"role": "system", "content": build_system(customer_name)},
        {"role": "user", "content": render(blob)},
    ])
'''
    t = one(load(tmp_path, src))
    user = slot(t, "user_name")  # the slot sits in the helper's f-string, where the text is written
    assert user.span.line_col == at(src, "user_name} in") and user.volatility is V.USER
    assert "customer_name" in user.reason
    assert "friendly" in text_of(t.sections[0].parts)  # a default argument's literal
    assert slot(t, "datetime.now()").span.line_col == at(src, "datetime.now()")
    # an argument with no evidence takes the parameter's name: `blob` says nothing, `text` does
    assert slot(t, "text").volatility is V.REQUEST and "passed as text" in slot(t, "text").reason


def test_helper_called_for_several_parts_is_told_by_the_call(tmp_path):
    """A section helper the prompt calls once per part: its own line is the
    same for every call, so a part it only passes through sits at the call."""
    src = '''\
def _section(content, tag):
    parts = [f"<{tag}>"]
    for item in content:
        parts.append(item)
    parts.append(f"</{tag}>")
    return parts


def build(client, inputs, rubric="Score the answer from 1 to 5 for accuracy."):
    sections = []
    sections.extend(_section(inputs, "Input"))
    sections.extend(_section(rubric, "Rubric"))
    return client.chat.completions.create(messages=[{"role": "user", "content": "\\n".join(sections)}])
'''
    t = one(load(tmp_path, src))
    moved = slot(t, "inputs")
    assert moved.span.line_col == at(src, "inputs, \"Input\"") and moved.volatility is V.REQUEST


def test_message_list_built_by_a_role_helper(tmp_path):
    """`create_chat_message("system", ...)` items: the helper's dicts make
    the list a prompt, each part placed at the call that passes it."""
    src = '''\
import time


def create_chat_message(role, content):
    return {"role": role, "content": content}


def generate_context(system_text, history):
    context = [
        create_chat_message("system", "You are a careful research agent. Follow the rules."),
        create_chat_message("system", f"The current time and date is {time.strftime('%c')}"),
        create_chat_message("user", "Determine which next command to use."),
    ]
    return 1, context
'''
    t = one(load(tmp_path, src))
    assert roles(t) == ["system", "system", "user"]
    clock = slot(t, "time.strftime('%c')")
    assert clock.span.line_col == at(src, "time.strftime") and clock.volatility is V.REQUEST
    assert "careful research agent" in text_of(t.sections[0].parts)


def test_role_named_template_classes_and_a_setting_fixed_at_import(tmp_path):
    """DB-GPT's `SystemPromptTemplate.from_template` is a system message like
    LangChain's; a text chosen by a setting read at import is still a template."""
    src = '''\
from dbgpt.core import ChatPromptTemplate, HumanPromptTemplate, SystemPromptTemplate
from dbgpt._private.config import Config

CFG = Config()
_EN = """Answer from the tables.
User Question:
    {user_input}
Rules: use only the tables given, limit every query to the rows asked for, never invent a column.
"""
_ZH = "{user_input}"
_TEMPLATE = _EN if CFG.LANGUAGE == "en" else _ZH
prompt = ChatPromptTemplate(messages=[
    SystemPromptTemplate.from_template(_TEMPLATE),
    HumanPromptTemplate.from_template("{user_input}"),
])
'''
    t = one(load(tmp_path, src))
    assert roles(t) == ["system", "user"]
    question = slot(t, "{user_input}")
    assert question.span.line_col == at(src, "{user_input}") and question.volatility is V.REQUEST
    assert "never invent a column" in text_of(t.sections[0].parts)


def test_agent_loop_sees_what_the_previous_pass_appended(tmp_path):
    """A list appended after the call inside the loop is longer on the next
    pass; `template.replace(marker, value)` puts the value where it enters."""
    src = '''\
import litellm


def react(task):
    calls = []
    system_prompt = "You are an agent. Think step by step. Calls so far: {{calls}}"
    context = [{"role": "system", "content": system_prompt.replace("{{calls}}", "None")}]
    while True:
        if calls:
            done = "\\n".join(f"- {c['name']}: {c['output']}" for c in calls)
        else:
            done = "None"
        context[0]["content"] = system_prompt.replace("{{calls}}", done)
        reply = litellm.completion(model="gpt-4.1", messages=context + [{"role": "user", "content": task}])
        for call in reply.tool_calls:
            calls.append({"name": call.name, "output": run(call)})
'''
    t = one(load(tmp_path, src))
    output = slot(t, "c['output']")  # the calls appended on the previous pass, in the system message
    assert output.span.line_col == at(src, "c['output']") and output.volatility is V.REQUEST
    assert t.sections[0].role == "system"
    assert any(isinstance(p, Slot) and output in p.children for p in t.sections[0].parts)
    assert "None" not in text_of(t.sections[0].parts)


def test_a_template_we_cannot_read_filled_with_a_request_value(tmp_path):
    """`config["system"].format(**kwargs)`: the text comes from outside the
    code, but filled with the retrieved documents it changes per request,
    from the call that fills it."""
    src = '''\
def answer(client, settings, question, retriever):
    kwargs = {"knowledge": "\\n".join(retriever.search(question))}
    system = settings["system"].format(**kwargs)
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''
    t = one(load(tmp_path, src))
    (filled,) = [s for s in t.slots() if "filled with" in s.reason]
    assert filled.volatility is V.REQUEST and "settings" in filled.reason


def test_local_variables_last_assignment_before_use(tmp_path):
    src = '''\
from datetime import date, datetime

def f(client, question):
    header = "Static."
    header = f"Today {date.today()}."
    messages = [{"role": "system", "content": header}]
    prompt = "A"
    prompt += f" {question}"
    messages.append({"role": "user", "content": prompt})
    header = f"Later {datetime.now()}"
    client.chat.completions.create(messages=messages)
'''
    t = one(load(tmp_path, src))
    assert roles(t) == ["system", "user"]
    assert [s.label for s in t.slots()] == ["date.today()", "question"]  # the later reassignment is not seen
    assert slot(t, "date.today()").span.line_col == at(src, "date.today()")
    assert text_of(t.sections[1].parts) == "A "


def test_value_computed_elsewhere_is_reported_where_it_enters(tmp_path):
    src = '''\
import random, uuid

EXAMPLES = ["a", "b", "c"]

def f(client):
    request_id = str(uuid.uuid4())
    shots = "\\n".join(random.sample(EXAMPLES, k=2))
    client.chat.completions.create(messages=[{"role": "system", "content": f"[{request_id}] {shots} rules"}])
'''
    t = one(load(tmp_path, src))
    rid, shots = t.slots()
    assert rid.label == "request_id" and rid.span.line_col == at(src, "request_id}")
    assert rid.volatility is V.NONDETERMINISTIC
    assert shots.label == "shots" and shots.span.line_col == at(src, "shots}")


def test_module_constants_and_class_attributes(tmp_path):
    src = '''\
PERSONA = "You are Ada."

class Bot:
    RULES = "Be kind."

    def __init__(self, client, user_name):
        self.client = client
        self.greeting = f"Hi {user_name}."

    def ask(self, question):
        system = PERSONA + " " + self.RULES + " " + self.greeting
        return self.client.messages.create(model="claude-sonnet-4-5", system=system,
                                           messages=[{"role": "user", "content": question}])
'''
    t = one(load(tmp_path, src))
    assert t.name == "app:Bot.ask"
    assert text_of(t.sections[0].parts) == "You are Ada. Be kind. Hi ."
    assert t.sections[0].parts[0].span.line_col == at(src, "You are Ada")
    assert slot(t, "user_name").span.line_col == at(src, "user_name}")


def test_loops_unrolled_over_literals_and_regions_otherwise(tmp_path):
    src = '''\
def f(client, docs, history):
    text = ""
    for part in ("A", "B"):
        text += part
    for doc in docs:
        text += f"- {doc}\\n"
    messages = [{"role": "system", "content": text}]
    for turn in history:
        messages.append({"role": "user", "content": turn})
    client.chat.completions.create(messages=messages)
'''
    t = one(load(tmp_path, src))
    system, turns = t.sections
    assert text_of(system.parts[:2]) == "AB"
    loop = system.parts[2]
    assert loop.kind is SlotKind.LOOP and loop.label == "for doc in docs" and not loop.order_varies
    assert loop.volatility is V.REQUEST and loop.span.line_col == at(src, "docs:")
    assert turns.parts[0].kind is SlotKind.LOOP and turns.parts[0].volatility is V.SESSION


# ------------------------------------------------------------------ volatility from expressions

VOLATILITY = [
    ("datetime.now()", V.REQUEST, "now()"),
    ("datetime.utcnow()", V.REQUEST, "utcnow()"),
    ("date.today()", V.DAY, "today()"),
    ("time.time()", V.REQUEST, "time()"),
    ("time.strftime('%Y-%m-%d')", V.DAY, "'%Y-%m-%d'"),
    ("time.strftime('%H:%M')", V.REQUEST, "'%H:%M'"),
    ("datetime.now().strftime('%Y-%m-%d')", V.DAY, "once a day"),
    ("datetime.now().strftime('%Y-%m-%d %H:%M:%S')", V.REQUEST, "every request"),
    ("datetime.now():%A %d %B", V.DAY, "once a day"),
    ("datetime.now().isoformat()", V.REQUEST, "now()"),
    ("date.today().isoformat()", V.DAY, "today()"),
    ("datetime.now().date()", V.DAY, "the date of"),
    ("uuid.uuid4()", V.NONDETERMINISTIC, "uuid4"),
    ("uuid.uuid1()", V.NONDETERMINISTIC, "uuid1"),
    ("random.choice(['a', 'b'])", V.NONDETERMINISTIC, "random.choice"),
    ("secrets.token_hex(4)", V.NONDETERMINISTIC, "secrets.token_hex"),
    ("os.getpid()", V.DEPLOY, "per process"),
    ("os.environ['REGION']", V.DEPLOY, "environment"),
    ("os.getenv('REGION')", V.DEPLOY, "environment"),
    ("json.dumps(payload)", V.NONDETERMINISTIC, "without sort_keys=True"),
    ("json.dumps(payload, sort_keys=True)", V.REQUEST, "per-request input"),
    ("BOOT", V.SESSION, "computed once at import"),
    ("STARTED", V.DEPLOY, "computed once at import"),
    ("question", V.REQUEST, "parameter of f()"),
    ("user_name", V.USER, "per-user"),
    ("history", V.SESSION, "per-conversation"),
    ("get_user_profile(user_name)", V.USER, "per-user"),
]


@pytest.mark.parametrize("expr,volatility,why", VOLATILITY)
def test_volatility_of_expressions(tmp_path, expr, volatility, why):
    src = (
        "import json, os, random, secrets, time, uuid\n"
        "from datetime import date, datetime\n"
        "BOOT = datetime.now()\n"
        "STARTED = load_start_time()\n"
        "def f(client, payload, question, user_name, history):\n"
        f"    client.chat.completions.create(messages=[{{'role': 'user', 'content': f\"x {{{expr}}} y\"}}])\n"
    )
    t = one(load(tmp_path, src))
    (s,) = t.slots()
    assert s.volatility is volatility, s.reason
    assert why in s.reason
    line, col = at(src, "{" + expr + "}")
    assert s.span.line_col == (line, col + 1)  # the expression inside the braces


def test_config_overrides_win(tmp_path):
    ctx = SourceContext(root=tmp_path, variables=VariableTable(overrides={"question": V.STATIC}))
    src = "def f(c, question):\n    c.chat.completions.create(messages=[{'role': 'user', 'content': question}])\n"
    (s,) = one(load(tmp_path, src, ctx=ctx)).slots()
    assert s.volatility is V.STATIC and "set in config" in s.reason


def test_json_dumps_of_literals_is_static_text(tmp_path):
    src = '''\
import json
SCHEMA = {"type": "object", "properties": {"b": 1, "a": 2}}
def f(c):
    c.chat.completions.create(messages=[{"role": "system", "content": json.dumps(SCHEMA, indent=1)}])
'''
    t = one(load(tmp_path, src))
    assert t.slots() == []
    assert text_of(t.sections[0].parts) == json.dumps({"type": "object", "properties": {"b": 1, "a": 2}}, indent=1)


def test_unsorted_json_carries_its_fix(tmp_path):
    src = "import json\ndef f(c, payload):\n    c.chat.completions.create(messages=[{'role': 'user', 'content': json.dumps(payload)}])\n"
    (s,) = one(load(tmp_path, src)).slots()
    assert s.fix["kind"] == "json_sort_keys"
    start, end = s.fix["span"]
    assert s.span.file.text[start:end] == "json.dumps(payload)"


ORDER = [  # (joined expression, where the loop is reported, what the fix wraps in sorted(), why)
    ('", ".join({"b", "a"})', '{"b", "a"}', '{"b", "a"}', "set literal"),
    ('", ".join(set(names))', "set(names)", "set(names)", "builds a set"),
    ('", ".join(os.listdir("docs"))', 'os.listdir("docs")', 'os.listdir("docs")', "arbitrary order"),
    ('", ".join(glob.glob("*.md"))', 'glob.glob("*.md")', 'glob.glob("*.md")', "arbitrary order"),
    ('", ".join(p.name for p in Path("docs").glob("*.md"))', 'Path("docs").glob', 'Path("docs").glob("*.md")',
     "arbitrary order"),
    ('", ".join(p.name for p in Path("docs").iterdir())', 'Path("docs").iterdir', 'Path("docs").iterdir()',
     "arbitrary order"),
    ('", ".join({k: 1 for k in {"b", "a"}})', "{k: 1", '{"b", "a"}', "a dict built from it"),
]


@pytest.mark.parametrize("expr,where,fixed,why", ORDER)
def test_unordered_iteration_is_a_loop_whose_order_varies(tmp_path, expr, where, fixed, why):
    src = (
        "import glob, os\nfrom pathlib import Path\n"
        "def f(c, names):\n"
        f"    c.chat.completions.create(messages=[{{'role': 'system', 'content': 'Topics: ' + {expr}}}])\n"
    )
    t = one(load(tmp_path, src))
    loop = t.sections[0].parts[1]
    assert loop.kind is SlotKind.LOOP and loop.order_varies and loop.volatility is V.NONDETERMINISTIC
    assert loop.reason.startswith("iterates ") and why in loop.reason
    assert loop.span.line_col == at(src, where)
    assert loop.fix["kind"] == "sorted_iteration"
    start, end = loop.fix["span"]
    assert src[start:end] == fixed


@pytest.mark.parametrize("expr", [
    '", ".join(sorted({"b", "a"}))',
    '", ".join(sorted(os.listdir("docs")))',
    '", ".join(TOOLS)',  # a dict literal keeps insertion order
    '", ".join(list(TOOLS.values()))',
])
def test_sorted_or_ordered_iteration_is_not_flagged(tmp_path, expr):
    src = (
        "import os\nTOOLS = {'b': 'B', 'a': 'A'}\n"
        f"def f(c):\n    c.chat.completions.create(messages=[{{'role': 'system', 'content': {expr}}}])\n"
    )
    t = one(load(tmp_path, src))
    assert not any(s.order_varies or s.fix for s in t.slots())


# ------------------------------------------------------------------ errors, empty files, discovery

def test_syntax_error_names_its_line(tmp_path):
    src = "SYSTEM_PROMPT = 'x'\n\ndef f(:\n    pass\n"
    with pytest.raises(SourceError) as err:
        load(tmp_path, src)
    assert (err.value.line, err.value.col) == (3, 7)  # the `:` Python points at
    assert err.value.message == "Python syntax error: invalid syntax"
    assert str(err.value) == "app.py:3:7: Python syntax error: invalid syntax"


def test_files_without_prompts(tmp_path):
    assert load(tmp_path, "def add(a, b):\n    return a + b\n") == []
    assert load(tmp_path, "TEMPLATE_DIR = 'x'\nmessages = []\nprint(messages)\n", name="b.py") == []
    assert load(tmp_path, "def oops(:\n", name="c.py") == []  # nothing prompt-like: not even parsed


def test_format_and_discovery(tmp_path):
    assert format_for(Path("app/main.py")) == "python"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bot.py").write_text(OPENAI)
    (tmp_path / "pkg" / "util.py").write_text("X = 1\n")
    found = {c.path.name: c.format for c in Discovery(tmp_path).find([tmp_path])}
    assert found == {"bot.py": "python", "util.py": "python"}


def test_a_named_python_file_without_prompts_is_not_an_error(tmp_path, monkeypatch):
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "util.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_a_syntax_error_is_exit_2_and_other_files_are_still_read(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text("SYSTEM_PROMPT = 'x'\nif True\n")
    (tmp_path / "good.py").write_text(OPENAI)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["audit", "."], catch_exceptions=False)
    assert result.exit_code == 2
    assert "bad.py:2:" in result.stderr and "Python syntax error" in result.stderr
    assert "good.py" in result.stdout


def test_deep_implicit_concatenation(tmp_path):
    lines = "\n".join(f'    "line {i} of the policy\\n"' for i in range(1500))
    t = one(load(tmp_path, f"SYSTEM_PROMPT = (\n{lines}\n)\n"))
    assert text_of(t.sections[0].parts).count("\n") == 1500


# ------------------------------------------------------------------ nothing is executed

PWNED = '''\
open("PWNED", "w").write("x")
__import__("os").system("touch PWNED2")
import this_module_does_not_exist

SYSTEM_PROMPT = f"Now: {__import__('os').system('touch PWNED3')} " + "You are helpful. " * 40


def ask(client, question):
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}])
'''


@pytest.mark.parametrize("command", ["check", "audit"])
def test_user_code_is_never_run(tmp_path, monkeypatch, command):
    (tmp_path / "evil_app.py").write_text(PWNED)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [command, "evil_app.py", "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    assert "evil_app" in result.stdout  # the prompt was read
    for name in ("PWNED", "PWNED2", "PWNED3"):
        assert not (tmp_path / name).exists()
    assert "evil_app" not in sys.modules and "this_module_does_not_exist" not in sys.modules


# ------------------------------------------------------------------ the example app, end to end

def test_python_app_findings_at_python_positions():
    result = subprocess.run(
        [sys.executable, "-m", "promptlint", "check", "tests/data/python_app",
         "-p", "openai/gpt-4.1", "-p", "anthropic/claude-sonnet-4.5", "--format", "text"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"}, check=False,
    )
    assert result.returncode == 1, result.stderr
    found = set(re.findall(r"^(\S+?):(\d+):(\d+): (PL\d{3})", result.stdout, re.M))
    app = (APP / "support_app.py").read_text()
    rag = (APP / "rag_chain.py").read_text()

    def key(path, text, needle, rule, nth=0):
        line, col = at(text, needle, nth)
        return (f"tests/data/python_app/{path}", str(line), str(col), rule)

    assert key("support_app.py", app, "datetime.now()", "PL001") in found  # the clock first in the system prompt
    assert key("support_app.py", app, '"cache_control"', "PL004", 1) in found  # breakpoint after json.dumps
    assert key("rag_chain.py", rag, "{context}", "PL001") in found  # LangChain placeholder before the rules
    assert key("rag_chain.py", rag, "PRODUCT_LINES)", "PL002") in found  # a set joined into the prompt
    assert not [f for f in found if f[3] == "PL004" and f[1] == str(at(app, '"cache_control"')[0])]


def test_suppression_comments_in_python(tmp_path, monkeypatch):
    src = (APP / "rag_chain.py").read_text().replace(
        '    + ", ".join(PRODUCT_LINES)\n', '    # promptlint: ignore[PL002]\n    + ", ".join(PRODUCT_LINES)\n')
    (tmp_path / "rag_chain.py").write_text(src)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "rag_chain.py", "-p", "openai/gpt-4.1"], catch_exceptions=False)
    assert "PL002" not in result.stdout and "PL001" in result.stdout and "(1 suppressed)" in result.stdout


# ------------------------------------------------------------------ string decoding

LITERALS = [
    r'"plain"', r"'single'", r'"""tri\nple"""', r"r'raw \n \d'", r'"esc \t \\ \' \" \x41 \u00e9 \U0001F600 \101"',
    r'"\N{EM DASH} and \N{LATIN SMALL LETTER E WITH ACUTE}"', '"line \\\ncontinued"', r'"unknown \q escape"',
    r"u'unicode'", r"R'''raw\ttriple'''", '"""multi\nline\n  text"""',
]


@pytest.mark.parametrize("token", LITERALS)
def test_literals_decode_as_python_does(token):
    lit = decode_simple(token, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "\q" is deprecated, still read as backslash + q
        expected = ast.literal_eval(token)
    assert lit.text == expected
    assert len(lit.offsets) == len(lit.text) + 1
    assert all(100 <= o <= 100 + len(token) for o in lit.offsets)
    for ch, off in zip(lit.text, lit.offsets):  # a character written as itself points at itself
        if token[off - 100] != "\\":
            assert token[off - 100] == ch or (ch == "\n" and token[off - 100] in "\r\n")


@pytest.mark.parametrize("text", [
    "    a\n      b\n\n    c\n", "  x\n \ty\n", "no indent\n  here\n", "\n    first\n    second\n   \n",
    "  Title\n      body\n    more\n\n", "\n\n  only\n   \n",
])
def test_dedent_and_cleandoc_match_the_standard_library(text):
    lit = Lit(text, list(range(len(text) + 1)))
    assert "".join(s.text for s in dedent([lit])) == textwrap.dedent(text)
    if "\t" not in text:  # cleandoc expands tabs first; ours counts a tab as one column
        assert "".join(s.text for s in cleandoc([lit])) == inspect.cleandoc(text)


def test_slot_fix_defaults_to_none():
    assert Slot("x", SlotKind.VARIABLE, V.STATIC, "r").fix is None


TYPE_TESTS = '''\
from openai import OpenAI

client = OpenAI()
RULES = "Answer in English, cite the page you read, and keep to three sentences at most."


def as_text(content):
    return content if isinstance(content, str) else str(content)


def wrap(content):
    items = content if isinstance(content, (list, tuple)) and not isinstance(content, str) else [content]
    return "\\n".join(items)


def ask(question):
    system = as_text(RULES) + "\\n" + wrap(RULES)
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''


def test_type_tests_on_known_values_choose_their_branch(tmp_path):
    # isinstance() of a string the code wrote, with and/or/not around it, is decided:
    # the text stays text instead of becoming a value of unknown content
    t = one(load(tmp_path, TYPE_TESTS))
    system = t.sections[0]
    assert text_of(system.parts) == ("Answer in English, cite the page you read, and keep to three sentences at "
                                     "most.\nAnswer in English, cite the page you read, and keep to three "
                                     "sentences at most.")
    assert not any(isinstance(p, Slot) for p in system.parts)
