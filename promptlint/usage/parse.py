"""Read a JSONL usage log into normalised `UsageRecord`s.

One record per line, either a provider's response object as the API returned
it, or a pair ``{"request": {...}, "response": {...}}`` with optional
``"route"`` / ``"prompt"`` (a name that groups requests per prompt) and
``"metadata"`` (``metadata.route`` / ``metadata.prompt``). Batch API output
lines are read too: OpenAI's ``{"custom_id", "response": {"body": {...}}}``
and Anthropic's ``{"custom_id", "result": {"message": {...}}}``.

The response is recognised by its documented field names:

- OpenAI Chat Completions: ``usage.prompt_tokens`` (all prompt tokens, cached
  included), ``usage.prompt_tokens_details.cached_tokens``,
  ``usage.completion_tokens``, ``model``. The details object may be absent or
  null (vLLM and other OpenAI-compatible servers leave it out when nothing was
  cached): cached tokens are then 0. Source: OpenAI prompt-caching guide
  ("All requests ... will display a cached_tokens field of the
  usage.prompt_tokens_details"; https://platform.openai.com/docs/guides/prompt-caching,
  quoted in https://portkey.ai/docs/virtual_key_old/integrations/llms/openai/prompt-caching-openai)
  and shared/reference/cache-rules.md (vLLM: absent when 0). DeepSeek's
  variant, ``usage.prompt_cache_hit_tokens`` (cache-rules.md), is read as
  its cached tokens, provider "deepseek".
- OpenAI Responses API: ``object: "response"``, ``usage.input_tokens`` (cached
  included), ``usage.input_tokens_details.cached_tokens``,
  ``usage.output_tokens``, ``model``. Source: openai-python
  ``types/responses/response_usage.py`` and
  https://docs.x.ai/developers/advanced-api-usage/prompt-caching/usage-and-pricing
  (the same two shapes side by side). An ``input_tokens_details`` /
  ``prompt_tokens_details`` ``cache_write_tokens`` count, where a provider
  reports one (Azure's ResponseUsageInputTokensDetails), is read as cache
  writes, part of the input like ``cached_tokens``.
- Anthropic Messages: ``type: "message"``, ``usage.input_tokens`` (only the
  uncached tokens after the last cache breakpoint),
  ``usage.cache_creation_input_tokens`` (written to the cache),
  ``usage.cache_read_input_tokens`` (read from it), ``usage.output_tokens``,
  optional ``usage.cache_creation.ephemeral_5m_input_tokens`` /
  ``ephemeral_1h_input_tokens``. Prompt tokens = input + creation + read.
  Source: anthropic-sdk-python ``src/anthropic/types/usage.py`` and
  ``cache_creation.py`` (the fields are Optional: null counts as 0) and
  shared/reference/cache-rules.md.
- Gemini generateContent: ``usageMetadata.promptTokenCount`` ("when
  cached_content is set, this is still the total effective prompt size"),
  ``usageMetadata.cachedContentTokenCount``, ``candidatesTokenCount``
  (+ ``thoughtsTokenCount``, billed as output), ``modelVersion``; and the
  Python SDK's snake_case dump (``usage_metadata.prompt_token_count``,
  ``cached_content_token_count``, ``model_version``). Source:
  https://googleapis.github.io/js-genai/classes/types.GenerateContentResponseUsageMetadata.html
  and https://ai.google.dev/api/python/google/generativeai/protos/GenerateContentResponse/UsageMetadata.

A line that is not JSON, holds no usage, or lacks the prompt-token count is a
`SourceError` (``path:line:col: message``) and the rest of the file is still
read. Blank lines are skipped; a UTF-8 byte-order mark is tolerated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptlint.ir import SourceError

__all__ = ["CappedErrors", "UsageRecord", "iter_records", "parse_lines", "parse_record", "read_usage_log", "request_messages"]

# api names, one per recognised response shape
CHAT = "chat.completions"
RESPONSES = "responses"
MESSAGES = "messages"
GENERATE = "generateContent"


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is most of the cost of a line
class UsageRecord:
    """One logged request's prompt-cache usage, the same for every provider.

    ``prompt_tokens`` counts every input token, cached and written ones
    included (for Anthropic: input + cache creation + cache read).
    ``cached_tokens`` were read from the cache; ``cache_write_tokens`` were
    written to it (Anthropic's cache creation; 0 where the provider reports
    none), ``cache_write_1h_tokens`` the part of those with a 1-hour TTL.
    """

    line: int
    provider: str  # as in the provider table: openai | anthropic | google | deepseek
    model: str | None
    prompt_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    output_tokens: int
    route: str | None
    request_messages: list[dict] | None  # [{"role", "content" (text)}], None without a logged request
    api: str = ""  # chat.completions | responses | messages | generateContent
    cache_write_1h_tokens: int = 0
    path: str = ""
    time: float | None = None  # arrival, seconds since the epoch (see arrival_time), None when not logged

    @property
    def uncached_tokens(self) -> int:
        """Input tokens neither read from nor written to the cache."""
        return max(0, self.prompt_tokens - self.cached_tokens - self.cache_write_tokens)

    @property
    def cached_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


# ---------------------------------------------------------------- numbers

MAX_COUNT = 2**53  # past this JSON decoders disagree on integers (floats lose them)


def _count(obj: dict, key: str, where: str, required: bool = False) -> int:
    """A token count: a non-negative integer; absent or null is 0 unless required."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if type(value) is int and 0 <= value < MAX_COUNT:  # nearly every count: the checks below are for the rest
        return value
    if value is None:
        if required:
            raise ValueError(f"no {where}{key} (the prompt-token count) in the usage")
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where}{key} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{where}{key} must be >= 0, got {value}")
    if value >= MAX_COUNT:  # decoders differ past 2**53 (orjson reads a float): no count is that large
        raise ValueError(f"{where}{key} is too large to be a token count")
    return value


def _details(usage: dict, key: str) -> dict:
    details = usage.get(key)
    return details if isinstance(details, dict) else {}


# ---------------------------------------------------------------- responses


def _openai_chat(response: dict, usage: dict) -> dict:
    details = _details(usage, "prompt_tokens_details")
    where = "usage.prompt_tokens_details."
    provider, cached = "openai", _count(details, "cached_tokens", where)
    if "prompt_cache_hit_tokens" in usage and "cached_tokens" not in details:
        # DeepSeek's OpenAI-compatible usage: prompt_tokens = hit + miss (cache-rules.md)
        provider, cached = "deepseek", _count(usage, "prompt_cache_hit_tokens", "usage.")
    return dict(
        provider=provider, api=CHAT,
        prompt_tokens=_count(usage, "prompt_tokens", "usage.", required=True),
        cached_tokens=cached,
        cache_write_tokens=_count(details, "cache_write_tokens", where),
        output_tokens=_count(usage, "completion_tokens", "usage."),
    )


def _openai_responses(response: dict, usage: dict) -> dict:
    details = _details(usage, "input_tokens_details")
    where = "usage.input_tokens_details."
    return dict(
        provider="openai", api=RESPONSES,
        prompt_tokens=_count(usage, "input_tokens", "usage.", required=True),
        cached_tokens=_count(details, "cached_tokens", where),
        cache_write_tokens=_count(details, "cache_write_tokens", where),
        output_tokens=_count(usage, "output_tokens", "usage."),
    )


def _anthropic(response: dict, usage: dict) -> dict:
    uncached = _count(usage, "input_tokens", "usage.", required=True)
    read = _count(usage, "cache_read_input_tokens", "usage.")
    by_ttl = _details(usage, "cache_creation")
    five = _count(by_ttl, "ephemeral_5m_input_tokens", "usage.cache_creation.")
    hour = _count(by_ttl, "ephemeral_1h_input_tokens", "usage.cache_creation.")
    if usage.get("cache_creation_input_tokens") is None:
        written = five + hour
    else:
        written = _count(usage, "cache_creation_input_tokens", "usage.")
        if hour > written:
            raise ValueError(f"usage.cache_creation.ephemeral_1h_input_tokens ({hour}) exceeds "
                             f"usage.cache_creation_input_tokens ({written})")
    return dict(
        provider="anthropic", api=MESSAGES,
        prompt_tokens=uncached + written + read,
        cached_tokens=read,
        cache_write_tokens=written,
        cache_write_1h_tokens=hour,
        output_tokens=_count(usage, "output_tokens", "usage."),
    )


def _gemini(response: dict, usage: dict, snake: bool) -> dict:
    names = (("prompt_token_count", "cached_content_token_count", "candidates_token_count", "thoughts_token_count")
             if snake else ("promptTokenCount", "cachedContentTokenCount", "candidatesTokenCount", "thoughtsTokenCount"))
    where = "usage_metadata." if snake else "usageMetadata."
    prompt, cached, candidates, thoughts = names
    return dict(
        provider="google", api=GENERATE,
        prompt_tokens=_count(usage, prompt, where, required=True),
        cached_tokens=_count(usage, cached, where),
        cache_write_tokens=0,
        output_tokens=_count(usage, candidates, where) + _count(usage, thoughts, where),
    )


def _usage_of(response: dict) -> dict:
    """The usage fields of one response object, by its documented shape."""
    if isinstance(response.get("usageMetadata"), dict):
        fields = _gemini(response, response["usageMetadata"], snake=False)
    elif isinstance(response.get("usage_metadata"), dict):
        fields = _gemini(response, response["usage_metadata"], snake=True)
    elif isinstance(response.get("usage"), dict):
        usage = response["usage"]
        anthropic_keys = ("cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation")
        model = str(response.get("model") or "")
        if "prompt_tokens" in usage or response.get("object") == "chat.completion":
            fields = _openai_chat(response, usage)
        elif response.get("type") == "message" or any(k in usage for k in anthropic_keys):
            fields = _anthropic(response, usage)
        elif response.get("object") == "response" or "input_tokens_details" in usage:
            fields = _openai_responses(response, usage)
        elif "input_tokens" in usage:
            # No cache fields either way: Anthropic's uncached input and the
            # Responses API's total input are then the same count.
            fields = _anthropic(response, usage) if "claude" in model.lower() else _openai_responses(response, usage)
        else:
            raise ValueError("unrecognised usage object (expected prompt_tokens, input_tokens, "
                             "usageMetadata.promptTokenCount or usage_metadata.prompt_token_count)")
    elif isinstance(response.get("error"), dict) or response.get("error"):
        raise ValueError("an error response, no usage")
    else:
        raise ValueError("no usage in this record (expected a provider response with usage, usageMetadata "
                         "or usage_metadata, or a {\"request\", \"response\"} pair)")
    if fields["cached_tokens"] + fields["cache_write_tokens"] > fields["prompt_tokens"]:
        raise ValueError(f"cached ({fields['cached_tokens']}) and written ({fields['cache_write_tokens']}) "
                         f"tokens exceed the prompt tokens ({fields['prompt_tokens']})")
    return fields


# ---------------------------------------------------------------- requests


def _text(value: Any) -> str:
    """Text of a content value: a string, text parts (OpenAI, Anthropic,
    Responses input_text, Gemini parts) or a tool result's content; other
    parts (images, tool calls) add nothing."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_text(part) for part in value)
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        if value.get("type") == "tool_result":
            return _text(value.get("content"))
        if isinstance(value.get("parts"), list):  # a Gemini Content
            return _text(value["parts"])
    return ""


def _message(role: Any, content: Any) -> dict:
    return {"role": str(role or "user"), "content": _text(content)}


def request_messages(request: dict) -> list[dict]:
    """The request's messages as [{"role", "content"}] with text content, in
    provider order: tools (one entry per definition, compact JSON), system /
    instructions, then the messages (Chat ``messages``, Responses ``input``,
    Anthropic ``system`` + ``messages``, Gemini ``systemInstruction`` +
    ``contents``)."""
    out: list[dict] = []
    tools = request.get("tools")
    if isinstance(tools, list):
        for tool in tools:
            out.append({"role": "tools", "content": json.dumps(tool, ensure_ascii=False, separators=(",", ":"))})
    config = request.get("config") if isinstance(request.get("config"), dict) else {}  # google-genai SDK
    for key in ("system", "instructions", "systemInstruction", "system_instruction"):
        value = request.get(key, config.get(key))
        if value:
            out.append(_message("system", value))
    messages = request.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                out.append(_message(message.get("role"), message.get("content")))
    items = request.get("input")
    if isinstance(items, str):
        out.append(_message("user", items))
    elif isinstance(items, list):
        for item in items:
            if isinstance(item, str):
                out.append(_message("user", item))
            elif isinstance(item, dict) and "role" in item:
                out.append(_message(item["role"], item.get("content")))
    contents = request.get("contents")
    if isinstance(contents, str):
        out.append(_message("user", contents))
    elif isinstance(contents, list):
        for content in contents:
            if isinstance(content, dict):
                out.append(_message(content.get("role"), content.get("parts")))
            elif isinstance(content, str):
                out.append(_message("user", content))
    return out


# ---------------------------------------------------------------- records


def _route(sources: Iterable[Any]) -> str | None:
    """The first "route" or "prompt" name: a string, or an OpenAI reusable
    prompt reference {"id": ...}."""
    for source in sources:
        if not isinstance(source, dict) or ("route" not in source and "prompt" not in source):
            continue
        for key in ("route", "prompt"):
            value = source.get(key)
            if isinstance(value, str) and value.strip() and "\n" not in value:  # a name, not prompt text
                return value.strip()
            if key == "prompt" and isinstance(value, dict) and isinstance(value.get("id"), str):
                return value["id"]
    return None


def _meta(obj: Any) -> dict | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else None


_TIME_KEYS = ("timestamp", "time", "ts", "created_at", "start_time", "request_time")
_TIME_KEY_SET = frozenset(_TIME_KEYS)


def arrival_time(record: dict, response: dict) -> float | None:
    """When the request was made: a logging proxy's timestamp on the record
    or its metadata (epoch seconds or milliseconds, or an ISO 8601 string),
    else the response's ``created`` (OpenAI's epoch seconds). Used only to
    explain misses by the cache's TTL."""
    meta = record.get("metadata")
    for source in (record, meta if isinstance(meta, dict) else None):
        if source and not _TIME_KEY_SET.isdisjoint(source):  # most records have none of them
            for key in _TIME_KEYS:
                value = source.get(key)
                if value is not None:
                    when = _seconds(value)
                    if when is not None:
                        return when
    for key in ("created", "created_at"):
        value = response.get(key)
        if value is not None:
            when = _seconds(value)
            if when is not None:
                return when
    return None


def _seconds(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value) / 1000.0 if value > 1e11 else float(value)  # milliseconds, as some loggers write
    if isinstance(value, str) and value:
        import datetime as dt

        try:
            when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)).timestamp()
    return None


def parse_record(record: Any, line: int = 1, path: str = "") -> UsageRecord:
    """One log line's JSON value as a `UsageRecord`; ValueError says why not."""
    if not isinstance(record, dict):
        raise ValueError("each line must be a JSON object")
    request: dict | None = None
    if "response" in record:  # a pair, or an OpenAI Batch API output line
        response = record["response"]
        if isinstance(response, dict) and isinstance(response.get("body"), dict):
            response = response["body"]
        if not isinstance(response, dict):
            error = record.get("error")
            raise ValueError(f"no response object{f' (error: {error})' if error else ''}")
        if isinstance(record.get("request"), dict):
            request = record["request"]
            if isinstance(request.get("body"), dict):  # a Batch API input line
                request = request["body"]
    elif isinstance(record.get("result"), dict):  # an Anthropic Message Batches result line
        response = record["result"].get("message")
        if not isinstance(response, dict):
            raise ValueError(f"batch result {record['result'].get('type', '?')!s}: no message")
    else:
        response = record
    fields = _usage_of(response)
    model = response.get("model")
    if not (model and isinstance(model, str)):  # the usual place first; then the others, in order
        model = None
        for source, key in ((response, "modelVersion"), (response, "model_version"), (request, "model"),
                            (record, "model")):
            if isinstance(source, dict) and isinstance(source.get(key), str) and source[key]:
                model = source[key]
                break
    route = _route((record, _meta(record), _meta(request), _meta(response)))
    return UsageRecord(
        line=line, model=model, route=route,
        request_messages=request_messages(request) if request is not None else None,
        path=path, time=arrival_time(record, response), **fields,
    )


class CappedErrors(list):
    """Line errors, the first `limit` kept and the rest counted: a log that
    is bad on every line still reads in bounded memory and says how many."""

    def __init__(self, limit: int = 100) -> None:
        super().__init__()
        self.limit = limit
        self.dropped = 0

    def append(self, error) -> None:
        if len(self) < self.limit:
            super().append(error)
        else:
            self.dropped += 1

    def summary(self, display: str) -> str | None:
        """One line for the errors not kept, None when none was dropped."""
        if not self.dropped:
            return None
        return (f"{display}: {self.dropped:,} more bad lines not shown ({len(self) + self.dropped:,} in all; "
                f"the first {self.limit:,} are above)")


def _loads():
    """orjson's decoder where it is installed (several times the standard
    library's on short lines); json's otherwise. Both give the same values."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a dependency
        return json.loads, ValueError
    return orjson.loads, orjson.JSONDecodeError


def iter_records(lines: Iterable[bytes | str], display: str, errors: list[SourceError]) -> Iterator[UsageRecord]:
    """Records from JSONL lines (bytes or text), one at a time, so a log of
    any length is read in constant memory; an unreadable line is an error
    with its line number and the others are still read."""
    from promptlint.usage.source import read_errors

    counted = _Counted(lines)
    try:
        yield from _records(counted, display, errors)
    except read_errors() as exc:  # a truncated or corrupt file: what was read before counts
        errors.append(SourceError(display, counted.number + 1, f"cannot read usage log: {exc}"))


class _Counted:
    """Lines numbered from 1, remembering the last number read."""

    def __init__(self, lines: Iterable[bytes | str]) -> None:
        self.lines, self.number = lines, 0

    def __iter__(self):
        for self.number, raw in enumerate(self.lines, start=1):
            yield self.number, raw


def _records(counted: _Counted, display: str, errors: list[SourceError]) -> Iterator[UsageRecord]:
    loads, decode_error = _loads()
    for number, raw in counted:
        if number == 1:
            raw = raw[3:] if isinstance(raw, bytes) and raw.startswith(b"\xef\xbb\xbf") else \
                raw.lstrip("\ufeff") if isinstance(raw, str) else raw
        if not raw.strip():
            continue
        try:
            value = loads(raw)
        except decode_error:  # the standard library's reading says where and what, as before
            value = _slow_value(raw, number, display, errors)
            if value is None:
                continue
        try:
            yield parse_record(value, number, display)
        except ValueError as exc:
            errors.append(SourceError(display, number, str(exc)))


def _slow_value(raw: bytes | str, number: int, display: str, errors: list[SourceError]):
    """A line the fast decoder refused: its JSON value by json.loads, or None
    with the error (invalid UTF-8 or bad JSON, with its column) recorded."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(SourceError(display, number, f"not UTF-8 text: {exc.reason} at byte {exc.start}",
                                      col=exc.start + 1))
            return None
    raw = raw.rstrip()  # the newline, so that a column points into the line
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        errors.append(SourceError(display, number, f"bad JSON: {exc.msg}", col=exc.colno))
        return None


def parse_lines(lines: Iterable[bytes | str], display: str, errors: list[SourceError]) -> list[UsageRecord]:
    """Every record of iter_records, as a list."""
    return list(iter_records(lines, display, errors))


def read_usage_log(path: Path | str, display: str | None = None,
                   errors: list[SourceError] | None = None) -> list[UsageRecord]:
    """Every record in a JSONL usage log. Errors go to ``errors`` (a new list
    when None: pass one to see them), one per bad line; an unreadable file is
    one error at line 1."""
    from promptlint.usage.source import records_of

    display = display or str(path)
    errors = [] if errors is None else errors
    try:
        with records_of(path, display, errors) as records:
            return list(records)
    except OSError as exc:
        errors.append(SourceError(display, 1, f"cannot read usage log: {exc.strerror or exc}"))
        return []
