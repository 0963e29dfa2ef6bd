"""An agent that writes its own tools while it runs: the tool list the model sees changes mid-session."""
from litellm import completion

tools = []


def register_tool(name: str, description: str, parameters: dict) -> None:
    global tools
    tools = [tool for tool in tools if tool["function"]["name"] != name]
    tools.append({"type": "function", "function": {"name": name, "description": description,
                                                   "parameters": {"type": "object", "properties": parameters}}})


def run(task: str) -> str:
    messages = [
        {"role": "system", "content": """You build and run Python functions as tools to complete the task.
Create a tool when none of the ones you have fits, test it on a small input first, and fix it when it
fails instead of starting over. Never ask the user for input you can find yourself, never install a
package without saying why, and call task_completed once the task is fully done. Keep each tool
small, with one job, a docstring and typed parameters, and print nothing the user did not ask for."""},
        {"role": "user", "content": task},
    ]
    reply = completion(model="anthropic/claude-sonnet-4-5", messages=messages, tools=tools)
    return reply.choices[0].message.content
