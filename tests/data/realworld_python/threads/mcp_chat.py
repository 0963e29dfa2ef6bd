"""Tools gathered from the MCP servers a user connected, kept in a session
mapping filled as each server connects, flattened in that order and sent."""
import anthropic

client = anthropic.Anthropic()

SYSTEM = "You are a helpful assistant with access to the user's connected tools. Use them when they help."


def on_connect(session, connection, tools):
    mcp_tools = session.get("mcp_tools", {})
    mcp_tools[connection.name] = tools
    session.set("mcp_tools", mcp_tools)


def call_claude(session, chat_messages):
    mcp_tools = session.get("mcp_tools", {})
    tools = [tool for _, server_tools in mcp_tools.items() for tool in server_tools]
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=SYSTEM,
                                  tools=tools, messages=chat_messages)
