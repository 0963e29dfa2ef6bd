from bench_agent.llm import complete_text

INITIAL_PROMPT = """You are a helpful research assistant.

Research Problem: {task_description}

Follow these instructions and do not forget them:
- First, come up with a high level plan based on the problem and the tools, and record it in the
  Research Plan and Status. You can revise the plan later.
- The Research Plan and Status only holds progress made by previous steps, confirmed by an observation.
- Performance numbers can only be included once you ran the code and saw the output.
- Follow the plan and try to achieve the goal as simply as possible; never try anything dangerous.
"""


class ResearchAgent:
    def __init__(self, env):
        # the benchmark's environment object: its research_problem is the run's task, not a setting
        self.prompt = INITIAL_PROMPT.format(task_description=env.research_problem)

    def step(self, history: str) -> str:
        return complete_text(prompt=self.prompt + history)
