"""Reading and writing files safely. Reads take regular files only (a FIFO,
device or socket named like a prompt is refused without blocking on it) and
never more than a limit; writes go through a temporary file in the same
folder, then an atomic rename over the target, keeping its mode, and a
symbolic link is written through to its target, never replaced."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def within(target: Path, bases) -> bool:
    """Whether the resolved `target` is one of the resolved `bases` or lies under one."""
    return any(target == base or base in target.parents for base in bases)


class UnreadableFile(OSError):
    """Not a regular file, or over the size limit: the message says which."""


def file_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO"), None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (a link is
    followed; a loop of links fails as the OS says). Opened without
    blocking, so a FIFO is refused instead of waited on."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        kind = file_kind(info.st_mode)
        if kind is not None:
            raise UnreadableFile(f"{kind}, not a regular file: not read")
        if info.st_size > limit:
            raise UnreadableFile(f"file is {info.st_size:,} bytes, over the {limit:,}-byte limit for a prompt file")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while we read it
                raise UnreadableFile(f"file is over the {limit:,}-byte limit for a prompt file")
        return b"".join(chunks)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder and rename it over
    `path`: readers see the old file or the new one, never half of it. An
    existing file keeps its permission bits; a new one gets the umask's. A
    symbolic link is written through: its target gets the new bytes and the
    link stays a link (callers decide whether the target may be written)."""
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def atomic_write(path: Path, text: str, encoding: str = "utf-8", errors: str = "strict") -> None:
    """Text exactly as given (no newline translation); `errors` as str.encode's."""
    atomic_write_bytes(path, text.encode(encoding, errors))


def cache_root() -> Path:
    """Where promptlint keeps its caches (tokenizer ranks, the rule
    catalogue, check results): $PROMPTLINT_CACHE_DIR, else
    $XDG_CACHE_HOME/promptlint, else ~/.cache/promptlint."""
    env = os.environ.get("PROMPTLINT_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "promptlint"


def read_cached_json(kind: str, key: str):
    """What store_cached_json kept under `kind` for `key` (a hash of what it
    was built from, so never stale), None when absent or unreadable."""
    import json

    try:
        return json.loads((cache_root() / kind / f"{key}.json").read_bytes())
    except (OSError, ValueError):
        return None


def store_cached_json(kind: str, key: str, data) -> None:
    """Keep `data` in the user cache, atomically; an unwritable cache only
    costs the next run the work it saves."""
    import json

    try:
        atomic_write_bytes(cache_root() / kind / f"{key}.json", json.dumps(data).encode())
    except OSError:
        pass
