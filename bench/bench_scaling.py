"""How `promptlint check` scales with its input (issue 14): time and peak
memory for prompts of 1k to 64k volatile slots, Markdown prompts of 1k to
64k lines, Jinja loops nested 5 to 30 deep and includes fanned out 5 wide
and 2 to 6 deep. Each size runs in a fresh process; the table gives, per
step, the ratio of time to the step before and of input size, so linear
work reads about 4x per 4x (the first row of each family is its baseline,
measured in the same run). The inputs are generated here; nothing is read
from the network.

    python bench/bench_scaling.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = ("import resource, runpy, sys\n"
          "sys.argv = ['promptlint', 'check', '--show-info', sys.argv[1]]\n"
          "code = 0\n"
          "try:\n    runpy.run_module('promptlint', run_name='__main__')\n"
          "except SystemExit as exc:\n    code = exc.code if isinstance(exc.code, int) else 1\n"
          "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
          "sys.exit(code)\n")
RULES = ("You are the support assistant of Harbor and Pine Outfitters. Answer from the policy, cite its section, "
         "never promise refunds over two hundred dollars, and hand angry customers to a human agent. ")


def slots(folder: Path, n: int) -> Path:
    path = folder / f"slots-{n}.j2"
    path.write_text("".join(f"{{{{ now{i} }}}} rule\n" for i in range(n)) + RULES * 4)
    return path


def lines(folder: Path, n: int) -> Path:
    path = folder / f"lines-{n}.prompt.md"
    path.write_text("".join(f"R{i}: {{{{ f{i % 50} }}}}\n" for i in range(n)))
    return path


def nesting(folder: Path, depth: int) -> Path:
    path = folder / f"nest-{depth}.j2"
    head = "".join(f"{{% for x{i} in xs{i} %}}{{{{ x{i} }}}} " for i in range(depth))
    path.write_text(head + RULES * 4 + "{% endfor %}" * depth + "\n")
    return path


def fan_out(folder: Path, depth: int) -> Path:
    base = folder / f"fan-{depth}"
    base.mkdir()
    for level in range(depth + 1):
        body = "".join(f'{{% include "l{level + 1}.j2" %}}' for _ in range(5)) if level < depth else RULES
        (base / f"l{level}.j2").write_text(body + "\n")
    return base / "l0.j2"


FAMILIES = {
    "volatile slots": (slots, [1_000, 4_000, 16_000, 64_000]),
    "Markdown lines": (lines, [1_000, 4_000, 16_000, 64_000]),
    "nested loops (depth)": (nesting, [5, 10, 20, 30]),
    "include fan-out 5^depth": (fan_out, [2, 3, 4, 5, 6]),
}
QUICK = {"volatile slots": [1_000, 4_000, 16_000], "Markdown lines": [1_000, 4_000, 16_000],
         "nested loops (depth)": [5, 10, 20], "include fan-out 5^depth": [2, 3, 4]}


def measure(path: Path) -> tuple[float, int, int, str]:
    """(seconds, peak KiB, exit code, the first error line) of one check in a fresh interpreter."""
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)], cwd=path.parent, capture_output=True, text=True,
                          timeout=900)
    seconds = time.perf_counter() - started
    rss = next((int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("MAXRSS ")), 0)
    said = next((line for line in proc.stderr.splitlines() if not line.startswith(("MAXRSS ", "note:"))), "")
    return seconds, rss, proc.returncode, said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smaller sizes only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="promptlint-scaling-") as tmp:
        folder = Path(tmp)
        for family, (make, sizes) in FAMILIES.items():
            sizes = QUICK[family] if args.quick else sizes
            before = None
            for size in sizes:
                sub = folder / f"{make.__name__}-{size}"
                sub.mkdir()
                seconds, rss, code, said = measure(make(sub, size))
                row = {"family": family, "size": size, "seconds": round(seconds, 2), "peak_mib": round(rss / 1024),
                       "exit": code, "said": said if code == 2 else ""}
                if before is not None and not row["said"]:
                    row["time_ratio"] = round(seconds / before["seconds"], 2) if before["seconds"] else None
                    row["size_ratio"] = round(size / before["size"], 2)
                rows.append(row)
                before = row if not row["said"] else before
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("promptlint check: time and peak memory per input size (fresh process each; ratios to the step before)")
    for row in rows:
        ratio = (f"  time x{row['time_ratio']} for size x{row['size_ratio']}" if "time_ratio" in row else
                 "" if row["said"] else "  (baseline)")
        print(f"  {row['family']:<24} {row['size']:>7,}  {row['seconds']:>7.2f} s  {row['peak_mib']:>6,} MiB  "
              f"exit {row['exit']}{ratio}")
        if row["said"]:
            print(f"      refused: {row['said'].split(': ', 1)[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
