import os

from openai import OpenAI

from buildfix.templates import BUILD_FIX_PROBLEM

client = OpenAI()


class BuildFixer:
    def _strip_comments(self, text: str) -> str:
        kept = ""
        past_header = False
        for line in text.splitlines():
            if past_header:
                kept += line + "\n"
                continue
            if line.startswith("#"):
                continue
            past_header = True
            kept += line + "\n"
        return kept

    def initial_prompt(self, project_dir: str):
        with open(os.path.join(project_dir, "Dockerfile")) as f:
            dockerfile = self._strip_comments(f.read())
        # the project's file, less its comments, enters the imported template here, ahead of its protocol
        prompt = BUILD_FIX_PROBLEM.replace("{DOCKERFILE}", dockerfile)
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": prompt}])
