"""An agent that renders its prompt files by name through a conversation
helper (gpt-pilot's AgentConvo) and calls the model object with the result.
Two agents have an implement_changes prompt: the one in the folder named
like this module is this agent's."""
from core.llm import AgentConvo


class CodeMonkey:
    async def implement_changes(self, step, file_content, instructions):
        llm = self.get_llm("CodeMonkey")
        convo = AgentConvo(self).template(
            "implement_changes",
            file_name=step["save_file"]["path"],
            file_content=file_content,
            instructions=instructions,
        )
        return await llm(convo)
