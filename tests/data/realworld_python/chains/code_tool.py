"""A tool that runs a LangChain chain over a template of another module:
the run's inputs fill the template where the run passes them."""
from langchain import LLMChain

from chains.prompts import code_prompt


class CodeTool:
    async def call(self, goal: str, task: str):
        chain = LLMChain(llm=self.model, prompt=code_prompt)
        return await chain.arun({"goal": goal, "language": "English", "task": task})
