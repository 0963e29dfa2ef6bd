"""A code generator role: its system message made by a helper of another module."""
import datetime
import json

from .chat import format_chat_message

RESPONSE_SCHEMA = '{"type": "object", "properties": {"thought": {"type": "string"}, "code": {"type": "string"}}}'


class CodeGenerator:
    def __init__(self, translator, examples):
        self.translator = translator
        self.examples = examples
        self.response_json_schema = json.loads(RESPONSE_SCHEMA)
        self.user_message_head_template = "## Request\n{MESSAGE}"

    def get_env_context(self):
        now = datetime.datetime.now()
        return f"- Current time: {now.strftime('%Y-%m-%d %H:%M:%S')}"

    def compose_prompt(self, request):
        messages = [format_chat_message(
            role="system",
            message=f"You are the code generator.\n{self.get_env_context()}\n"
                    "Write Python that solves the user's request in small, testable steps. Explain your plan "
                    "first, then give one code block. Never install packages, never read files outside the "
                    "working folder, and keep every answer under 200 lines. Reply with JSON that follows "
                    f"this schema: {json.dumps(self.response_json_schema)}",
        )]
        for example in self.examples:
            messages.append(format_chat_message(role="user", message=self.translator.post_to_raw_text(example)))
        messages.append(format_chat_message(role="user",
                                            message=self.user_message_head_template.format(MESSAGE=request)))
        return messages
