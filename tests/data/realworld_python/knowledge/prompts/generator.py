"""Prompt pieces shared by the chat services."""
from jinja2.sandbox import SandboxedEnvironment

from .loader import load_prompt

CITATION_TEMPLATE = load_prompt("citation")
ENV = SandboxedEnvironment(autoescape=False, trim_blocks=True)


def citation_prompt(overrides: dict = {}) -> str:
    template = ENV.from_string(overrides.get("citation", CITATION_TEMPLATE))
    return template.render() + "\n\nThe ids above are examples; use the ids of the chunks you were given."


def fit_in(messages, max_length=4000):
    total = sum(len(m["content"]) for m in messages)
    if total < max_length:
        return total, messages
    kept = [m for m in messages if m["role"] == "system"]
    kept.append(messages[-1])
    return total, kept


class Sections:
    @staticmethod
    def rules(company: str) -> str:
        return company + " support. " + CITATION_TEMPLATE
