"""A supervisor whose handoff tools are made from a set of agent names that
its caller builds: the order of a set changes with the process."""
from langgraph.prebuilt import ToolNode

from .handoff import create_handoff_tool


def _prepare_tool_node(tools, agent_names):
    handoff_tools = [create_handoff_tool(agent_name=agent_name) for agent_name in agent_names]
    return ToolNode(list(tools) + handoff_tools)


def create_supervisor(agents, tools):
    agent_names = set()
    for agent in agents:
        agent_names.add(agent.name)
    return _prepare_tool_node(tools, agent_names)
