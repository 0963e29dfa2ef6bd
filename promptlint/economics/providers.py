"""The provider table: cache rules and prices per model, with their sources.

The values live in ``promptlint/data/providers.toml`` (one dated file, never in
code); this module loads it, applies user overrides from config, resolves
short model names, and turns stable prefix tokens into cached tokens.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import difflib
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ModelSpec",
    "cacheable",
    "load_table",
    "resolve",
    "table_date",
    "CACHING_KINDS",
    "NUMERIC_FIELDS",
]

CACHING_KINDS = ("automatic", "explicit", "engine")


@dataclass(frozen=True)
class ModelSpec:
    """One model's prompt-cache rules and input prices (see providers.toml)."""

    key: str
    provider: str
    family: str
    tokenizer: str
    tokenizer_exact: bool
    tokenizer_note: str
    caching: str
    min_tokens: int
    increment: int
    max_breakpoints: int
    lookback_blocks: int
    ttl_seconds: int
    input_price_per_mtok: float
    cached_read_multiplier: float
    cache_write_multiplier: float
    cache_write_multiplier_1h: float
    notes: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False, hash=False)


_FIELDS = {f.name: f for f in dataclasses.fields(ModelSpec)}
_TYPES: dict[str, type] = {
    "provider": str, "family": str, "tokenizer": str, "tokenizer_exact": bool,
    "tokenizer_note": str, "caching": str, "min_tokens": int, "increment": int,
    "max_breakpoints": int, "lookback_blocks": int, "ttl_seconds": int,
    "input_price_per_mtok": float, "cached_read_multiplier": float,
    "cache_write_multiplier": float, "cache_write_multiplier_1h": float,
    "notes": str, "sources": dict,
}
NUMERIC_FIELDS = tuple(k for k, t in _TYPES.items() if t in (int, float))
# A new model from config must give these; the rest default as below.
_REQUIRED_NEW = (
    "provider", "tokenizer", "caching", "min_tokens", "increment", "ttl_seconds",
    "input_price_per_mtok", "cached_read_multiplier", "cache_write_multiplier",
)
_DEFAULTS_NEW: dict[str, Any] = {
    "tokenizer_exact": False, "tokenizer_note": "", "max_breakpoints": 0,
    "lookback_blocks": 0, "cache_write_multiplier_1h": 0.0, "notes": "",
}
USER_SOURCE = "user config override"
DEFAULT_SOURCE = "promptlint default for a model defined in config"


def table_bytes() -> bytes:
    """The packaged provider table as stored (a plain file in a checkout or
    wheel install: read directly, without importlib.resources' zip support)."""
    plain = Path(__file__).resolve().parent.parent / "data" / "providers.toml"
    if plain.is_file():
        return plain.read_bytes()
    from importlib import resources

    return resources.files("promptlint").joinpath("data/providers.toml").read_bytes()


@functools.lru_cache(maxsize=1)
def _raw_table() -> dict[str, Any]:
    """The table as parsed, kept as JSON in the user cache by the sha256 of
    its bytes (parsing the TOML is a tenth of a warm `check` run)."""
    import hashlib

    from promptlint.fsutil import read_cached_json, store_cached_json

    data = table_bytes()
    key = hashlib.sha256(data).hexdigest()[:32]
    table = read_cached_json("providers", key)
    if not isinstance(table, dict):
        import tomllib

        table = tomllib.loads(data.decode("utf-8"))
        store_cached_json("providers", key, table)
    return table


def table_date() -> _dt.date:
    """The date the packaged table was last checked (its ``updated`` value)."""
    return _dt.date.fromisoformat(str(_raw_table()["updated"]))


MAX_FIELD_VALUE = 1e12  # a price, size or count past this is a typo (and inf or nan is never a figure)


def _check(key: str, name: str, value: Any) -> Any:
    """Type-check one field; ints are accepted for floats. Returns the value."""
    if name not in _TYPES or name == "key":
        known = ", ".join(sorted(_TYPES))
        raise ValueError(f"provider {key!r}: unknown field {name!r} (known fields: {known})")
    want = _TYPES[name]
    ok = isinstance(value, want) and not (want is not bool and isinstance(value, bool))
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ValueError(
            f"provider {key!r}: field {name!r} must be {want.__name__}, "
            f"got {type(value).__name__} {value!r}"
        )
    if name == "sources" and not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"provider {key!r}: field 'sources' must map field names to strings")
    if name == "caching" and value not in CACHING_KINDS:
        raise ValueError(f"provider {key!r}: field 'caching' must be one of {CACHING_KINDS}, got {value!r}")
    if want in (int, float) and not (0 <= value <= MAX_FIELD_VALUE):
        raise ValueError(f"provider {key!r}: field {name!r} must be a number from 0 to {MAX_FIELD_VALUE:g}, "
                         f"got {value!r}")
    if name == "tokenizer":
        from promptlint.tokenizers import known_specs

        kind, _, arg = value.partition(":")
        if value not in known_specs() and not (kind.strip().lower() == "hf" and arg.strip()):
            raise ValueError(f"provider {key!r}: field 'tokenizer' must be one of {', '.join(known_specs())} "
                             f"or hf:<path to tokenizer.json or its folder>, got {value!r}")
    if name == "increment" and value < 1:
        raise ValueError(f"provider {key!r}: field 'increment' must be >= 1, got {value!r}")
    return value


def _build(key: str, values: dict[str, Any]) -> ModelSpec:
    checked = {name: _check(key, name, v) for name, v in values.items()}
    missing = [n for n in _TYPES if n not in checked and n not in ("notes", "sources")]
    if missing:
        raise ValueError(f"provider {key!r}: missing field(s) {', '.join(missing)}")
    checked.setdefault("notes", "")
    checked["sources"] = dict(checked.get("sources", {}))
    return ModelSpec(key=key, **checked)


def _packaged() -> dict[str, ModelSpec]:
    return {key: _build(key, dict(values)) for key, values in _raw_table()["models"].items()}


def load_table(overrides: dict[str, dict[str, Any]] | None = None) -> dict[str, ModelSpec]:
    """The packaged table with ``overrides`` (``{model_key: {field: value}}``) applied.

    An override of an existing model (full key, or an unambiguous alias without
    a "/") replaces the given fields and marks their source as user config. A
    new "provider/model" key creates a model and must give every field in
    ``_REQUIRED_NEW``. Unknown fields and wrong types raise ``ValueError``.
    """
    table = _packaged()
    for key, fields in (overrides or {}).items():
        if not isinstance(fields, dict):
            raise ValueError(f"provider {key!r}: override must be a table of fields")
        target = key if key in table else None
        if target is None and "/" not in key:
            target = resolve(key, table).key  # raises with suggestions if unknown
        for name, value in fields.items():
            _check(key, name, value)
        if target is not None:
            base = dataclasses.asdict(table[target])
            base.pop("key")
            sources = dict(base.pop("sources"))
            for name in fields:
                if name != "sources":
                    sources[name] = USER_SOURCE
            sources.update(fields.get("sources", {}))
            base.update({k: v for k, v in fields.items() if k != "sources"})
            table[target] = _build(target, {**base, "sources": sources})
            continue
        missing = [n for n in _REQUIRED_NEW if n not in fields]
        if missing:
            raise ValueError(
                f"provider {key!r}: not in the table; a new model needs {', '.join(missing)}"
            )
        values = {**_DEFAULTS_NEW, "family": key.split("/", 1)[1] or key, **fields}
        sources = {n: DEFAULT_SOURCE for n in _DEFAULTS_NEW if n not in fields}
        sources.update({n: USER_SOURCE for n in fields if n != "sources"})
        sources.update(fields.get("sources", {}))
        values["sources"] = sources
        table[key] = _build(key, values)
    return table


def _norm(name: str) -> str:
    """Lower case, "4-5" -> "4.5", dated suffixes and Bedrock versions dropped."""
    name = name.strip().lower()
    name = re.sub(r"^(us|eu|apac|global)\.(?=anthropic\.|amazon\.)", "", name)  # inference profiles
    name = re.sub(r"-v\d+(:\d+)?$", "", name)  # anthropic.claude-...-v1:0
    name = re.sub(r"-\d{8}$", "", name)  # claude-sonnet-4-5-20250929
    return re.sub(r"(?<=\d)-(?=\d(\D|$))", ".", name)


def _aliases(spec: ModelSpec) -> set[str]:
    provider, _, model = spec.key.partition("/")
    names = {_norm(spec.key), _norm(model)}
    if model.startswith("claude-"):
        names.add(_norm(model[len("claude-"):]))
    return names


def resolve(name: str, table: dict[str, ModelSpec] | None = None) -> ModelSpec:
    """A model by full key ("openai/gpt-4.1") or unambiguous alias ("gpt-4.1",
    "claude-sonnet-4.5", "sonnet-4.5", "claude-sonnet-4-5-20250929", or a
    provider name with a single entry such as "vllm")."""
    table = load_table() if table is None else table
    if name in table:
        return table[name]
    wanted = _norm(name)
    hits = [s for s in table.values() if wanted in _aliases(s)]
    if not hits:
        by_provider = [s for s in table.values() if s.provider == wanted]
        hits = by_provider if len(by_provider) == 1 else []
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        keys = ", ".join(sorted(s.key for s in hits))
        raise ValueError(f"model name {name!r} is ambiguous: {keys}; use the full key")
    close = difflib.get_close_matches(wanted, sorted({a for s in table.values() for a in _aliases(s)}), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(f"unknown model {name!r}{hint} (known: {', '.join(sorted(table))})")


def cut_by(spec: ModelSpec, stable_tokens: int, breakpoints: list[int] | None = None) -> str | None:
    """Which of the provider's rules made it cache fewer tokens than the
    stable prefix (`cacheable`'s rules, in words for the audit row), or None."""
    stable = int(stable_tokens)
    cached = cacheable(spec, stable, breakpoints)
    if stable <= 0 or cached >= stable:
        return None
    if stable < spec.min_tokens:
        return f"below {spec.min_tokens:,} min"
    if spec.caching == "explicit":
        return "no breakpoint past min" if cached == 0 else "up to last breakpoint"
    if spec.caching == "engine":
        return f"{spec.increment}-token blocks"
    return f"{spec.increment}-token steps"


def cacheable(spec: ModelSpec, stable_tokens: int, breakpoints: list[int] | None = None) -> int:
    """How many of ``stable_tokens`` leading tokens the provider actually caches.

    - Nothing below ``min_tokens``: a shorter prefix succeeds but is never
      cached (OpenAI 1024, Anthropic 1024/2048/4096 per model; cache-rules.md).
    - ``automatic`` with increment k: ``min + floor((stable - min) / k) * k``;
      OpenAI hits come as 1024, 1152, 1280, ... (openai-cookbook
      Prompt_Caching_201 section 1.1). k = 1 gives token granularity.
    - ``engine`` with block size B: ``floor(stable / B) * B``, since only full
      blocks are cached (vLLM docs/design/prefix_caching.md); B = 1 for
      SGLang's radix tree and llama.cpp's slot prefix reuse.
    - ``explicit`` (Anthropic cache_control, Bedrock cachePoint): the prefix
      ends at a breakpoint, so the cached length is the largest breakpoint
      that is <= ``stable_tokens`` and >= ``min_tokens`` (0 if none). With
      ``breakpoints=None`` (no breakpoints in the template) one is assumed at
      the end of the stable prefix. Requests with more than
      ``max_breakpoints`` are rejected by the API; that is a check's concern.
    """
    stable = int(stable_tokens)
    if stable <= 0 or stable < spec.min_tokens:
        return 0
    if spec.caching == "explicit":
        if breakpoints is None:
            return stable
        fitting = [int(b) for b in breakpoints if spec.min_tokens <= b <= stable and b > 0]
        return max(fitting, default=0)
    step = max(1, spec.increment)
    if spec.caching == "engine":
        return (stable // step) * step
    return spec.min_tokens + ((stable - spec.min_tokens) // step) * step


def select_models(config, names: tuple[str, ...] | None = None) -> list[ModelSpec]:
    """The models a run estimates for: those named (-p), else the config's."""
    table = load_table(config.models or None)
    return [resolve(name, table) for name in (names or config.providers)]
