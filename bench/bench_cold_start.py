#!/usr/bin/env python
"""One-file cold start: `promptlint audit FILE --format json` and the
pre-commit command `promptlint check FILE` (a changed file: --no-cache; an
unchanged one: a cache hit) in a fresh process, beside `python -c pass` and,
when yamllint is installed, `yamllint` on a YAML file of the same size.

    python bench/bench_cold_start.py [FILE] [--runs N] [--json]

FILE defaults to the smallest prompt file under fixtures/ (a temp file when
fixtures/ does not exist). Each round runs, in a fresh subprocess each and in
this order: `python -c pass`, `python -m promptlint audit FILE --format json`,
and the `promptlint` console script when it is on PATH (the one next to this
interpreter first). Rounds are interleaved so every command sees the same
machine noise; one untimed round first writes .pyc files and seeds the
tokenizer cache, so the figures are a warm-disk, fresh-process start (what a
pre-commit hook pays per invocation). Median and min of N rounds; the ratio
is median(promptlint) / median(python -c pass), and the difference in ms is
promptlint's own start-up cost.

A side run with `python -X importtime` reports whether torch or transformers
(or other heavy modules) were imported, and the top import costs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FORBIDDEN = ("torch", "transformers")
WATCH = ("torch", "transformers", "numpy", "tokenizers", "tiktoken", "rich", "jinja2", "ruamel", "libcst",
         "pathspec", "click", "huggingface_hub", "safetensors")


def _pick_file(tmp: Path) -> tuple[Path, str]:
    fixtures = REPO / "fixtures"
    if fixtures.is_dir():
        sys.path.insert(0, str(REPO))
        try:
            from promptlint.discover import Discovery

            found = [c.path for c in Discovery(REPO).find([fixtures])]
        except (ImportError, AttributeError, TypeError, OSError):  # discovery API moved: use names
            found = [p for p in fixtures.rglob("*") if p.is_file() and p.suffix in (".j2", ".prompt", ".txt", ".md")]
        # a file standing alone (no include/extends), smallest first
        alone = [p for p in found if not re.search(r"{%-?\s*(include|extends|import|from)\b", _read(p))]
        pool = alone or found
        if pool:
            return min(pool, key=lambda p: (p.stat().st_size, str(p))), "smallest standalone fixture"
    path = tmp / "hello.prompt.md"
    path.write_text("You are a helpful assistant for {{ company }}.\n\nToday is {{ today }}.\n"
                    "Answer the question: {{ question }}\n")
    return path, "synthetic (fixtures/ missing)"


def _yaml_of_size(size: int) -> str:
    """Valid, lint-clean YAML of about `size` bytes."""
    lines, total, i = ["---"], 4, 0
    while total < size:
        line = f"key_{i}: value number {i} of a plain configuration file"
        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(lines) + "\n"


def _read(p: Path) -> str:
    try:
        return p.read_text(errors="replace")
    except OSError:
        return ""


def _time(cmd: list[str], env: dict) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, proc


def _check(proc: subprocess.CompletedProcess) -> dict:
    """rc 0 (clean) and 1 (findings) are normal for a linter; the output must be JSON."""
    try:
        json.loads(proc.stdout)
        ok_json = True
    except ValueError:
        ok_json = False
    tail = proc.stderr.strip().splitlines()[-1:] if proc.stderr.strip() else []
    return {"rc": proc.returncode, "json_ok": ok_json, "traceback": "Traceback" in proc.stderr,
            "stderr_tail": tail[0] if tail else ""}


_IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


def _importtime(cmd_tail: list[str], env: dict) -> dict:
    proc = subprocess.run([sys.executable, "-X", "importtime", *cmd_tail], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False)
    rows = []
    for line in proc.stderr.splitlines():
        m = _IMPORT_LINE.match(line)
        if m:
            self_us, cum_us, indent, name = int(m[1]), int(m[2]), len(m[3]) - 1, m[4]
            rows.append({"module": name, "self_us": self_us, "cumulative_us": cum_us, "depth": indent // 2})
    roots = {r["module"].split(".")[0] for r in rows}
    top_level = sorted((r for r in rows if r["depth"] == 0), key=lambda r: -r["cumulative_us"])
    by_self = sorted(rows, key=lambda r: -r["self_us"])
    per_package: dict[str, int] = {}
    for r in rows:
        per_package[r["module"].split(".")[0]] = per_package.get(r["module"].split(".")[0], 0) + r["self_us"]
    return {
        "modules": len(rows),
        "total_us": sum(r["self_us"] for r in rows),
        "forbidden_imported": {name: name in roots for name in FORBIDDEN},
        "watched_imported": {name: name in roots for name in WATCH},
        "top_cumulative": top_level[:5],
        "top_self": by_self[:5],
        "top_packages": sorted(({"package": k, "self_us": v} for k, v in per_package.items()),
                               key=lambda r: -r["self_us"])[:5],
    }


# Runs in a fresh interpreter: where one cold audit spends its time, by phase.
_PHASES = r"""
import io, json, sys, time
t = time.perf_counter
out = {}
t0 = t(); import promptlint.cli; out["import cli"] = t() - t0
from pathlib import Path
path = Path(sys.argv[1])
t0 = t()
from promptlint import config as config_mod
from promptlint.audit import run_audit, select_models
config = config_mod.load(path); models = select_models(config)
out["import audit + config + models"] = t() - t0
from promptlint.tokenizers import get_tokenizer
t0 = t()
for spec in dict.fromkeys(m.tokenizer for m in models):
    get_tokenizer(spec)
out["tokenizer load"] = t() - t0
t0 = t(); result = run_audit([path], config, models); out["audit (incl. lazy source imports)"] = t() - t0
t0 = t()
from promptlint.report import json_report
json.dumps(json_report.build(result, config), indent=2, ensure_ascii=False, default=str)
out["json report"] = t() - t0
print(json.dumps(out))
"""


def _phases(path: str, env: dict, rounds: int = 3) -> dict | None:
    """Median over a few fresh processes of each phase; None if the API moved."""
    samples: list[dict] = []
    for _ in range(rounds):
        proc = subprocess.run([sys.executable, "-c", _PHASES, path], cwd=REPO, env=env,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
        samples.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(s[k] for s in samples) for k in samples[0]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", type=Path, help="prompt file (default: smallest standalone fixture)")
    ap.add_argument("--runs", type=int, default=7, help="interleaved rounds (default 7)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    tmp = Path(tempfile.mkdtemp(prefix="promptlint-cold-"))
    try:
        return _run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, tmp: Path) -> int:
    if args.file is not None:
        target, kind = args.file.resolve(), "given"
        if not target.is_file():
            print(f"error: {target}: no such file", file=sys.stderr)
            return 2
    else:
        target, kind = _pick_file(tmp)
    try:
        shown = target.relative_to(REPO).as_posix()
    except ValueError:
        shown = str(target)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.setdefault("NO_COLOR", "1")

    audit_args = ["audit", shown, "--format", "json"]
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -m promptlint": [sys.executable, "-m", "promptlint", *audit_args],
    }
    script = Path(sys.executable).with_name("promptlint")
    script = str(script) if script.exists() else shutil.which("promptlint")
    if script:
        commands["promptlint (console script)"] = [script, *audit_args]
    # the pre-commit hook's command: a changed file (no cache entry), then an unchanged one (cache hit)
    cache = tmp / "cache"
    commands["check --no-cache (changed file)"] = [sys.executable, "-m", "promptlint", "check", "--no-cache",
                                                   "--format", "json", shown]
    commands["check (unchanged, cache hit)"] = [sys.executable, "-m", "promptlint", "check", "--cache-dir",
                                                str(cache), "--format", "json", shown]
    yamllint = Path(sys.executable).with_name("yamllint")
    yamllint = str(yamllint) if yamllint.exists() else shutil.which("yamllint")
    if yamllint:  # the reference: a YAML linter on a YAML file of the same size
        same = tmp / "same-size.yaml"
        same.write_text(_yaml_of_size(target.stat().st_size))
        commands["yamllint (same-size YAML)"] = [yamllint, "-f", "parsable", str(same)]

    checks: dict[str, dict] = {}
    for name, cmd in commands.items():  # untimed: .pyc files, tokenizer cache, the cache entry
        _, proc = _time(cmd, env)
        if name.startswith(("python -m", "promptlint", "check")):
            checks[name] = _check(proc)

    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            elapsed, _ = _time(cmd, env)
            times[name].append(elapsed)

    base = statistics.median(times["python -c pass"])
    ref = statistics.median(times["yamllint (same-size YAML)"]) if "yamllint (same-size YAML)" in times else None
    results = {}
    for name, ts in times.items():
        med = statistics.median(ts)
        results[name] = {"median_s": med, "min_s": min(ts), "all_s": ts,
                         "ratio_vs_python": med / base, "over_python_s": med - base,
                         "ratio_vs_yamllint": med / ref if ref else None}
    imports = _importtime(["-m", "promptlint", *audit_args], env)
    phases = _phases(shown, env)
    figures = {"file": shown, "file_kind": kind, "file_bytes": target.stat().st_size, "runs": args.runs,
               "python": sys.executable, "results": results, "checks": checks, "importtime": imports,
               "phases_s": phases}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print_text(figures)
    return 0


def _print_text(f: dict) -> None:
    print(f"promptlint cold start: audit {f['file']} --format json ({f['file_bytes']:,} bytes, {f['file_kind']})")
    print(f"  {f['runs']} interleaved rounds, fresh subprocess each; median [min]")
    for name, r in f["results"].items():
        line = f"  {name:30s} {r['median_s'] * 1e3:8.0f} ms  [{r['min_s'] * 1e3:.0f}]"
        if name != "python -c pass":
            line += f"  = {r['ratio_vs_python']:.1f}x python -c pass (+{r['over_python_s'] * 1e3:.0f} ms)"
        if r.get("ratio_vs_yamllint") and not name.startswith(("python -c", "yamllint")):
            line += f", {r['ratio_vs_yamllint']:.2f}x yamllint"
        print(line)
    for name, c in f["checks"].items():
        state = "ok" if c["json_ok"] and not c["traceback"] and c["rc"] in (0, 1) else "FAILED"
        extra = "" if state == "ok" else f": {c['stderr_tail']}"
        print(f"  {name}: exit {c['rc']}, JSON output {'valid' if c['json_ok'] else 'INVALID'} [{state}]{extra}")
    ph = f["phases_s"]
    if ph and "error" not in ph:
        total = sum(ph.values())
        print(f"  phases in-process (median of 3 fresh processes, {total * 1e3:.0f} ms in all):")
        for k, v in ph.items():
            print(f"      {v * 1e3:8.1f} ms  {k}")
    elif ph:
        print(f"  phases: side run failed: {ph['error']}")
    it = f["importtime"]
    bad = [k for k, v in it["forbidden_imported"].items() if v]
    print(f"  -X importtime: {it['modules']} modules, {it['total_us'] / 1e3:.0f} ms of imports; "
          f"torch/transformers imported: {'YES (' + ', '.join(bad) + ')' if bad else 'no'}")
    heavy = [k for k, v in it["watched_imported"].items() if v and k not in FORBIDDEN]
    print(f"    also imported: {', '.join(heavy) or '-'}")
    print("    top 5 top-level imports by cumulative time:")
    for r in it["top_cumulative"]:
        print(f"      {r['cumulative_us'] / 1e3:8.1f} ms  {r['module']}")
    print("    top 5 packages by total self time:")
    for r in it["top_packages"]:
        print(f"      {r['self_us'] / 1e3:8.1f} ms  {r['package']}")


if __name__ == "__main__":
    sys.exit(main())
