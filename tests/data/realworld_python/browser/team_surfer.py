"""A browsing agent on a client whose create() takes the messages first
(AutoGen's ChatCompletionClient): the tool list grows with the viewport."""
import re

from webtools.definitions import TOOL_CLICK, TOOL_HISTORY_BACK, TOOL_SCROLL_DOWN, TOOL_TYPE

SURFER_PROMPT = """
Consider the screenshot of the page and the list of elements below.


Answer with exactly one tool call. Prefer links whose text matches the task; never submit forms that pay,
sign up or delete anything; if the page asks for a login, stop and say so. Describe what you see in one
sentence before each action, and give up after ten actions without progress, saying what you tried.
"""


class TeamSurfer:
    def __init__(self, model_client):
        self._model_client = model_client
        self._chat_history = []
        self.default_tools = [TOOL_CLICK, TOOL_TYPE, TOOL_HISTORY_BACK]
        self._log = []

    def note(self, entry):
        self._log = self._log + [entry]

    async def step(self, page):
        history = list(self._chat_history)
        if history:
            request = history.pop()
        else:
            request = UserMessage(content="Empty request.", source="user")
        viewport = await page.viewport()
        tools = self.default_tools.copy()
        if viewport["top"] + viewport["height"] < viewport["scroll_height"]:
            tools.append(TOOL_SCROLL_DOWN)
        text = re.sub(r"(\n\s*){3,}", "\n\n", SURFER_PROMPT).strip()
        history.append(UserMessage(content=text, source="surfer"))
        history.append(request)
        return await self._model_client.create(history, tools=tools, cancellation_token=None)
