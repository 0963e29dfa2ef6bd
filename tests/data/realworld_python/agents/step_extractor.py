"""A step summariser: the previous and the current step of an agent run open
the first message; the fixed extraction rules come after them."""
from .llm import LLMMessage

EXTRACTOR_RULES = """Given the excerpt above, say in one sentence what the agent is doing in this step.
Use the agent's own words where you can, name the file or function it works on, and
never guess at its intent beyond what the excerpt shows. Answer with the sentence only,
with no preamble, no list and no quotation marks."""


class StepSummariser:
    def summarise(self, client, prev_step: str, this_step: str):
        messages = [
            LLMMessage(role="user", content=f"<previous_step>{prev_step}</previous_step><this_step>{this_step}</this_step>"),
            LLMMessage(role="assistant", content="I understand."),
            LLMMessage(role="user", content=EXTRACTOR_RULES),
        ]
        return client.chat(messages=messages)
