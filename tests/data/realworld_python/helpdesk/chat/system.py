"""The system prompt, assembled from constants defined in helpdesk.prompts."""
from helpdesk.prompts.sections import ACCOUNT_PROMPT, ESCALATION_RULES, Tone

from ..prompts import sections


def build_system_prompt(account_tier: str) -> str:
    prompt = "You are the help desk assistant of an online furniture shop."
    prompt += ACCOUNT_PROMPT.format(account_tier=account_tier)
    prompt += ESCALATION_RULES + sections.Tone.CLOSING
    return prompt + Tone.CLOSING
