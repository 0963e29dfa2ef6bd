"""A support agent's system prompt with the caller's booking, looked up by user."""
from collections import defaultdict

from openai import OpenAI

client = OpenAI()
BOOKINGS = defaultdict(lambda: {"flight": {}, "hotel": {}})
RULES = (
    "You are the travel desk's assistant. Answer questions about flights and hotels, change bookings "
    "only after the traveller confirms, never invent a fare, quote prices in the traveller's currency, "
    "and hand over to a human agent when a refund above the limit is requested. Keep answers short, "
    "list the options as bullets, and always repeat the booking reference before any change."
)


def answer(user_id: str, question: str) -> str:
    booking = BOOKINGS[user_id]
    system = f"Current booking: {booking}\n\n" + RULES
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
    return reply.choices[0].message.content
