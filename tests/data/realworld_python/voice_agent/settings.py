"""Settings and the prompt file of the voice assistant."""

import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

# the deployment may move the prompt folder; by default it is the repository's own
PROMPT_DIR = Path(os.getenv("KITCHEN_PROMPT_DIR", Path(__file__).parent / "prompt"))


def load_prompt_content(name: str = "default") -> str:
    try:
        return (PROMPT_DIR / f"{name}.md").read_text()
    except OSError:
        return ""


def load_prompt_with_context(timezone_id: str = "Europe/Paris", timezone_display: str = "Paris time") -> str:
    template = load_prompt_content()
    now = datetime.now(ZoneInfo(timezone_id))
    date_context = (f"Today is {now:%A %d %B}. "
                    f"The current time is {now:%H:%M} {timezone_display}.")
    prompt = template.replace("{{CURRENT_DATE_CONTEXT}}", date_context)
    prompt = prompt.replace("{{TIMEZONE}}", timezone_display)
    return prompt
