"""A subclass reads what its base class's __init__ set: a prompt file loaded once."""
import json

from openai import OpenAI

client = OpenAI()


class PromptConstructor:
    def __init__(self, instruction_path: str):
        instruction = json.load(open(instruction_path))
        self.instruction = instruction


class ChainOfThoughtConstructor(PromptConstructor):
    def __init__(self, instruction_path: str):
        super().__init__(instruction_path)

    def construct(self, observation: str) -> str:
        intro = self.instruction["intro"]
        messages = [
            {"role": "system", "content": intro + "\n\nThink step by step, then issue exactly one action in the "
             "documented format. Never invent element ids, stop as soon as the objective is reached, report the "
             "answer in the stop action, and when the page has not loaded after two tries, say so and stop."},
            {"role": "user", "content": observation},
        ]
        return client.chat.completions.create(model="gpt-4o", messages=messages).choices[0].message.content
