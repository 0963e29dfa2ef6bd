"""promptlint.lock: the stable prefix of every prompt, written down so that
a change which breaks one fails review, whether or not a rule knows the
pattern (a reordered paragraph, an edited include).

Per prompt and tokenizer, each scope's stable prefix (tokens shared by all
users, by one user's sessions, within a session) is kept as its length, the
sha256 of its token ids and a short hash at every 16th token (where it
first differs, without keeping the tokens); per model, the tokens the
provider caches. TOML, keys sorted, paths relative to the lock's folder
with `/`: the same file on every machine and Python version.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

from promptlint.ir import Scope

LOCK_NAME = "promptlint.lock"
VERSION = 1
BLOCK = 16  # tokens per block hash
BLOCK_HEX = 8  # hex digits kept of each block hash


class LockError(ValueError):
    """An unreadable lock: the message names the file and says what to do."""


@dataclass(frozen=True)
class PrefixLock:
    tokens: int
    sha256: str
    blocks: str  # BLOCK_HEX hex digits per whole BLOCK of the prefix
    lines: str = ""  # BLOCK_HEX hex digits per line of the prefix's text (which line first differs)


@dataclass
class PromptLock:
    prefixes: dict[str, dict[str, PrefixLock]] = field(default_factory=dict)  # tokenizer -> scope -> prefix
    cached: dict[str, dict[str, int]] = field(default_factory=dict)  # model -> scope -> cached tokens


@dataclass
class Lock:
    prompts: dict[str, PromptLock] = field(default_factory=dict)  # prompt id -> its lock


def _packed(tokens) -> bytes:
    return struct.pack(f"<{len(tokens)}I", *tokens)


def prefix_id_of(tokens) -> str:
    """sha256 of token ids as little-endian uint32: the same on every machine."""
    return hashlib.sha256(_packed(tokens)).hexdigest()


def _chained(chunks) -> str:
    """BLOCK_HEX hex digits per chunk: the hash of everything up to its end,
    so the first that differs says where two sequences first differ."""
    running, out = hashlib.sha256(), []
    for chunk in chunks:
        running.update(chunk)
        out.append(running.copy().hexdigest()[:BLOCK_HEX])
    return "".join(out)


def _token_blocks(tokens) -> str:
    return _chained(_packed(tokens[i:i + BLOCK]) for i in range(0, len(tokens) - len(tokens) % BLOCK, BLOCK))


def _text_lines(text: str) -> str:
    return _chained(line.encode("utf-8") for line in text.splitlines(keepends=True))


def prefix_lock(tokens: list[int], text: str = "") -> PrefixLock:
    """The lock of one prefix: its length and hash, its block hashes and
    the hashes of its text's lines (`text`: the prefix as rendered)."""
    return PrefixLock(len(tokens), prefix_id_of(tokens), _token_blocks(tokens), _text_lines(text))


def _first_chunk(mine: str, locked: str) -> int:
    for i in range(0, min(len(mine), len(locked)), BLOCK_HEX):
        if mine[i:i + BLOCK_HEX] != locked[i:i + BLOCK_HEX]:
            return i // BLOCK_HEX
    return min(len(mine), len(locked)) // BLOCK_HEX


def first_token_difference(locked: PrefixLock, tokens: list[int]) -> int:
    """The first block start where `tokens` leave the locked prefix (the
    difference lies within BLOCK tokens after it)."""
    return _first_chunk(_token_blocks(tokens[:locked.tokens]), locked.blocks) * BLOCK


def first_line_difference(locked: PrefixLock, text: str) -> int:
    """The index of the first line of `text` that leaves the locked prefix's text."""
    return _first_chunk(_text_lines(text), locked.lines)


class RenderTokens:
    """The reference render's tokens with the character where each starts
    and ends, encoded once (each section on its own, as the analysis does)."""

    def __init__(self, analysis, tokenizer) -> None:
        text = analysis.reference.text
        self.text, self.starts, self.ends = text, [], []
        for start, end in analysis.reference.sections:
            _, offsets = tokenizer.encode_offsets(text[start:end])
            self.starts += [start + o for o in offsets]
            self.ends += [start + o for o in offsets[1:]] + ([end] if offsets else [])

    def offset(self, token: int) -> int:
        """Where token `token` starts; the text's end past the last."""
        return self.starts[token] if token < len(self.starts) else len(self.text)

    def text_before(self, token: int) -> str:
        """The render up to token `token`: a prefix's text."""
        return self.text[:self.offset(token)]


def locked_length(analysis, tokens: RenderTokens, scope: str) -> int:
    """The stable prefix as the lock keeps it: the analysis's stable tokens,
    cut before the slot that ends it, and before the token that touches the
    slot (BPE may merge it with what the slot renders). Two samples of a
    value can share their first characters ("2026-11-29T09:0"); those are
    not part of the prompt's text, so not of the lock."""
    stable = analysis.stable(scope)
    breaker = analysis.scopes[scope].breaker
    if breaker is None:
        return stable
    starts = [p.start for p in analysis.reference.pieces
              if p.part is breaker or any(slot is breaker for slot in p.slots)]
    if not starts:
        return stable
    return min(stable, bisect.bisect_left(tokens.ends, min(starts)))  # tokens ending before the slot


def relative(path: Path, root: Path) -> str:
    """`path` relative to the lock's folder, with `/` (`..` where it lies outside)."""
    return Path(os.path.relpath(Path(path).resolve(), root.resolve())).as_posix()


def prompt_id(template, root: Path) -> str:
    """`path::name`, the path relative to the lock's folder with `/`."""
    return f"{relative(template.source.path, root)}::{template.name}"


def within(pid: str, scanned: list[str]) -> bool:
    """Whether a prompt id's file lies under one of the `scanned` paths (relative to the lock's folder)."""
    path = pid.rsplit("::", 1)[0]
    return any(s in (".", "") or path == s or path.startswith(s.rstrip("/") + "/") for s in scanned)


def merged(locked: Lock, current: Lock, scanned: list[str]) -> Lock:
    """The lock after a run over `scanned`: their prompts as they are now, the
    entries of prompts elsewhere kept as they were."""
    out = Lock({pid: entry for pid, entry in locked.prompts.items() if not within(pid, scanned)})
    out.prompts.update(current.prompts)
    return out


def snapshot(prompts, root: Path) -> Lock:
    """The lock of an audit's prompt results."""
    from promptlint.tokenizers import get_tokenizer

    lock = Lock()
    for result in prompts:
        entry = PromptLock()
        for spec, analysis in result.analyses.items():
            tokens = RenderTokens(analysis, get_tokenizer(spec))
            entry.prefixes[spec] = {}
            for s in Scope:
                stable = locked_length(analysis, tokens, s.key)
                entry.prefixes[spec][s.key] = prefix_lock(analysis.tokens[:stable], tokens.text_before(stable))
        for model in result.models:
            entry.cached[model.spec.key] = dict(model.cached)
        lock.prompts[prompt_id(result.template, root)] = entry
    return lock


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)  # a TOML basic string


def dumps(lock: Lock) -> str:
    out = ["# promptlint.lock: the stable prefix of each prompt (`promptlint lock` writes it; do not edit).",
           f"version = {VERSION}", ""]
    for pid in sorted(lock.prompts):  # tables in sorted order: "cached" before "prefixes"
        entry = lock.prompts[pid]
        if entry.cached:
            out.append(f"[prompts.{_q(pid)}.cached]")
            for model in sorted(entry.cached):
                scopes = ", ".join(f"{k} = {v}" for k, v in entry.cached[model].items())
                out.append(f"{_q(model)} = {{ {scopes} }}")
            out.append("")
        for spec in sorted(entry.prefixes):
            out.append(f"[prompts.{_q(pid)}.prefixes.{_q(spec)}]")
            for scope in Scope:
                p = entry.prefixes[spec].get(scope.key)
                if p is not None:
                    out.append(f"{scope.key} = {{ tokens = {p.tokens}, sha256 = {_q(p.sha256)}, "
                               f"blocks = {_q(p.blocks)}, lines = {_q(p.lines)} }}")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def loads(text: str, where: str) -> Lock:
    """A lock from its text; LockError for anything but a lock this version reads."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LockError(f"{where}: not a promptlint lock ({exc}); write it again with `promptlint lock`") from None
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise LockError(f"{where}: not a promptlint lock (no version); write it again with `promptlint lock`")
    if version > VERSION:
        raise LockError(f"{where}: lock version {version} was written by a newer promptlint (this one reads "
                        f"version {VERSION}); upgrade promptlint")
    if version < 1:
        raise LockError(f"{where}: lock version {version} is not one promptlint wrote; write it again with "
                        "`promptlint lock`")
    lock = Lock()
    try:
        for pid, entry in (data.get("prompts") or {}).items():
            prompt = lock.prompts[pid] = PromptLock()
            for spec, scopes in (entry.get("prefixes") or {}).items():
                prompt.prefixes[spec] = {k: PrefixLock(int(v["tokens"]), str(v["sha256"]), str(v["blocks"]),
                                                       str(v["lines"])) for k, v in scopes.items()}
            prompt.cached = {m: {k: int(v) for k, v in s.items()} for m, s in (entry.get("cached") or {}).items()}
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise LockError(f"{where}: a prompt's entry is malformed ({exc!r}); write it again with "
                        "`promptlint lock`") from None
    return lock


def read(path: Path) -> Lock:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LockError(f"{path}: no lock file; write one with `promptlint lock`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LockError(f"{path}: cannot read the lock: {exc}") from None
    return loads(text, str(path))


def stale(locked: Lock, current: Lock, scanned: list[str]) -> list[str]:
    """One line per prompt whose lock entry differs from what it is now
    (entries of prompts outside the `scanned` paths are not looked at)."""
    lines = []
    for pid in sorted(set(locked.prompts) | set(current.prompts)):
        old, new = locked.prompts.get(pid), current.prompts.get(pid)
        if old is None:
            lines.append(f"{pid}: not in the lock")
        elif new is None:
            if within(pid, scanned):
                lines.append(f"{pid}: in the lock, no longer found")
        elif old != new:
            changed = sorted({f"{spec} {scope}" for spec in set(old.prefixes) | set(new.prefixes)
                              for scope in {s.key for s in Scope}
                              if old.prefixes.get(spec, {}).get(scope) != new.prefixes.get(spec, {}).get(scope)})
            what = f"stable prefix changed ({', '.join(changed)})" if changed else "cached tokens changed"
            lines.append(f"{pid}: {what}")
    return lines
