from kg.parser import OutputParser
from kg.prompts import Prompt


class Atom:
    def __init__(self, llm):
        self.parser = OutputParser(llm)

    async def extract(self, facts: list[str], observation_timestamp: str):
        # a helper given the system text by a `system_*` keyword: the time of the observation first
        return await self.parser.extract_as_json(
            contexts=facts,
            system_query=Prompt.temporal_system_query(observation_timestamp) + Prompt.EXAMPLES,
        )
