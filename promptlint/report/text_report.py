"""The human report: a rich table per prompt in a terminal, the same content
as plain aligned text when stdout is not a terminal (CI logs, pipes)."""

from __future__ import annotations

from promptlint.audit import MIN_BREAKER_GAIN, AuditResult, PromptResult
from promptlint.economics.providers import table_date
from promptlint.analysis.prefix import unknown_inputs, varying_slots
from promptlint.ir import Scope

SCOPE_WORDS = {"global": "all users", "user": "per user", "session": "per session"}
HEADERS = ("model", "tokens", "cached (all users)", "prefill saved/req", "$/1k req",
           "$/mo no cache", "$/mo cached", "saved/mo", "if fixed")


def tokens(n: float) -> str:
    return f"{n:,.0f}"


def money(x: float) -> str:
    return f"${x:,.2f}"


def pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _rows(p: PromptResult) -> list[tuple[str, ...]]:
    rows = []
    for m in p.models:
        spec = m.spec
        tok = "exact" if spec.tokenizer_exact else "proxy"
        c = m.cost
        fixed = "-"
        if p.tokens_lost >= MIN_BREAKER_GAIN and m.if_fixed is not None:
            fixed = "+" + money(m.if_fixed.saving_per_month - c.saving_per_month)
        cached = tokens(m.cached["global"]) + (f" ({m.cut})" if m.cut else "")
        rows.append((spec.key, tok, cached,
                     f"{tokens(c.expected_cached_tokens)} ({pct(c.prefill_saved_fraction)})",
                     f"{money(c.cost_per_1k_requests_uncached)} -> {money(c.cost_per_1k_requests_cached)}",
                     money(c.cost_per_month_uncached), money(c.cost_per_month_cached),
                     money(c.saving_per_month), fixed))
    return rows


def _model_lines(p: PromptResult) -> list[str]:
    """The table's content as one line per model, for narrow terminals."""
    out = []
    for m, row in zip(p.models, _rows(p)):
        c = m.cost
        line = (f"  {row[0]} ({row[1]} tokens): caches {row[2]} for all users; saves {row[3]} prefill "
                f"tokens/request; {row[4]} per 1k requests; {row[5]} -> {row[6]} per month (saves {row[7]})")
        if row[8] != "-":
            line += f"; fixed: {row[8]} more per month"
        out.append(line)
    return out


def _headline(p: PromptResult) -> list[str]:
    t = p.template
    a = p.primary
    lines = [f"{t.location()}  [{t.format}] {t.name}: {tokens(a.total_tokens)} tokens ({a.tokenizer})"]
    stable = ", ".join(f"{tokens(a.stable(s.key))} {SCOPE_WORDS[s.key]}" for s in Scope)
    lines.append(f"  stable prefix: {stable}")
    lines += _unknown_line(p)
    lines += _conversation_line(p)
    sp = p.breaker
    if sp is None:
        lines.append("  nothing varies: the whole prompt is stable")
        return lines
    slot = sp.breaker
    where = slot.span.location() if slot.span else t.location()
    described = f"{where} {slot.label} [{slot.volatility.label}] {slot.reason}"
    if p.tokens_lost < MIN_BREAKER_GAIN:
        follows = ("little stable text of the template follows it, but the conversation does (above)"
                   if p.turn_breaker else "no stable content worth caching follows it")
        lines.append(f"  stable prefix ends ({SCOPE_WORDS[sp.scope.key]}) at {described}; {follows}")
        return lines
    fixed = p.fixed[a.tokenizer]
    lines.append(f"  cache breaker ({SCOPE_WORDS[sp.scope.key]}): {described}")
    after = ", ".join(f"{tokens(fixed.stable(s.key))} {SCOPE_WORDS[s.key]}" for s in Scope)
    others = len(varying_slots(t, sp.scope)) - 1
    more = f" (with {others} more volatile slot{'s' if others != 1 else ''} after it)" if others > 0 else ""
    from promptlint.checks.measure import tokens_after

    ahead = tokens_after(a, slot, sp.scope)
    lines.append(f"  it sits ahead of {tokens(ahead)} stable tokens; with the volatile content{more} "
                 f"moved after the stable content, the stable prefix would be: {after}")
    return lines


def _conversation_line(p: PromptResult) -> list[str]:
    """What a per-request value ahead of the conversation history costs a turn."""
    chat = p.conversation
    if chat is None or chat.breaker is None:
        return []
    at = chat.breaker.span.location() if chat.breaker.span else p.template.location()
    hist = chat.history.span.line_col if chat.history.span else (1, 1)
    return [f"  conversation: {at} {chat.breaker.label} [{chat.breaker.volatility.label}] sits ahead of the history "
            f"at {hist[0]}:{hist[1]}: every turn re-sends about {tokens(chat.lost_per_turn)} tokens uncached "
            f"({tokens(chat.stable_after)} stable after it + the conversation so far, "
            f"{tokens(chat.tokens_per_turn)} x ({chat.turns:.1f} - 1) / 2 = {tokens(chat.mean_history)} on average)"]


def _unknown_line(p: PromptResult) -> list[str]:
    """The stable prefix if the inputs with no evidence changed per request."""
    a = p.primary
    bounds = {s.key: a.scopes[s.key].if_unknown_vary for s in Scope}
    if all(b is None for b in bounds.values()):
        return []
    names = unknown_inputs(p.template)
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    figures = ", ".join(f"{tokens(a.stable(k) if b is None else b)} {SCOPE_WORDS[k]}" for k, b in bounds.items())
    return [f"  if the inputs with no evidence of their volatility ({shown}) changed per request: {figures} "
            f"(held fixed above; declare them in [tool.promptlint.variables])"]


def _verbose(p: PromptResult) -> list[str]:
    lines = []
    for m in p.models:
        lines.append(f"  {m.spec.key}: {m.cost.formula}")
        lines.append("    inputs: " + ", ".join(f"{k}={v}" for k, v in m.cost.inputs.items()))
        src = m.spec.sources
        lines.append("    sources: " + "; ".join(f"{k}: {v}" for k, v in src.items()))
    return lines


def _counts(result: AuditResult) -> str:
    """What was read, and what went wrong (the same words as check's summary)."""
    from promptlint.report.words import nothing_read, problems, scope, skipped

    trouble = problems(len(result.errors), result.missing)
    head = (None if trouble else nothing_read(len(result.prompts), result.files)) or \
        scope(len(result.prompts), result.files)
    return "; ".join([head, *trouble, *skipped(result.notes)]) + "."


def _footer(result: AuditResult, config) -> list[str]:
    """The counts, then what the figures above rest on: only when there are
    figures above (an audit of no prompt prints the counts alone)."""
    if not result.prompts:
        return [_counts(result)]
    tr = config.traffic
    lines = [
        _counts(result),
        f"Traffic model (per prompt): {tokens(tr.requests_per_day)} requests/day, {tokens(tr.users)} users, "
        f"{tr.sessions_per_user_per_day:g} sessions/user/day, {tr.days_per_month:g}-day month; "
        f"a prefix is warm with probability 1 - exp(-rate x TTL).",
        f"Prices and cache rules: provider table dated {table_date()} (run with -v for each value's source).",
    ]
    shown = {m.spec.key for p in result.prompts for m in p.models}
    proxies = sorted({f"{m.key}: {m.tokenizer_note}" for m in result.models
                      if not m.tokenizer_exact and m.key in shown})
    if proxies:
        lines.append("Proxy tokenizers: " + "; ".join(proxies))
    return lines


def render_plain(result: AuditResult, config, verbose: bool) -> str:
    out: list[str] = []
    for p in result.prompts:
        out.extend(_headline(p))
        rows = [HEADERS, *_rows(p)]
        widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
        for r in rows:
            out.append("    " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
        if verbose:
            out.extend(_verbose(p))
        out.append("")
    out.extend(_footer(result, config))
    return "\n".join(out) + "\n"


def print_rich(result: AuditResult, config, verbose: bool, console) -> None:
    """For the terminal's width: a line too long wraps under its own indent,
    never back to column 0; below 130 columns the table becomes one line
    per model."""
    from rich.table import Table

    def say(line: str, style=None) -> None:
        console.print(_hanging(line, style))

    for p in result.prompts:
        head = _headline(p)
        say(head[0], "bold")
        for line in head[1:]:
            say(line, "yellow" if "breaker" in line and "no cache breaker" not in line else None)
        if console.width < 130:  # too narrow for the table: one line per model
            for line in _model_lines(p):
                say(line)
            if verbose:
                for line in _verbose(p):
                    say(line, "dim")
            console.print()
            continue
        table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold dim")
        for h in HEADERS:
            table.add_column(h, justify="left" if h in ("model", "tokens") else "right", no_wrap=h == "model")
        for r in _rows(p):
            table.add_row(*r)
        console.print(table)
        if verbose:
            for line in _verbose(p):
                say(line, "dim")
        console.print()
    for line in _footer(result, config):
        say(line, "dim")


def _hanging(line: str, style=None):
    """`line` at its indent, its continuation lines under its first (rich
    would wrap them to column 0)."""
    from rich.padding import Padding
    from rich.text import Text

    indent = len(line) - len(line.lstrip(" "))
    return Padding(Text(line.lstrip(" "), style=style or ""), (0, 0, 0, indent), expand=False)
