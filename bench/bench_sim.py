#!/usr/bin/env python
"""`promptlint verify --engine sim` on a request log, beside kvlint's `lint`
on the same log when kvlint is installed (the peer that simulates vLLM and
SGLang from logs), in the same run.

    python bench/bench_sim.py --log LOG.jsonl --tokenizer DIR [--copies K] [--kvlint PATH] [--json]

LOG is JSONL of OpenAI-style requests ({"messages": [...]} per line; kvlint's
`demo --out` writes one). DIR is a local Hugging Face tokenizer folder (both
tools read the same tokenizer; nothing is downloaded). `--copies K` repeats
the log K times (request ids made unique) to see how the simulation scales.
Whole-process timings, one run each, interleaved: the simulation first,
then kvlint. The vLLM hit rates of both are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    return time.perf_counter() - start, proc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--tokenizer", type=Path, required=True)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--kvlint", default=shutil.which("kvlint"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    lines = [json.loads(line) for line in args.log.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "requests.jsonl"
        with log.open("w", encoding="utf-8") as out:
            for copy in range(args.copies):
                for n, line in enumerate(lines):
                    out.write(json.dumps({**line, "request_id": f"r{copy}-{n}"}) + "\n")
        requests = len(lines) * args.copies
        report = Path(tmp) / "sim.json"
        ours_s, proc = timed([sys.executable, "-m", "promptlint", "verify", "--engine", "sim", "--requests", str(log),
                              "--tokenizer", str(args.tokenizer), "--format", "json", "-o", str(report)])
        if proc.returncode not in (0, 1):
            print(proc.stderr, file=sys.stderr)
            return 1
        engine = json.loads(report.read_text())["engine"]
        ours_rate = engine["prompt_tokens_reused"] / engine["prompt_tokens_queried"]
        peer = None
        if args.kvlint:
            peer_json = Path(tmp) / "kvlint.json"
            peer_s, peer_proc = timed([args.kvlint, "lint", str(log), "--model", str(args.tokenizer), "--json",
                                       str(peer_json)])
            peer = {"seconds": round(peer_s, 2), "exit": peer_proc.returncode}
            if peer_json.is_file():
                peer["report_bytes"] = peer_json.stat().st_size
    result = {"requests": requests, "tokens": engine["prompt_tokens_queried"], "sim_seconds": round(ours_s, 2),
              "sim_ms_per_request": round(ours_s / requests * 1000, 3), "sim_vllm_hit_rate": round(ours_rate, 4),
              "kvlint": peer, "speedup_vs_kvlint": round(peer["seconds"] / ours_s, 2) if peer else None}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"verify --engine sim: {requests:,} requests ({result['tokens']:,} tokens), one run each, whole processes:")
        print(f"  promptlint sim   {ours_s:7.2f} s  vLLM hit rate {ours_rate:.1%}")
        if peer:
            print(f"  kvlint lint      {peer['seconds']:7.2f} s  (exit {peer['exit']}; its hit rate is in its own "
                  f"report)  = promptlint {result['speedup_vs_kvlint']}x faster")
        else:
            print("  kvlint: not installed (pip install kvlint, in another environment), not compared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
