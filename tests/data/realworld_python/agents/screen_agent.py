"""A computer-use agent: the parsed screen goes into its system prompt on every step."""
from openai import OpenAI


class ScreenAgent:
    def __init__(self, client: OpenAI):
        self.client = client

    def step(self, messages: list, boxes_and_labels: str) -> str:
        system = self._get_system_prompt(boxes_and_labels)
        reply = self.client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": system}, *messages])
        return reply.choices[0].message.content

    def _get_system_prompt(self, screen_info: str = "") -> str:
        return f"""You are using a Windows device with a mouse and a keyboard.
Here are the detected bounding boxes on the screen, by id, with their descriptions:{screen_info}

Your available "Next Action" only includes: type (types a string of text), left_click (moves the
mouse to a box id and left-clicks), right_click, double_click, hover, scroll_up, scroll_down and
wait. Reply with a JSON object with "Reasoning" (what you see and why you act), "Next Action" (one
of the actions above) and "Box ID" (the id of the box you act on, when the action needs one).
Do one action per step, never guess a box id that is not in the list, and say "None" as the next
action once the task is done."""
