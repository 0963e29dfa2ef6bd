"""`promptlint diff`: the audit of a base (a git revision, or an earlier JSON
audit report) beside the audit of the working tree, prompt by prompt.

Both sides are JSON audit reports (docs/json-report.md, schema 1.x): the
working tree's is built with `json_report.build`, the base's is built the
same way from the revision's files or read back from `--compare-to`. Every
figure in the diff is one of those reports' numbers, for the first selected
model:

- stable prefix: `prompts[].tokenizers[<the model's tokenizer>].stable_prefix_tokens.global`
  (tokens shared by all users);
- cached tokens: `prompts[].models[<model>].cached_tokens.global`;
- $/month: `prompts[].models[<model>].cost.per_month_usd.cached`.

Prompts are matched by path and name; then across files git saw renamed
(`git diff --name-status -M`); then by the same name in another path when
that name is unambiguous among the unmatched prompts. The rest are added or
removed. Findings (`promptlint check` on both sides) are matched by rule,
path (renames followed) and the source text they point at, never by line
number, so moved lines are neither introduced nor resolved.

This module compares; it never prints and never runs git.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

DIFF_SCHEMA_VERSION = "1.0"
SUPPORTED_MAJOR = "1"


class ReportError(Exception):
    """A base report that cannot be compared (exit 2)."""


# -- reading audit reports ------------------------------------------------------

def validate_report(data, source: str = "report") -> dict:
    """Check that `data` is a promptlint audit report of schema 1.x; ReportError otherwise."""
    if not isinstance(data, dict):
        raise ReportError(f"{source}: not a promptlint audit report (expected a JSON object)")
    version = data.get("schema_version")
    if not isinstance(version, str) or not version:
        raise ReportError(f"{source}: not a promptlint audit report (no schema_version); "
                          f"write one with `promptlint audit --format json`")
    if version.split(".", 1)[0] != SUPPORTED_MAJOR:
        raise ReportError(f"{source}: schema_version {version} is not supported "
                          f"(this promptlint reads audit reports of schema {SUPPORTED_MAJOR}.x)")
    prompts = data.get("prompts")
    if not isinstance(prompts, list):
        kind = "a check report" if "findings" in data else "not an audit report"
        raise ReportError(f"{source}: {kind}: no 'prompts' list; write it with `promptlint audit --format json`")
    for i, p in enumerate(prompts):
        if not isinstance(p, dict):
            raise ReportError(f"{source}: prompts[{i}] is not an object")
        for key, kind in (("path", str), ("name", str), ("tokenizers", dict), ("models", list)):
            if not isinstance(p.get(key), kind):
                raise ReportError(f"{source}: prompts[{i}] lacks {key!r} (a {kind.__name__})")
        for j, m in enumerate(p["models"]):
            if not isinstance(m, dict) or not isinstance(m.get("model"), str):
                raise ReportError(f"{source}: prompts[{i}].models[{j}] lacks 'model'")
    return data


def first_model(report: dict) -> str | None:
    models = (report.get("provider_table") or {}).get("models") or []
    if models:
        return models[0]
    for p in report.get("prompts", []):
        if p["models"]:
            return p["models"][0]["model"]
    return None


@dataclass
class Figures:
    """One prompt's numbers on one side, for the diff's model."""

    path: str
    name: str
    stable_prefix: int | None  # tokens shared by all users
    cached: int | None  # tokens the provider caches (all users)
    per_month: float | None  # USD per month with caching
    total_tokens: int | None
    cache_breaker: bool = False
    breaker: dict | None = None  # the report's first_breaker


def _num(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def figures(prompt: dict, model: str | None, tokenizer: str | None) -> Figures:
    m = next((m for m in prompt["models"] if m.get("model") == model), None)
    tok = (m or {}).get("tokenizer") or tokenizer
    tokenizers = prompt["tokenizers"]
    t = tokenizers.get(tok) if tok in tokenizers else None
    if t is None and m is None and tokenizers:
        t = next(iter(tokenizers.values()))
    t = t if isinstance(t, dict) else {}
    stable = _num((t.get("stable_prefix_tokens") or {}).get("global"))
    cached = _num(((m or {}).get("cached_tokens") or {}).get("global"))
    cost = (((m or {}).get("cost") or {}).get("per_month_usd") or {}).get("cached")
    return Figures(prompt["path"], prompt["name"], stable, cached, _num(cost),
                   _num((m or {}).get("total_tokens", t.get("total_tokens"))),
                   bool(prompt.get("cache_breaker")), prompt.get("first_breaker"))


# -- findings -------------------------------------------------------------------

@dataclass
class FindingRecord:
    rule: str
    severity: str
    path: str
    line: int
    column: int
    message: str
    text: str  # the source text the finding points at
    prompt: str | None = None
    tokens: int | None = None
    usd_per_month: float | None = None
    model: str | None = None
    summary: str | None = None  # the finding in one clause (check's concise line); `message` in full

    def key(self, path: str | None = None) -> tuple[str, str, str]:
        return (self.rule, path or self.path, " ".join(self.text.split()))

    def as_dict(self) -> dict:
        return {"code": self.rule, "severity": self.severity, "message": self.message,
                "summary": self.summary or self.message,
                "location": {"path": self.path, "line": self.line, "column": self.column},
                "source": self.text, "prompt": self.prompt, "tokens": self.tokens,
                "usd_per_month": None if self.usd_per_month is None else round(self.usd_per_month, 6),
                "model": self.model}


def finding_records(findings, path_map=lambda p: p, scrub=lambda s: s) -> list[FindingRecord]:
    """Plain records of `promptlint.checks.base.Finding`s, paths passed through `path_map`."""
    out = []
    for f in findings:
        line, col = f.line_col
        out.append(FindingRecord(f.rule, f.severity.label, path_map(f.path), line, col, scrub(f.message),
                                 f.span.source_text, f.prompt, f.tokens, f.usd_per_month, f.model,
                                 scrub(f.summary) if f.summary else None))
    return out


# -- the comparison -------------------------------------------------------------

@dataclass
class PromptChange:
    status: str  # changed | unchanged | added | removed | renamed
    before: Figures | None
    after: Figures | None
    how: str | None = None  # for renamed: "git" or "name"

    @property
    def path(self) -> str:
        return (self.after or self.before).path

    @property
    def name(self) -> str:
        return (self.after or self.before).name

    @property
    def change(self) -> float | None:
        before = self.before.per_month if self.before else 0.0
        after = self.after.per_month if self.after else 0.0
        if before is None or after is None:
            return None
        return after - before

    def as_dict(self) -> dict:
        def side(f: Figures | None):
            if f is None:
                return None
            return {"path": f.path, "name": f.name, "stable_prefix_tokens": f.stable_prefix,
                    "cached_tokens": f.cached, "per_month_usd": None if f.per_month is None else round(f.per_month, 6),
                    "total_tokens": f.total_tokens, "cache_breaker": f.cache_breaker, "first_breaker": f.breaker}
        change = self.change
        return {"status": self.status, "path": self.path, "name": self.name, "renamed_by": self.how,
                "before": side(self.before), "after": side(self.after),
                "change_per_month_usd": None if change is None else round(change, 6)}


@dataclass
class Diff:
    base_label: str  # "HEAD~1 (1a2b3c4)" or "base.json"
    base_kind: str  # "git" or "report"
    head_label: str
    model: str | None
    tokenizer: str | None
    tokenizer_exact: bool | None
    base_report: dict
    head_report: dict
    prompts: list[PromptChange] = field(default_factory=list)
    introduced: list[FindingRecord] = field(default_factory=list)
    resolved: list[FindingRecord] = field(default_factory=list)
    findings_compared: bool = False
    notes: list[str] = field(default_factory=list)
    base_commit: str | None = None
    gate: GateVerdict | None = None  # set when the run gave thresholds

    def _sum(self, side: str, attr: str):
        vals = [getattr(getattr(p, side), attr) for p in self.prompts if getattr(p, side) is not None]
        return sum(v for v in vals if v is not None)

    @property
    def stable_before(self) -> int:
        return self._sum("before", "stable_prefix")

    @property
    def stable_after(self) -> int:
        return self._sum("after", "stable_prefix")

    @property
    def cached_before(self) -> int:
        return self._sum("before", "cached")

    @property
    def cached_after(self) -> int:
        return self._sum("after", "cached")

    @property
    def cost_before(self) -> float:
        return self._sum("before", "per_month")

    @property
    def cost_after(self) -> float:
        return self._sum("after", "per_month")

    @property
    def cost_change(self) -> float:
        return round(self.cost_after - self.cost_before, 6)

    @property
    def cost_rises(self) -> bool:
        return self.cost_change > 0

    @property
    def cost_change_pct(self) -> float | None:
        """The monthly change as a percentage of the base's cost; None for a
        rise from nothing (no percentage of $0 describes it)."""
        if self.cost_before > 0:
            return round(self.cost_change / self.cost_before * 100, 4)
        return 0.0 if self.cost_change == 0 else None

    @property
    def traffic(self) -> dict:
        return self.head_report.get("traffic") or {}

    @property
    def table_date(self) -> str | None:
        return (self.head_report.get("provider_table") or {}).get("updated")

    def count(self, status: str) -> int:
        return sum(1 for p in self.prompts if p.status == status)


@dataclass(frozen=True)
class Gates:
    """Thresholds on the monthly cost change (`diff --fail-above-* /
    --min-change-*`); None: not given."""

    fail_above_usd: float | None = None
    fail_above_pct: float | None = None
    min_change_usd: float | None = None
    min_change_pct: float | None = None

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.fail_above_usd, self.fail_above_pct, self.min_change_usd,
                                           self.min_change_pct))

    def verdict(self, diff: Diff) -> GateVerdict:
        change, pct = diff.cost_change, diff.cost_change_pct
        failed = []
        if self.fail_above_usd is not None and change > self.fail_above_usd:
            failed.append(f"+${change:,.2f}/month is above --fail-above-usd {self.fail_above_usd:g}")
        if self.fail_above_pct is not None and change > 0 and (pct is None or pct > self.fail_above_pct):
            what = "a rise from $0/month" if pct is None else f"+{pct:,.1f}%"
            failed.append(f"{what} is above --fail-above-pct {self.fail_above_pct:g}")
        minimums = [(self.min_change_usd, abs(change), f"${abs(change):,.2f}", "--min-change-usd"),
                    (self.min_change_pct, None if pct is None else abs(pct),
                     "n/a" if pct is None else f"{abs(pct):,.1f}%", "--min-change-pct")]
        given = [(limit, value, shown, name) for limit, value, shown, name in minimums if limit is not None]
        small = bool(given) and all(value is not None and value < limit for limit, value, _, _ in given)
        quiet = ("the monthly cost change (" + ", ".join(shown for _, _, shown, _ in given) + ") is under "
                 + " and ".join(f"{name} {limit:g}" for limit, _, _, name in given)) if small else None
        return GateVerdict(change, pct, tuple(failed), quiet)


@dataclass(frozen=True)
class GateVerdict:
    change_usd: float
    change_pct: float | None  # None: a rise from $0
    failed: tuple[str, ...]  # each --fail-above-* passed, said
    quiet_reason: str | None  # why there is no comment (under every --min-change-* given)

    @property
    def material(self) -> bool:
        """Worth a comment: at or over a --min-change-*, or none given."""
        return self.quiet_reason is None

    def as_dict(self) -> dict:
        return {"change_per_month_usd": round(self.change_usd, 6), "change_pct": self.change_pct,
                "material": self.material, "failed": list(self.failed), "quiet_reason": self.quiet_reason}


def _same(a: Figures, b: Figures) -> bool:
    def r(x):
        return None if x is None else round(x, 6)
    return (a.stable_prefix, a.cached, r(a.per_month), a.total_tokens, a.cache_breaker) == \
        (b.stable_prefix, b.cached, r(b.per_month), b.total_tokens, b.cache_breaker)


def _suffix(name: str) -> str:
    return name.split(":", 1)[1] if ":" in name else name


def match_prompts(before: list[Figures], after: list[Figures], renames: dict[str, str] | None = None
                  ) -> tuple[list[PromptChange], dict[str, str]]:
    """Pair the prompts of two sides. `renames`: {new path: old path} from git.
    Returns the changes and the file moves used ({old path: new path})."""
    renames = renames or {}
    changes: list[PromptChange] = []
    moves: dict[str, str] = {old: new for new, old in renames.items()}
    left = list(before)
    right = list(after)

    def pair(b: Figures, a: Figures, how: str | None):
        left.remove(b)
        right.remove(a)
        if how is not None:
            changes.append(PromptChange("renamed", b, a, how))
        else:
            changes.append(PromptChange("unchanged" if _same(b, a) else "changed", b, a))

    # 1. same path, same name
    index = {(a.path, a.name): a for a in right}
    for b in list(left):
        a = index.pop((b.path, b.name), None)
        if a is not None:
            pair(b, a, None)
    # 2. files git saw renamed: by name, then the only one left, then by the part after "file:"
    for new, old in renames.items():
        olds = [b for b in left if b.path == old]
        news = [a for a in right if a.path == new]
        for b in list(olds):
            a = next((a for a in news if a.name == b.name), None)
            if a is not None:
                pair(b, a, "git")
                olds.remove(b)
                news.remove(a)
        if len(olds) == 1 and len(news) == 1:
            pair(olds[0], news[0], "git")
            continue
        for b in list(olds):
            cands = [a for a in news if _suffix(a.name) == _suffix(b.name)]
            if len(cands) == 1:
                pair(b, cands[0], "git")
                news.remove(cands[0])
    # 3. the same name in another path, when only one prompt on each side has it
    left_names = Counter(b.name for b in left)
    right_names = Counter(a.name for a in right)
    for b in list(left):
        if left_names[b.name] == 1 and right_names[b.name] == 1:
            a = next(a for a in right if a.name == b.name)
            pair(b, a, "name")
            moves.setdefault(b.path, a.path)
    changes += [PromptChange("removed", b, None) for b in left]
    changes += [PromptChange("added", None, a) for a in right]
    return changes, moves


def match_findings(before: list[FindingRecord], after: list[FindingRecord], moves: dict[str, str]
                   ) -> tuple[list[FindingRecord], list[FindingRecord]]:
    """(introduced, resolved): findings keyed by rule, path (base paths moved
    to their new names) and source text; counted, so a second copy of the same
    fault is still new."""
    base_keys = Counter(f.key(moves.get(f.path, f.path)) for f in before)
    head_keys = Counter(f.key() for f in after)
    introduced, resolved = [], []
    seen: Counter = Counter()
    for f in after:
        k = f.key()
        seen[k] += 1
        if seen[k] > base_keys.get(k, 0):
            introduced.append(f)
    seen = Counter()
    for f in before:
        k = f.key(moves.get(f.path, f.path))
        seen[k] += 1
        if seen[k] > head_keys.get(k, 0):
            resolved.append(f)
    return introduced, resolved


def _impact(p: PromptChange):
    """Biggest change in money first, unchanged prompts last (a cut comment loses the least)."""
    return (p.status == "unchanged", -abs(p.change or 0.0), p.path, p.name)


def compare(base_report: dict, head_report: dict, *, base_label: str, base_kind: str,
            head_label: str = "working tree", renames: dict[str, str] | None = None,
            base_findings: list[FindingRecord] | None = None, head_findings: list[FindingRecord] | None = None,
            base_commit: str | None = None) -> Diff:
    """The diff of two audit reports (and, when both are given, of their findings)."""
    model = first_model(head_report) or first_model(base_report)
    head_model = next((m for p in head_report["prompts"] for m in p["models"] if m.get("model") == model), None)
    base_model = next((m for p in base_report["prompts"] for m in p["models"] if m.get("model") == model), None)
    some = head_model or base_model or {}
    tokenizer = some.get("tokenizer")
    diff = Diff(base_label, base_kind, head_label, model, tokenizer, some.get("tokenizer_exact"),
                base_report, head_report, base_commit=base_commit)
    before = [figures(p, model, tokenizer) for p in base_report["prompts"]]
    after = [figures(p, model, tokenizer) for p in head_report["prompts"]]
    changes, moves = match_prompts(before, after, renames)
    diff.prompts = sorted(changes, key=_impact)
    if base_findings is not None and head_findings is not None:
        diff.introduced, diff.resolved = match_findings(base_findings, head_findings, moves)
        diff.findings_compared = True
    else:
        diff.notes.append("Findings are compared only with --base: an audit report carries no lint findings.")
    base_models = (base_report.get("provider_table") or {}).get("models") or []
    if base_report["prompts"] and model is not None and model not in base_models and base_model is None:
        diff.notes.append(f"The base report has no figures for {model}: its cached tokens and costs are n/a.")
    for key, what in (("traffic", "traffic"), ("provider_table", "provider table")):
        b, h = base_report.get(key), head_report.get(key)
        if key == "provider_table":
            b, h = (b or {}).get("updated"), (h or {}).get("updated")
        if b is not None and h is not None and b != h:
            diff.notes.append(f"The base used a different {what} ({_short(b)}) from the working tree ({_short(h)}): "
                              f"part of the change in cost comes from that, not from the prompts.")
    base_errors = base_report.get("errors") or []
    if base_errors:
        diff.notes.append(f"{len(base_errors)} base file(s) could not be read; their prompts count as added.")
    return diff


def _short(value) -> str:
    if isinstance(value, dict):
        keys = ("requests_per_day", "users", "sessions_per_user_per_day", "session_minutes", "days_per_month")
        return ", ".join(f"{k}={value.get(k)}" for k in keys if k in value)
    return str(value)
