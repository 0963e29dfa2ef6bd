"""Prompts kept in a YAML file that a helper of the app reads by a written
path: the overall task fills the system prompt ahead of its rules."""
from app_utils import FileUtils

PROMPTS: dict[str, str] = FileUtils.load_prompts("agents/assigner.yaml")


class Assigner:
    async def assign(self, recorder):
        system = PROMPTS["ASSIGN_SYS_PROMPT"].format(
            overall_task=recorder.overall_task, agents=recorder.agents_info
        )
        self.llm.set_instructions(system)
        return await self.llm.run(PROMPTS["ASSIGN_USER_PROMPT"].format(next_task=recorder.next_task))
