"""Agents whose prompt templates a subclass loads from a YAML file of its
package and hands to the base class, which renders them (smolagents'
layout), and a JSON file of replies read through a file handle."""
import datetime
import importlib.resources
import json
import os

import yaml
from jinja2 import StrictUndefined, Template

EMPTY_TEMPLATES = {"system_prompt": "", "planning": {"update_pre": ""}}
HERE = os.path.dirname(__file__)


def populate(template, variables):
    return Template(template, undefined=StrictUndefined).render(**variables)


class BaseAgent:
    def __init__(self, model, prompt_templates=None):
        self.model = model
        self.prompt_templates = prompt_templates or EMPTY_TEMPLATES

    def replan(self, task, memory):
        system = populate(self.prompt_templates["planning"]["update_pre"], variables={"task": task})
        return self.model.generate([{"role": "system", "content": system}, *memory])


class ToolAgent(BaseAgent):
    def __init__(self, model, prompt_templates=None):
        prompt_templates = prompt_templates or yaml.safe_load(
            importlib.resources.files("planner.prompts").joinpath("agent.yaml").read_text())
        super().__init__(model, prompt_templates=prompt_templates)


def greet(client, question):
    with open(os.path.join(HERE, "prompts", "replies.json")) as fh:
        replies = json.load(fh)
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": replies["greeting"].format(now=datetime.datetime.now())},
        {"role": "user", "content": question}])
