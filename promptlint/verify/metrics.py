"""Prometheus metrics of a serving engine, scraped before and after a run.

Counters (vLLM's `vllm:prefix_cache_queries_total`/`hits_total` and
`vllm:spec_decode_*`, llama.cpp's `llamacpp:*_total`) are reported as the
change over the run; gauges (SGLang's `sglang:cache_hit_rate`,
`sglang:spec_accept_rate`, `sglang:spec_accept_length`) as read after it.
Series are summed over their labels except `position` (vLLM's accepted
tokens per draft position), which is kept.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# the engines' metric names that bear on prefix caching and speculation
PREFIXES = ("vllm:prefix_cache", "vllm:spec_decode", "vllm:gpu_prefix_cache", "sglang:cache_hit_rate",
            "sglang:spec_accept", "llamacpp:")
_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@dataclass
class Scrape:
    values: dict[str, float] = field(default_factory=dict)  # series key -> value
    types: dict[str, str] = field(default_factory=dict)  # metric name -> counter | gauge | ...


def _key(name: str, labels: str | None) -> str:
    kept = [f'{k}="{v}"' for k, v in _LABEL.findall(labels or "") if k == "position"]
    return name + ("{" + ",".join(kept) + "}" if kept else "")


def parse(text: str) -> Scrape:
    """The relevant series of a Prometheus text exposition."""
    scrape = Scrape()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) >= 4:
                scrape.types[parts[2]] = parts[3]
            continue
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if not match or not match.group(1).startswith(PREFIXES) or match.group(1).endswith("_created"):
            continue
        try:
            value = float(match.group(3))
        except ValueError:
            continue
        if math.isnan(value):
            continue
        key = _key(match.group(1), match.group(2))
        scrape.values[key] = scrape.values.get(key, 0.0) + value
    return scrape


def _base(key: str) -> str:
    return key.split("{", 1)[0]


def _is_counter(scrape: Scrape, key: str) -> bool:
    name = _base(key)
    kind = scrape.types.get(name) or scrape.types.get(name.removesuffix("_total"))
    return kind == "counter" if kind else name.endswith("_total")


def deltas(before: Scrape | None, after: Scrape) -> dict[str, float]:
    """Counter increases over the run, gauge values after it."""
    out: dict[str, float] = {}
    for key, value in sorted(after.values.items()):
        if _is_counter(after, key):
            out[key] = value - (before.values.get(key, 0.0) if before else 0.0)
        else:
            out[key] = value
    return out


def summary(d: dict[str, float]) -> dict[str, float]:
    """Rates derived from the deltas, with the engine's own definitions:
    vLLM prefix hit rate = hits / queries; acceptance = accepted / draft
    tokens; mean acceptance length = 1 + accepted / drafts."""
    out: dict[str, float] = {}
    queries, hits = d.get("vllm:prefix_cache_queries_total"), d.get("vllm:prefix_cache_hits_total")
    if queries:
        out["vllm prefix cache hit rate"] = (hits or 0.0) / queries
    for engine, prefix in (("vllm", "vllm:"), ("llama.cpp", "llamacpp:")):  # the same counters in both
        drafts = d.get(prefix + "spec_decode_num_drafts_total")
        draft_tokens = d.get(prefix + "spec_decode_num_draft_tokens_total")
        accepted = d.get(prefix + "spec_decode_num_accepted_tokens_total")
        if draft_tokens:
            out[f"{engine} speculative acceptance rate"] = (accepted or 0.0) / draft_tokens
        if drafts:
            out[f"{engine} mean acceptance length"] = 1 + (accepted or 0.0) / drafts
    for name in ("sglang:cache_hit_rate", "sglang:spec_accept_rate", "sglang:spec_accept_length"):
        if name in d:
            out[name] = d[name]
    return out
