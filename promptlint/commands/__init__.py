"""Commands kept in their own modules, registered on the `promptlint` group
with `main.add_command` (see promptlint/cli.py)."""
