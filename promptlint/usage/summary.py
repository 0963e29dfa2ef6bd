"""Per prompt: the real cached-token rate from a usage log, and the money it
costs against what the audit predicts.

For each group (see `group`) and each model in it:

- requests, prompt tokens, cached tokens, the cached-token rate
  (cached / prompt) and cache writes;
- the actual input cost, priced from the provider table (`FORMULA`):
  uncached x price + cached x price x read multiplier + writes x price x
  write multiplier (1-hour writes at the 1-hour multiplier). Anthropic
  reports writes apart from its input tokens and charges them 1.25x (5m) or
  2x (1h); OpenAI and Gemini report none, and their table rows have a write
  multiplier of 1.0 (no surcharge), so their cost is uncached + cached reads;
- the predicted cost: the same requests if each had read from the cache what
  the audit predicts for that prompt and model (``predicted cached tokens per
  request``, at most the request's prompt tokens) and written nothing, the
  steady state of a warm cache;
- the money lost: actual - predicted, in total, per logged request and per
  1,000 requests. Negative when the log cached more than the prediction (for
  example conversation history cached within a session, which the
  all-users scope leaves out).

Model names in logs carry dates and versions ("gpt-4.1-2025-04-14",
"claude-sonnet-4-5-20250929", "models/gemini-2.5-flash"): `resolve_model`
tries the provider table's own `resolve` first, then the name without a
trailing date or version suffix. An unknown model gets no money, and its
``note`` says why. Every money figure names its source: the provider table
and the date it was last checked (``table_date()``), and any field a user
overrode in config.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from promptlint.economics.providers import (
    USER_SOURCE,
    ModelSpec,
    load_table,
    resolve,
    table_date,
)

from .group import UsageGroup
from .parse import UsageRecord

__all__ = [
    "FORMULA",
    "GroupSummary",
    "ModelCost",
    "Predicted",
    "UsageSummary",
    "UsageTally",
    "predictor_from_audit",
    "record_cost",
    "resolve_model",
    "summarize",
]

FORMULA = (
    "actual input cost = (uncached + cached*read_mult + writes_5m*write_mult + writes_1h*write_mult_1h)"
    " * price_per_mtok / 1e6, uncached = prompt - cached - writes; "
    "predicted = ((prompt - p) + p*read_mult) * price_per_mtok / 1e6, p = min(predicted cached, prompt); "
    "lost = actual - predicted"
)

# A group key -> predicted cached tokens per request (None: no prediction), or
# a function of (group, model spec) giving it.
Predicted = Mapping[str, "int | None"] | Callable[[UsageGroup, ModelSpec], "int | None"]

# Trailing suffixes that name a snapshot of a model the table lists once.
_PREFIXES = re.compile(r"^(models/|publishers/[^/]+/models/)")
_SUFFIXES = (
    re.compile(r"@\d{8}$"),  # Vertex AI: claude-sonnet-4-5@20250929
    re.compile(r"-\d{4}-\d{2}-\d{2}$"),  # OpenAI snapshots: gpt-4.1-2025-04-14
    re.compile(r"-\d{8}$"),  # Anthropic: claude-sonnet-4-5-20250929
    re.compile(r"-\d{3}$"),  # Gemini stable versions: gemini-1.5-pro-002
    re.compile(r"-latest$"),  # moving aliases: claude-3-5-haiku-latest
)
_PRICE_FIELDS = ("input_price_per_mtok", "cached_read_multiplier", "cache_write_multiplier",
                 "cache_write_multiplier_1h")


def _table_source() -> str:
    return f"promptlint provider table (promptlint/data/providers.toml, updated {table_date().isoformat()})"


def resolve_model(name: str | None, table: dict[str, ModelSpec]) -> tuple[ModelSpec | None, str]:
    """(spec, note): the table's model for a logged model name, and how it was
    found, or (None, why not)."""
    if not name:
        return None, "no model named in the log record"
    tried: list[str] = []
    base = _PREFIXES.sub("", name.strip())
    candidates = [name, base] + [s.sub("", base) for s in _SUFFIXES if s.search(base)]
    last_error = ""
    for candidate in dict.fromkeys(candidates):  # in order, each once
        tried.append(candidate)
        try:
            spec = resolve(candidate, table)
        except ValueError as exc:
            last_error = str(exc).split(" (known:")[0]
            continue
        how = f"{name} -> {spec.key}" if candidate == name else f"{name} -> {spec.key} (as {candidate!r})"
        return spec, how
    shown = ", ".join(repr(t) for t in tried)
    if "ambiguous" in last_error:
        why = last_error
    else:
        hint = last_error.partition("; did you mean ")[2]
        why = f"{name!r} is not in the provider table" + (f" (did you mean {hint.rstrip('?')}?)" if hint else "")
    return None, (f"no price: {why}; provider table updated {table_date().isoformat()}, tried {shown}; "
                  f"add it under [models.\"provider/model\"] in config")


def _price_source(spec: ModelSpec) -> str:
    overridden = [f for f in _PRICE_FIELDS if spec.sources.get(f) == USER_SOURCE]
    source = f"{spec.key} in the {_table_source()}"
    if overridden:
        source += f"; {', '.join(overridden)} from user config"
    return source


def record_cost(record: UsageRecord, spec: ModelSpec) -> float:
    """The logged request's input cost in USD (see `FORMULA`)."""
    per_token = spec.input_price_per_mtok / 1e6
    hour = min(record.cache_write_1h_tokens, record.cache_write_tokens)
    # a 1-hour write on a model whose table offers no 1-hour tier: price it as a default write
    hour_mult = spec.cache_write_multiplier_1h or spec.cache_write_multiplier
    return per_token * (record.uncached_tokens
                        + record.cached_tokens * spec.cached_read_multiplier
                        + (record.cache_write_tokens - hour) * spec.cache_write_multiplier
                        + hour * hour_mult)


def _predicted_cost(record: UsageRecord, spec: ModelSpec, cached: int) -> float:
    per_token = spec.input_price_per_mtok / 1e6
    hit = max(0, min(int(cached), record.prompt_tokens))
    return per_token * ((record.prompt_tokens - hit) + hit * spec.cached_read_multiplier)


@dataclass
class ModelCost:
    """One model's requests in a group, and their money (USD, input only)."""

    model: str | None  # as logged
    spec: ModelSpec | None  # the provider-table model it resolved to
    note: str  # how it resolved, or why there is no money
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    output_tokens: int = 0
    predicted_cached_per_request: int | None = None
    actual_cost: float | None = None  # None: the model has no price
    predicted_cost: float | None = None  # None: no price, or no prediction
    price_source: str = ""

    @property
    def cached_rate(self) -> float | None:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None

    @property
    def lost(self) -> float | None:
        if self.actual_cost is None or self.predicted_cost is None:
            return None
        return self.actual_cost - self.predicted_cost

    @property
    def lost_per_request(self) -> float | None:
        return None if self.lost is None or not self.requests else self.lost / self.requests

    @property
    def lost_per_1k_requests(self) -> float | None:
        per = self.lost_per_request
        return None if per is None else per * 1000.0

    @property
    def actual_cost_per_1k_requests(self) -> float | None:
        if self.actual_cost is None or not self.requests:
            return None
        return self.actual_cost / self.requests * 1000.0


def _sum(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


@dataclass
class GroupSummary:
    """One prompt's requests: tokens, cached-token rate, money per model."""

    key: str
    name: str
    how: str  # route | template | unmatched
    location: str | None  # the template's location, when one is known
    requests: int
    prompt_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    output_tokens: int
    models: list[ModelCost] = field(default_factory=list)
    why_missed: list = field(default_factory=list)  # why.Cause per cause of a miss, most requests first

    @property
    def cached_rate(self) -> float | None:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None

    @property
    def priced(self) -> bool:
        """Every request has a price (every model resolved)."""
        return all(m.actual_cost is not None for m in self.models)

    @property
    def actual_cost(self) -> float | None:
        """Input cost of the priced requests (see ``priced``)."""
        return _sum(m.actual_cost for m in self.models)

    @property
    def predicted_cost(self) -> float | None:
        return _sum(m.predicted_cost for m in self.models)

    @property
    def lost(self) -> float | None:
        """Actual - predicted, over the requests that have both."""
        return _sum(m.lost for m in self.models)

    @property
    def lost_requests(self) -> int:
        return sum(m.requests for m in self.models if m.lost is not None)

    @property
    def lost_per_request(self) -> float | None:
        lost, n = self.lost, self.lost_requests
        return None if lost is None or not n else lost / n

    @property
    def lost_per_1k_requests(self) -> float | None:
        per = self.lost_per_request
        return None if per is None else per * 1000.0


@dataclass
class UsageSummary:
    groups: list[GroupSummary]
    table_date: _dt.date
    source: str  # where the prices come from
    formula: str = FORMULA

    @property
    def requests(self) -> int:
        return sum(g.requests for g in self.groups)

    @property
    def prompt_tokens(self) -> int:
        return sum(g.prompt_tokens for g in self.groups)

    @property
    def cached_tokens(self) -> int:
        return sum(g.cached_tokens for g in self.groups)

    @property
    def cached_rate(self) -> float | None:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None

    @property
    def actual_cost(self) -> float | None:
        return _sum(g.actual_cost for g in self.groups)

    @property
    def lost(self) -> float | None:
        return _sum(g.lost for g in self.groups)


def _prediction(predicted: Predicted | None, group: UsageGroup, spec: ModelSpec) -> int | None:
    if predicted is None:
        return None
    value = predicted(group, spec) if callable(predicted) else predicted.get(group.key)
    return None if value is None else int(value)


class UsageTally:
    """Each group's usage and money, one record at a time: per group and
    model only counters, so memory grows with the groups and models of a
    log, not its lines. ``table`` and ``predicted`` as in `summarize`."""

    def __init__(self, table: dict[str, ModelSpec] | None = None, predicted: Predicted | None = None) -> None:
        self.table = load_table() if table is None else table
        self.predicted = predicted
        self._resolved: dict[str | None, tuple[ModelSpec | None, str]] = {}
        self._groups: dict[int, tuple[UsageGroup, dict[str | None, ModelCost]]] = {}

    def add(self, group: UsageGroup, record: UsageRecord) -> None:
        entry = self._groups.get(id(group))
        if entry is None:
            entry = self._groups[id(group)] = (group, {})
        per_model = entry[1]
        cost = per_model.get(record.model)
        if cost is None:
            cost = per_model[record.model] = self._model_cost(group, record.model)
        cost.requests += 1
        cost.prompt_tokens += record.prompt_tokens
        cost.cached_tokens += record.cached_tokens
        cost.cache_write_tokens += record.cache_write_tokens
        cost.cache_write_1h_tokens += record.cache_write_1h_tokens
        cost.output_tokens += record.output_tokens
        if cost.spec is not None:
            cost.actual_cost += record_cost(record, cost.spec)
            if cost.predicted_cached_per_request is not None:
                cost.predicted_cost += _predicted_cost(record, cost.spec, cost.predicted_cached_per_request)

    def spec_of(self, record: UsageRecord) -> ModelSpec | None:
        """The provider-table model a record's model name resolves to."""
        return self._resolve(record.model)[0]

    def _resolve(self, model: str | None) -> tuple[ModelSpec | None, str]:
        if model not in self._resolved:
            self._resolved[model] = resolve_model(model, self.table)
        return self._resolved[model]

    def _model_cost(self, group: UsageGroup, model: str | None) -> ModelCost:
        spec, note = self._resolve(model)
        cost = ModelCost(model, spec, note)
        if spec is not None:
            cost.price_source = _price_source(spec)
            cost.actual_cost = 0.0
            cost.predicted_cached_per_request = _prediction(self.predicted, group, spec)
            if cost.predicted_cached_per_request is not None:
                cost.predicted_cost = 0.0
        return cost

    def summary(self, groups: Iterable[UsageGroup], misses=None) -> UsageSummary:
        """The summary of `groups`, in their order (a group no record reached
        is left out); `misses` (a why.MissTracer) says why requests missed."""
        out = []
        for group in groups:
            entry = self._groups.get(id(group))
            if entry is None:
                continue
            models = list(entry[1].values())
            out.append(GroupSummary(
                key=group.key, name=group.name, how=group.how,
                location=group.template.location() if group.template is not None else None,
                requests=sum(m.requests for m in models),
                prompt_tokens=sum(m.prompt_tokens for m in models),
                cached_tokens=sum(m.cached_tokens for m in models),
                cache_write_tokens=sum(m.cache_write_tokens for m in models),
                output_tokens=sum(m.output_tokens for m in models),
                models=models,
                why_missed=misses.causes(group) if misses is not None else [],
            ))
        return UsageSummary(out, table_date(), _table_source())


def summarize(groups: Iterable[UsageGroup], table: dict[str, ModelSpec] | None = None,
              predicted: Predicted | None = None) -> UsageSummary:
    """Each group's usage and money. ``table`` is the provider table (default:
    the packaged one; pass ``load_table(config.models)`` for overrides);
    ``predicted`` gives the audit's cached tokens per request per group (see
    `Predicted` and `predictor_from_audit`)."""
    groups = list(groups)
    tally = UsageTally(table, predicted)
    for group in groups:
        for record in group.records:
            tally.add(group, record)
    return tally.summary(groups)


def predictor_from_audit(results: Iterable, scope: str = "global", config=None
                         ) -> Callable[[UsageGroup, ModelSpec], int | None]:
    """A ``predicted`` function from audit results (``PromptResult``s): the
    cached tokens the audit gives the group's template on that model at
    ``scope`` (``ModelResult.cached[scope]``: global, user or session). A
    model the audit did not run is audited on demand when ``config`` is given
    (``audit_template``, which tokenizes); otherwise, and for groups without a
    template, there is no prediction."""
    by_template: dict[int, object] = {}
    by_location: dict[str, object] = {}
    for result in results:
        by_template[id(result.template)] = result
        by_location.setdefault(result.template.location(), result)
    extra: dict[tuple[int, str], int] = {}

    def predict(group: UsageGroup, spec: ModelSpec) -> int | None:
        template = group.template
        if template is None:
            return None
        result = by_template.get(id(template)) or by_location.get(template.location())
        if result is not None:
            for model in result.models:
                if model.spec.key == spec.key:
                    return model.cached[scope]
        if config is None:
            return None
        key = (id(template), spec.key)
        if key not in extra:
            from promptlint.audit import audit_template  # tokenizers: only when needed

            extra[key] = audit_template(template, [spec], config).models[0].cached[scope]
        return extra[key]

    return predict
