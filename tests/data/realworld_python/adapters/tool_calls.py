"""An adapter that turns tool calls into chat messages."""
import json

from openai import OpenAI

client = OpenAI()


def replay(call_name: str, call_args: dict, question: str):
    messages = [
        {
            "role": "system",
            "content": "Tool call made on the user's behalf: " + json.dumps(call_args)
            + "\nExplain the result of this tool call to the user in two sentences, in the "
            "same language as their question, without repeating raw identifiers, and say "
            "whether anything is left for them to do. Do not call any further tools.",
        },
        {"role": "user", "content": question},
    ]
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
