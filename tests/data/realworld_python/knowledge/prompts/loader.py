"""Prompt files next to this module, read once and kept."""
import os

PROMPT_DIR = os.path.dirname(__file__)

_loaded = {}


def load_prompt(name: str) -> str:
    if name in _loaded:
        return _loaded[name]
    path = os.path.join(PROMPT_DIR, f"{name}.md")
    with open(path, encoding="utf-8") as f:
        content = f.read().strip()
        _loaded[name] = content
        return content
