"""`promptlint check - --stdin-filename PATH` (editors): the text read from
standard input stands for the file at PATH for the length of the run; every
other file, and PATH's includes and imports, are read from disk as usual."""

from __future__ import annotations

from pathlib import Path

_TEXTS: dict[Path, bytes] = {}


def provide(path: Path, data: bytes) -> None:
    _TEXTS[path.resolve()] = data


def clear() -> None:
    _TEXTS.clear()


def exists(path: Path) -> bool:
    """On disk, or given on standard input (an editor's unsaved file)."""
    return path.exists() or bytes_of(path) is not None


def bytes_of(path: Path) -> bytes | None:
    """The text given on standard input for `path`, else None (read the disk)."""
    if not _TEXTS:
        return None
    return _TEXTS.get(path.resolve())


def any_provided() -> bool:
    """Some file's text comes from standard input this run (the result cache stays out of it)."""
    return bool(_TEXTS)
