"""Call-site shapes of the Python source reader: which calls send a prompt,
and how their arguments become sections in provider order.

- OpenAI `*.chat.completions.create|parse|stream(messages=..., tools=...)`
  and LiteLLM `completion`/`acompletion(messages=...)`: tools, then the
  messages in order (system and developer messages stay where they are);
- OpenAI `*.responses.create|parse|stream(instructions=..., input=..., tools=...)`;
- Anthropic `*.messages.create|stream|count_tokens(system=..., tools=..., messages=...)`:
  tools, system, messages; `cache_control` on a block, message or tool is a
  Breakpoint after it;
- LangChain `ChatPromptTemplate.from_messages([...])` (tuples and strings are
  templates: `{var}`, or Jinja/mustache with `template_format=`; message
  objects are literal), `ChatPromptTemplate.from_template`,
  `PromptTemplate.from_template`/`PromptTemplate(template=...)`,
  `*MessagePromptTemplate.from_template`, `llm.invoke([...messages])`;
- any other call with `messages=[{"role": ..., "content": ...}, ...]`.
Tools are serialised as compact JSON (as message files are), one Text per
literal run with slots for what is not literal.
"""

from __future__ import annotations

import re

import dataclasses
import json

import libcst as cst

from promptlint.analysis.conversation import names_history
from promptlint.analysis.volatility import Verdict
from promptlint.ir import Breakpoint, Part, Section, Slot, SlotKind, SourceError, Volatility
from promptlint.sources.placeholders import BARE_DOLLAR_FIELD, detect_style, fallback_style, parse_template_string
from promptlint.sources.python import lcel
from promptlint.sources.python.scope import last_name
from promptlint.sources.python.stdlib import LC_TEMPLATES, lc_template_method, role_in_words, template_format
from promptlint.sources.python.strings import Lit, merge
from promptlint.sources.python.values import (
    ConstV, DictV, FuncV, ListV, LoopV, MsgV, Opaque, Spread, StrV, TemplV, literal_text,
)

LC_ROLES = {"system": "system", "human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
            "developer": "developer", "tool": "tool", "placeholder": "placeholder"}
_TEXT_BLOCKS = (None, "text", "input_text", "output_text")
_MEDIA_BLOCKS = ("image_url", "image", "input_image", "image_file", "input_audio", "audio", "video", "video_url")


def _chain(func) -> list[str]:
    out = []
    while isinstance(func, cst.Attribute):
        out.append(func.attr.value)
        func = func.value
    if isinstance(func, cst.Name):
        out.append(func.value)
    return out[::-1]


class Sections:
    """Turns the values reaching a call's arguments into IR sections."""

    def __init__(self, flow):
        self.flow = flow
        self.literal = False  # some message, block or tool was written out in the code (not only passed through)

    # ------------------------------------------------------------ text

    def text(self, value, style: str | None = None) -> list[Part]:
        """A value used as text; with a template `style`, its literal runs
        are parsed for placeholders (`format`, `jinja`, `handlebars`)."""
        flow = self.flow
        if style is None or not isinstance(value, StrV):
            return flow.parts(value)
        out: list[Part] = []
        for seg in merge(value.segs):
            if not isinstance(seg, Lit):
                out.append(seg)
                continue
            chosen = style
            if style == "auto":
                detected = detect_style(seg.text)
                chosen = "jinja" if detected == "jinja" else \
                    "string_template" if detected == "text" and BARE_DOLLAR_FIELD.search(seg.text) else "format"
            for attempt in (chosen, fallback_style(seg.text, chosen), "text"):
                if attempt is None:
                    continue
                try:
                    out += parse_template_string(seg.text, flow.file, seg.offsets, flow.ctx, attempt)
                    break
                except SourceError:
                    continue
        return out

    def breakpoint(self, d: DictV) -> list[Part]:
        value = d.get("cache_control")
        el = d.element("cache_control")
        if not isinstance(value, DictV) or el is None:
            return []
        ttl = literal_text(value.get("ttl")) if value.get("ttl") is not None else None
        if isinstance(el, cst.DictElement):
            start, end = self.flow.span(el.key)[0], self.flow.span(el.value)[1]
        else:
            start, end = self.flow.span(el)
        return [Breakpoint(ttl=ttl or "5m", span=self.flow.file_span(start, end))]

    # ------------------------------------------------------------ JSON

    def json(self, value, skip: frozenset = frozenset({"cache_control"})) -> list[Part]:
        """The value as the SDK serialises it: compact JSON in literal order."""
        flow = self.flow
        segs: list = []

        def lit(text: str, node) -> None:
            s, e = flow.span(node) if node is not None else (0, 0)
            segs.append(Lit.synthetic(text, s, e))

        def walk(v, node) -> None:
            if isinstance(v, DictV):
                lit("{", v.node or node)
                first = True
                for (k, item), el in zip(v.pairs, v.key_nodes or [None] * len(v.pairs)):
                    key = literal_text(k) if k is not None else None
                    if key in skip:
                        continue
                    if key is None:
                        segs.extend(flow.segs(item if k is None else k))
                        continue
                    lit(("" if first else ",") + json.dumps(key, ensure_ascii=False) + ":",
                        el.key if isinstance(el, cst.DictElement) else el or v.node)
                    first = False
                    walk(item, el.value if isinstance(el, cst.DictElement) else None)
                lit("}", v.node or node)
            elif isinstance(v, ListV):
                lit("[", v.node or node)
                for i, item in enumerate(v.items):
                    if i:
                        lit(",", v.node or node)
                    walk(item.value if isinstance(item, Spread) else item, getattr(item, "node", None))
                lit("]", v.node or node)
            elif isinstance(v, StrV):
                lit('"', v.node or node)
                for seg in v.segs:
                    if isinstance(seg, Lit):
                        chars, offs = [], []
                        for i, ch in enumerate(seg.text):
                            esc = json.dumps(ch, ensure_ascii=False)[1:-1]
                            chars.append(esc)
                            offs += [seg.offsets[i]] * len(esc)
                        segs.append(Lit("".join(chars), offs + [seg.offsets[-1]]))
                    else:
                        segs.append(seg)
                lit('"', v.node or node)
            elif isinstance(v, ConstV) and isinstance(v.value, (str, int, float, bool, type(None))):
                lit(json.dumps(v.value), v.node or node)
            else:
                segs.extend(flow.segs(v))

        walk(value, getattr(value, "node", None))
        return self.flow.parts(StrV(merge(segs)))

    # ------------------------------------------------------------ sections

    def tools(self, value, node) -> Section | None:
        flow = self.flow
        parts: list[Part] = []
        self.literal = self.literal or isinstance(value, (ListV, DictV))
        if isinstance(value, ListV):
            if not value.items:
                return None
            for tool in value.items:
                if isinstance(tool, Spread):
                    parts += flow.segs(tool.value)
                elif isinstance(tool, LoopV):
                    parts.append(flow.loop_slot(tool))
                else:
                    parts += self.json(tool)
                    if isinstance(tool, DictV):
                        parts += self.breakpoint(tool)
        else:
            parts += self.json(value) if isinstance(value, DictV) else flow.parts(value)
        return Section("tools", parts, flow.file_span(*flow.span(node)))

    def content(self, value, style: str | None = None) -> list[Part]:
        """A message's content: a string, or a list of content blocks."""
        if isinstance(value, ListV):
            parts: list[Part] = []
            for block in value.items:
                parts += self.block(block, style)
            return parts
        if value is None or (isinstance(value, ConstV) and value.value is None):
            return []
        if isinstance(value, DictV):
            return self.block(value, style)
        return self.text(value, style)

    def block(self, block, style: str | None = None) -> list[Part]:
        if not isinstance(block, DictV):
            if isinstance(block, Spread):
                return self.flow.parts(block.value)
            if isinstance(block, LoopV):
                return [self.flow.loop_slot(block)]
            return self.text(block, style)
        kind = literal_text(block.get("type")) if block.get("type") is not None else None
        text = block.get("text")
        if text is not None and kind in _TEXT_BLOCKS:
            parts = self.text(text, style)
        elif kind == "tool_result":
            parts = self.content(block.get("content"), style)
        elif kind in _MEDIA_BLOCKS:
            # an image or a recording is not text: only the values its source changes with count, never
            # its JSON wrapper as stable tokens (`{"type": "image_url", "image_url": {"url": ...}}`)
            parts = [p for p in self.json(block) if isinstance(p, Slot)]
        else:
            parts = self.json(block)
        return parts + self.breakpoint(block)

    def system(self, value, node) -> Section:
        """Anthropic `system=`, Responses `instructions=`: written out unless passed through."""
        self.literal = self.literal or not isinstance(value, Opaque)
        return self.section("system", self.content(value), node)

    def section(self, role: str, parts: list[Part], node) -> Section:
        span = self.flow.file_span(*self.flow.span(node)) if node is not None else None
        return Section(role, parts, span)

    def messages(self, value, node, template: bool | str = False, style: str | None = None) -> list[Section]:
        """Sections of a list of messages, in order. In a LangChain template
        (`template`), tuples and strings are templates in `style`."""
        flow = self.flow
        if isinstance(value, ListV):
            if value.node is not None:
                flow.used.add(id(value.node))
            items = value.items
        else:
            items = [value]
        out: list[Section] = []
        for item in items:
            section = self.message(item, template, style, node)
            if section is not None:
                out.append(section)
        return out

    def message(self, item, template: bool | str, style: str | None, node) -> Section | None:
        """One message; `template`: its text is a template in `style` (a
        message object's own text only when it says so, or `"all"`)."""
        flow = self.flow
        style = style if template else None
        if isinstance(item, (DictV, MsgV, StrV)) or isinstance(item, ListV) and item.is_tuple:
            self.literal = True
        if isinstance(item, Spread):
            return self.section("user", flow.parts(conversation_so_far(item.value)), item.node or node)
        if isinstance(item, LoopV):
            inner = self.message(item.body, template, style, item.node)
            role = inner.role if inner is not None else "user"
            looped = LoopV(item.label, item.node, _replayed(item), item.names,
                           StrV([]), item.order, item.fix)
            slot = flow.loop_slot(looped)
            slot.children = inner.parts if inner is not None else []
            return self.section(role, [slot], item.node or node)
        if isinstance(item, MsgV):
            if item.node is not None:
                flow.used.add(id(item.node))
            if item.placeholder is not None:
                from promptlint.sources.slots import variable_slot

                s, e = flow.span(item.node)
                slot = variable_slot(item.placeholder, f"MessagesPlaceholder({item.placeholder!r})",
                                     flow.file_span(s, e), flow.ctx)
                return self.section("user", [slot], item.node)
            templated = item.template or template == "all"
            return self.section(item.role, self.content(item.content, (item.style or style or "format") if templated
                                                        else None), item.node)
        if isinstance(item, DictV):
            if item.node is not None:
                flow.used.add(id(item.node))
            role_value = item.get("role")
            role = literal_text(role_value) if role_value is not None else None
            if role is None and isinstance(role_value, Opaque):  # `ModelMessageRoleType.SYSTEM`: by its words
                role = role_in_words(role_value.label)
            if role_value is None and item.get("type") is not None:  # a Responses item (function_call_output ...)
                kind = literal_text(item.get("type")) or ""
                return self.section("tool" if kind.endswith("_output") else "assistant", self.json(item), item.node)
            parts = self.content(item.get("content"))
            for key in ("tool_calls", "function_call"):
                extra = item.get(key)
                if extra is not None:
                    parts += self.json(extra)
            if role in ("system", "developer"):
                parts = _whole_system_text(parts)
            return self.section(role or "user", parts + self.breakpoint(item), item.node)
        if isinstance(item, ListV) and item.is_tuple and len(item.items) == 2:
            role = LC_ROLES.get((literal_text(item.items[0]) or "").lower(), "user")
            content = item.items[1]
            if role == "placeholder":
                return self.section("user", self.text(content, style or "format"), item.node)
            return self.section(role, self.text(content, style), item.node)
        if isinstance(item, StrV):
            return self.section("user", self.text(item, style), item.node or node)
        return self.section("user", flow.parts(conversation_so_far(item)), getattr(item, "node", None) or node)


def _replayed(loop: LoopV) -> Verdict:
    """A loop that adds one message per item with the item's own role
    (`messages.append(dict(role=node["role"], content=node["text"]))`)
    replays a conversation: its history, which the next turn sends again
    with one more message at its end. Fixed examples replayed so, and any
    other loop, keep their items' verdict."""
    body = loop.body
    role = body.get("role") if isinstance(body, DictV) else None
    verdict = loop.verdict
    if not isinstance(role, Opaque) or loop.order or verdict.volatility > Volatility.REQUEST \
            or verdict.volatility in (Volatility.STATIC, Volatility.DEPLOY) or role_in_words(role.label) is not None:
        return verdict
    return Verdict(Volatility.SESSION, f"the conversation history: one message per item of {loop.label}, "
                                       f"each with its own role ({verdict.reason})")


def conversation_so_far(value):
    """A list of messages spliced into the prompt under a name that says it
    is the conversation (`messages`, `history`), judged per request only by
    a name or by where it came from (a request body's `messages`, a caller's
    `message`): the client sends it again on the next turn with the new
    message at its end, so what it held stays a prefix, as a per-session
    history does (PL001 reads what sits ahead of it by that). A window of it
    (`[-5:]`) or its latest message stays per request."""
    if isinstance(value, Opaque) and value.verdict.volatility is Volatility.REQUEST and value.kind != "turn" \
            and value.clock is None and value.order is None and names_history(value.names):
        return dataclasses.replace(value, verdict=Verdict(Volatility.SESSION, "the conversation so far, sent again "
                                                          f"with each new turn at its end ({value.verdict.reason})"))
    return value


# what a generic name (`prompt`) alone says: the name rule's reason for it
_GENERIC_PROMPT = re.compile(r"the name suggests per-request input \('(?:\w+\.)?prompt'\)$")


def _whole_system_text(parts: list) -> list:
    """A system message whose whole content is one value named `prompt`: that
    is the system prompt the caller passes, and the name says nothing of how
    often it changes (a user's prompt is the user message)."""
    from promptlint.ir import Slot, Volatility

    if len(parts) == 1 and isinstance(parts[0], Slot) and _GENERIC_PROMPT.search(parts[0].reason):
        slot = parts[0]
        return [dataclasses.replace(slot, volatility=Volatility.UNKNOWN,
                                    reason=f"the whole system message, named {slot.label}: the name says what it is "
                                           "for, not how often it changes")]
    return parts




def is_message_list(value) -> bool:
    """A list whose items are all messages: role dicts, LangChain messages or (role, text) tuples,
    besides values not followed (`history.pop()`) beside at least one of them."""
    if not isinstance(value, ListV) or not value.items:
        return False
    known = [i for i in value.items if not isinstance(i, (Spread, LoopV, Opaque))]
    if not known:
        return False
    for item in known:
        if isinstance(item, DictV) and item.get("role") is not None:
            continue
        if isinstance(item, MsgV):
            continue
        if (isinstance(item, ListV) and item.is_tuple and len(item.items) == 2
                and (literal_text(item.items[0]) or "").lower() in LC_ROLES):
            continue
        return False
    return True


_TEMPLATE_KEYWORDS = ("template", "templates", "messages", "message_templates", "prompt", "prompts")


def _role_tuple_template(call: cst.Call):
    """The argument of a call that is a literal list of (role, text) pairs, the text
    written here (`("system", "You are ...")`): a message template whatever the class.
    A pair's role must be a message role and at least one text a string literal, so
    a list of (key, value) settings does not qualify."""
    for arg in call.args:
        if arg.star or arg.keyword is not None and arg.keyword.value not in _TEMPLATE_KEYWORDS:
            continue
        value = arg.value
        if not isinstance(value, cst.List) or not value.elements:
            continue
        pairs = [el.value for el in value.elements]
        if all(isinstance(p, cst.Tuple) and len(p.elements) == 2
               and isinstance(p.elements[0].value, cst.SimpleString)
               and p.elements[0].value.evaluated_value.lower() in LC_ROLES for p in pairs) and any(
                isinstance(p.elements[1].value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                for p in pairs):
            return value
    return None


# A client method that takes the messages first: AutoGen create(), smolagents generate(), LlamaIndex chat()
_CLIENT_CREATE = ("create", "create_stream", "generate", "agenerate", "generate_stream", "chat", "achat",
                  "stream_chat", "astream_chat")
# A model wrapper's chat method that takes the system text, then the conversation:
# `chat_mdl.async_chat(system, history, gen_conf)` (RAGFlow's LLMBundle and its kin)
_CHAT_WORD = re.compile(r"(?:^|_)chat(?:_|$)")
_LC_INVOKE = ("invoke", "ainvoke", "stream", "astream", "batch")
_MESSAGEY = ("message", "msgs", "prompt", "history", "conversation", "chat", "turns")


_HAYSTACK_BUILDERS = ("PromptBuilder", "ChatPromptBuilder")
_SK_FIELD = re.compile(r"\{\{\s*\$\w+\s*\}\}")  # Semantic Kernel's {{$variable}}


def returned_text(flow, value):
    """Instructions given as a function of the module (the Agents SDK's dynamic
    `instructions=`, called on each run): what it returns, else the value."""
    if not isinstance(value, FuncV) or id(value.node) not in flow.index.scopes:
        return value
    returned = flow.returned(value, flow.index.scopes[id(value.node)], {}, None, False, 0)
    return value if returned is None else returned


def might_send(call: cst.Call) -> bool:
    """Whether a call has the shape of one `site` reads (before any
    evaluation: files without one are not analysed further)."""
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if keywords & {k for k, _ in _PROMPT_KEYWORDS}:
        return True  # whatever the callee, `handler(task)(prompt=...)` included
    chain = _chain(call.func)
    if not chain:
        return False
    last = chain[-1]
    if "messages" in keywords or any(a.star == "**" for a in call.args) and last in (
            "create", "parse", "stream", "completion", "acompletion", "count_tokens"):
        return True
    if chain[-2:-1] == ["responses"] and keywords & {"input", "instructions"}:
        return True
    if last in _CLIENT_CREATE and call.args and call.args[0].keyword is None and not call.args[0].star:
        return True
    if _CHAT_WORD.search(last) and sum(a.keyword is None and not a.star for a in call.args) >= 2:
        return True
    if last in ("from_messages", "ChatPromptTemplate", "SystemMessage", "HumanMessage", "AIMessage",
                "MessagesPlaceholder", "format_messages", "aformat_messages") \
            or last == "PromptTemplate" and "template" in keywords:
        return True
    if _role_tuple_template(call) is not None:
        return True
    if last == "from_template" and len(chain) >= 2 and chain[-2].endswith("PromptTemplate"):
        return True
    if _agent_run(chain, keywords, call) or _agent_definition(last, keywords) or _super_init(call, keywords) \
            or last.endswith(_AGNO_OWNERS) and keywords & set(_AGNO_DATETIME):
        return True
    if last in _SETS_SYSTEM and len(call.args) == 1 and call.args[0].keyword is None:
        return True
    if last in _PUTS_SYSTEM and len(call.args) == 2 and all(a.keyword is None for a in call.args):
        return True
    if last == "GenerativeModel" and "system_instruction" in keywords:
        return True
    if chain[-2:] in (["prompty", "execute"], ["prompty", "execute_async"]):
        return True
    if last in _HAYSTACK_BUILDERS and ("template" in keywords or call.args and call.args[0].keyword is None):
        return True
    if _crew_agent(last, keywords) or _crew_task(last, keywords):
        return True
    if _chain_run(chain, call):
        return True
    positional = any(a.keyword is None and not a.star for a in call.args)
    if last in _GENAI and (positional or "contents" in keywords) or positional and _model_call(chain, messages=True):
        return True
    if last in _LC_INVOKE and call.args and call.args[0].keyword is None:
        first = call.args[0].value
        if isinstance(first, (cst.List, cst.Dict)):  # messages, or a pipeline's inputs
            return True
        if isinstance(first, cst.Name) and any(w in first.value.lower() for w in _MESSAGEY):
            return True
    return False


def site(flow, call: cst.Call, frame):
    """(sections, model, kind, written) of a call that sends a prompt, else
    None; `written` is False for a wrapper that only passes its caller's
    messages through (`create(messages=messages)` with `messages` a parameter)."""
    chain = _chain(call.func) or [""]  # "": a callee that is itself a call (`handler(task)(prompt=...)`)
    last = chain[-1]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    spread: dict = {}  # request(**params): the literal keys of a dict the call is given
    for arg in call.args:
        if arg.star == "**":
            value = flow.eval(arg.value, frame)
            if isinstance(value, DictV):
                for (k, v), el in zip(value.pairs, value.key_nodes or [None] * len(value.pairs)):
                    key = literal_text(k) if k is not None else None
                    if key is not None and key not in keywords:
                        node = el.value if isinstance(el, cst.DictElement) else getattr(v, "node", None)
                        keywords[key] = node if node is not None else arg.value
                        spread[id(keywords[key])] = v
    build = Sections(flow)
    ev = lambda n: spread[id(n)] if id(n) in spread else flow.eval(n, frame)  # noqa: E731
    sections: list[Section] = []
    if chain[-3:-1] == ["chat", "completions"] and last in ("create", "parse", "stream") and "messages" in keywords \
            or last in ("completion", "acompletion") and "messages" in keywords:
        _tools(build, keywords, ev, sections)
        sections += build.messages(ev(keywords["messages"]), keywords["messages"])
        kind = "openai"
    elif chain[-2:-1] == ["responses"] and last in ("create", "parse", "stream") and (
            "input" in keywords or "instructions" in keywords):
        _tools(build, keywords, ev, sections)
        if "instructions" in keywords:
            node = keywords["instructions"]
            sections.append(build.system(ev(node), node))
        if "input" in keywords:
            node = keywords["input"]
            value = ev(node)
            if isinstance(value, ListV):
                sections += build.messages(value, node)
            else:
                sections.append(build.section("user", build.content(value), node))
        kind = "openai"
    elif chain[-2:-1] == ["messages"] and last in ("create", "stream", "count_tokens") and "messages" in keywords:
        _system_and_messages(build, keywords, ev, sections)
        kind = "anthropic"
    elif last == "from_messages" or (last == "ChatPromptTemplate" and (positional or "messages" in keywords
                                                                        or "message_templates" in keywords)):
        node = keywords.get("messages", keywords.get("message_templates", positional[0] if positional else None))
        if node is None:
            return None
        style = template_format(flow, keywords, frame)
        # LlamaIndex's ChatPromptTemplate(message_templates=[ChatMessage(...)]): every message is a template
        every = "message_templates" in keywords or lcel.LLAMA_INDEX.search(flow.file.text) is not None
        sections += build.messages(ev(node), node, template="all" if every else True, style=style)
        kind = "langchain"
    elif (node := _role_tuple_template(call)) is not None:
        # a project's own template class given (role, text) pairs, as LangChain's from_messages is:
        # `MessageTemplate(template=[("system", "..."), ("user", "... {question} ...")])`
        sections += build.messages(ev(node), node, template=True, style=template_format(flow, keywords, frame))
        kind = "template"
    elif last == "from_template" and len(chain) >= 2 and chain[-2].endswith("PromptTemplate"):
        owner = chain[-2]
        style = template_format(flow, keywords, frame)
        if owner in LC_TEMPLATES:
            msg = lc_template_method(flow, owner, call, frame, style)
            sections.append(build.message(msg, True, style, call))
        else:
            node = keywords.get("template", positional[0] if positional else None)
            if node is None:
                return None
            role = "user" if owner == "ChatPromptTemplate" else flow.ctx.default_role
            sections.append(build.section(role, build.text(ev(node), style), node))
        kind = "langchain"
    elif last == "PromptTemplate" and "template" in keywords:
        style = template_format(flow, keywords, frame)
        node = keywords["template"]
        text = _partially_filled(flow, ev(node), ev(keywords["partial_variables"]), style) \
            if "partial_variables" in keywords else None
        sections.append(build.section(flow.ctx.default_role, text if text is not None else build.text(ev(node), style),
                                      node))
        kind = "langchain"
    elif last in ("invoke", "ainvoke", "stream", "astream", "batch") and positional and is_message_list(
            ev(positional[0])):
        sections += build.messages(ev(positional[0]), positional[0])
        kind = "langchain"
    elif _crew_agent(last, set(keywords)):
        # CrewAI's Agent(role=, goal=, backstory=): its system prompt, in the order CrewAI writes it
        # ({query} in its texts is filled from crew.kickoff(inputs=...), as str.format fields)
        sections.append(build.section("system", _run_inputs(build.content(_crew_persona(flow, keywords, ev, call),
                                                                          "format")), call))
        kind = "agent"
    elif _crew_task(last, set(keywords)):
        # CrewAI's Task(description=, expected_output=): the task message, its description first
        for key in ("description", "expected_output"):
            if key in keywords:
                sections.append(build.section("user", _run_inputs(build.content(ev(keywords[key]), "format")),
                                              keywords[key]))
        build.literal = True
        kind = "agent"
    elif last in _HAYSTACK_BUILDERS and (node := keywords.get("template", positional[0] if positional else None)) \
            is not None:
        # Haystack's PromptBuilder(template="... {{ question }}") and ChatPromptBuilder(template=[ChatMessage
        # .from_system(...), ...]): Jinja templates, filled from the pipeline's run inputs
        value = ev(node)
        if last == "ChatPromptBuilder" and isinstance(value, ListV):
            sections += build.messages(value, node, template=True, style="jinja")
        else:
            sections.append(build.section(flow.ctx.default_role, build.text(value, "jinja"), node))
        kind = "haystack"
    elif chain[-2:] in (["prompty", "execute"], ["prompty", "execute_async"]) \
            and (rendered := flow.stdlib.prompty_execute(flow, call, frame)) is not None:
        # prompty.execute("chat.prompty", inputs={...}): the Prompty file, rendered with the inputs, sent
        sections.append(build.section("system", build.content(rendered), call))
        build.literal = True
        kind = "prompty"
    elif last == "GenerativeModel" and "system_instruction" in keywords:
        # Gemini's GenerativeModel(system_instruction=...): the system prompt of every call it makes
        sections.append(build.system(ev(keywords["system_instruction"]), keywords["system_instruction"]))
        kind = "gemini"
    elif last in _SETS_SYSTEM and len(positional) == 1 and _written_text(ev(positional[0])):
        # self.llm.set_instructions(sp): the system prompt the wrapper sends with every run
        sections.append(build.system(ev(positional[0]), positional[0]))
        kind = "wrapper"
    elif last in _PUTS_SYSTEM and len(positional) == 2 and len(call.args) == 2 \
            and _written_text(ev(positional[0])) and isinstance(ev(positional[1]), (ListV, Opaque)):
        # Open WebUI's add_or_update_system_message(text, messages): the system message the
        # conversation goes on with, ahead of its messages
        sections.append(build.system(ev(positional[0]), positional[0]))
        sections += build.messages(ev(positional[1]), positional[1])
        kind = "wrapper"
    elif _agno_dated(last, keywords):
        # agno's Agent(add_datetime_to_context=True): the system message agno writes, the time in it
        sections.append(build.system(_agno_system(flow, keywords, ev, call), call))
        kind = "agent"
    elif _agent_definition(last, set(keywords)) or _super_init(call, keywords) and _of_an_agent(frame):
        # Agent(instructions=...) of the OpenAI Agents SDK, pydantic-ai, smolagents, agno; ADK's
        # Agent(global_instruction=..., instruction=...); an agent class's own
        # `super().__init__(instructions=...)` (LiveKit's way to define an agent)
        for key in _AGENT_TEXT:
            if key in keywords:
                text = returned_text(flow, ev(keywords[key]))
                if key in _ADK_TEXT and isinstance(text, StrV):
                    text = _adk_state(flow, text)
                sections.append(build.system(text, keywords[key]))
        from promptlint.sources.python import fills

        fills.apply_answers(flow, sections)  # `{trip_plan}`: what the agent with output_key="trip_plan" said
        kind = "agent"
    elif _agent_run(chain, set(keywords), call):
        node = positional[0] if positional else next(keywords[k] for k in _RUN_TEXT if k in keywords)
        sections.append(build.section("user", build.content(ev(node)), node))
        build.literal = build.literal or not isinstance(ev(node), Opaque)
        kind = "agent"
    elif last in _CLIENT_CREATE and positional and is_message_list(ev(positional[0])):
        # AutoGen's ChatCompletionClient.create(messages, tools=...): the messages come first
        _tools(build, keywords, ev, sections)
        sections += build.messages(ev(positional[0]), positional[0])
        kind = "openai"
    elif "messages" in keywords and is_message_list(ev(keywords["messages"])):
        _system_and_messages(build, keywords, ev, sections)
        kind = "openai"
    elif _CHAT_WORD.search(last) and len(positional) >= 2 and isinstance(ev(positional[0]), StrV) \
            and (is_message_list(ev(positional[1])) or isinstance(positional[1], cst.Subscript)
                 and is_message_list(ev(positional[1].value))):  # the history as `msg[1:]`
        # chat(system, history, ...): the system text, then the conversation
        sections.append(build.system(ev(positional[0]), positional[0]))
        sections += build.messages(ev(positional[1]), positional[1])
        kind = "openai"
    elif last in lcel.INVOKES and (piped := lcel.invoked(flow, call, frame)) is not None:
        # (prompt | llm).invoke({...}), chain.ainvoke(inputs) with chain = prompt | llm: the
        # template's messages, filled with the inputs
        sections += build.messages(piped, call)
        kind = "langchain"
    elif _chain_run(chain, call) and (filled := _chain_inputs(flow, call, positional, keywords, ev, frame)):
        # chain.run(goal=goal), chain.invoke({"goal": goal}), from_chain(chain, {...}): the
        # chain's template filled with the inputs, each value at the argument that passes it
        sections.append(build.section(flow.ctx.default_role, build.content(filled), call))
        kind = "langchain"
    elif last in _GENAI and (positional or "contents" in keywords):
        # Gemini: model.generate_content(prompt), client.models.generate_content(model=..., contents=...,
        # config=GenerateContentConfig(system_instruction=...)), chat.send_message(text)
        config = keywords.get("config")
        if isinstance(config, cst.Call):
            system = next((a.value for a in config.args if a.keyword is not None
                           and a.keyword.value == "system_instruction"), None)
            if system is not None:
                sections.append(build.system(ev(system), system))
        node = keywords.get("contents", positional[0] if positional else None)
        value = ev(node)
        if is_message_list(value):
            sections += build.messages(value, node)
        else:
            sections.append(build.section("user", build.content(value), node))
        build.literal = build.literal or not isinstance(value, Opaque)
        kind = "gemini"
    elif positional and _model_call(chain, messages=True) and is_message_list(ev(positional[0])):
        # a model object called with the conversation: `self.llm(messages)`, `chat_model.predict(msgs)`
        sections += build.messages(ev(positional[0]), positional[0])
        kind = "model"
    elif positional and _model_call(chain) and _written_text(ev(positional[0])):
        # llm.complete(prompt) (LlamaIndex), llm.predict(text), a model object called with the
        # text (`await llm(convo)`, `self.llm(prompt)`): text this file wrote
        sections.append(build.section("user", build.content(ev(positional[0])), positional[0]))
        build.literal = True
        kind = "model"
    elif not _cli_library(flow, call, frame) and not _CONFIG_CLASS.search(last) \
            and (texts := _prompt_keywords(keywords, ev)):
        # a model wrapper given the prompt by name: `llm_api_handler(prompt=prompt,
        # system_prompt=...)`, `llm.generate(prompt=...)`: text this file wrote
        for key, role in texts:
            value = ev(keywords[key])
            if isinstance(value, StrV) and any(isinstance(seg, Lit) and _SK_FIELD.search(seg.text)
                                               for seg in value.segs):
                # Semantic Kernel's kernel.add_function(prompt="... {{$input}}"): its template syntax
                sections.append(build.section("system" if role == "system" else "user", build.text(value, "sk"),
                                              keywords[key]))
                continue
            sections.append(build.system(value, keywords[key]) if role == "system" else
                            build.section("user", build.content(value), keywords[key]))
        build.literal = True
        kind = "wrapper"
    else:
        return None
    model = literal_text(ev(keywords["model"])) if "model" in keywords else None
    return sections, model, kind, build.literal


# Gemini's methods that send a prompt, and a model object's completion methods.
_GENAI = ("generate_content", "generate_content_async", "generate_content_stream", "send_message",
          "send_message_async", "send_message_stream")
_COMPLETE = ("complete", "acomplete", "stream_complete", "astream_complete", "predict", "apredict", "run", "arun",
             "invoke", "ainvoke", "call", "acall")  # a LangChain chat model invoked with the text: one user message
# an agent or model wrapper told its system prompt by a setter: `self.llm.set_instructions(sp)`
_SETS_SYSTEM = ("set_instructions", "set_system_prompt", "set_system_message", "update_system_prompt",
                "set_system")
# Open WebUI's helpers that put the system text ahead of a conversation's messages
_PUTS_SYSTEM = ("add_or_update_system_message",)
# `llm`, `self.chat_model`, `fast_llm`, `use_llm_func`; not a factory (`get_llm("name")`, `load_model(path)`) nor a
# model that takes no chat prompt (`embedding_model(text)`, `rerank_model`)
_MODEL_NAME_PATTERN = (r"(?!(?:get|load|create|build|make|init|set|new|select|choose|resolve|pick)_)"
                       r"(?!\w*(?:embed|rerank|classif|detect|token|{vision}whisper|tts|speech))"
                       r"(?:\w+_)?(?:llm|lm|model|chat_model|chat_llm)(?:_(?:func|fn|function|callable))?")
_MODEL_NAME = re.compile(_MODEL_NAME_PATTERN.format(vision="vision|"), re.IGNORECASE)
# given a conversation, a vision model (`vision_model.call([...])`) chats too
_CHAT_MODEL_NAME = re.compile(_MODEL_NAME_PATTERN.format(vision=""), re.IGNORECASE)


def _model_call(chain: list[str], messages: bool = False) -> bool:
    """`llm.complete(...)`, `self.model.predict(...)`, or the model itself
    called: `llm(...)`, `self.llm(...)`. `messages`: the call is given a
    conversation, so a vision model (`vision_model.call([...])`) is one too."""
    named = _CHAT_MODEL_NAME if messages else _MODEL_NAME
    if chain[-1] in _COMPLETE:
        return len(chain) >= 2 and bool(named.fullmatch(chain[-2]))
    return len(chain) <= 2 and bool(named.fullmatch(chain[-1])) and chain[0] in (chain[-1], "self")


# the SDK calls that return a model's answer: `client.chat.completions.create`, `client.messages.create`,
# `client.responses.create`, `openai.ChatCompletion.create`, `completions.parse`
_ANSWERING_CREATE = {("completions", "create"), ("completions", "parse"), ("messages", "create"),
                     ("responses", "create"), ("ChatCompletion", "create"), ("Completion", "create")}


def answers(chain: list[str]) -> bool:
    """A call whose result is what a model answered: an SDK's completion
    call, Gemini's generate_content, LiteLLM's and Ollama's, or a model
    object asked (`llm.invoke(...)`, `self.chat_model.predict(...)`)."""
    if len(chain) >= 2 and tuple(chain[-2:]) in _ANSWERING_CREATE:
        return True
    if chain[-1] in ("generate_content", "generate_content_async"):
        return len(chain) >= 2
    if chain[0] in ("litellm", "ollama") and chain[-1] in ("completion", "acompletion", "chat", "generate"):
        return True
    return _model_call(chain, messages=True)


# A call given its prompt by keyword, whatever the callee: the system text first; `messages=`
# given one text (`ask_llm(messages=prompt_content)`) is the user's message
_PROMPT_KEYWORDS = (("system_prompt", "system"), ("system_message", "system"), ("system_instruction", "system"),
                    ("system_instructions", "system"), ("system_query", "system"), ("system_msg", "system"),
                    ("sys_prompt", "system"), ("prompt", "user"), ("user_prompt", "user"), ("messages", "user"))
# a request's settings object (Gemini's GenerateContentConfig(system_instruction=...)): the call that
# is given it sends the prompt
_CONFIG_CLASS = re.compile(r"(?:Config|Configuration|Options|Settings)$")
# names too common to say prompt alone (`log(msg=...)`), read as the user's
# text only beside a system keyword: `get_response_from_llm(msg=..., system_message=...)`
_USER_BESIDE_SYSTEM = ("user_message", "msg", "user_msg", "query")


# libraries whose prompt= asks a person at a terminal or in a form, not a model
_CLI_LIBRARIES = ("click", "typer", "questionary", "inquirer", "InquirerPy", "prompt_toolkit", "rich", "gradio",
                  "streamlit", "cmd", "getpass", "builtins")


def _cli_library(flow, call: cst.Call, frame) -> bool:
    qual = flow.qualname(call.func, frame) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
    return qual is not None and qual.split(".")[0] in _CLI_LIBRARIES


def _prompt_keywords(keywords, ev) -> list[tuple[str, str]]:
    """The (keyword, role) pairs of a call's prompt keywords whose values are
    text this file knows, when one of them is written here (a wrapper that
    passes its caller's prompt through is not a prompt of its own). A value
    we only know by its name (`system_prompt=task.workflow_system_prompt`)
    is left out: the wrapper may send it anywhere, or not at all."""
    present = [(k, role) for k, role in _PROMPT_KEYWORDS if k in keywords and isinstance(ev(keywords[k]), StrV)]
    if any(role == "system" for _, role in present):
        present += [(k, "user") for k in _USER_BESIDE_SYSTEM if k in keywords and isinstance(ev(keywords[k]), StrV)]
    if not any(_written_text(ev(keywords[k])) for k, _ in present):
        return []
    return present


def _written_text(value) -> bool:
    return isinstance(value, StrV) and any(isinstance(s, Lit) and s.text.strip() for s in value.segs)


# Running a LangChain chain: its methods, and a function given the chain (lanarky's from_chain).
_CHAIN_RUN = ("run", "arun", "predict", "apredict", "invoke", "ainvoke", "acall", "call", "batch", "stream",
              "astream", "from_chain")


def _chain_run(chain: list[str], call: cst.Call) -> bool:
    """A run of something named a chain (`qa_chain.run(...)`, `self.chain.invoke({...})`,
    `StreamingResponse.from_chain(chain, {...})`), given inputs: syntax only."""
    if chain[-1] not in _CHAIN_RUN:
        return False
    named = any("chain" in part.lower() for part in chain[:-1]) or any(
        isinstance(a.value, cst.Name) and "chain" in a.value.value.lower() for a in call.args if a.keyword is None)
    return named and (any(a.keyword is not None for a in call.args) or any(isinstance(a.value, cst.Dict)
                                                                          for a in call.args))


def _chain_inputs(flow, call: cst.Call, positional, keywords, ev, frame) -> StrV | None:
    """The chain's template with the run's inputs filled in, None when the
    run is not given a chain we know."""
    from promptlint.sources.python import strings as strs
    from promptlint.sources.python.text import render_fields

    candidates = [call.func.value] if isinstance(call.func, cst.Attribute) else []
    template = next((v for v in (ev(n) for n in candidates + positional) if isinstance(v, TemplV)
                     and v.style == "format"), None)
    if template is None:
        return None
    kwargs, written = lcel.call_inputs(flow, call, frame)
    if not kwargs:
        return None
    return StrV(render_fields(flow, template.text, strs.scan_format, [], kwargs, written), call)


# Agent frameworks: the agent's own instructions, and the task a run is given.
# in the order the agent puts them: Google ADK's global_instruction comes ahead of the agent's instruction
_AGENT_TEXT = ("global_instruction", "instructions", "instruction", "system_prompt", "system_message")
_RUN_TEXT = ("task", "prompt", "user_prompt", "input", "message")
_ADK_TEXT = ("global_instruction", "instruction")  # Google ADK's: templates of the session state


def _adk_state(flow, text: StrV) -> StrV:
    """An ADK instruction with its state placeholders (`{trip_plan}`,
    `{user:name}`) as the fields ADK fills at each run."""
    from promptlint.sources.python import strings as strs
    from promptlint.sources.python.text import render_fields

    return StrV(render_fields(flow, text, strs.scan_adk_state, [], {}, {}), text.node)
_RUN_METHODS = ("run", "run_sync", "arun", "run_stream", "print_response", "aprint_response")


_RUN_INPUT = "an input of the crew's run: CrewAI builds its agents' and tasks' texts for each kickoff"


def _run_inputs(parts: list) -> list:
    """A crew's texts are filled per run (`{company}` from kickoff(inputs=...), a task factory's
    parameters from what the run was given): a value in them with no evidence of its own is a run's input."""
    out = []
    for part in parts:
        if isinstance(part, Slot):
            changed = {"children": _run_inputs(part.children), "else_children": _run_inputs(part.else_children)}
            if part.volatility is Volatility.UNKNOWN and part.kind in (SlotKind.VARIABLE, SlotKind.EXPRESSION):
                changed.update(volatility=Volatility.REQUEST, reason=f"{_RUN_INPUT} ({part.reason})")
            part = dataclasses.replace(part, **changed)
        out.append(part)
    return out


def _crew_agent(last: str, keywords) -> bool:
    return last == "Agent" and {"role", "goal", "backstory"} <= set(keywords)


def _crew_task(last: str, keywords) -> bool:
    return last == "Task" and "description" in keywords


def _crew_persona(flow, keywords, ev, call) -> StrV:
    """CrewAI's role-playing slice: `You are {role}. {backstory}\nYour personal goal is: {goal}`."""
    start, end = flow.span(call)

    def lit(text):
        return Lit.synthetic(text, start, end)

    return StrV([lit("You are "), *flow.segs(ev(keywords["role"])), lit(". "), *flow.segs(ev(keywords["backstory"])),
                 lit("\nYour personal goal is: "), *flow.segs(ev(keywords["goal"]))], call)


# agno's (and phidata's) switches that put the current time into the system message it builds
_AGNO_DATETIME = ("add_datetime_to_context", "add_datetime_to_instructions")
_AGNO_OWNERS = ("Agent", "Team")
_AGNO_TIME_OF_DAY = re.compile(r"%[HIMSTXcfpr]")


def _agno_dated(last: str, keywords: dict) -> bool:
    """An agno Agent or Team told to add the current time to its context."""
    return last.endswith(_AGNO_OWNERS) and any(
        isinstance(keywords.get(key), cst.Name) and keywords[key].value == "True" for key in _AGNO_DATETIME)


def _agno_system(flow, keywords: dict, ev, call) -> StrV:
    """The system message agno builds (agno/agent/_messages.py, get_system_message, read
    2026-12-04): description, role, instructions (one per line, `- ` each when several),
    then `<additional_information>` with "The current time is {datetime.now()}." (to the
    microsecond, unless `datetime_format=` says less), then `<expected_output>` and
    `additional_context`: the time sits ahead of the expected output and the context."""
    start, end = flow.span(call)

    def lit(text):
        return Lit.synthetic(text, start, end)

    out: list = []
    if "description" in keywords:
        out += [*flow.segs(ev(keywords["description"])), lit("\n")]
    if "role" in keywords:
        out += [lit("\n<your_role>\n"), *flow.segs(ev(keywords["role"])), lit("\n</your_role>\n\n")]
    if "instructions" in keywords:
        value = returned_text(flow, ev(keywords["instructions"]))
        items = value.items if isinstance(value, ListV) else [value]
        for item in items:
            out += [lit("- "), *flow.segs(item), lit("\n")] if len(items) > 1 else [*flow.segs(item), lit("\n\n")]
    switch = next(key for key in _AGNO_DATETIME if key in keywords)
    fmt = literal_text(ev(keywords["datetime_format"])) if "datetime_format" in keywords else None
    precise = fmt is None or _AGNO_TIME_OF_DAY.search(fmt) is not None
    verdict = Verdict(Volatility.REQUEST if precise else Volatility.DAY,
                      f"agno's {switch}=True writes the current time into the system message ahead of its "
                      f"expected output and context" + (" (datetime.now(), to the microsecond)" if fmt is None
                                                         else f" (formatted {fmt!r})"))
    at = keywords[switch]
    clock = Opaque(f"{switch}=True", verdict, at, names=("current_time",))
    clock.fix = {"kind": "manual", "advice": f"set {switch}=False and put the time in the user message, after the "
                                             "stable text (agno writes it ahead of the expected output)"}
    out += [lit("<additional_information>\n- The current time is "), *flow.segs(clock),
            lit(".\n</additional_information>\n\n")]
    if "expected_output" in keywords:
        out += [lit("<expected_output>\n"), *flow.segs(ev(keywords["expected_output"])),
                lit("\n</expected_output>\n\n")]
    if "additional_context" in keywords:
        out += [*flow.segs(ev(keywords["additional_context"])), lit("\n")]
    return StrV(out, call)


def _agent_definition(last: str, keywords) -> bool:
    return last.endswith("Agent") and bool(set(keywords) & set(_AGENT_TEXT))


def _partially_filled(flow, template, partials, style: str):
    """`PromptTemplate(template=T, partial_variables={"job_title": title})`:
    the template's parts with the bound fields filled (each value placed at
    the expression that passes it), the others left as fields; None when the
    template or the mapping is not text and a dict we read."""
    from promptlint.sources.python import strings as strs
    from promptlint.sources.python.text import _dict_arguments, _dict_kwargs, render_fields

    if not isinstance(template, StrV) or not isinstance(partials, DictV) or style not in ("format", "jinja"):
        return None
    scanner = strs.scan_jinja_fields if style == "jinja" else strs.scan_format
    filled = StrV(render_fields(flow, template, scanner, [], _dict_kwargs(partials), _dict_arguments(partials)),
                  template.node)
    return flow.parts(filled)  # (a field with no value stays a field: render_fields leaves its slot)


def _super_init(call: cst.Call, keywords) -> bool:
    """`super().__init__(instructions=...)`: syntax only."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call) \
        and isinstance(func.value.func, cst.Name) and func.value.func.value == "super" \
        and bool(set(keywords) & set(_AGENT_TEXT))


def _of_an_agent(frame) -> bool:
    """Whether the method being read belongs to a class with an agent base
    (`class Assistant(Agent)`, `class Helper(BaseAgent)`)."""
    scope = frame.scope
    while scope is not None and scope.cls is None:
        scope = scope.parent
    if scope is None:
        return False
    return any((last_name(base.value) or "").endswith("Agent") for base in scope.cls.node.bases)


def _agent_run(chain: list[str], keywords, call: cst.Call) -> bool:
    """`agent.run(task)`: a run method on something named an agent."""
    if len(chain) < 2 or chain[-1] not in _RUN_METHODS or "agent" not in chain[-2].lower():
        return False
    has_positional = any(a.keyword is None and not a.star for a in call.args)
    return has_positional or bool(set(keywords) & set(_RUN_TEXT))


def _system_and_messages(build: Sections, keywords, ev, sections: list[Section]) -> None:
    """tools=, system= and messages= of a call, in the order the provider puts them."""
    _tools(build, keywords, ev, sections)
    if "system" in keywords:
        node = keywords["system"]
        sections.append(build.system(ev(node), node))
    sections += build.messages(ev(keywords["messages"]), keywords["messages"])


def _tools(build: Sections, keywords, ev, sections: list[Section]) -> None:
    if "tools" in keywords:
        section = build.tools(ev(keywords["tools"]), keywords["tools"])
        if section is not None:
            sections.append(section)


def lc_message_list(flow, value) -> bool:
    """A list literal of LangChain message objects (a prompt built without a template)."""
    return isinstance(value, ListV) and any(isinstance(i, MsgV) for i in value.items) and is_message_list(value)


__all__ = ["site", "might_send", "Sections", "is_message_list", "lc_message_list"]
