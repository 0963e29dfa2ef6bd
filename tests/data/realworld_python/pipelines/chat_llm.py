"""An LLM wrapper that sends pydantic messages as dicts: the retrieved
context, appended to the system message, sits ahead of the history."""
from openai import OpenAI

from models import SystemMessage


class ChatLLM:
    def __init__(self):
        self._client = OpenAI()

    def chat_completion(self, system_prompt, chat_history, context=None):
        if context is None:
            system_message = system_prompt
        else:
            system_message = system_prompt + f"\nContext: {context.to_text()}"
        messages = [SystemMessage(content=system_message).model_dump()] + [m.model_dump() for m in chat_history]
        return self._client.chat.completions.create(model="gpt-4.1", messages=messages)
