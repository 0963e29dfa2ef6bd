"""A chat app keeps its tools in the framework's per-user session store: the
MCP servers' tools as each connects, and a fixed tool list stored at chat start."""
import anthropic
import chainlit as cl

client = anthropic.Anthropic()
SYSTEM = "You are a helpful assistant for a team that tracks its work in Linear."
regular_tools = [{
    "name": "show_linear_ticket",
    "description": "Displays a Linear ticket in the UI with its title, status, assignee, deadline and tags. Use it "
                   "after you retrieved a ticket's information, to show a card instead of a text-only answer, and "
                   "never show the same ticket twice in one conversation.",
    "input_schema": {"type": "object", "properties": {"title": {"type": "string"}, "status": {"type": "string"},
                                                      "assignee": {"type": "string"}, "deadline": {"type": "string"}},
                     "required": ["title", "status", "assignee", "deadline"]},
}]


def flatten(xss):
    return [x for xs in xss for x in xs]


@cl.on_mcp_connect
async def on_mcp(connection, session):
    result = await session.list_tools()
    mcp_tools = cl.user_session.get("mcp_tools", {})
    mcp_tools[connection.name] = [{"name": t.name, "description": t.description} for t in result.tools]
    cl.user_session.set("mcp_tools", mcp_tools)


@cl.on_chat_start
def start():
    cl.user_session.set("regular_tools", regular_tools)


def call_claude(chat_messages):
    mcp_tools = cl.user_session.get("mcp_tools", {})
    regular_tools = cl.user_session.get("regular_tools", [])
    tools = flatten([tools for _, tools in mcp_tools.items()]) + regular_tools
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=SYSTEM, tools=tools,
                                  messages=chat_messages)
