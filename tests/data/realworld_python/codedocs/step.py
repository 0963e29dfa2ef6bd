"""A browsing agent's step: the system text built by a helper, wrapped in
the framework's text part (TextContent), with the user's goal near the top."""

from .schema import Message, TextContent


def system_text(goal: str) -> str:
    return f"""# Instructions
Look at the page and pick the single best next action towards the goal.

# Goal:
{goal}

# Actions
click(id): click the element with this id.
fill(id, text): type the text into the field with this id.
scroll(direction): scroll the page up or down by one screen.
go_back(): return to the previous page.
send_msg_to_user(text): answer the user and stop.
Answer with one action in a fenced code block, and nothing else.
"""


def step(llm, state):
    goal = state.user_goal
    messages = [Message(role="system", content=[TextContent(text=system_text(goal))])]
    messages.append(Message(role="user", content=[TextContent(text=state.page_text)]))
    return llm.completion(messages=messages)
