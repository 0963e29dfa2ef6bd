"""A grader that reads its template in __init__ through path.open() and fills it with str.replace()."""
from pathlib import Path

from openai import OpenAI

client = OpenAI()


class MathJudge:
    def __init__(self):
        template_path = Path(__file__).parent / "prompts" / "math_judge.txt"
        with template_path.open("r") as file:
            self.template = file.read()

    def grade(self, problem: str, solution: str) -> str:
        prompt = self.template.replace("{{Problem}}", problem).replace("{{Solution}}", solution)
        reply = client.chat.completions.create(model="gpt-4.1-mini", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content
