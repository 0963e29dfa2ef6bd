"""A research agent's run: the system prompt and the task first, then each
pass appends the reply; past the context limit the last message is
rewritten (`messages[-1]["content"] = ...`), which changes what a pass
appended, not the task the run began with. Clean: the task is the same on
every pass of the run, and only its own turns follow it."""
from openai import OpenAI

from .research_prompt import *

MAX_CALLS = 40


class ResearchAgent:
    def __init__(self, model: str):
        self.model = model
        self.client = OpenAI()

    def call_server(self, messages):
        reply = self.client.chat.completions.create(model=self.model, messages=messages)
        return reply.choices[0].message.content

    def run(self, data: dict):
        question = data["item"]["question"]
        messages = [{"role": "system", "content": RESEARCH_SYSTEM}, {"role": "user", "content": question}]
        calls_left = MAX_CALLS
        while calls_left > 0:
            calls_left -= 1
            content = self.call_server(messages)
            messages.append({"role": "assistant", "content": content.strip()})
            if "<answer>" in content:
                return content
            if len(messages) > 60:
                messages[-1]["content"] = "You have reached the context limit: give your best answer now."
                content = self.call_server(messages)
                messages.append({"role": "assistant", "content": content.strip()})
                return content
        return None
