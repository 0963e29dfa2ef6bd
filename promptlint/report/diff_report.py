"""Output of `promptlint diff`: plain text, JSON, and Markdown for a
pull-request comment in the manner of Infracost's (a hidden marker on the
first line to find and update the comment, a headline, a table, details
folded in `<details>`, and a footnote with the source of every figure).

GitHub refuses comment bodies over 65,536 characters: a longer Markdown body
loses whole rows and sections from the end (the prompts with the smallest
change go first) and says, visibly, how many prompts and findings were left
out.
"""

from __future__ import annotations

import html
import json

from promptlint import __version__
from promptlint.diff import DIFF_SCHEMA_VERSION, Diff, FindingRecord, PromptChange

MARKER = "<!-- promptlint-report -->"
# The body of a change under --min-change-*: `comment github` posts nothing
# for it, and deletes (or hides) the comment an earlier push left.
BELOW_THRESHOLD = "<!-- promptlint: below-threshold -->"
GITHUB_COMMENT_LIMIT = 65_536


# -- numbers --------------------------------------------------------------------

def tokens(n) -> str:
    return "n/a" if n is None else f"{n:,}"


def usd(x) -> str:
    return "n/a" if x is None else f"${x:,.2f}"


def signed_usd(x) -> str:
    if x is None:
        return "n/a"
    if round(x, 2) == 0:
        return "$0.00" if x == 0 else ("+<$0.01" if x > 0 else "-<$0.01")
    return f"{'+' if x > 0 else '-'}${abs(x):,.2f}"


def _per_day(diff: Diff) -> str:
    rpd = diff.traffic.get("requests_per_day")
    return f"{rpd:,.0f} requests/day" if isinstance(rpd, (int, float)) else "the configured traffic"


def headline(diff: Diff) -> str:
    """'Cacheable prefix falls from 1,824 to 96 tokens: +$412.00/month (+35%) on openai/gpt-4.1 at 50,000 requests/day'."""
    b, a = diff.stable_before, diff.stable_after
    several = len([p for p in diff.prompts if p.after is not None]) > 1 or len(diff.prompts) > 1
    what = "Cacheable prefix (all prompts)" if several else "Cacheable prefix"
    if a < b:
        head = f"{what} falls from {b:,} to {a:,} tokens"
    elif a > b:
        head = f"{what} rises from {b:,} to {a:,} tokens"
    else:
        head = f"{what} unchanged at {a:,} tokens"
    change = diff.cost_change
    if round(change, 2) == 0:
        money = "no change in monthly cost" if change == 0 else f"{signed_usd(change)}/month"
    else:
        pct = f" ({'+' if change > 0 else '-'}{abs(change) / diff.cost_before:.0%})" if diff.cost_before else ""
        money = f"{signed_usd(change)}/month{pct}"
    on = f" on {diff.model}" if diff.model else ""
    return f"{head}: {money}{on} at {_per_day(diff)}"


def _traffic_line(diff: Diff) -> str:
    t = diff.traffic
    parts = []
    for key, fmt in (("requests_per_day", "{:,.0f} requests/day"), ("users", "{:,} users"),
                     ("sessions_per_user_per_day", "{:g} sessions per user per day"),
                     ("session_minutes", "{:g}-minute sessions"), ("days_per_month", "{:g} days/month")):
        if isinstance(t.get(key), (int, float)):
            parts.append(fmt.format(t[key]))
    return ", ".join(parts) or "the configured traffic"


def sources_note(diff: Diff) -> str:
    exact = {True: ", exact", False: ", a proxy"}.get(diff.tokenizer_exact, "")
    tok = f" (tokenizer `{diff.tokenizer}`{exact})" if diff.tokenizer else ""
    return (f"Figures are the numbers of `promptlint audit --format json` (schema 1.x) for {diff.base_label} and "
            f"the {diff.head_label}, for the first selected model, `{diff.model}`{tok}: stable prefix = "
            f"`tokenizers[…].stable_prefix_tokens.global` (tokens shared by all users); cached = "
            f"`models[…].cached_tokens.global` (after the provider's caching rules); $/month = "
            f"`models[…].cost.per_month_usd.cached`. Provider table dated {diff.table_date or 'n/a'}; traffic "
            f"{_traffic_line(diff)}; each prompt is assumed to receive this traffic.")


def _status_word(p: PromptChange) -> str:
    if p.status == "renamed":
        return f"renamed ({'git' if p.how == 'git' else 'same name'})"
    return p.status


def _arrow(before, after, fmt) -> str:
    if before is None and after is None:
        return "n/a"
    b = "—" if before is None else fmt(before)
    a = "—" if after is None else fmt(after)
    return a if b == a else f"{b} → {a}"


def _fields(p: PromptChange):
    b, a = p.before, p.after
    return (
        _arrow(b.stable_prefix if b else None, a.stable_prefix if a else None, tokens),
        _arrow(b.cached if b else None, a.cached if a else None, tokens),
        _arrow(b.per_month if b else None, a.per_month if a else None, usd),
        signed_usd(p.change),
    )


# -- JSON -----------------------------------------------------------------------

def to_json(diff: Diff, errors: list[dict] | None = None) -> dict:
    def finding(f: FindingRecord) -> dict:
        return f.as_dict()
    return {
        "schema_version": DIFF_SCHEMA_VERSION,
        "tool": {"name": "promptlint", "version": __version__},
        "base": {"kind": diff.base_kind, "label": diff.base_label, "commit": diff.base_commit,
                 "provider_table": diff.base_report.get("provider_table"), "traffic": diff.base_report.get("traffic")},
        "head": {"label": diff.head_label},
        "model": diff.model,
        "tokenizer": diff.tokenizer,
        "provider_table": diff.head_report.get("provider_table"),
        "traffic": diff.traffic,
        "headline": headline(diff),
        "totals": {
            "stable_prefix_tokens": {"before": diff.stable_before, "after": diff.stable_after},
            "cached_tokens": {"before": diff.cached_before, "after": diff.cached_after},
            "per_month_usd": {"before": round(diff.cost_before, 6), "after": round(diff.cost_after, 6),
                              "change": diff.cost_change},
        },
        "counts": {s: diff.count(s) for s in ("changed", "renamed", "added", "removed", "unchanged")},
        "prompts": [p.as_dict() for p in diff.prompts],
        "findings": {"compared": diff.findings_compared,
                     "introduced": [finding(f) for f in diff.introduced],
                     "resolved": [finding(f) for f in diff.resolved]},
        "notes": list(diff.notes),
        "gate": diff.gate.as_dict() if diff.gate is not None else None,
        "sources": sources_note(diff),
        "errors": errors or [],
    }


def render_json(diff: Diff, errors: list[dict] | None = None) -> str:
    return json.dumps(to_json(diff, errors), indent=2, ensure_ascii=False) + "\n"


# -- text -----------------------------------------------------------------------

def _prompt_label(p: PromptChange) -> str:
    if p.status == "renamed" and p.before is not None and p.after is not None and \
            (p.before.path, p.before.name) != (p.after.path, p.after.name):
        return f"{p.before.path} [{p.before.name}] -> {p.after.path} [{p.after.name}]"
    return f"{p.path} [{p.name}]"


def _finding_line(f: FindingRecord) -> str:
    return f"{f.path}:{f.line}:{f.column}: {f.rule} {f.message}{_cost(f)}"


def render_text(diff: Diff) -> str:
    out = [f"promptlint diff: {diff.base_label} -> {diff.head_label}; model {diff.model}", headline(diff),
           *_gate_lines(diff), ""]
    changed = [p for p in diff.prompts if p.status != "unchanged"]
    if changed:
        counts = ", ".join(f"{diff.count(s):,} {s}" for s in ("changed", "renamed", "added", "removed") if diff.count(s))
        out.append(f"{len(changed):,} prompt(s) differ ({counts}):")
        for p in changed:
            stable, cached, cost, change = (s.replace("→", "->").replace("—", "-") for s in _fields(p))
            out.append(f"  {_status_word(p):<20} {_prompt_label(p)}")
            out.append(f"      stable prefix {stable}; cached {cached}; $/month {cost}; change {change}")
    else:
        out.append("No prompt's figures differ.")
    unchanged = diff.count("unchanged")
    if unchanged:
        out.append(f"{unchanged} prompt(s) unchanged.")
    if diff.findings_compared:
        out.append("")
        out.append(f"Findings introduced ({len(diff.introduced)}):")
        out += [f"  {_finding_line(f)}" for f in diff.introduced]
        out.append(f"Findings resolved ({len(diff.resolved)}):")
        out += [f"  {_finding_line(f)}" for f in diff.resolved]
    out.append("")
    out += [f"Note: {n}" for n in diff.notes]
    out.append(f"Sources: {sources_note(diff)}".replace("`", ""))
    return "\n".join(out) + "\n"


# -- Markdown -------------------------------------------------------------------

def _code(text: str) -> str:
    """A code span that survives a table cell: pipes escaped, backticks fenced."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _plain(text: str) -> str:
    """Prose from a prompt file or a rule message, safe in Markdown: no HTML, no table breaks."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def _md_prompt(p: PromptChange) -> str:
    if p.status == "renamed" and p.before is not None and p.after is not None:
        old = f"{_code(p.before.path)} {_plain(p.before.name)}"
        return f"{old} → {_code(p.after.path)} {_plain(p.after.name)}"
    return f"{_code(p.path)} {_plain(p.name)}"


def _md_row(p: PromptChange) -> str:
    stable, cached, cost, change = _fields(p)
    return f"| {_md_prompt(p)} | {_status_word(p)} | {stable} | {cached} | {cost} | {change} |"


def _cost(f: FindingRecord) -> str:
    """What the fault costs, as `promptlint check` prints it."""
    if f.tokens is None:
        return ""
    money = f"; ~${f.usd_per_month:,.2f}/month on {f.model}" if f.usd_per_month else ""
    return f" ({f.tokens:,} tokens{money})"


def _md_finding(f: FindingRecord) -> str:
    src = f" at {_code(f.text)}" if f.text.strip() and len(f.text) <= 80 else ""
    # the short clause check prints (the comment is read on a pull request); the whole reason is in JSON
    return f"- **{f.rule}** {_code(f'{f.path}:{f.line}:{f.column}')}{src}: {_plain((f.summary or f.message) + _cost(f))}"


def _md_breaker(b: dict | None) -> str:
    if not b:
        return "none"
    loc = b.get("location") or {}
    where = f" at {_code(str(loc['path']) + ':' + str(loc.get('line')))}" if loc.get("path") else ""
    return f"{_code(b.get('slot', '?'))} ({_plain(b.get('volatility', '?'))}, {_plain(b.get('scope', '?'))}){where}"


def _md_breaker_row(p: PromptChange) -> str:
    before = _md_breaker(p.before.breaker) if p.before else "—"
    after = _md_breaker(p.after.breaker) if p.after else "—"
    return f"| {_md_prompt(p)} | {before} | {after} |"


TABLE_HEAD = ["| Prompt | Status | Stable prefix¹ | Cached tokens¹ | $/month¹ | Change |",
              "|---|---|---:|---:|---:|---:|"]


class _Section:
    """Lines before the rows, the rows (each a whole item that may be cut), lines after."""

    def __init__(self, kind: str, opening: list[str], rows: list[str], closing: list[str]):
        self.kind, self.opening, self.rows, self.closing = kind, opening, rows, closing


def _sections(diff: Diff) -> list[_Section]:
    changed = [p for p in diff.prompts if p.status != "unchanged"]
    unchanged = [p for p in diff.prompts if p.status == "unchanged"]
    out: list[_Section] = []
    if changed:
        out.append(_Section("prompt", ["", *TABLE_HEAD], [_md_row(p) for p in changed], []))
    if diff.findings_compared:
        if diff.introduced:
            out.append(_Section("finding", ["", f"#### Findings introduced ({len(diff.introduced)})", ""],
                                [_md_finding(f) for f in diff.introduced], []))
        if diff.resolved:
            out.append(_Section("finding", ["", f"<details><summary>Findings resolved ({len(diff.resolved)})</summary>",
                                            ""], [_md_finding(f) for f in diff.resolved], ["", "</details>"]))
    breakers = [p for p in changed if (p.before and p.before.breaker) or (p.after and p.after.breaker)]
    if breakers:
        opening = ["", "<details><summary>First cache breaker, before and after</summary>", "",
                   "| Prompt | Before | After |", "|---|---|---|"]
        out.append(_Section("breaker", opening, [_md_breaker_row(p) for p in breakers], ["", "</details>"]))
    if unchanged:
        summary = f"<details><summary>{len(unchanged):,} unchanged prompt{'s' if len(unchanged) != 1 else ''}</summary>"
        out.append(_Section("prompt", ["", summary, "", *TABLE_HEAD], [_md_row(p) for p in unchanged],
                            ["", "</details>"]))
    return out


def _assemble(diff: Diff, sections: list[_Section], keep: int) -> str:
    """The body with the first `keep` rows (in document order); a section
    with none of its rows kept is left out whole."""
    left_out = {"prompt": 0, "finding": 0, "breaker": 0}
    body: list[str] = []
    budget = keep
    for s in sections:
        n = min(budget, len(s.rows))
        budget -= n
        left_out[s.kind] += len(s.rows) - n
        if n:
            body += s.opening + s.rows[:n] + s.closing
    changed = [p for p in diff.prompts if p.status != "unchanged"]
    counts = ", ".join(f"{diff.count(s):,} {s}" for s in ("changed", "renamed", "added", "removed") if diff.count(s))
    base = f"`{diff.base_label}`" if diff.base_kind == "git" else f"the report `{diff.base_label}`"
    differ = f"{len(changed):,} prompt{' differs' if len(changed) == 1 else 's differ'}"
    head = [MARKER, f"### promptlint: {_plain(headline(diff))}", *(f"> **{line}**" for line in _gate_lines(diff)), "",
            (f"Comparing {base} with the {diff.head_label}: {differ}"
             f"{f' ({counts})' if counts else ''}, {diff.count('unchanged'):,} unchanged.")]
    if diff.findings_compared:
        head.append(f"Findings: {len(diff.introduced):,} introduced, {len(diff.resolved):,} resolved.")
    if left_out["prompt"] or left_out["finding"] or left_out["breaker"]:
        parts = [f"{left_out['prompt']:,} prompt row{'s' if left_out['prompt'] != 1 else ''}",
                 f"{left_out['finding']:,} finding{'s' if left_out['finding'] != 1 else ''}"]
        if left_out["breaker"]:
            parts.append(f"{left_out['breaker']:,} cache-breaker row{'s' if left_out['breaker'] != 1 else ''}")
        head += ["", (f"> **Truncated:** this comment was cut to fit GitHub's {GITHUB_COMMENT_LIMIT:,}-character "
                      f"limit; {', '.join(parts[:-1])} and {parts[-1]} were left out. "
                      f"Run `promptlint diff --format json` for the whole diff.")]
    foot = ["", *(f"> {_plain(n)}" for n in diff.notes)] if diff.notes else []
    foot += ["", f"<sub>¹ {sources_note(diff)} Generated by promptlint {__version__}.</sub>", ""]
    return "\n".join(head + body + foot)


def body_length(text: str) -> int:
    """Length in UTF-16 code units (never fewer than code points), so a body
    that fits here fits however GitHub counts it."""
    return len(text.encode("utf-16-le")) // 2


def _gate_lines(diff: Diff) -> list[str]:
    gate = diff.gate
    if gate is None or not gate.failed:
        return []
    return [f"Fails the cost gate: {'; '.join(gate.failed)}."]


def render_markdown(diff: Diff, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """The pull-request comment body, at most `limit` characters: whole rows
    (then whole sections) are cut from the end until it fits. A change
    under --min-change-* is a short body that says so (no comment)."""
    if diff.gate is not None and not diff.gate.material:
        return (f"{MARKER}\n{BELOW_THRESHOLD}\npromptlint: {_plain(diff.gate.quiet_reason)}; no comment "
                f"({_plain(headline(diff))}).\n")
    sections = _sections(diff)
    total = sum(len(s.rows) for s in sections)
    body = _assemble(diff, sections, total)
    if body_length(body) <= limit:
        return body
    lo, hi = 0, total - 1  # the largest number of rows that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if body_length(_assemble(diff, sections, mid)) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return _assemble(diff, sections, lo)


def render(diff: Diff, fmt: str, errors: list[dict] | None = None) -> str:
    if fmt == "json":
        return render_json(diff, errors)
    if fmt == "markdown":
        return render_markdown(diff)
    return render_text(diff)
