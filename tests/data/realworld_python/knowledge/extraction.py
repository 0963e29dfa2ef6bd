"""A memory-extraction prompt whose dates a helper resolves: each falls back to
today only when the caller passes none (mem0's _resolve_dates)."""
from datetime import datetime, timezone


def _resolve_dates(current_date=None, observation_date=None):
    if current_date is None:
        current_date = datetime.now(timezone.utc).date().isoformat()
    if observation_date is None:
        observation_date = current_date
    return current_date, observation_date


def build_extraction_prompt(new_messages, current_date=None, timestamp=None):
    current_date, observation_date = _resolve_dates(current_date, timestamp)
    sections = [f"## Observation Date\n{observation_date}"]
    sections.append("## Instructions\nExtract every fact the user states about themselves as one short line. "
                    "Skip greetings, questions and anything the assistant said. Keep the user's own words "
                    "where you can, and never merge two facts into one line. A fact that updates an earlier one "
                    "replaces it: say so with the word UPDATE first. Return a JSON list of strings.")
    sections.append(f"## New Messages\n{new_messages}")
    return "\n\n".join(sections)
