"""`check --since REF`: only what a change introduced, for a repository
that adopts the linter with old findings in it.

A finding is kept when its line is new or changed in the working tree
against REF (git's diff, renames followed, new and untracked files whole),
or when it belongs to a prompt whose stable prefix the change shrank: an
include edited elsewhere can break a prompt at a line nobody touched. The
stable prefixes of both sides come from `promptlint diff`'s audit of REF
(read from git objects, no checkout).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from promptlint import gitfiles


@dataclass
class SinceFilter:
    ref: str
    top: Path
    changed: dict[str, set[int] | None] = field(default_factory=dict)  # repo path -> new lines (None: all)
    shrank: set[tuple[str, str]] = field(default_factory=set)  # (repo path, prompt name)

    def repo_path(self, display: str) -> str:
        return gitfiles.repo_path(display, Path.cwd(), self.top)

    def keeps(self, finding) -> bool:
        where = self.repo_path(finding.path)
        if where in self.changed:
            lines = self.changed[where]
            if lines is gitfiles.ALL_LINES or finding.line_col[0] in lines:
                return True
        prompt = finding.prompt_path or finding.path
        return (self.repo_path(prompt), finding.prompt) in self.shrank


def since_filter(paths, groups, ref: str, jobs: int = 1) -> SinceFilter:
    """What changed since `ref`, for `keeps`; GitError for git's refusals."""
    from promptlint.commands.diff import audit_against_git

    top = gitfiles.toplevel(Path.cwd().resolve(), "--since compares with a revision of one")
    commit = gitfiles.resolve_commit(top, ref)
    result = SinceFilter(ref, top, gitfiles.changed_lines(top, commit))
    diff, _, _ = audit_against_git(paths, groups, commit, lint_head=False, jobs=jobs)
    for change in diff.prompts:
        before, after = change.before, change.after
        if before is not None and after is not None and after.stable_prefix is not None \
                and before.stable_prefix is not None and after.stable_prefix < before.stable_prefix:
            result.shrank.add((after.path, after.name))
    return result
