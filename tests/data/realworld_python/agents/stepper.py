"""An agent whose model object takes the messages first (smolagents'
Model.generate, LlamaIndex's llm.chat): the clock is in the system message."""
from datetime import datetime

PLANNING_RULES = (
    "You plan the next step of a research task. Read the task and the notes so far, list what is known and what "
    "is missing, then give one next action as a tool call. Never repeat an action that already failed; prefer "
    "the cheapest tool that can answer; stop and report when the task is answered or after ten steps."
)


class Stepper:
    def __init__(self, model):
        self.model = model

    def step(self, task: str):
        system = f"Current time: {datetime.now().isoformat()}\n\n{PLANNING_RULES}"
        messages = [ChatMessage(role="system", content=system), ChatMessage(role="user", content=task)]
        return self.model.generate(messages, stop_sequences=["<end_plan>"])
