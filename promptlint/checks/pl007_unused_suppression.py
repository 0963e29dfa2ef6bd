"""PL007: a suppression comment that suppresses nothing. It looks at the
whole run (after every other rule and every suppression), so the lint
pipeline calls `unused_suppressions` instead of a per-prompt `check`."""

from __future__ import annotations

from promptlint.checks.base import Finding, Severity

RULE = "PL007"


def unused_suppressions(directives, selected: set[str]) -> list[Finding]:
    """One finding per directive that suppressed none of the selected rules
    it names (a bare `ignore` that suppressed nothing at all)."""
    out = []
    for d in directives:
        if d.codes is None:
            unused = [] if d.used else ["all rules"]
        else:
            unused = sorted(c for c in d.codes if c in selected and c not in d.used)
        if unused:
            out.append(Finding(RULE, Severity.WARNING,
                               f"unused suppression: {d.text.strip()} suppresses nothing ({', '.join(unused)})",
                               d.span, fix="remove the comment, or the codes it no longer needs"))
    return out
