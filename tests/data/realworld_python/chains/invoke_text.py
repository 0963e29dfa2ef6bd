"""A LangChain chat model invoked with one written-out string."""
from datetime import datetime

from langchain_openai import ChatOpenAI

llm = ChatOpenAI(model="gpt-4.1-mini")


def summarise(ticket: str) -> str:
    return llm.invoke(f"""Today is {datetime.now():%A %d %B %Y, %H:%M}.
Summarise the support ticket below for the on-call engineer: the product, the customer's problem,
what they already tried, and how urgent it is (low, medium, high). Use at most five bullet points,
quote error messages exactly, and end with the single next step you recommend. Do not guess at
causes the ticket does not support, and say so when the ticket lacks what an engineer would need.

Ticket:
{ticket}""").content
