"""API keys and tokens: read once, checked, never printed.

A secret comes from an environment variable the user names. It is stripped
of the whitespace a secret store or `echo` leaves around it, refused (by
name, never by value) when what is left holds whitespace or control
characters, and kept in a `Secret` whose str() and repr() hide it.

Every secret in use is registered: from then on standard output and
standard error pass through `redact`, which replaces the value and the
forms a server may echo it back in (any letter case, spaced or
punctuated between characters, reversed), so no report line, error or
traceback carries it. Report files go through `redact` before they are
written.
"""

from __future__ import annotations

import functools
import re
import sys
import urllib.parse
from typing import Any

REDACTED = "***"
MIN_FORMS = 6  # characters a secret needs before its echoed forms are matched (shorter ones: exact only)
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_live: list["Secret"] = []


class SecretError(ValueError):
    """A secret that cannot be used, said without its value."""


class Secret:
    """A string that does not print itself."""

    __slots__ = ("_value", "_pattern")

    def __init__(self, value: str):
        self._value = value
        self._pattern = _forms(value)

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@functools.lru_cache(maxsize=64)
def _forms(value: str) -> re.Pattern | None:
    """The value, and it reversed, with any run of non-alphanumerics allowed
    between its characters, in any case: what an echo may turn it into."""
    if len(value) < MIN_FORMS:
        return None
    gap = r"[\W_]*"
    alternatives = [gap.join(re.escape(c) for c in form) for form in (value, value[::-1])]
    return re.compile("|".join(alternatives), re.IGNORECASE)


def read(raw: str | None, what: str) -> Secret | None:
    """The secret in `raw` (an environment variable's value) for `what` (its
    name, for messages), registered for redaction; None when unset or blank."""
    value = (raw or "").strip()
    if not value:
        return None
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in value):
        raise SecretError(f"{what}: the value holds whitespace or control characters inside it "
                          "(not printed); check how it was exported")
    secret = Secret(value)
    register(secret)
    return secret


def register(secret: Secret) -> None:
    """From now on, every line this process prints is redacted of `secret`."""
    if secret and all(s.reveal() != secret.reveal() for s in _live):
        _live.append(secret)
        _guard_streams()


def redact(text: Any, *secrets: "str | Secret | None") -> str:
    """`text` as a string with each secret (and the registered ones), in
    every form `_forms` knows, replaced by ***."""
    text = str(text)
    for secret in [*secrets, *_live]:
        if secret is None:
            continue
        if not isinstance(secret, Secret):
            if not secret:
                continue
            secret = Secret(secret)
        value = secret.reveal()
        if not value:
            continue
        text = text.replace(value, REDACTED)
        if secret._pattern is not None:
            text = secret._pattern.sub(REDACTED, text)
    return text


def sends_key_safely(url: str, allow_insecure: bool = False) -> bool:
    """A key may travel to https hosts and to this machine; plain http
    elsewhere only when the user says so."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme == "https" or (parts.hostname or "") in _LOOPBACK or allow_insecure


class _Redacting:
    """A stream that redacts the registered secrets from what is written:
    text, or bytes (click writes bytes to `.buffer`), which are decoded,
    redacted and encoded again."""

    def __init__(self, stream, binary: bool = False):
        self._stream = stream
        self._binary = binary

    def write(self, data):
        if not _live:
            return self._stream.write(data)
        if isinstance(data, (bytes, bytearray, memoryview)):
            encoding = getattr(self._stream, "encoding", None) or "utf-8"
            cleaned = redact(bytes(data).decode(encoding, "replace")).encode(encoding, "replace")
            target = self._stream if self._binary else self._stream.buffer
            target.write(cleaned)
            return len(data)
        self._stream.write(redact(data))
        return len(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    @property
    def buffer(self):
        return _Redacting(self._stream.buffer, binary=True)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _guard_streams() -> None:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, _Redacting):
            setattr(sys, name, _Redacting(stream))


def forget_all() -> None:
    """Tests: no secret registered any more (the streams stay wrapped; they pass text through)."""
    _live.clear()
