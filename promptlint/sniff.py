"""Whether a text reads as a prompt: template placeholders of any dialect
promptlint reads, and phrases that address a model. Cheap regular
expressions, used by discovery (is this file a prompt?) and by the config
reader (is this value one?)."""

from __future__ import annotations

import re

# Template placeholders of any dialect promptlint reads.
PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|(?<![{$\\])\{[A-Za-z_][\w.]*(?:![rsa])?(?::[^{}\n]{0,20})?\}(?!\})"
                         r"|\$\{[A-Za-z_][\w.]*\}", re.S)
# Phrases that say a text addresses a model; the distinct ones found are counted.
DIRECTIVE = re.compile(
    r"\b(you are|you're an?|you will|you must|you should|you can use|your (?:task|job|goal|role|response|answer|"
    r"output)|act as|as an ai|assistant|respond|answer (?:the|in|with)|reply|do not|don't|never|always|"
    r"instructions?|guidelines|rules?:|step[- ]by[- ]step|the user|user's|output (?:format|only)|in json|"
    r"json (?:object|format)|return (?:only|a|the)|think|reasoning|question:|context:|task:|examples?:|"
    r"format:|llm|language model|tool calls?|tools? available|following (?:format|rules|steps|tools))(?!\w)",
    re.IGNORECASE)


def directive_score(text: str) -> int:
    """How many distinct instruction phrases a text has (`you are`, `respond`,
    `the user`, `do not`, `in json` ...): 3 or more reads as a prompt."""
    return len({m.group(1).lower() for m in DIRECTIVE.finditer(text)})


def reads_as_instructions(text: str, minimum: int = 3) -> bool:
    return directive_score(text) >= minimum


def has_placeholders(text: str) -> bool:
    return PLACEHOLDER.search(text) is not None


