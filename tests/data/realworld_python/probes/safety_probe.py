"""A probe that reads its template from a resource root of the app's own
(`data_path / "safety" / "polish_template.txt"`, a path object we cannot
place): the written-out tail names one file of the tree, read as the
template; the request's sentence opens it, ahead of the fixed rules."""

from probes_data import path as data_path


class SafetyProbe:
    def __init__(self, client):
        self.client = client
        with open(data_path / "safety" / "polish_template.txt", encoding="utf-8") as f:
            self.polish_template = f.read()

    def first_turn(self, target_turn: str):
        return self.client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": self.polish_template.format(prompt=target_turn)}],
        )
