"""An Open WebUI pipeline: the template is a setting of its Valves (made
from a mapping), a tool's output replaces its {{CONTEXT}} marker, and the
result becomes the system message ahead of the conversation."""

from pydantic import BaseModel
from utils.pipelines.main import add_or_update_system_message


class Pipeline:
    class Valves(BaseModel):
        TEMPLATE: str
        TASK_MODEL: str

    def __init__(self, tools):
        self.tools = tools
        self.valves = self.Valves(**{
            "TASK_MODEL": "gpt-4o-mini",
            "TEMPLATE": """Use the context below as what you know, inside <context></context> tags.
<context>
{{CONTEXT}}
</context>

When you answer the user:
- If you do not know, say that you do not know.
- If you are not sure, ask a clarifying question.
- Never mention that the information came from a context or a tool.
- Answer in the language of the user's question, briefly and precisely.""",
        })

    def call_function(self, name: str, parameters: dict, messages: list[dict]) -> list[dict]:
        function = getattr(self.tools, name)
        function_result = function(**parameters)
        if not function_result:
            return messages
        system_prompt = self.valves.TEMPLATE.replace("{{CONTEXT}}", function_result)
        return add_or_update_system_message(system_prompt, messages)
