"""The requests verify replays: a realistic stream rendered from each
prompt template, or requests recorded in a JSONL file.

A generated stream has several users, several sessions per user and
several requests per session, in that order (one user's sessions follow
each other; each session's requests follow each other). Every slot takes a
value by its volatility: static and deploy-time values are the same in every
request; day values too (the stream lasts less than a day); a per-user value
is the user's, a per-session value the session's, and a per-request value
changes on every request, with timestamps advancing through the day. Known
samples (front matter, config) are used first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from promptlint.analysis.render import LOOP_ITEMS, render_variants
from promptlint.analysis.samples import _key, generated
from promptlint.ir import PromptTemplate, Slot, SourceError, Volatility

START = datetime(2026, 11, 29, 9, 0, 0, tzinfo=timezone.utc)
STEP = timedelta(minutes=3, seconds=17)  # time between two requests of the stream
_ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
ROLES = {"developer": "system"}  # roles chat templates do not know, mapped to one they do


@dataclass(frozen=True)
class StreamShape:
    users: int = 2
    sessions: int = 2  # per user
    requests: int = 2  # per session

    def __post_init__(self):
        for name in ("users", "sessions", "requests"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name} must be at least 1")

    @property
    def total(self) -> int:
        return self.users * self.sessions * self.requests


@dataclass
class Request:
    prompt: str  # the prompt (template) it belongs to: the report groups by it
    label: str  # where it comes from: "user 1 session 2 request 1" or "FILE:LINE"
    messages: list[dict]
    path: str = ""  # file and line to point an error at
    line: int = 1
    arrival: float | None = None  # seconds since the epoch: the stream's clock, or the record's timestamp
    breaks: tuple = ()  # (message index, character offset) after each block marked cache_control


def stream_value(slot: Slot, variant: int, item: int) -> str:
    """A slot's text for one request: distinct for every variant and loop item."""
    index = variant * LOOP_ITEMS + item
    if index < len(slot.samples):  # known samples first, then generated ones
        return slot.samples[index]
    index -= len(slot.samples)
    key = _key(slot)
    value = generated(key, index)
    if _ISO_TIME.match(value):  # timestamps advance with the request counter
        return (START + STEP * variant + timedelta(seconds=item)).strftime("%Y-%m-%dT%H:%M:%SZ")
    cycle = len({generated(key, i) for i in range(16)})
    if index >= cycle:
        value = f"{value} {index // cycle + 1}"  # later rounds of the cycle: suffixes 2, 3, ...
    elif value in slot.samples:
        value = f"{value} 1"  # a generated value a sample already used: suffix 1, which no round uses
    while value in slot.samples:  # a sample that looks like a suffixed generated value
        value += "'"
    return value


def _variant(slot: Slot, user: int, session: int, request: int) -> int:
    if slot.volatility >= Volatility.REQUEST:
        return request
    if slot.volatility is Volatility.SESSION:
        return session
    if slot.volatility is Volatility.USER:
        return user
    return 0  # static, deploy, day: the same all day


def messages_of(template: PromptTemplate, texts: list[str]) -> list[dict]:
    """Chat messages from a render's sections: tool definitions go into the
    system message (chat templates without tool support show them there)."""
    messages: list[dict] = []
    tools: list[str] = []
    for section, text in zip(template.sections, texts):
        if section.role == "tools":
            tools.append(text)
            continue
        role = ROLES.get(section.role, section.role)
        if tools and role == "system":
            text, tools = "\n\n".join(tools + [text]), []
        elif tools:
            messages.append({"role": "system", "content": "\n\n".join(tools)})
            tools = []
        if messages and messages[-1]["role"] == role and role == "system":
            messages[-1]["content"] += "\n\n" + text
        else:
            messages.append({"role": role, "content": text})
    if tools:
        messages.insert(0, {"role": "system", "content": "\n\n".join(tools)})
    return [m for m in messages if m["content"].strip()]


def stream(template: PromptTemplate, shape: StreamShape) -> list[Request]:
    """The generated request stream for one prompt template."""
    requests: list[Request] = []
    counter = 0
    path = template.source.display_path
    line = template.span.line_col[0] if template.span is not None else 1
    for user in range(shape.users):
        for session in range(shape.sessions):
            session_id = user * shape.sessions + session
            for r in range(shape.requests):
                pick = lambda slot: _variant(slot, user, session_id, counter)  # noqa: E731
                rendered = render_variants(template, pick, stream_value)
                requests.append(Request(template.name, f"user {user + 1} session {session + 1} request {r + 1}",
                                        messages_of(template, rendered.section_texts()), path, line,
                                        (START + counter * STEP).timestamp()))
                counter += 1
    return requests


def _content(value) -> str:
    """Message content as text: a string, or OpenAI/Anthropic content parts."""
    if value is None:  # an assistant turn that only calls tools
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for part in value:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                raise ValueError("content part without text (only text parts can be replayed)")
        return "".join(texts)
    raise ValueError(f"message content must be a string or a list of parts, not {type(value).__name__}")


def _breaks(content, message: dict) -> list[int]:
    """Character offsets in the message's text after each part marked
    `cache_control` (Anthropic, Bedrock's InvokeModel), or its end where the
    message itself carries the mark."""
    offsets, at = [], 0
    if isinstance(content, list):
        for part in content:
            at += len(part if isinstance(part, str) else part.get("text", ""))
            if isinstance(part, dict) and part.get("cache_control"):
                offsets.append(at)
    if message.get("cache_control"):
        offsets.append(len(_content(content)))
    return offsets


def _group(record: dict, default: str) -> str:
    for source in (record, record.get("metadata") or {}):
        for key in ("prompt", "route", "template"):
            if isinstance(source.get(key), str) and source[key]:
                return source[key]
    return default


def read_requests(path: Path, display: str, errors: list[SourceError]) -> list[Request]:
    """Requests recorded as JSONL, one per line: {"messages": [...]} in
    OpenAI form, or a Batch API line {"body": {"messages": [...]}}. An
    optional "prompt" (or "route", or metadata.prompt) groups them; without
    one they form a single group named after the file. A broken line is an
    error with its line number; the other lines still replay."""
    from promptlint.usage.parse import arrival_time

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(SourceError(display, 1, f"cannot read requests: {exc}"))
        return []
    requests: list[Request] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            if not isinstance(record, dict):
                raise ValueError("each line must be a JSON object")
            body = record.get("body") if isinstance(record.get("body"), dict) else record
            messages = body.get("messages")
            if not isinstance(messages, list) or not messages:
                raise ValueError('no "messages" list')
            if body.get("system"):  # Anthropic's Messages API: the system prompt comes first
                messages = [{"role": "system", "content": body["system"]}, *messages]
            parsed, breaks = [], []
            for index, message in enumerate(messages):
                if not isinstance(message, dict) or not isinstance(message.get("role"), str):
                    raise ValueError("every message needs a role")
                role = ROLES.get(message["role"], message["role"])
                content = message.get("content", "")
                parsed.append({"role": role, "content": _content(content)})
                breaks.extend((index, offset) for offset in _breaks(content, message))
        except (json.JSONDecodeError, ValueError) as exc:
            errors.append(SourceError(display, number, f"bad request line: {exc}"))
            continue
        arrival = arrival_time(record, {})
        requests.append(Request(_group(record, display), f"{display}:{number}", parsed, display, number, arrival,
                                tuple(breaks)))
    return requests
