STEP_TEMPLATE = """You are an agent that can call tools to solve a problem.

Tools you can call:
{tools}

Reply in exactly this format, one step at a time:
Thought: what you have understood so far and what to do next.
Action: one of `tool_name[input]` to call a tool, or `Finish[answer]` when you know the answer.

Solve this problem:
Question: {question}
History: {history}
"""

TOOLS = """search[query]: search the web and return the top three results.
calculate[expression]: evaluate an arithmetic expression."""


class StepAgent:
    def __init__(self, llm, max_steps: int = 6):
        self.llm = llm
        self.max_steps = max_steps
        self.history = []

    def run(self, question: str):
        self.history = []
        step = 0
        while step < self.max_steps:
            step += 1
            history_text = "\n".join(self.history)
            prompt = STEP_TEMPLATE.format(tools=TOOLS, question=question, history=history_text)
            messages = [{"role": "user", "content": prompt}]
            text = self.llm.think(messages=messages)
            if text.startswith("Finish"):
                return text
            self.history.append(text)
