"""Rule modules. Each catalogue entry rules/PLnnn-some-name.toml is checked
by the module promptlint/checks/plnnn_some_name.py, which defines
`check(ctx) -> Iterable[Finding]`; the name ties the two, so there is no
second registry to keep in step."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from promptlint.checks.base import CheckContext, Finding

# Rules that look at the whole run rather than one prompt (suppressions; the lock).
RUN_LEVEL = {"PL007", "PL009"}


def module_name(rule_id: str, name: str) -> str:
    return f"promptlint.checks.{rule_id.lower()}_{name.replace('-', '_')}"


def checker(rule_id: str, name: str) -> Callable[[CheckContext], Iterable[Finding]]:
    return importlib.import_module(module_name(rule_id, name)).check


def run_prompt_rules(ctx: CheckContext, rules) -> list[Finding]:
    """Findings of the given catalogue rules on one prompt."""
    out: list[Finding] = []
    for rule in rules:
        if rule.id in RUN_LEVEL:
            continue
        for finding in checker(rule.id, rule.name)(ctx):
            finding.prompt = ctx.template.name
            finding.prompt_path = ctx.template.source.display_path
            out.append(finding)
    return out
