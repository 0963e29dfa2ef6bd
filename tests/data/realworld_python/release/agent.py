import datetime
import os
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

client = OpenAI()
HERE = Path(__file__).parent
env = Environment(loader=FileSystemLoader(HERE / "prompts"))


def release_notes(changes):
    system = (HERE / "prompts" / "system.md").read_text().format(started=datetime.datetime.now())
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": changes}])


def on_call(alert):
    system = env.get_template("agent.j2").render(context=datetime.datetime.now().isoformat())
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": alert}])


def with_open(changes):
    with open(os.path.join(os.path.dirname(__file__), "prompts", "system.md")) as fh:
        template = fh.read()
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": template.format(started=datetime.datetime.now())},
        {"role": "user", "content": changes}])
