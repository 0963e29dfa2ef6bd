from datetime import datetime

from openai import OpenAI

client = OpenAI()


def _load_prompt_text(name: str) -> str:
    from .prompts import load_prompt  # a loader we cannot read, given the name this helper is passed

    return load_prompt(name)


def update_state(summary: str):
    prompt = _load_prompt_text("state_update").replace(
        "{current_time}", datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
    ).replace("{conversation_summary}", summary)
    return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": prompt}])
