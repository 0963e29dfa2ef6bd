from agents.types import PromptResult

RULES = """Style:
- Talk like a real friend: short, casual sentences, one point per message.
- Send a second message only when it adds something new; never repeat what you just said.
- No emoji, no Markdown, no lists.
Tools:
- Send text only through `reply_user`, and call `finish` when no reply is needed.
- Never stay silent when someone asks you something directly: answer, ask back or refuse briefly.
"""


def build_chat_system_prompt(bot_name: str, relation_context: str, is_private: bool) -> PromptResult:
    # each branch returns a result object made with the prompt first: both are prompts
    if is_private:
        system_prompt = f"""You are {bot_name}, chatting privately with a friend.
{relation_context}
{RULES}"""
        return PromptResult(system_prompt, [relation_context])
    system_prompt = f"""You are {bot_name}, a member of a group chat.
{relation_context}
{RULES}"""
    return PromptResult(system_prompt, [relation_context])
