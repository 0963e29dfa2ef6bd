"""The Agents SDK calls a function given as instructions on every run."""
from datetime import datetime

from agents import Agent, RunContextWrapper


def support_instructions(context: RunContextWrapper, agent: Agent) -> str:
    return f"""The current time is {datetime.now().isoformat()}.
You are the support agent for Acme. Answer questions about orders, refunds and shipping. Be concise
and polite, never invent an order status, ask for the order number when it is missing, and hand the
conversation to a human when the customer is angry or asks for a manager. Reply in the customer's
language and never share internal notes or other customers' data."""


support_agent = Agent(name="support", instructions=support_instructions)
