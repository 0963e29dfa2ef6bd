#!/usr/bin/env python
"""The verify prediction over a stream of recorded requests: the token radix
tree (promptlint.verify.predict) beside the pairwise comparison it replaced,
in the same run.

    python bench/bench_predict.py [--requests N] [--pairwise M] [--json]

A synthetic stream like a served prompt's: requests of about 600 tokens, a
shared 400-token system prompt, one of 50 per-user blocks of 100 tokens,
then a per-request tail (a question, a timestamp), so prefixes are shared at
several depths. The radix tree predicts all N requests (default 100,000);
the pairwise comparison (each request against every earlier one, what
verify did before) predicts the first M (default 2,000), and the tree the
same M, interleaved, so the ratio compares equal work. Both give the same
shared prefixes on those M (checked; a mismatch fails the bench with exit 1).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from promptlint.analysis.prefix import common_prefix  # noqa: E402
from promptlint.verify.predict import Predictor  # noqa: E402


def stream(n: int, seed: int = 7) -> list[list[int]]:
    rng = random.Random(seed)
    system = [rng.randrange(200_000) for _ in range(400)]
    users = [[rng.randrange(200_000) for _ in range(100)] for _ in range(50)]
    return [system + users[rng.randrange(50)] + [rng.randrange(200_000) for _ in range(rng.randrange(50, 150))]
            for _ in range(n)]


def pairwise(requests: list[list[int]]) -> list[int]:
    seen: list[list[int]] = []
    out = []
    for tokens in requests:
        out.append(max((common_prefix(tokens, s) for s in seen), default=0))
        seen.append(tokens)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--pairwise", type=int, default=2_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    requests = stream(max(args.requests, args.pairwise))
    tokens = sum(map(len, requests[:args.requests]))

    head = requests[:args.pairwise]
    start = time.perf_counter()
    expected = pairwise(head)
    pair_s = time.perf_counter() - start
    start = time.perf_counter()
    predictor = Predictor(16)
    got = [predictor.predict(t).shared_tokens for t in head]
    tree_head_s = time.perf_counter() - start
    same = got == expected

    start = time.perf_counter()
    predictor = Predictor(16)
    for t in requests[:args.requests]:
        predictor.predict(t)
    tree_s = time.perf_counter() - start
    result = {
        "requests": args.requests, "tokens": tokens, "radix_s": round(tree_s, 3),
        "radix_tokens_per_s": round(tokens / tree_s),
        "compared": args.pairwise, "pairwise_s": round(pair_s, 3), "radix_same_s": round(tree_head_s, 4),
        "speedup_on_compared": round(pair_s / tree_head_s, 1), "identical": same,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"verify prediction over a request stream (block size 16), one run:")
        print(f"  radix tree: {args.requests:,} requests ({tokens:,} tokens) in {tree_s:.2f} s "
              f"({result['radix_tokens_per_s']:,} tokens/s)")
        print(f"  first {args.pairwise:,} requests: pairwise {pair_s:.2f} s, radix tree {tree_head_s:.3f} s "
              f"= {result['speedup_on_compared']}x; same shared prefixes: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
