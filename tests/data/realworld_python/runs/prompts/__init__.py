"""Prompt files of the agent, loaded by name (the way Voyager's package does)."""
import pkg_resources


def load_prompt(name):
    package_path = pkg_resources.resource_filename("runs", "")
    with open(f"{package_path}/prompts/{name}.txt") as handle:
        return handle.read()
