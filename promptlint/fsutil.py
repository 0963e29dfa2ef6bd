"""Writing files so that nothing is ever half-written: a temporary file in
the same folder, then an atomic rename over the target."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder and rename it over
    `path`: readers see the old file or the new one, never half of it. An
    existing file keeps its permission bits; a new one gets the umask's."""
    path = Path(path)
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


def atomic_write(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Text exactly as given (no newline translation)."""
    atomic_write_bytes(path, text.encode(encoding))
