"""A coding assistant CLI that keeps the files it has read in a module-level
dict and lists them near the top of the system prompt on every call."""

from anthropic import Anthropic

client = Anthropic()
open_files = {}
house_rules = {}

BASE = "You are a careful coding assistant working in the user's repository."
GUIDE = """
Before you change a file, read it and explain the change in one sentence. Keep
edits small and focused, follow the code style you see, and never touch files
the user did not ask about. When a command fails, show the error and propose
one fix at a time. Prefer the standard library over new dependencies, write
tests for the behaviour you change, and say what you could not verify.
"""


def register(name, text):
    house_rules[name] = text  # called at import, below: a registry filled once, not state


register("style", "Follow the repository's formatter.")


def read_file(path):
    with open(path) as fh:
        open_files[path] = fh.read()
    return f"Read {path}"


def system_prompt(turn):
    rules = "\n".join(house_rules.values())
    listing = "\n".join(open_files)
    return f"{BASE}\n{rules}\n\nFiles you have open:\n{listing}\n{GUIDE}\nThis is turn {turn}."


def chat(user_input, turn):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=system_prompt(turn),
                                  messages=[{"role": "user", "content": user_input}])
