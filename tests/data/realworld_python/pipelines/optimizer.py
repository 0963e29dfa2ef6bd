"""A prompt optimiser whose settings are a TypedDict built from keywords,
each with a default from this module: the default template is what runs."""
from typing import TypedDict

DEFAULT_METAPROMPT = """You are helping an AI assistant learn by improving its prompt.

These are the sessions to learn from:
<trajectories>
{trajectories}
</trajectories>

Instructions:
1. Find where the assistant failed: a wrong tone, a missed instruction, a flawed step of reasoning.
2. Recommend the smallest change to the prompt that fixes each failure; if nothing failed, return the
   prompt unchanged.
3. Keep every template variable of the prompt exactly as it is written.
Return only the new prompt, with no explanation before or after it."""


class OptimizerConfig(TypedDict, total=False):
    metaprompt: str
    max_steps: int


class Optimizer:
    def __init__(self, client, config=None):
        self.client = client
        self.config = config or {}
        self.settings = OptimizerConfig(
            metaprompt=self.config.get("metaprompt", DEFAULT_METAPROMPT),
            max_steps=self.config.get("max_steps", 3),
        )

    def improve(self, sessions: str):
        content = self.settings["metaprompt"].format(trajectories=sessions)
        return self.client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": content}]
        )
