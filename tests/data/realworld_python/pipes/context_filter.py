"""A chat-server filter: the result of a tool call fills the context block at
the top of a configured system template, and the conversation the client
sent (the request body's messages) follows that system message."""
from openai import OpenAI

client = OpenAI()

TEMPLATE = """Use the following context as your learned knowledge, inside <context></context> XML tags.
<context>
    {{CONTEXT}}
</context>

When you answer the user:
- If you don't know, just say that you don't know.
- If you are not sure, ask for clarification.
Avoid mentioning that you obtained the information from the context."""


class Filter:
    def __init__(self, tools):
        self.tools = tools

    def inlet(self, body: dict) -> dict:
        result = self.tools.lookup(body["messages"][-1]["content"])
        system_prompt = TEMPLATE.replace("{{CONTEXT}}", result)
        messages = [{"role": "system", "content": system_prompt}] + body["messages"]
        return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
