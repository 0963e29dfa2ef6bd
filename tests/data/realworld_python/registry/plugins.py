"""Function plugins read from a folder at import; the handler module sends their schemas."""
from pathlib import Path


class Function:
    def __init__(self, path):
        self.path = path


functions_folder = Path.home() / ".config" / "app" / "functions"
functions = [Function(str(path)) for path in functions_folder.glob("*.py")]
sorted_functions = [Function(str(path)) for path in sorted(functions_folder.glob("*.py"))]


def get_openai_schemas():
    return [function.openai_schema for function in functions]
