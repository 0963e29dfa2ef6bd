"""Tool lists as agent code assembles them: some orders change between requests, some do not."""
import asyncio
import os

from openai import OpenAI

from agents.settings import SEARCH_ENABLED

client = OpenAI()

OPERATOR_PROMPT = (
    "You are the operations assistant of a small logistics company. Use the tools to look up shipments, "
    "warehouses and drivers; never change a booking without the dispatcher's confirmation in the chat. "
    "Report delays with the carrier's own reason, convert times to the warehouse's local time, and keep "
    "answers to a short paragraph followed by a bullet list of the shipments concerned."
)
SEARCH_TOOL = {"type": "function", "function": {"name": "search", "description": "Search the shipment index."}}
BASE_TOOLS = [
    {"type": "function", "function": {"name": "shipment", "description": "Look a shipment up by its number."}},
    {"type": "function", "function": {"name": "driver", "description": "Look a driver up by their id."}},
]


def _send(tools, question):
    return client.chat.completions.create(
        model="gpt-4.1", tools=tools,
        messages=[{"role": "system", "content": OPERATOR_PROMPT}, {"role": "user", "content": question}])


def ask_with_fixed_tools(question):
    tools = list(BASE_TOOLS)
    if SEARCH_ENABLED:  # a setting: the same list on every request of a deployment
        tools.append(SEARCH_TOOL)
    return client.chat.completions.create(
        model="gpt-4.1", tools=tools,
        messages=[{"role": "system", "content": OPERATOR_PROMPT}, {"role": "user", "content": question}])


def ask_with_plugin_folder(question):
    tools = [{"type": "function", "function": {"name": name.removesuffix(".json")}}
             for name in os.listdir("plugins")]
    return client.chat.completions.create(
        model="gpt-4.1", tools=tools,
        messages=[{"role": "system", "content": OPERATOR_PROMPT}, {"role": "user", "content": question}])


async def ask_with_server_tools(question, servers):
    all_tools = []
    for done in asyncio.as_completed([server.list_tools() for server in servers]):
        all_tools.extend(await done)
    return client.chat.completions.create(
        model="gpt-4.1", tools=all_tools,
        messages=[{"role": "system", "content": OPERATOR_PROMPT}, {"role": "user", "content": question}])
