"""A reply sent with the desk's closing rules, read through their module (`from . import prompts`):
the clock opens the system prompt, ahead of the rules."""
from datetime import datetime

from openai import OpenAI

from . import prompts


def send_reply(client: OpenAI, draft):
    system = f"Sent at {datetime.now():%H:%M}.\n" + prompts.SIGNATURE_TEMPLATE.format(desk="Acme")
    return client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": draft}])
