def build_system_prompt(role: str, tool_names: list[str], iteration: int = 1, max_iterations: int = 1) -> str:
    """The worker's system prompt, section by section (empty sections left out)."""
    sections = [
        "You are a worker in the orchestration system.",
        _limits_section(iteration, max_iterations),
        _workspace_section(),
        _tools_section(tool_names),
    ]
    return "\n".join(s for s in sections if s)


def _limits_section(iteration: int, max_iterations: int) -> str:
    lines = ["\n## Limits"]
    if max_iterations > 1:
        lines.append(f"- Iteration {iteration} of {max_iterations}.")
    if len(lines) == 1:
        return ""
    return "\n".join(lines)


def _workspace_section() -> str:
    return """
## Workspace
- Work in small steps and write every intermediate result to the workspace before moving on to the next step.
- Never delete files outside the workspace, never run commands that need network access, and never guess paths.
- When a step fails twice, stop, write down what you tried and why it failed, and hand the task back to the caller.
- Keep the final report under three hundred words, list the files you changed, and say what is left to do next.
"""


def _tools_section(tool_names: list[str]) -> str:
    return "## Tools\n" + "\n".join(f"- {name}" for name in sorted(tool_names))
