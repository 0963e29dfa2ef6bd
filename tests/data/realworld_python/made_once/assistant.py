"""An assistant object per conversation: the clock is read when it is made."""

from datetime import datetime, timezone

from openai import OpenAI

from .prompts import ASSISTANT_PROMPT


class Assistant:
    def __init__(self, system_prompt: str | None = None, model: str = "gpt-4.1") -> None:
        self.model = model
        # read once, when the object is made: the same for all its requests, and at the
        # end of the system prompt, with only this conversation after it
        self.system_prompt = system_prompt or ASSISTANT_PROMPT.format(
            started_at=datetime.now(timezone.utc).isoformat())
        self.client = OpenAI()
        self.messages = [{"role": "system", "content": self.system_prompt}]

    def ask(self, question: str) -> str:
        self.messages.append({"role": "user", "content": question})
        reply = self.client.chat.completions.create(model=self.model, messages=self.messages)
        text = reply.choices[0].message.content
        self.messages.append({"role": "assistant", "content": text})
        return text


class Briefing:
    """A briefing object: the time it was made heads a long fixed brief, so every
    object (every session) starts a prefix no other shares."""

    RULES = ("Summarise the incident queue for the on-call engineer. Group incidents by service, "
             "order each group by severity, quote the ticket ids, flag anything older than a day, "
             "and end with the three actions that matter most. Never speculate about causes. ") * 3

    def __init__(self) -> None:
        self.client = OpenAI()
        self.system = f"Briefing prepared at {datetime.now():%Y-%m-%d %H:%M:%S}.\n\n{self.RULES}"

    def brief(self, queue: str) -> str:
        reply = self.client.chat.completions.create(model="gpt-4.1", messages=[
            {"role": "system", "content": self.system}, {"role": "user", "content": queue}])
        return reply.choices[0].message.content
