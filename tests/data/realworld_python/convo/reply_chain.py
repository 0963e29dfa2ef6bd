"""A bot walking a reply chain up from the new message, one message per pass
of a `while` loop with each message's own role, then the configured system
prompt with the time put into it, appended last and sent reversed."""
from datetime import datetime

from openai import AsyncOpenAI

client = AsyncOpenAI()


async def reply(new_msg, config):
    messages = []
    node = new_msg
    while node is not None and len(messages) < 25:
        messages.append(dict(content=node.text, role=node.role))
        node = node.parent
    if system_prompt := config.get("system_prompt"):
        now = datetime.now()
        system_prompt = system_prompt.replace("{time}", now.strftime("%H:%M:%S"))
        messages.append(dict(role="system", content=system_prompt))
    return await client.chat.completions.create(model=config["model"], messages=messages[::-1])
