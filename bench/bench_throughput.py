#!/usr/bin/env python
"""Audit throughput (tokens/s) beside raw tiktoken encoding of the same text.

    python bench/bench_throughput.py [TREE] [--repeat N] [--scale K] [--json]

TREE defaults to fixtures/ (next to this folder) when it exists, else a small
synthetic prompt tree written to a temp dir. Config and models are loaded
once and the tokenizers warmed first (their load time is reported on its own
and excluded). Then `run_audit` over the tree is timed N times (median), and
the baseline, raw `tiktoken.Encoding.encode` of every prompt's reference
render (the same section texts the audit counts), is timed N times in the
same process, interleaved with the audit runs so both see the same machine
noise. The figure to watch is the ratio raw/audit: "the audit costs Nx raw
encoding of its own token count".

Tokens = sum over prompts of the reference render's o200k token count
(`PromptResult.analyses["tiktoken:o200k_base"].total_tokens`, else
`PromptResult.primary.total_tokens`).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(REPO))

SPEC = "tiktoken:o200k_base"


# --------------------------------------------------------------------------- synthetic fallback

_SYSTEM = """You are the support assistant for Acme Cloud. Follow the policy below.

## Policy
{policy}

## Tools
{{% for tool in tools | sort(attribute='name') %}}- {{{{ tool.name }}}}: {{{{ tool.description }}}}
{{% endfor %}}
Customer: {{{{ user_name }}}} (tier {{{{ account_tier }}}})
Today is {{{{ today }}}}.
"""
_TEXT = """Rewrite the user's question as a standalone search query.

{policy}

Question: {{question}}
Conversation so far: {{history}}
"""


def synthetic_tree(root: Path) -> Path:
    """A small prompt tree used only when fixtures/ does not exist yet."""
    para = ("Answer precisely, cite the knowledge-base article you used, never promise refunds you "
            "cannot grant, escalate billing disputes over $500 to a human, and keep replies under "
            "200 words unless the customer asks for detail. ")
    for i in range(12):
        policy = "\n".join(f"{n + 1}. {para}" for n in range(8 + 3 * i))
        d = root / f"project{i % 3}"
        (d / "prompts").mkdir(parents=True, exist_ok=True)
        (d / f"system{i}.j2").write_text(_SYSTEM.format(policy=policy))
        (d / "prompts" / f"rewrite{i}.txt").write_text(_TEXT.format(policy=policy))
    return root


# --------------------------------------------------------------------------- helpers

def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _copy_scaled(tree: Path, k: int, dest: Path) -> Path:
    for i in range(k):
        target = dest / f"copy{i:03d}"
        if tree.is_file():
            target.mkdir(parents=True)
            shutil.copy2(tree, target / tree.name)
        else:
            shutil.copytree(tree, target)
    return dest


def _count_tokens(prompt) -> int:
    analysis = prompt.analyses.get(SPEC)
    return (analysis if analysis is not None else prompt.primary).total_tokens


def _reference_texts(prompt) -> list[str]:
    analysis = prompt.analyses.get(SPEC)
    return (analysis if analysis is not None else prompt.primary).reference.section_texts()


class _EncodeMeter:
    """Wraps the cached tokenizer instances' encode to count calls, characters
    and time spent inside the tokenizer during one (untimed) audit run."""

    def __init__(self, tokenizers):
        self.tokenizers = tokenizers
        self.calls = self.chars = 0
        self.seconds = 0.0

    def __enter__(self):
        for tok in self.tokenizers:
            original = tok.encode

            def encode(text, _orig=original):
                t0 = time.perf_counter()
                try:
                    return _orig(text)
                finally:
                    self.seconds += time.perf_counter() - t0
                    self.calls += 1
                    self.chars += len(text)

            tok.encode = encode  # instance attribute shadows the method
        return self

    def __exit__(self, *exc):
        for tok in self.tokenizers:
            tok.__dict__.pop("encode", None)


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", nargs="?", type=Path, help="prompt tree or file (default: fixtures/)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each side (median reported)")
    ap.add_argument("--scale", type=int, default=1, help="copy the tree K times into a temp dir first")
    ap.add_argument("-p", "--provider", action="append", dest="providers", metavar="MODEL",
                    help="models to audit for (default: the config's providers)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.scale < 1:
        ap.error("--repeat and --scale must be >= 1")

    tmp = Path(tempfile.mkdtemp(prefix="promptlint-bench-"))
    try:
        return _run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, tmp: Path) -> int:
    t_import = time.perf_counter()
    from promptlint import config as config_mod
    from promptlint.audit import run_audit, select_models
    from promptlint.tokenizers import get_tokenizer
    import_s = time.perf_counter() - t_import

    if args.tree is not None:
        source, source_kind = args.tree.resolve(), "given"
    elif (REPO / "fixtures").is_dir():
        source, source_kind = REPO / "fixtures", "fixtures"
    else:
        source, source_kind = synthetic_tree(tmp / "synthetic"), "synthetic (fixtures/ missing)"
    if not source.exists():
        print(f"error: {source}: no such file or directory", file=sys.stderr)
        return 2

    # Config once, from the original tree; a scaled copy keeps it, rooted at the copy.
    config = config_mod.load(source)
    tree = source
    if args.scale > 1:
        tree = _copy_scaled(source, args.scale, tmp / "scaled")
        config = dataclasses.replace(config, root=tree)
    models = select_models(config, tuple(args.providers) if args.providers else None)

    # Warm the tokenizers (rank-file load), timed on their own.
    specs = list(dict.fromkeys([SPEC] + [m.tokenizer for m in models]))
    load_s: dict[str, float] = {}
    for spec in specs:
        t0 = time.perf_counter()
        get_tokenizer(spec)
        load_s[spec] = time.perf_counter() - t0
    tokenizers = [get_tokenizer(s) for s in specs]
    enc = get_tokenizer(SPEC)._enc  # the same tiktoken.Encoding object the audit uses

    # First audit: untimed in the figures (lazy imports of sources, jinja, yaml...).
    t0 = time.perf_counter()
    first = run_audit([tree], config, models)
    first_s = time.perf_counter() - t0
    prompts = len(first.prompts)
    tokens = sum(_count_tokens(p) for p in first.prompts)
    texts = [t for p in first.prompts for t in _reference_texts(p)]
    chars = sum(len(t) for t in texts)
    if prompts == 0 or tokens == 0:
        print(f"error: no prompts found under {source}", file=sys.stderr)
        return 2

    def raw_encode() -> int:
        n = 0
        for text in texts:
            n += len(enc.encode(text, allowed_special=set(), disallowed_special=()))
        return n

    raw_tokens = raw_encode()  # also warms the baseline

    def fresh() -> None:
        """Each audit starts as a new process would: no text remembered by the tokenizers."""
        for tok in tokenizers:
            getattr(tok, "forget", lambda: None)()

    # Where the audit's time goes: one instrumented run, not part of the timings;
    # the tokenizers themselves are metered (inside the memo of texts already encoded).
    fresh()
    with _EncodeMeter([getattr(tok, "inner", tok) for tok in tokenizers]) as meter:
        t0 = time.perf_counter()
        run_audit([tree], config, models)
        metered_s = time.perf_counter() - t0

    audit_times: list[float] = []
    raw_times: list[float] = []
    for _ in range(args.repeat):  # interleaved: both sides see the same noise
        gc.collect()
        fresh()
        t0 = time.perf_counter()
        result = run_audit([tree], config, models)
        audit_times.append(time.perf_counter() - t0)
        assert len(result.prompts) == prompts
        gc.collect()
        t0 = time.perf_counter()
        raw_encode()
        raw_times.append(time.perf_counter() - t0)

    audit_s, raw_s = _median(audit_times), _median(raw_times)
    figures = {
        "tree": str(source),
        "tree_kind": source_kind,
        "scale": args.scale,
        "repeat": args.repeat,
        "files": first.files,
        "prompts": prompts,
        "errors": len(first.errors),
        "models": [m.key for m in models],
        "tokenizer": SPEC,
        "tokens_audited": tokens,
        "raw_tokens": raw_tokens,
        "reference_chars": chars,
        "audit_s_median": audit_s,
        "audit_s_min": min(audit_times),
        "audit_s_all": audit_times,
        "audit_tokens_per_s": tokens / audit_s,
        "raw_encode_s_median": raw_s,
        "raw_encode_s_min": min(raw_times),
        "raw_encode_s_all": raw_times,
        "raw_tokens_per_s": raw_tokens / raw_s,
        "ratio_raw_over_audit": (raw_tokens / raw_s) / (tokens / audit_s),
        "tokenizer_load_s": load_s,
        "promptlint_import_s": import_s,
        "first_audit_s": first_s,
        "encode_breakdown": {
            "audit_s": metered_s,
            "encode_calls": meter.calls,
            "encode_chars": meter.chars,
            "encode_chars_per_reference_char": meter.chars / chars if chars else None,
            "encode_s": meter.seconds,
            "encode_share": meter.seconds / metered_s if metered_s else None,
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print_text(figures)
    return 0


def _print_text(f: dict) -> None:
    b = f["encode_breakdown"]
    scale = f" x{f['scale']} (copied to a temp dir)" if f["scale"] > 1 else ""
    print(f"promptlint audit throughput: {f['tree']}{scale} [{f['tree_kind']}]")
    print(f"  {f['files']} files, {f['prompts']} prompts, {f['errors']} errors; models: {', '.join(f['models'])}")
    print(f"  tokens audited ({f['tokenizer']}, reference renders): {f['tokens_audited']:,}"
          f"  ({f['reference_chars']:,} chars)")
    if f["raw_tokens"] != f["tokens_audited"]:
        print(f"  note: raw tiktoken count of the same text is {f['raw_tokens']:,}")
    print(f"  repeats: {f['repeat']} each, interleaved; medians (min in brackets)")
    print(f"  audit time:          {f['audit_s_median'] * 1e3:10.1f} ms  [{f['audit_s_min'] * 1e3:.1f}]")
    print(f"  audit tokens/s:      {f['audit_tokens_per_s']:12,.0f}")
    print(f"  raw encode time:     {f['raw_encode_s_median'] * 1e3:10.1f} ms  [{f['raw_encode_s_min'] * 1e3:.1f}]")
    print(f"  raw encode tokens/s: {f['raw_tokens_per_s']:12,.0f}")
    print(f"  ratio raw/audit:     {f['ratio_raw_over_audit']:10.1f}x  (audit costs {f['ratio_raw_over_audit']:.1f}x raw encoding)")
    loads = ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in f["tokenizer_load_s"].items())
    print(f"  tokenizer load (excluded): {loads}")
    print(f"  promptlint import: {f['promptlint_import_s'] * 1e3:.0f} ms; first audit (lazy imports, excluded): "
          f"{f['first_audit_s'] * 1e3:.0f} ms")
    share = b["encode_share"] or 0.0
    print(f"  inside one audit (instrumented run): {b['encode_calls']:,} encode calls over {b['encode_chars']:,} chars "
          f"({b['encode_chars_per_reference_char']:.1f}x the reference text); tokenizer {b['encode_s'] * 1e3:.1f} ms "
          f"of {b['audit_s'] * 1e3:.1f} ms ({share:.0%}), the rest is discovery, parsing, rendering, economics")


if __name__ == "__main__":
    sys.exit(main())
