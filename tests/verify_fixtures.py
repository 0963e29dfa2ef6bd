"""Shared by the verify tests: tiny model folders and loaded models, built
once per test session.

Building a folder costs seconds (most of it importing transformers), so the
folders are cached at module level: a fixture imported into several test
modules is registered once per module by pytest, and the cache makes the
second registration reuse the first one's folders instead of building them
again.

Import the fixtures into a test module with
`from verify_fixtures import tiny_folders, tiny_loaded  # noqa: F401`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tinymodel import CHATML, save_tiny_model_folder

SHORT_CONTEXT = 64  # context of the `short_context` folder

_CACHE: dict[str, object] = {}


@dataclass(frozen=True)
class TinyFolders:
    chatml: Path  # a random tiny Llama with DeepSeek's tokenizer and a ChatML chat template
    no_template: Path  # the same without a chat template
    short_context: Path  # ChatML, but a context of SHORT_CONTEXT tokens
    chat_template_file: Path  # CHATML as a Jinja file, for --chat-template


@pytest.fixture(scope="session")
def tiny_folders(tmp_path_factory) -> TinyFolders:
    if "folders" not in _CACHE:
        root = tmp_path_factory.mktemp("tiny-models")
        template = root / "chatml.jinja"
        template.write_text(CHATML, encoding="utf-8")
        _CACHE["folders"] = TinyFolders(
            chatml=save_tiny_model_folder(root / "chatml", seed=0),
            no_template=save_tiny_model_folder(root / "no-template", seed=0, chat_template=None),
            short_context=save_tiny_model_folder(root / "ctx64", seed=0, context=SHORT_CONTEXT),
            chat_template_file=template,
        )
    return _CACHE["folders"]


def _load(key: str, folder: Path):
    if key not in _CACHE:
        from promptlint.verify.models import load

        _CACHE[key] = load(str(folder), device="cpu", dtype="float32")
    return _CACHE[key]


@pytest.fixture(scope="session")
def tiny_loaded(tiny_folders):
    """The ChatML tiny model, loaded (float32, CPU)."""
    return _load("chatml", tiny_folders.chatml)
