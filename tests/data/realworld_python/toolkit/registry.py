import importlib
import os
from os.path import dirname


def load_tools(context):
    directory = dirname(__file__) + "/all_tools"
    safe_tools, risky_tools = [], []
    modules = [f for f in os.listdir(directory) if f.endswith(".py") and f != "__init__.py"]
    for file in modules:
        module = importlib.import_module(f"toolkit.all_tools.{file[:-3]}")
        for tool in module.get_tools(context):
            if getattr(tool, "safe", False):
                safe_tools.append(tool)
            else:
                risky_tools.append(tool)
    return safe_tools, risky_tools
