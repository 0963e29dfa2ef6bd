"""A loop that rewrites the system message each step, and format arguments
gathered in a dict by item assignment."""
import time

from openai import OpenAI

client = OpenAI()

SYSTEM = ("Step {steps} of 5. You are a planning agent. Work through the task one step at a time, call one "
          "tool per step, check each tool's output before you go on, and stop as soon as the task is done. "
          "Never invent tool output, never call a tool that is not listed, and never repeat a call whose "
          "output you already have. When you are done, say so in one sentence and list what you changed.")

RULES = """Clock: {now}
Follow the house style: short sentences, no marketing language, every figure with its unit, dates
written out in full, and a one-line summary first. Quote the customer's own words when you restate
their problem, and never promise a delivery date the warehouse has not confirmed."""


def run(task, tools):
    messages = [{"role": "system", "content": SYSTEM.format(steps="none")}, {"role": "user", "content": task}]
    for step in range(5):
        messages[0]["content"] = SYSTEM.format(steps=step)
        client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)


def reply(question):
    values = {"now": "unknown"}
    values["now"] = time.strftime("%c")
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": RULES.format(**values)}, {"role": "user", "content": question}])
