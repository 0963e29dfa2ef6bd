"""Counts in words, as every summary line prints them: `1 prompt in 1 file`,
`2 input errors`, and the clauses that say what went wrong in a run."""

from __future__ import annotations

_IRREGULAR = {"info": "info", "is": "are", "was": "were"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 file`, `2 files`, `1,204 prompts`; `info` stays `info`."""
    if n == 1:
        return f"{n:,} {word}"
    return f"{n:,} {many or _IRREGULAR.get(word) or word + 's'}"


def scope(prompts: int, files: int) -> str:
    return f"{plural(prompts, 'prompt')} in {plural(files, 'file')}"


def nothing_read(prompts: int, files: int) -> str | None:
    """The head of a summary for a run that read no prompt (check's and audit's alike), else None."""
    if not files:
        return "No prompt files found"
    if not prompts:
        return f"No prompts found in {plural(files, 'file')}"
    return None


def skipped(notes) -> list[str]:
    """The clause for files looked at and not read as prompts (-v says which and why)."""
    from promptlint.sources.base import Skipped

    n = sum(isinstance(note, Skipped) for note in notes)
    return [f"{plural(n, 'file')} skipped (-v says why)"] if n else []


def problems(errors: int = 0, missing: int = 0, partial: int = 0) -> list[str]:
    """The clauses a summary adds for what did not go as asked."""
    out = []
    if missing:
        out.append(f"{plural(missing, 'path')} not found")
    if errors:
        out.append(f"{plural(errors, 'input error')} (see above)")
    if partial:
        out.append(f"{plural(partial, 'file')} only partly analysed (see the info lines)")
    return out
