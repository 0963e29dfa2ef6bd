"""Prompt files of the handbook assistant, loaded once at import."""

import os


def load_prompt(filename: str) -> str:
    path = os.path.join(os.path.dirname(__file__), "prompts", filename)
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


ANSWER_TEMPLATE = load_prompt("answer.txt")
