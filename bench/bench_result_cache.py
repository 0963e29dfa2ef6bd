#!/usr/bin/env python
"""The result cache: `promptlint check DIR` with a cold cache (the first
run, which also writes the entries), then again over the unchanged tree (a
warm cache), beside `--no-cache` (what every run cost before the cache).

    python bench/bench_result_cache.py [DIR] [--rounds N] [--json]

DIR defaults to fixtures/. Each round, in fresh processes and in this
order: `check --no-cache`, `check` into an emptied cache folder (cold),
`check` again (warm). Rounds are interleaved so every command sees the
same machine noise; one untimed round first writes .pyc files and seeds
the tokenizer cache. The reports of all three are compared byte for byte
(a cache that changes the output fails the benchmark). Ratios are of
medians: no-cache / warm, and cold / warm.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _run(args: list[str], cwd: Path, env: dict) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "promptlint", "check", "--format", "json", *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"promptlint check {' '.join(args)} exited {proc.returncode}")
    return took, proc.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("dir", nargs="?", type=Path, default=REPO / "fixtures")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    target = args.dir.resolve()
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PROMPTLINT_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc files written as on a user's machine
    times: dict[str, list[float]] = {"no-cache": [], "cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "results"
        _run(["--no-cache", "."], target, env)  # untimed: .pyc files, the tokenizer cache
        reports = set()
        for _ in range(args.rounds):
            took, out = _run(["--no-cache", "."], target, env)
            times["no-cache"].append(took)
            reports.add(out)
            shutil.rmtree(folder, ignore_errors=True)
            took, out = _run(["--cache-dir", str(folder), "."], target, env)
            times["cold"].append(took)
            reports.add(out)
            took, out = _run(["--cache-dir", str(folder), "."], target, env)
            times["warm"].append(took)
            reports.add(out)
        entries = sum(1 for _ in folder.rglob("*.json"))
    med = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "dir": str(target), "rounds": args.rounds, "entries": entries,
        "median_s": {k: round(v, 4) for k, v in med.items()},
        "min_s": {k: round(min(v), 4) for k, v in times.items()},
        "speedup_warm_vs_no_cache": round(med["no-cache"] / med["warm"], 2),
        "speedup_warm_vs_cold": round(med["cold"] / med["warm"], 2),
        "identical_reports": len(reports) == 1,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"promptlint check {target} ({entries} cache entries), {args.rounds} interleaved rounds, median (min):")
        for k in times:
            print(f"  {k:9} {med[k] * 1000:8.0f} ms ({min(times[k]) * 1000:.0f})")
        print(f"  warm cache: {result['speedup_warm_vs_no_cache']}x faster than --no-cache, "
              f"{result['speedup_warm_vs_cold']}x faster than the cold-cache run")
        print(f"  reports identical across all runs: {'yes' if result['identical_reports'] else 'NO'}")
    return 0 if result["identical_reports"] else 1


if __name__ == "__main__":
    sys.exit(main())
