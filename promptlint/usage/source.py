"""Where a usage log's lines come from: a file, a gzip or Zstandard file
(the forms logs are shipped and archived in), or standard input (`-`), read
line by line so that a log of any size is never held in memory."""

from __future__ import annotations

import io
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

STDIN = "-"
_BUFFER = 1 << 20


@contextmanager
def open_log(path: Path | str) -> Iterator[BinaryIO]:
    """The log's bytes as a binary stream, decompressed by the file's suffix
    (`.gz`, `.zst` or `.zstd`); `-` is standard input, read as it is."""
    name = str(path)
    if name == STDIN:
        yield sys.stdin.buffer
        return
    suffix = Path(name).suffix.lower()
    if suffix == ".gz":
        import gzip

        with gzip.open(name, "rb") as handle:  # small reads: a truncated file keeps the lines before the break
            yield handle
        return
    if suffix in (".zst", ".zstd"):
        try:
            import zstandard
        except ImportError:  # pragma: no cover - a dependency
            raise OSError(f"reading {suffix} needs the zstandard package (pip install zstandard)") from None
        with open(name, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as handle:
            yield io.BufferedReader(handle)
        return
    with open(name, "rb", buffering=_BUFFER) as handle:
        yield handle


def read_errors() -> tuple[type[BaseException], ...]:
    """What reading a log can raise part-way (a truncated or corrupt
    compressed file), beside the OSError of an unreadable one."""
    import zlib

    found: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error)
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a dependency
        return found
    return found + (zstandard.ZstdError,)


@contextmanager
def records_of(path: Path | str, display: str, errors: list):
    """The usage records of a log, one at a time: JSONL (plain, `.gz`,
    `.zst`, or `-` for standard input) or Parquet (`.parquet`, through
    DuckDB, local or a remote URL DuckDB is configured for)."""
    from promptlint.usage.parquet import is_parquet, parquet_records
    from promptlint.usage.parse import iter_records

    name = str(path)
    if is_parquet(name):
        yield parquet_records(name, display, errors)
        return
    with open_log(name) as handle:
        yield iter_records(handle, display, errors)
