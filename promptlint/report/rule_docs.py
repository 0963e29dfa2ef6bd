"""Rule documentation, generated from the catalogue files (docs/rules.md,
`promptlint explain`, `promptlint rules --format json`)."""

from __future__ import annotations

import json

FENCE = {".j2": "jinja", ".jinja": "jinja", ".jinja2": "jinja", ".prompty": "yaml", ".prompt": "handlebars",
         ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".md": "markdown", ".txt": "text", ".py": "python"}


def _lang(file: str) -> str:
    for suffix, lang in FENCE.items():
        if file.endswith(suffix):
            return lang
    return "text"


def rule_markdown(rule, level: int = 1, examples: int | None = None) -> str:
    """The rule's documentation; `examples`: at most this many flagged and
    this many clean examples (None: all, as docs/rules.md has them)."""
    h = "#" * level
    out = [f"{h} {rule.id} {rule.name}", "", f"*{rule.summary}.* Default severity: **{rule.severity.label}**.", "",
           f"{h}# What it finds", "", rule.what, "", f"{h}# Why it costs", "", rule.why, ""]
    if rule.facts:
        out += [f"{h}# Provider facts", ""] + [f"- {fact}" for fact in rule.facts] + [""]
    out += [f"{h}# Fix", "", rule.fix, ""]
    for kind, title in (("bad", "Flagged"), ("good", "Not flagged")):
        chosen = [e for e in rule.examples if e.kind == kind]
        if not chosen:
            continue
        out += [f"{h}# {title}", ""]
        left = chosen[examples:] if examples is not None else []
        for e in chosen[:examples] if examples is not None else chosen:
            where = ", ".join(f"{line}:{col}" for line, col in e.findings)
            head = f"`{e.file}`" + (f", finding at {where}" if where else "")
            out += [head + (f" ({e.note})" if e.note else ""), "", f"```{_lang(e.file)}", e.code.rstrip("\n"), "```", ""]
            if e.fixed is not None:
                how = "`promptlint fix --unsafe-fixes`" if e.unsafe_fix else "`promptlint fix`"
                out += [f"After {how}:", "", f"```{_lang(e.file)}", e.fixed.rstrip("\n"), "```", ""]
        if left:
            out += [f"*{len(left)} more {'example' if len(left) == 1 else 'examples'}: "
                    f"`promptlint explain {rule.id} --all-examples`.*", ""]
    return "\n".join(out)


def catalogue_markdown(rules) -> str:
    out = ["# promptlint rules", "",
           "Generated from the catalogue in `rules/` by `promptlint rules --format markdown`; "
           "do not edit by hand (a test fails when this file is stale).", "",
           "| code | name | severity | summary |", "|---|---|---|---|"]
    out += [f"| [{r.id}](#{r.id.lower()}-{r.name}) | {r.name} | {r.severity.label} | {r.summary} |" for r in rules.values()]
    out.append("")
    for r in rules.values():
        out += [rule_markdown(r, level=2), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def catalogue_json(rules) -> str:
    return json.dumps([{"code": r.id, "name": r.name, "severity": r.severity.label, "summary": r.summary,
                        "what": r.what, "why": r.why, "fix": r.fix, "facts": list(r.facts)}
                       for r in rules.values()], indent=2)
