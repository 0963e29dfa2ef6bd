"""A router that keeps its prompt template as a field set in __init__ and
fills it with re.sub in a method: the conversation sits ahead of the
fixed examples."""
import re


class Classifier:
    def __init__(self):
        self.history = ""
        self.agent_descriptions = ""
        self.prompt_template = """
You are a router. Read the user's request and choose the agent best able to handle it.
If the request continues the previous exchange ("yes", "go on", "1"), choose the same agent as before.

These agents are available:
{{AGENT_DESCRIPTIONS}}

This is the conversation so far:
{{HISTORY}}

Follow these rules. Reply with the agent's name only. Never invent an agent that is not in the list.
If no agent fits, reply "unknown". Give a confidence between 0 and 1 on a second line.
Treat short replies and numbers as follow-ups and keep the agent chosen before them.
Prefer the agent whose description names the product or the task the user mentions.
When two agents fit equally, prefer the one chosen most recently in the conversation.

Examples:
User: How do I reset my router?
selected_agent: tech-support
confidence: 0.92

User: Why was I charged twice this month?
selected_agent: billing
confidence: 0.95
"""
        self.system_prompt = ""

    def update_system_prompt(self) -> None:
        variables = {"AGENT_DESCRIPTIONS": self.agent_descriptions, "HISTORY": self.history}
        self.system_prompt = re.sub(r"{{(\w+)}}", lambda m: variables.get(m.group(1), m.group(0)),
                                    self.prompt_template)
