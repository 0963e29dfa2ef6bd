"""Merges newly said facts into the user's fact store with one model call."""
from openai import OpenAI

MERGE_SYSTEM_PROMPT = """You maintain a user's fact database. Read the conversation and update it.

Existing facts:
{existing_facts}

Reply with a JSON object with two keys: "newFacts", a list of objects with "content", "category"
(one of preference, knowledge, context, goal, correction) and "confidence" between 0 and 1; and
"factsToRemove", the ids of facts that the conversation contradicts or makes outdated. Extract
only discrete, standalone facts, never summaries. Give corrections and explicit preferences a high
confidence. Do not repeat a fact that is already in the database. Output only valid JSON."""


class FactMerger:
    def __init__(self, client: OpenAI):
        self.client = client

    def merge(self, messages: list, existing_facts: str = "[]") -> str:
        system = MERGE_SYSTEM_PROMPT.format(existing_facts=existing_facts or "[]")
        reply = self.client.chat.completions.create(
            model="gpt-4.1-mini",
            messages=[{"role": "system", "content": system}, *messages],
        )
        return reply.choices[0].message.content
