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

# The same phrases in Chinese prompts (`你是` you are, `请根据` based on ... please, `不要` do not,
# `JSON格式` in JSON): no word boundaries to lean on, so only phrases a prompt addresses a model with.
DIRECTIVE_CJK = re.compile(
    r"(你是|您是|你将|你需要|你必须|你的任务|请根据|请判断|请返回|请回答|请评估|请严格|请按照|请使用|请用|请以|"
    r"不要|禁止|务必|只返回|只输出|输出格式|JSON格式|json格式|以下格式|回答问题|用户的问题|用户问题|助手|"
    r"一步一步|逐步|上下文|参考资料|示例：|问题：|要求：|规则：)")


def directive_score(text: str) -> int:
    """How many distinct instruction phrases a text has (`you are`, `respond`,
    `the user`, `do not`, `in json` ... and their Chinese forms): 3 or more
    reads as a prompt."""
    found = {m.group(1).lower() for m in DIRECTIVE.finditer(text)}
    if not text.isascii():
        found |= {m.group(1) for m in DIRECTIVE_CJK.finditer(text)}
    return len(found)


def reads_as_instructions(text: str, minimum: int = 3) -> bool:
    return directive_score(text) >= minimum


def has_placeholders(text: str) -> bool:
    return PLACEHOLDER.search(text) is not None


