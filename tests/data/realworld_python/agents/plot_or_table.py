"""A data agent that picks one of two code-writing prompts per question."""
from openai import OpenAI

client = OpenAI()


def table_prompt(columns: list, query: str) -> str:
    return f"""Given a DataFrame `df` with columns {", ".join(columns)}, write pandas code to answer: "{query}"

Rules: use pandas operations on `df` only and rely only on its columns. Assign the final result
to `result`. Return a single fenced python code block and nothing else: no prose, no comments.
Do not read files, fetch data or import libraries (pandas is imported as pd). Drop missing values
before any aggregation, and keep the index unless the question asks for a new one."""


def plot_prompt(columns: list, query: str) -> str:
    return f"""Given a DataFrame `df` with columns {", ".join(columns)}, write pandas and matplotlib code to answer: "{query}"

Rules: use pandas for the data and matplotlib.pyplot (as plt) for one plot with a title and axis
labels. Assign the figure to `result`. Return a single fenced python code block and nothing else:
no prose, no comments. Do not read files or fetch data. Drop missing values before plotting."""


def write_code(query: str, columns: list) -> str:
    wants_plot = "plot" in query.lower() or "chart" in query.lower()
    prompt = plot_prompt(columns, query) if wants_plot else table_prompt(columns, query)
    reply = client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "user", "content": prompt}])
    return reply.choices[0].message.content
