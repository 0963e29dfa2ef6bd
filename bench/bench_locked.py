#!/usr/bin/env python
"""What the lock and `--since` add to a check: `promptlint check DIR
--no-cache` beside `check --locked` (against a lock of DIR written first)
and `check --since HEAD` (which also audits HEAD's copy of DIR from git
objects), in fresh processes, interleaved, in the same run.

    python bench/bench_locked.py [DIR] [--rounds N] [--json]

DIR defaults to fixtures/ (it must be inside this git checkout). The lock is
written to a temporary file, so the tree is not touched; with it every
prompt is compared. One untimed round first. Ratios are of medians, each
against the plain check; the findings of `--locked` (PL009 aside) are
checked equal to the plain check's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _run(args: list[str], env: dict) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "promptlint", *args], cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"promptlint {' '.join(args)} exited {proc.returncode}")
    return took, proc.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default="fixtures")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    with tempfile.TemporaryDirectory() as tmp:
        lock = str(Path(tmp) / "promptlint.lock")
        _run(["lock", args.dir, "--lock-file", lock], env)
        commands = {
            "check": ["check", args.dir, "--no-cache", "--format", "json"],
            "check --locked": ["check", args.dir, "--no-cache", "--format", "json", "--locked", "--lock-file", lock],
            "check --since HEAD": ["check", args.dir, "--no-cache", "--format", "json", "--since", "HEAD"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        outputs: dict[str, bytes] = {}
        for round_ in range(args.rounds + 1):
            for name, command in commands.items():
                took, out = _run(command, env)
                outputs[name] = out
                if round_:
                    times[name].append(took)
    plain = json.loads(outputs["check"])["findings"]
    locked = [f for f in json.loads(outputs["check --locked"])["findings"] if f.get("code") != "PL009"]
    if plain != locked:
        raise SystemExit("check --locked changed the other findings")
    medians = {name: statistics.median(t) for name, t in times.items()}
    result = {"dir": args.dir, "rounds": args.rounds, "median_seconds": {k: round(v, 3) for k, v in medians.items()},
              "ratio_to_check": {k: round(v / medians["check"], 2) for k, v in medians.items() if k != "check"}}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name, median in medians.items():
            ratio = "" if name == "check" else f"  {median / medians['check']:.2f}x check"
            print(f"{name:<20} median {median:.3f} s over {args.rounds} rounds{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
