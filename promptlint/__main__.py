from promptlint.cli import entry

entry()
