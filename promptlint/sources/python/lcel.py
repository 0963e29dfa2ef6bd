"""LangChain's runnables as values: a prompt template, the pipeline it heads
and the inputs it is invoked with.

`prompt = ChatPromptTemplate.from_messages([...])`, `chain = prompt | llm`,
`chain.invoke({"question": q, "now": datetime.now()})`: what reaches the model
is the template's messages with each field filled from the invoke's mapping,
so a field takes the volatility of the value that fills it (a clock, the
request's body), not only of its name. `with_config`, `with_retry`, `bind`
and the rest of the pipeline leave the prompt as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import libcst as cst

from promptlint.sources.python import strings as strs
from promptlint.sources.python.text import _dict_arguments, _dict_kwargs
from promptlint.sources.python.values import DictV, ListV, MsgV, Spread, StrV, literal_text


@dataclass(eq=False)
class ChatTemplV:
    """A chat prompt template: its messages (tuples, message templates,
    placeholders), the inputs bound ahead of the run (`partial_variables`,
    `.partial(...)`), and whether it heads a pipeline whose run sends it."""
    messages: ListV
    node: cst.CSTNode | None = None
    style: str = "format"
    every: bool = False  # every message is a template (LlamaIndex's ChatPromptTemplate)
    piped: bool = False
    partials: dict = field(default_factory=dict)
    partial_nodes: dict = field(default_factory=dict)


LLAMA_INDEX = re.compile(r"^[ \t]*(?:from|import)[ \t]+llama_index\b", re.M)
# methods of a runnable that return the same runnable, configured
_CONFIGURES = ("with_config", "with_retry", "with_fallbacks", "with_types", "with_listeners", "bind",
               "bind_tools", "with_structured_output", "configurable_fields", "configurable_alternatives")
# methods that run it with the inputs
INVOKES = ("invoke", "ainvoke", "stream", "astream", "batch", "abatch")
# a template's own methods that fill it, without a model
_FORMATS = ("format_messages", "aformat_messages", "format_prompt", "aformat_prompt", "invoke", "ainvoke")


def chat_template(flow, dotted: str, node: cst.Call, frame, style: str) -> ChatTemplV | None:
    """The value of `ChatPromptTemplate.from_messages(...)`,
    `ChatPromptTemplate(messages=...)`, `ChatPromptTemplate.from_template(t)` and
    `PromptTemplate.from_template(t)`; None for anything else (`PromptTemplate(template=t)`
    is its text: stdlib.prompt_wrapper)."""
    parts = dotted.split(".")
    last, owner = parts[-1], parts[-2] if len(parts) >= 2 else ""
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    if last == "from_messages" and owner.endswith("ChatPromptTemplate") or \
            last == "ChatPromptTemplate" and (positional or "messages" in keywords or "message_templates" in keywords):
        source = keywords.get("messages", keywords.get("message_templates", positional[0] if positional else None))
        if source is None:  # `ChatPromptTemplate.from_messages()`: nothing to read
            return None
        value = flow.eval(source, frame)
        if not isinstance(value, ListV):
            return None
        # LlamaIndex's ChatPromptTemplate(message_templates=[ChatMessage(...)]): every message is a template
        every = "message_templates" in keywords or LLAMA_INDEX.search(flow.file.text) is not None
        out = ChatTemplV(value, node, style, every=every)
    elif last == "from_template" and owner in ("ChatPromptTemplate", "PromptTemplate"):
        source = keywords.get("template", positional[0] if positional else None)
        if source is None:
            return None
        text = flow.eval(source, frame)
        if not isinstance(text, StrV):
            return None
        out = ChatTemplV(ListV([MsgV("user", text, source, template=True, style=style)], node), node, style)
    else:
        return None
    partial = keywords.get("partial_variables")
    if partial is not None:
        bound = flow.eval(partial, frame)
        if isinstance(bound, DictV):
            out.partials, out.partial_nodes = _dict_kwargs(bound), _dict_arguments(bound)
    return out


def pipe(left: ChatTemplV) -> ChatTemplV:
    """`prompt | llm | parser`: the pipeline sends the prompt's messages."""
    return replace(left, piped=True)


def method(flow, base: ChatTemplV, attr: str, node: cst.Call, frame):
    """A method of a template or of the pipeline it heads: configuring
    returns it; `.partial(x=...)` binds inputs; filling it (`invoke` of the
    bare template, `format_messages`) gives its messages. A pipeline's run
    gives the model's answer (its prompt is read where it is run: calls)."""
    if attr in _CONFIGURES:
        return base
    if attr == "partial":
        kwargs, written = call_inputs(flow, node, frame)
        return replace(base, partials={**base.partials, **kwargs}, partial_nodes={**base.partial_nodes, **written})
    if attr in _FORMATS and not base.piped:
        kwargs, written = call_inputs(flow, node, frame)
        return fill(flow, base, kwargs, written, node)
    if attr in ("format", "aformat") and not base.piped and len(base.messages.items) == 1:
        # PromptTemplate.from_template(t).format(q=q): the text, filled
        kwargs, written = call_inputs(flow, node, frame)
        (message,) = fill(flow, base, kwargs, written, node).items
        return message.content if isinstance(message, MsgV) else None
    return None


def single_text(value: ChatTemplV) -> StrV | None:
    """The text of a template of one message (`PromptTemplate.from_template(t)`)."""
    items = value.messages.items
    if len(items) == 1 and isinstance(items[0], MsgV) and isinstance(items[0].content, StrV):
        return items[0].content
    return None


# a run's keywords that configure it rather than fill the template
_RUN_OPTIONS = ("config", "callbacks", "tags", "metadata", "return_only_outputs", "media_type")


def call_inputs(flow, node: cst.Call, frame) -> tuple[dict, dict]:
    """The inputs a run or a fill is given: mappings among its arguments
    (`invoke({"q": q})`, `from_chain(chain, {...})`, `**inputs`) and keywords
    (`format_messages(q=q)`), with the expression that passes each (later
    ones win, as in Python)."""
    kwargs: dict = {}
    written: dict = {}
    for arg in node.args:
        if arg.keyword is not None:
            if arg.keyword.value not in _RUN_OPTIONS:
                kwargs[arg.keyword.value] = flow.eval(arg.value, frame)
                written[arg.keyword.value] = arg.value
        elif arg.star != "*":
            value = flow.eval(arg.value, frame)
            if isinstance(value, DictV):
                kwargs.update(_dict_kwargs(value))
                written.update(_dict_arguments(value))
    return kwargs, written


def fill(flow, template: ChatTemplV, kwargs: dict, written: dict, node) -> ListV:
    """The template's messages with the inputs filled in: each field takes
    its value (placed at the expression that passes it), a placeholder its
    messages; a field with no input stays a slot named by it."""
    from promptlint.sources.python.calls import LC_ROLES
    from promptlint.sources.python.text import render_fields

    kwargs = {**template.partials, **kwargs}
    written = {**template.partial_nodes, **written}
    if template.node is not None:
        flow.filled.add(id(template.node))
    scanner = strs.scan_jinja_fields if template.style == "jinja" else strs.scan_format

    def render(text):
        if not isinstance(text, StrV):
            return text
        return StrV(render_fields(flow, text, scanner, [], kwargs, written), text.node)

    def placeholder(name: str | None, where) -> list:
        value = kwargs.get(name) if name else None
        if value is None:
            return [MsgV("user", None, where, template=True, placeholder=name or "messages")]
        if isinstance(value, ListV):
            return list(value.items)
        return [Spread(value, written.get(name, where))]

    items: list = []
    for item in template.messages.items:
        if isinstance(item, ListV) and item.is_tuple and len(item.items) == 2:
            role = LC_ROLES.get((literal_text(item.items[0]) or "").lower(), "user")
            if role == "placeholder":
                items += placeholder(_field_name(item.items[1]), item.node)
            else:
                items.append(MsgV(role, render(item.items[1]), item.node))
        elif isinstance(item, MsgV) and item.placeholder is not None:
            items += placeholder(item.placeholder, item.node)
        elif isinstance(item, MsgV) and (item.template or template.every) and item.style in (None, "format", "jinja"):
            items.append(MsgV(item.role, render(item.content), item.node))
        elif isinstance(item, StrV):
            items.append(MsgV("user", render(item), item.node))
        else:
            items.append(item)
    return ListV(items, node)


def _field_name(value) -> str | None:
    """`"{messages}"` of a ("placeholder", "{messages}") tuple."""
    text = (literal_text(value) or "").strip()
    return text[1:-1].strip() if text.startswith("{") and text.endswith("}") else None


def invoked(flow, call: cst.Call, frame) -> ListV | None:
    """The messages a pipeline's run sends (`(prompt | llm).invoke({...})`,
    `chain.ainvoke(inputs)` with `chain = prompt | llm`), filled with its
    inputs; None when the call does not run a pipeline headed by a template
    we know."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in INVOKES:
        return None
    base = flow.eval(call.func.value, frame)
    if not isinstance(base, ChatTemplV) or not base.piped:
        return None
    kwargs, written = call_inputs(flow, call, frame)
    return fill(flow, base, kwargs, written, call)


__all__ = ["ChatTemplV", "chat_template", "pipe", "method", "fill", "invoked", "single_text", "INVOKES"]
