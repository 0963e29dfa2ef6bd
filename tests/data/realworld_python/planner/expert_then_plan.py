"""A planning step that asks an expert model for advice (sent here), then builds the planning prompt
from a template with the clock first and hands it to a runner of another module: the second prompt is
a prompt of its own, not part of the first, though both take the same date."""
from datetime import datetime

from agent_runtime import initialize_expert_llm, run_agent_with_retry

ADVICE_PROMPT = """Today is {current_date}.
In one sentence and without any preamble, give the single most useful piece of advice for planning the
task below. Name a concrete risk or a file to read first; never restate the task, and never suggest
asking the user for more detail.

Task: {task}"""

PLANNING_PROMPT = """Current date: {current_date}
Working directory: {working_directory}

Plan the work before you touch any file. List the steps in order, one line each, naming the files each
step reads or changes. Keep the plan to the task as given: do not add refactors, renames or tests nobody
asked for. When a step depends on a fact you have not checked, add a step that checks it first. Stop
after the plan and wait for the go-ahead.

Task: {task}"""


def run_planning(agent, task, working_directory):
    current_date = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    expert_model = initialize_expert_llm("openai", "gpt-4.1")
    advice_prompt = ADVICE_PROMPT.format(current_date=current_date, task=task)
    advice = expert_model.invoke(advice_prompt)
    planning_prompt = PLANNING_PROMPT.format(
        current_date=current_date, working_directory=working_directory, task=task)
    return run_agent_with_retry(agent, planning_prompt + "\n\nExpert advice: " + advice.content)
