#!/usr/bin/env python
"""How promptlint does on real prompt files it was not written against: the
cases in bench/realworld/cases.toml (public repositories, each file labelled
by reading it before promptlint was run on it) scored against
`promptlint check`.

    python bench/realworld_eval.py --mirror DIR [--cases FILE] [--mode named|walk|both]
                                   [--only ID] [--src DIR] [--jobs N] [--json]

The repositories' files are never part of this project. `--mirror DIR` is a
folder of fetched git directories, one per repository, named `owner+name`
(as the search tool's fetch writes them: DIR/owner+name/repo or
DIR/owner+name/repo/.git); each case names its repository and commit, and
the files are read from git objects at that commit into a temporary folder
outside any project, so no config of this project applies.

Two runs per case, both through the real CLI in a fresh process
(`python -m promptlint check --format json`), so a crash or a traceback shows:

- named: `promptlint check PATH` on the case's file (with the files it
  includes beside it at their repository paths);
- walk: `promptlint check SUBTREE` on the case's folder (`subtree`), each
  folder once, so discovery has to find the file by itself.

A finding counts when its severity is warning or error (what fails a run
with the default `--fail-on warning`; info never does). Per case:

- `flag`: detected when a counting finding is in the file; line-exact when
  one is on the labelled line;
- `clean` and `low`: a counting finding in the file is a false alarm (`low`
  is a value that changes at most daily: an info finding is right there);
- an input error on the file (exit 2) is listed; for a `flag` it is a miss.

recall = detected flags / flags; precision = detected flags / (detected
flags + false alarms); line-exact = line-exact flags / detected flags.
Every miss, false alarm and input error is printed. Exit 0 with figures,
2 for bad arguments or cases that cannot be read.

`--src DIR` runs promptlint from another source tree (its root on
PYTHONPATH), to score an earlier commit (a `git worktree`) the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CASES = REPO / "bench" / "realworld" / "cases.toml"
VERDICTS = ("flag", "low", "clean")
COUNTING = ("error", "warning")
_KEYS = {"id", "repo", "commit", "path", "files", "subtree", "format", "verdict", "line", "construct",
         "evidence", "snippet", "note"}


class CaseError(Exception):
    """cases.toml or the mirror cannot be used: one line saying which case and why."""


@dataclass(frozen=True)
class Case:
    id: str
    repo: str
    commit: str
    path: str
    files: tuple[str, ...]
    subtree: str
    format: str
    verdict: str
    line: int
    construct: str


@dataclass
class Outcome:
    """What one run said about one case's file."""

    counting: list[dict] = field(default_factory=list)  # warning/error findings in the file
    info: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # input errors on the file
    crashed: str = ""  # a traceback or an exit code other than 0/1/2

    @property
    def flagged(self) -> bool:
        return bool(self.counting)

    def on_line(self, line: int) -> bool:
        return any(f["location"]["line"] == line for f in self.counting)


def load_cases(path: Path) -> list[Case]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CaseError(f"{path}: {exc}") from None
    out, seen = [], set()
    for n, table in enumerate(data.get("case", []), 1):
        where = f"{path.name}: case {n} ({table.get('id', '?')})"
        unknown = set(table) - _KEYS
        if unknown:
            raise CaseError(f"{where}: unknown keys {sorted(unknown)}")
        for key in ("id", "repo", "commit", "path", "verdict"):
            if not isinstance(table.get(key), str) or not table[key]:
                raise CaseError(f"{where}: `{key}` must be a non-empty string")
        if table["id"] in seen:
            raise CaseError(f"{where}: duplicate id")
        seen.add(table["id"])
        if table["verdict"] not in VERDICTS:
            raise CaseError(f"{where}: verdict must be one of {', '.join(VERDICTS)}")
        line = table.get("line", 0)
        if not isinstance(line, int) or line < 0 or (table["verdict"] != "clean" and line < 1):
            raise CaseError(f"{where}: `line` must be >= 1 for flag/low, 0 for clean")
        subtree = table.get("subtree") or str(PurePosixPath(table["path"]).parent.parent)
        out.append(Case(table["id"], table["repo"], table["commit"], table["path"],
                        tuple(table.get("files", ())), subtree.strip("/") or ".", table.get("format", ""),
                        table["verdict"], line, table.get("construct", "")))
    if not out:
        raise CaseError(f"{path}: no [[case]] tables")
    return out


def git_dir(mirror: Path, repo: str) -> Path:
    base = mirror / repo.replace("/", "+")
    for candidate in (base / "repo" / ".git", base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise CaseError(f"{repo}: no git directory under {base} (fetch it first)")


def write_tree(gdir: Path, commit: str, dest: Path, tops: list[str] | None = None) -> int:
    """Write the files of `commit` (those under `tops`, or all) into `dest`
    from git objects; objects the snapshot lacks (its largest files) are
    skipped. Returns the number of files written."""
    from promptlint.gitfiles import read_blobs

    args = ["git", f"--git-dir={gdir}", "ls-tree", "-r", "-z", commit]
    if tops and "." not in tops:
        args += ["--", *tops]
    listing = subprocess.run(args, capture_output=True, check=True).stdout
    entries = []
    for record in listing.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob" and parts[0] in (b"100644", b"100755"):
            entries.append((path.decode("utf-8", "surrogateescape"), parts[2].decode()))
    written = 0
    for start in range(0, len(entries), 2000):
        chunk = entries[start:start + 2000]
        blobs = read_blobs(gdir, [sha for _, sha in chunk])
        for path, sha in chunk:
            data = blobs.get(sha)
            if data is None:
                continue
            target = dest.joinpath(*path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written += 1
    return written


def materialise(mirror: Path, cases: list[Case], into: Path) -> dict[tuple[str, str], Path]:
    """Each (repo, commit)'s subtrees and named files, from git objects, into
    its own folder under `into`. Returns the folder of each (repo, commit)."""
    roots: dict[tuple[str, str], Path] = {}
    wanted: dict[tuple[str, str], set[str]] = {}
    for case in cases:
        key = (case.repo, case.commit)
        wanted.setdefault(key, set()).update({case.subtree, case.path, *case.files})
    for n, (key, paths) in enumerate(sorted(wanted.items())):
        repo, commit = key
        gdir = git_dir(mirror, repo)
        root = into / f"{n:02d}-{repo.replace('/', '+')}"
        root.mkdir(parents=True)
        # an ancestor already covers its descendants
        tops = sorted(p for p in paths if not any(p != q and (q == "." or p.startswith(q + "/")) for q in paths))
        try:
            write_tree(gdir, commit, root, tops)
        except subprocess.CalledProcessError as exc:
            raise CaseError(f"{repo}@{commit[:12]}: git ls-tree failed: "
                            f"{exc.stderr.decode(errors='replace').strip().splitlines()[-1:]}") from None
        roots[key] = root
    return roots


def run_check(target: str, cwd: Path, src: Path | None) -> tuple[dict | None, str, int]:
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    env["PROMPTLINT_NO_CACHE"] = "1"  # every run analyses (a cache entry of another tree's code must not answer)
    if src is not None:
        env["PYTHONPATH"] = str(src) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "promptlint", "check", "--format", "json", target],
                          cwd=cwd, env=env, capture_output=True, text=True)
    try:
        report = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        report = None
    return report, proc.stderr, proc.returncode


def outcome_for(report: dict | None, stderr: str, code: int, rel: str) -> Outcome:
    out = Outcome()
    if report is None or code not in (0, 1, 2) or "Traceback" in stderr:
        tail = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:] or [f"exit {code}"]
        out.crashed = f"exit {code}: {tail[0]}"
        return out
    for f in report.get("findings", []):
        if f["location"]["path"] == rel:
            (out.counting if f["severity"] in COUNTING else out.info).append(f)
    out.errors = [f"{e['path']}:{e['line']}:{e['column']}: {e['message']}" for e in report.get("errors", [])
                  if e["path"] == rel]
    return out


def evaluate(cases: list[Case], mirror: Path, mode: str, src: Path | None, jobs: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="promptlint-realworld-"))
    try:
        roots = materialise(mirror, cases, tmp)
        results: dict[str, dict] = {}
        if mode in ("named", "both"):
            def named(case: Case):
                root = roots[(case.repo, case.commit)]
                return case, outcome_for(*run_check(case.path, root, src), case.path)

            with ThreadPoolExecutor(jobs) as pool:
                outcomes = dict((c.id, o) for c, o in pool.map(named, cases))
            results["named"] = score(cases, outcomes)
        if mode in ("walk", "both"):
            walks = sorted({(c.repo, c.commit, c.subtree) for c in cases})

            def walk(key):
                repo, commit, subtree = key
                root = roots[(repo, commit)]
                return key, run_check(subtree, root, src)

            with ThreadPoolExecutor(jobs) as pool:
                reports = dict(pool.map(walk, walks))
            outcomes = {c.id: outcome_for(*reports[(c.repo, c.commit, c.subtree)], c.path) for c in cases}
            walk_summary = []
            for (repo, commit, subtree), (report, stderr, code) in sorted(reports.items()):
                summary = (report or {}).get("summary", {})
                counting = [f for f in (report or {}).get("findings", []) if f["severity"] in COUNTING]
                walk_summary.append({"repo": repo, "subtree": subtree, "exit": code,
                                     "files": summary.get("files"), "prompts": summary.get("prompts"),
                                     "counting_findings": len(counting),
                                     "files_flagged": len({f["location"]["path"] for f in counting}),
                                     "input_errors": [f"{e['path']}:{e['line']}:{e['column']}: {e['message']}"
                                                      for e in (report or {}).get("errors", [])]})
            results["walk"] = score(cases, outcomes)
            results["walk"]["folders"] = walk_summary
        return {"cases": len(cases), "repos": len({c.repo for c in cases}),
                "verdicts": {v: sum(c.verdict == v for c in cases) for v in VERDICTS}, **results}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def score(cases: list[Case], outcomes: dict[str, Outcome]) -> dict:
    detected, exact, misses, alarms, errors, crashes, low_info = [], [], [], [], [], [], 0
    for case in cases:
        o = outcomes[case.id]
        label = f"{case.id}: {case.path}" + (f":{case.line}" if case.line else "") + f" [{case.verdict}]"
        if o.crashed:
            crashes.append(f"{label}: {o.crashed}")
        errors += [f"{label}: {e}" for e in o.errors]
        if case.verdict == "flag":
            if o.flagged:
                detected.append(case.id)
                if o.on_line(case.line):
                    exact.append(case.id)
                else:
                    got = ", ".join(sorted({f"{f['location']['line']}:{f['code']}" for f in o.counting}))
                    misses.append(f"{label}: found at other lines ({got}); expected {case.construct}")
            else:
                why = "input error" if o.errors else "crash" if o.crashed else (
                    f"only info ({', '.join(sorted({f['code'] for f in o.info}))})" if o.info else "nothing found")
                misses.append(f"{label}: missed ({why}): {case.construct}")
        elif o.flagged:
            got = "; ".join(f"{f['location']['line']}:{f['location']['column']} {f['code']} {f['severity']}: "
                            f"{f['message'][:140]}" for f in o.counting[:3])
            if len(o.counting) > 3:
                got += f"; and {len(o.counting) - 3} more"
            alarms.append(f"{label}: {got}")
        elif case.verdict == "low" and o.info:
            low_info += 1
    flags = sum(c.verdict == "flag" for c in cases)
    tp, fp = len(detected), len(alarms)
    return {
        "flags": flags, "detected": tp, "line_exact": len(exact), "false_alarms": fp,
        "recall": tp / flags if flags else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "line_exact_rate": len(exact) / tp if tp else None,
        "low_with_info": low_info, "low": sum(c.verdict == "low" for c in cases),
        "misses": misses, "alarms": alarms, "input_errors": errors, "crashes": crashes,
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def render_text(report: dict) -> str:
    v = report["verdicts"]
    lines = [f"{report['cases']} cases from {report['repos']} repositories: "
             f"{v['flag']} flag, {v['low']} low, {v['clean']} clean"]
    for mode in ("named", "walk"):
        if mode not in report:
            continue
        r = report[mode]
        lines += ["", f"{mode}: recall {_pct(r['recall'])} ({r['detected']}/{r['flags']}), "
                      f"precision {_pct(r['precision'])} ({r['detected']}/{r['detected'] + r['false_alarms']}), "
                      f"line-exact {_pct(r['line_exact_rate'])} ({r['line_exact']}/{r['detected']}); "
                      f"low cases with an info finding {r['low_with_info']}/{r['low']}"]
        for key, title in (("misses", "misses and wrong lines"), ("alarms", "false alarms"),
                           ("input_errors", "input errors on case files"), ("crashes", "crashes")):
            if r[key]:
                lines.append(f"  {title} ({len(r[key])}):")
                lines += [f"    {x}" for x in r[key]]
        for folder in r.get("folders", []):
            errs = folder["input_errors"]
            lines.append(f"  walk {folder['repo']}:{folder['subtree']}: exit {folder['exit']}, {folder['files']} files, "
                         f"{folder['prompts']} prompts, {folder['counting_findings']} warning/error findings in "
                         f"{folder['files_flagged']} files, {len(errs)} input errors")
            lines += [f"      {e}" for e in errs[:10]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True, help="folder of fetched git directories (owner+name)")
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--mode", choices=("named", "walk", "both"), default="both")
    parser.add_argument("--only", metavar="ID", action="append", help="only cases whose id starts with ID")
    parser.add_argument("--format", dest="formats", metavar="FMT", action="append",
                        help="only cases of this format (python, yaml, markdown ...); `--format -python` leaves it out")
    parser.add_argument("--src", type=Path, help="run promptlint from this source tree (PYTHONPATH)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        cases = load_cases(args.cases)
        if args.only:
            cases = [c for c in cases if any(c.id.startswith(p) for p in args.only)]
            if not cases:
                raise CaseError(f"no case id starts with {', '.join(args.only)}")
        if args.formats:
            keep = {f for f in args.formats if not f.startswith("-")}
            drop = {f[1:] for f in args.formats if f.startswith("-")}
            cases = [c for c in cases if (not keep or c.format in keep) and c.format not in drop]
            if not cases:
                raise CaseError(f"no case of format {', '.join(args.formats)}")
        report = evaluate(cases, args.mirror, args.mode, args.src.resolve() if args.src else None, args.jobs)
    except CaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else render_text(report), end="" if not args.json else "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
