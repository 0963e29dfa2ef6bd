#!/usr/bin/env python
"""Verify engine: time to first token with the prefix cache warm beside
cold, and speculative decoding measured beside predicted.

    python bench/bench_verify.py [--model smollm2] [--rounds 5] [--json]

TTFT: a 1,500-token stable prefix (the system text of fixtures/seed, in the
model's own tokens, cut to exactly 1,500) followed by a 100-token question,
a different question each round. Each round prefills prefix + question once
with the cache off (cold) and once with the prefix's blocks cached (warm),
interleaved so both see the same machine noise; the figure is the ratio of
medians beside the ideal ratio from token counts (prompt tokens / prefilled
tokens: prefill work is at least linear in tokens). With blocks of 16, the
cache holds 1,488 of the 1,500 prefix tokens (whole blocks only).

Speculation: the seed prompt with its sample question, decoded greedily for
--max-new-tokens tokens, then speculatively with prompt lookup and with the
target re-quantised to 4 bits as draft (gamma --gamma); the measured decode
speedup (median of --spec-rounds runs) beside the speedup Leviathan et al.'s
formula predicts from the measured acceptance and draft cost, and beside the
same formula with the measured cost of a verification pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PREFIX_TOKENS, QUESTION_TOKENS = 1500, 100


def seed_texts() -> tuple[str, str]:
    """The seed prompt's system text and sample question."""
    from promptlint.sources import load

    path = REPO / "fixtures" / "seed" / "seed.prompty"
    from promptlint.audit import source_context
    from promptlint.config import load as load_config

    template = load(path, "prompty", source_context(load_config(path)))[0]
    from promptlint.analysis.render import render

    r = render(template, lambda s: False, 0)
    texts = dict(zip((s.role for s in template.sections), r.section_texts()))
    return texts["system"], texts["user"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--block-size", type=int, default=16)
    ap.add_argument("--gamma", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--spec-rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.spec_rounds < 1:
        print("--rounds and --spec-rounds must be at least 1", file=sys.stderr)
        return 2

    from promptlint.verify.engine import Engine
    from promptlint.verify.models import load
    from promptlint.verify.speculation_run import load_draft, measure

    loaded = load(args.model, args.device)
    engine = Engine(loaded, args.block_size)
    engine.warm_up()
    system, question = seed_texts()
    chat = loaded.encode(loaded.chat_text([{"role": "system", "content": system}]))
    while len(chat) < PREFIX_TOKENS:  # a model whose tokens are longer than o200k's
        chat += chat
    prefix = chat[:PREFIX_TOKENS]
    words = loaded.encode(question)
    cold, warm, cached = [], [], []
    engine.prefill(prefix + words[:QUESTION_TOKENS])  # caches the prefix's blocks
    for i in range(args.rounds):
        q = (words[i + 1:] + words)[:QUESTION_TOKENS]  # a different 100-token question each round
        tokens = prefix + q
        c = engine.prefill(tokens, use_cache=False, store=False)
        w = engine.prefill(tokens, store=False)
        cold.append(c.ttft_seconds)
        warm.append(w.ttft_seconds)
        cached.append(w.cached_tokens)
    total = PREFIX_TOKENS + QUESTION_TOKENS
    hit = cached[0]
    ttft = {"prompt_tokens": total, "cached_tokens": hit, "cold_ms_median": statistics.median(cold) * 1000,
            "warm_ms_median": statistics.median(warm) * 1000,
            "measured_ratio": statistics.median(cold) / statistics.median(warm),
            "ideal_ratio": total / (total - hit), "rounds": args.rounds}

    draft, label = load_draft(engine, "q4")
    spec_tokens = loaded.encode(loaded.chat_text([{"role": "system", "content": system},
                                                  {"role": "user", "content": question}]))
    runs = [measure(engine, spec_tokens, draft, label, args.gamma, args.max_new_tokens) for _ in range(args.spec_rounds)]
    spec = []
    for index in range(len(runs[0])):
        reports = [run[index] for run in runs]
        r = reports[0]
        spec.append({
            "drafter": r.drafter, "gamma": r.gamma, "new_tokens": r.new_tokens, "acceptance": r.acceptance,
            "tokens_per_step": r.tokens_per_step, "predicted_tokens_per_step": r.predicted_tokens_per_step,
            "draft_cost": statistics.median(x.draft_cost for x in reports),
            "verify_cost": statistics.median(x.verify_cost for x in reports),
            "measured_speedup": statistics.median(x.measured_speedup for x in reports),
            "predicted_speedup": statistics.median(x.predicted_speedup for x in reports),
            "adjusted_predicted_speedup": statistics.median(x.adjusted_speedup for x in reports),
            "identical_to_greedy": all(x.identical for x in reports),
        })
    result = {"model": loaded.name, "device": loaded.device, "dtype": loaded.dtype, "block_size": args.block_size,
              "ttft": ttft, "speculation": spec}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"model {loaded.name} on {loaded.device} ({loaded.dtype}), blocks of {args.block_size}")
    print(f"TTFT, {PREFIX_TOKENS:,}-token stable prefix + {QUESTION_TOKENS}-token question "
          f"({hit:,} tokens cached), median of {args.rounds} interleaved rounds:")
    print(f"  cold {ttft['cold_ms_median']:,.0f} ms, warm {ttft['warm_ms_median']:,.0f} ms: "
          f"{ttft['measured_ratio']:.2f}x faster; ideal from token counts {ttft['ideal_ratio']:.2f}x")
    print(f"Speculation, gamma {args.gamma}, {args.max_new_tokens} new tokens, median of {args.spec_rounds} runs:")
    for s in spec:
        print(f"  {s['drafter']}: acceptance {s['acceptance']:.0%}, {s['tokens_per_step']:.2f} tokens/step "
              f"(formula {s['predicted_tokens_per_step']:.2f}), c {s['draft_cost']:.2f}, verification pass "
              f"{s['verify_cost']:.2f} steps; speedup measured {s['measured_speedup']:.2f}x, predicted "
              f"{s['predicted_speedup']:.2f}x, with the measured verification cost {s['adjusted_predicted_speedup']:.2f}x; "
              f"output identical to greedy: {s['identical_to_greedy']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
