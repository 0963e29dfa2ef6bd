"""Sections chosen by which tools the agent has: a membership test on a set
of tool names gives the same answer in any order, so the text is fixed."""

_INTRO = """You answer data questions about the user's warehouse with the tools you are given.
Always check the schema before you write SQL, never guess a table or a column, and show the SQL you ran."""


def _recovery_section(*, has_lookup: bool) -> str:
    if has_lookup:
        hint = "use `lookup(name=...)` to find the right model or column."
    else:
        hint = "read the project's model files to find the right name."
    return f"""# When a tool fails

- `PARSE` errors: fix the SQL syntax and retry.
- `UNKNOWN_NAME` errors: {hint}
- `EXECUTION` errors: read the database's message, fix the query and retry.
Never give up silently: fix and retry, or tell the user what failed and what you tried.
Keep every retry small: change one thing at a time and say what you changed.
When the same error comes back twice, stop, explain it to the user and ask how to go on.
Never drop a filter, a join or a limit just to make an error go away."""


def build_system_prompt(tools) -> str:
    tool_names = {t.name for t in tools}
    sections = [_INTRO, _recovery_section(has_lookup="lookup" in tool_names)]
    return "\n\n".join(sections)
