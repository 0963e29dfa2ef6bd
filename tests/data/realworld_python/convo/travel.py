"""Gemini's client with the system text in its config, and a LlamaIndex
model's complete() given a prompt built here."""
import datetime
import time

from google import genai
from google.genai import types

SYSTEM = ("You are the travel desk assistant of Northwind Travel. Answer questions about bookings, "
          "changes and refunds. Quote fares with their currency, never invent a flight number, and hand "
          "the conversation to a person when the customer asks for one or mentions a complaint. ") * 2
RULES = ("Summarise the document in five bullet points for a travel agent: the route, the dates, the fare "
         "rules, the baggage allowance and anything the customer must do before departure. ") * 2

client = genai.Client()


def plan_trip(question):
    return client.models.generate_content(
        model="gemini-2.5-flash",
        contents=question,
        config=types.GenerateContentConfig(system_instruction=f"Local time: {datetime.datetime.now().isoformat()}\n" + SYSTEM),
    )


def summarize(llm, document):
    prompt = f"Summary requested at {time.time()}.\n" + RULES + document
    return llm.complete(prompt)
