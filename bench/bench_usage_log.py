#!/usr/bin/env python
"""`promptlint verify --usage-log` on a large generated log: lines per
second and peak memory, beside `wc -l` and a bare orjson.loads loop over
the same file, in the same run.

    python bench/bench_usage_log.py [--lines N] [--routes R] [--keep FILE] [--json]

The log (default 5,000,000 lines, a few hundred routes) is written to a temp
file: OpenAI Chat Completions responses, each a short JSON line with a usage
object, a model and a route in its metadata, as a logging proxy records
them (about 300 bytes a line). Each command runs once, in a fresh process;
peak memory is the process's maximum resident set (wait4's ru_maxrss). The
report's totals are checked against the generated counts (a mismatch exits 1).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODELS = ("gpt-4.1-2025-04-14", "gpt-4.1-mini-2025-04-14", "gpt-4o-2024-08-06")


def write_log(path: Path, lines: int, routes: int, seed: int = 3) -> tuple[int, int]:
    """The log; returns (prompt tokens, cached tokens) over all lines."""
    rng = random.Random(seed)
    prompt_total = cached_total = 0
    chunk = []
    with open(path, "w", encoding="utf-8") as out:
        for i in range(lines):
            prompt = rng.randrange(500, 4000)
            cached = rng.randrange(0, prompt // 128 + 1) * 128
            prompt_total += prompt
            cached_total += cached
            chunk.append(
                '{"id":"chatcmpl-%d","object":"chat.completion","created":1760000000,"model":"%s",'
                '"metadata":{"route":"route-%d"},"usage":{"prompt_tokens":%d,"completion_tokens":%d,'
                '"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}}\n'
                % (i, MODELS[i % 3], rng.randrange(routes), prompt, 200, prompt + 200, cached))
            if len(chunk) >= 10_000:
                out.write("".join(chunk))
                chunk.clear()
        out.write("".join(chunk))
    return prompt_total, cached_total


def timed(args: list[str]) -> tuple[float, int, bytes, int]:
    """(seconds, peak RSS in MB, stdout, exit code) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return took, usage.ru_maxrss // 1024, out, proc.returncode


ORJSON_LOOP = ("import orjson, sys\n"
               "n = 0\n"
               "with open(sys.argv[1], 'rb', buffering=1 << 20) as f:\n"
               "    for line in f:\n"
               "        orjson.loads(line); n += 1\n"
               "print(n)\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--routes", type=int, default=300)
    ap.add_argument("--keep", type=Path, help="write the log here and keep it (else a temp file)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "usage.jsonl"
        start = time.perf_counter()
        prompt_total, cached_total = write_log(path, args.lines, args.routes)
        written = time.perf_counter() - start
        size = path.stat().st_size
        wc_s, wc_mb, _, _ = timed(["wc", "-l", str(path)])
        loop_s, loop_mb, _, _ = timed([sys.executable, "-c", ORJSON_LOOP, str(path)])
        ours_s, ours_mb, out, code = timed([sys.executable, "-m", "promptlint", "verify", "--usage-log", str(path),
                                            "--format", "json"])
    report = json.loads(out) if code == 0 else {}
    totals = report.get("totals", {})
    ok = (code == 0 and totals.get("requests") == args.lines and totals.get("prompt_tokens") == prompt_total
          and totals.get("cached_tokens") == cached_total)
    result = {
        "lines": args.lines, "routes": args.routes, "bytes": size, "write_s": round(written, 1),
        "promptlint_s": round(ours_s, 2), "promptlint_lines_per_s": round(args.lines / ours_s),
        "promptlint_peak_rss_mb": ours_mb, "groups": len(report.get("groups", [])),
        "wc_l_s": round(wc_s, 2), "orjson_loop_s": round(loop_s, 2), "orjson_loop_peak_rss_mb": loop_mb,
        "ratio_to_orjson_loop": round(ours_s / loop_s, 2), "ratio_to_wc_l": round(ours_s / wc_s, 1),
        "totals_match": ok,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"promptlint verify --usage-log: {args.lines:,} lines ({size / 1e6:,.0f} MB, {args.routes} routes, "
              f"written in {written:.0f} s), one run each, fresh processes:")
        print(f"  wc -l                {wc_s:8.2f} s")
        print(f"  orjson.loads loop    {loop_s:8.2f} s  peak RSS {loop_mb} MB")
        print(f"  promptlint           {ours_s:8.2f} s  peak RSS {ours_mb} MB  = {result['promptlint_lines_per_s']:,} "
              f"lines/s, {result['ratio_to_orjson_loop']}x the orjson loop, {result['ratio_to_wc_l']}x wc -l")
        print(f"  report: {result['groups']} groups; totals match the generated log: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
