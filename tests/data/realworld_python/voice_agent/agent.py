"""A LiveKit-style agent: the class gives its instructions to super().__init__."""

from livekit.agents import Agent

import settings


class KitchenAssistant(Agent):
    def __init__(self, llm) -> None:
        super().__init__(
            instructions=settings.load_prompt_with_context(),
            llm=llm,
        )
