"""Usage logs exported to Parquet (what warehouses export logs as), read
through DuckDB: each row is one logged record, with the same shapes as a
JSONL log's lines (nested objects as structs, or JSON text columns). DuckDB
also reads `s3://`, `gs://` and `https://` paths where the user has its
httpfs extension and credentials configured; nothing is downloaded
otherwise. An optional extra: `pip install 'promptlint-cache[parquet]'`.

Rows are fetched in batches and read one at a time, like a JSONL log's
lines, so memory stays bounded. A Parquet schema is shared by all rows, so
a field one row lacks is null in it: nulls are dropped before the record is
read, which makes an absent field and a null one the same, as in the JSONL
reader (where a null count is 0 and a null object is absent).
"""

from __future__ import annotations

from typing import Any

from promptlint.ir import SourceError

BATCH_ROWS = 10_000
REMOTE = ("s3://", "s3a://", "gs://", "gcs://", "az://", "abfss://", "http://", "https://")


def is_parquet(path: str) -> bool:
    return path.lower().endswith((".parquet", ".parq"))


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def parquet_records(path: str, display: str, errors: list[SourceError]):
    """The records of a Parquet log, one per row (numbered from 1)."""
    from promptlint.usage.parse import parse_record

    try:
        import duckdb
    except ImportError:
        raise OSError("reading Parquet needs DuckDB: pip install 'promptlint-cache[parquet]'") from None
    import orjson

    connection = duckdb.connect()
    try:
        cursor = connection.execute("SELECT to_json(t) FROM read_parquet(?) AS t", [path])
    except duckdb.Error as exc:  # its first line says what (the rest quotes our query)
        raise OSError(str(exc).strip().splitlines()[0]) from None
    number = 0
    while True:
        rows = cursor.fetchmany(BATCH_ROWS)
        if not rows:
            break
        for (text,) in rows:
            number += 1
            try:
                yield parse_record(_without_nulls(orjson.loads(text)), number, display)
            except ValueError as exc:
                errors.append(SourceError(display, number, str(exc)))
    connection.close()

