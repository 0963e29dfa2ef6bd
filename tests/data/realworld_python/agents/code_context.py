"""A coding assistant's conversation: each turn puts a fresh code context as a
system message after the fixed system prompt and before the whole
conversation the object keeps."""

PARSER_SYSTEM_PROMPT = "You edit code by replying with unified diffs against the files you are shown."


class Conversation:
    def __init__(self):
        self._messages = []

    def add_user_message(self, text):
        self._messages.append({"role": "user", "content": text})

    def add_model_message(self, text):
        self._messages = self._messages + [{"role": "assistant", "content": text}]

    async def get_messages(self, code_context):
        messages = [{"role": m["role"], "content": m["content"]} for m in self._messages]
        code_message = await code_context.get_code_message()
        messages = [{"role": "system", "content": code_message}] + messages
        return [{"role": "system", "content": PARSER_SYSTEM_PROMPT}] + messages
