"""A system prompt kept in a Markdown file of the package and read with
LangChain's PromptTemplate.from_file (a desktop agent's layout)."""
from datetime import datetime
from importlib.resources import files

from langchain.prompts import PromptTemplate


class Prompt:
    @staticmethod
    def system_prompt(max_steps: int) -> str:
        template = PromptTemplate.from_file(files("desktop").joinpath("system.md"))
        return template.format(**{
            "current_datetime": datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
            "max_steps": max_steps,
        })
