"""A multi-turn attack probe: __init__ calls a helper that reads the attacker's templates (a custom one
from the settings when given, else the packaged file), and each attack builds a conversation of the
framework's own Turn/Message classes. The goal opens the attacker's system prompt; another template,
filled with the request first, goes through a helper that wraps its argument in a conversation."""
from pathlib import Path

import redteam.attempt

DATA = Path(__file__).parent / "resources" / "attack"


class GoalAttack:
    def __init__(self, settings, model):
        self.custom_system_prompt = settings.get("system_prompt")
        self.model = model
        self._load_templates()

    def _load_templates(self):
        if self.custom_system_prompt:
            self.system_template = self.custom_system_prompt
        else:
            with open(DATA / "attacker_system.txt", encoding="utf-8") as f:
                self.system_template = f.read()
        with open(DATA / "softer.txt", encoding="utf-8") as f:
            self.softer_template = f.read()

    def _ask(self, text: str) -> str:
        conv = redteam.attempt.Conversation(
            [redteam.attempt.Turn(role="user", content=redteam.attempt.Message(text=text))])
        return self.model.generate(prompt=conv)

    def first_turns(self, goals):
        for goal in goals:
            system_prompt = self.system_template.format(goal=goal)
            conversation = redteam.attempt.Conversation([
                redteam.attempt.Turn("system", redteam.attempt.Message(system_prompt)),
                redteam.attempt.Turn("user", redteam.attempt.Message("Write your first message.")),
            ])
            yield self.model.generate(prompt=conversation)

    def soften(self, request):
        return self._ask(self.softer_template.format(prompt=request))
