"""A chat bot's reply: the reply chain gathered newest first, the configured
system prompt (text from the config file, which we cannot read here) with
the time of day put into it, appended last and sent reversed, through a
keyword dict."""
from datetime import datetime

from openai import AsyncOpenAI

client = AsyncOpenAI()


async def reply(chain, config):
    messages = []
    for node in chain:
        messages.append(dict(role=node["role"], content=node["text"]))
    if system_prompt := config.get("system_prompt"):
        now = datetime.now().astimezone()
        system_prompt = system_prompt.replace("{date}", now.strftime("%B %d %Y")).replace(
            "{time}", now.strftime("%H:%M:%S %Z%z")).strip()
        messages.append(dict(role="system", content=system_prompt))
    kwargs = dict(model=config["model"], messages=messages[::-1], stream=True)
    return await client.chat.completions.create(**kwargs)
