"""A browsing agent: the tools offered depend on where the page is scrolled."""
from openai import OpenAI

client = OpenAI()

TOOL_CLICK = {"type": "function", "function": {"name": "click", "description": "Click the element with the given id.",
              "parameters": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}}
TOOL_SCROLL_DOWN = {"type": "function", "function": {"name": "scroll_down", "description": "Scroll one screen down.",
                    "parameters": {"type": "object", "properties": {}}}}

SURFER_PROMPT = (
    "You browse the web for the user. Look at the page, decide on one action, and call exactly one tool. "
    "Prefer links whose text matches the user's words; never submit forms that pay, sign up or delete "
    "anything; if the page asks for a login, stop and tell the user. Describe what you see in one sentence "
    "before each action, and give up after ten actions without progress, saying what you tried."
)


def next_action(viewport, request: str):
    tools = [TOOL_CLICK]
    if viewport["top"] + viewport["height"] < viewport["scroll_height"]:
        tools.append(TOOL_SCROLL_DOWN)
    return client.chat.completions.create(
        model="gpt-4.1",
        tools=tools,
        messages=[{"role": "system", "content": SURFER_PROMPT}, {"role": "user", "content": request}],
    )
