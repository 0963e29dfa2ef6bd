"""A call centre's prompt settings (pydantic): two system messages built by methods, the clock closing
the first and the long fixed rules in the second; every prompt's lines are joined into one line
(`" ".join(line.strip() for line in text.splitlines())`) before it is sent. No method is named like a
prompt builder except the one that puts the messages together."""
from datetime import datetime
from textwrap import dedent

from langchain_core.messages import SystemMessage
from pydantic import BaseModel


class LlmPrompts(BaseModel):
    default_system_tpl: str = """
        Assistant works in the call center of Contoso Insurance.
        Today is {date}
    """
    chat_system_tpl: str = """
        # Rules
        - Answer in the customer's language, in short spoken sentences: the answer is read aloud.
        - Never give a claim amount, a deadline or a legal opinion; say that an adviser will call back.
        - Ask one question at a time and confirm every number the customer gives by repeating it.
        - When the customer is upset, acknowledge it once and move on to what you can do now.
        - End the call only after the customer says goodbye, and never transfer a call yourself.

        # Conversation
        {conversation}
    """

    def default_system(self, call) -> str:
        return self._format(self.default_system_tpl.format(
            date=datetime.now().strftime("%a %d %b %Y, %H:%M")))

    def chat_system(self, call) -> list[SystemMessage]:
        return self._messages(self._format(self.chat_system_tpl, conversation=call.conversation), call)

    def _format(self, prompt_tpl: str, **kwargs: str) -> str:
        formatted = dedent(prompt_tpl.format(**kwargs)).strip()
        return " ".join([line.strip() for line in formatted.splitlines()])

    def _messages(self, system: str, call) -> list[SystemMessage]:
        return [SystemMessage(content=self.default_system(call)), SystemMessage(content=system)]
