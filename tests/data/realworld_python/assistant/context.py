"""A context builder: sections appended in order, the clock read a few lines earlier."""
from datetime import datetime


class ContextBuilder:
    def __init__(self, profile_name: str):
        self.profile_name = profile_name

    def build_context(self, memories: list[str]) -> str:
        now = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        parts = []
        parts.append("You are the household planning assistant of a family calendar app.")
        text = "## Session"
        text += f"\n- Current date/time: {now}"
        parts.append(text)
        parts.append(
            "## Rules\n"
            "- Propose at most three options for any plan and say which you recommend.\n"
            "- Never book, cancel or pay for anything without a confirmation in the chat.\n"
            "- Keep school holidays and public holidays in mind when suggesting dates.\n"
            "- Prefer plain language; the people reading this are often in a hurry.\n"
            "- If two family members' events clash, point it out before anything else."
        )
        return "\n\n".join(parts)
