"""A chatbot object that keeps its conversation and rebuilds the system prompt on every turn."""
from datetime import datetime

from openai import OpenAI


class SupportBot:
    def __init__(self, user_name: str):
        self.client = OpenAI()
        self.user_name = user_name
        self.history = []

    def system_prompt(self) -> str:
        return f"""Current time: {datetime.now():%H:%M}.
You are the support assistant of Acme. Answer questions about orders, refunds and shipping, be brief
and polite, never invent an order status, and ask for the order number when it is missing."""

    def chat(self, text: str) -> str:
        self.history.append({"role": "user", "content": text})
        reply = self.client.chat.completions.create(
            model="gpt-4.1-mini",
            messages=[{"role": "system", "content": self.system_prompt()}] + self.history)
        answer = reply.choices[0].message.content
        self.history.append({"role": "assistant", "content": answer})
        return answer
