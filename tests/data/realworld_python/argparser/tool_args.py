"""A chat template filled with format_messages and handed to the app's own model wrapper."""
from langchain_core.prompts import ChatPromptTemplate, HumanMessagePromptTemplate, SystemMessagePromptTemplate

from .model import Message


class ArgumentParser:
    prompt = ChatPromptTemplate.from_messages(
        [
            SystemMessagePromptTemplate.from_template("You turn a task into the arguments of one tool call."),
            HumanMessagePromptTemplate.from_template(
                "Context:\n{context}\n"
                "Tool: {tool_name}\n\n"
                "Give the arguments as JSON. Take each value from the context or the task, never invent one, "
                "leave an optional argument out rather than guessing it, keep strings verbatim, use the tool's "
                "own units and formats, and explain in one short sentence per argument where its value came "
                "from. When a required value is missing from the context, say which one and stop."
            ),
        ]
    )

    def __init__(self, model, tool):
        self.model = model
        self.tool = tool

    def parse(self, state: dict) -> dict:
        messages = self.prompt.format_messages(context=state["context"], tool_name=self.tool.name)
        return self.model.get_structured_response(messages=[Message.from_langchain(m) for m in messages])
