#!/usr/bin/env python
"""Whole repositories: `promptlint check .` at the root of real repositories,
beside reading the same files raw and beside a plain parse of them, with
every input error checked against the file's own parser.

    python bench/realworld_repos.py --mirror DIR owner/name [owner/name ...] [--json]

Each repository's newest commit in the mirror (DIR/owner+name, as the
search tool's fetch writes it) is written out from git objects to a
temporary folder (files the snapshot lacks, its largest, are left out). Then, in the same run, each three times, interleaved
(medians reported):

- raw read: every file of the kinds promptlint reads (`discover.format_for`)
  read into memory (`find . -type f | xargs cat > /dev/null`, in-process);
- plain parse: the same files parsed by their own parsers where they have
  one: Python by `ast.parse`, YAML by PyYAML's C loader, JSON by `json`,
  TOML by `tomllib`, Jinja by `jinja2.Environment().parse`; text as read;
- promptlint: `python -m promptlint check . --format json` in a fresh
  process (start-up and tokenizer load included, as a user runs it).

Reported per repository: files, prompts, findings by severity, the exit
code, wall times and ratios, and every input error with whether the file's
own parser accepts the file (an input error on a file its parser accepts is
promptlint's fault; one it refuses is the file's). A crash (a traceback, or
an exit code other than 0, 1, 2) is reported as such. Prints figures, exits 0
(2 for bad arguments).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from realworld_eval import CaseError, git_dir, write_tree  # noqa: E402


def files_of(root: Path) -> list[Path]:
    from promptlint.discover import SKIP_DIRS, format_for

    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        out += [Path(folder) / f for f in files if format_for(Path(f)) is not None]
    return out


def own_parser_accepts(path: Path) -> bool | None:
    """Whether the file's own parser accepts it (None: it has none here)."""
    import jinja2
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    suffix = path.suffix.lower()
    try:
        if suffix == ".py":
            ast.parse(text)
        elif suffix in (".yaml", ".yml"):
            list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
        elif suffix == ".json":
            json.loads(text)
        elif suffix == ".toml":
            tomllib.loads(text)
        elif suffix in (".j2", ".jinja", ".jinja2"):
            jinja2.Environment().parse(text)
        else:
            return None
    except Exception:  # noqa: BLE001 - any refusal is the parser's verdict
        return False
    return True


def read_all(paths: list[Path]) -> int:
    return sum(len(p.read_bytes()) for p in paths)


def parse_all(paths: list[Path]) -> int:
    parsed = 0
    for p in paths:
        if own_parser_accepts(p):
            parsed += 1
    return parsed


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run_repo(mirror: Path, repo: str, rounds: int) -> dict:
    gdir = git_dir(mirror, repo)
    commit = subprocess.run(["git", f"--git-dir={gdir}", "rev-parse", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="promptlint-repo-"))
    try:
        write_tree(gdir, commit, tmp)
        paths = files_of(tmp)
        env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
        env["PROMPTLINT_NO_CACHE"] = "1"  # each round analyses the tree
        times = {"read": [], "parse": [], "promptlint": []}
        report = stderr = None
        code = None
        for _ in range(rounds):
            times["read"].append(timed(lambda: read_all(paths)))
            times["parse"].append(timed(lambda: parse_all(paths)))
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "promptlint", "check", ".", "--format", "json"],
                                  cwd=tmp, env=env, capture_output=True, text=True)
            times["promptlint"].append(time.perf_counter() - start)
            code, stderr = proc.returncode, proc.stderr
            try:
                report = json.loads(proc.stdout)
            except ValueError:
                report = None
        med = {k: statistics.median(v) for k, v in times.items()}
        crashed = report is None or code not in (0, 1, 2) or "Traceback" in (stderr or "")
        errors = []
        for e in (report or {}).get("errors", []):
            accepts = own_parser_accepts(tmp / e["path"])
            errors.append({"error": f"{e['path']}:{e['line']}:{e['column']}: {e['message']}",
                           "own_parser_accepts": accepts})
        sev = {}
        for f in (report or {}).get("findings", []):
            sev[f["severity"]] = sev.get(f["severity"], 0) + 1
        summary = (report or {}).get("summary", {})
        return {
            "repo": repo, "commit": commit, "files_of_kinds_read": len(paths),
            "bytes": read_all(paths), "prompt_files": summary.get("files"), "prompts": summary.get("prompts"),
            "findings": sev, "exit": code, "crashed": crashed,
            "crash": (stderr or "").strip().splitlines()[-1:] if crashed else [],
            "seconds": {k: round(v, 3) for k, v in med.items()},
            "ratio_to_read": round(med["promptlint"] / med["read"], 1) if med["read"] else None,
            "ratio_to_parse": round(med["promptlint"] / med["parse"], 2) if med["parse"] else None,
            "input_errors": errors,
            "input_errors_own_parser_accepts": sum(1 for e in errors if e["own_parser_accepts"]),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def render(results: list[dict]) -> str:
    lines = []
    for r in results:
        s = r["seconds"]
        lines.append(f"{r['repo']}@{r['commit'][:12]}: {r['files_of_kinds_read']:,} files of the kinds read "
                     f"({r['bytes'] / 1e6:.1f} MB), {r['prompt_files']} prompt files, {r['prompts']} prompts, "
                     f"findings {r['findings']}, exit {r['exit']}{', CRASHED: ' + str(r['crash']) if r['crashed'] else ''}")
        lines.append(f"  check . {s['promptlint']:.2f} s; raw read {s['read']:.3f} s ({r['ratio_to_read']}x); "
                     f"plain parse {s['parse']:.2f} s ({r['ratio_to_parse']}x)")
        lines.append(f"  input errors: {len(r['input_errors'])}, of which the file's own parser accepts "
                     f"{r['input_errors_own_parser_accepts']}")
        lines += [f"    {e['error']} [own parser: "
                  f"{'accepts' if e['own_parser_accepts'] else 'refuses' if e['own_parser_accepts'] is False else 'none'}]"
                  for e in r["input_errors"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True)
    parser.add_argument("repos", nargs="+", metavar="OWNER/NAME")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        results = [run_repo(args.mirror, repo, args.rounds) for repo in args.repos]
    except CaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(results, indent=2) if args.json else render(results), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
