#!/usr/bin/env python
"""`promptlint check` over a large Python tree beside a plain libcst parse of the same files.

    python bench/bench_python_tree.py [--package NAME] [--files N | --copies K] [--repeat R] [--json]
    python bench/bench_python_tree.py --mirror DIR --repo OWNER/NAME [--repo ...] [--repeat R] [--json]

Builds a tree in a temp dir: K copies of fixtures/corpus/python/ (the
labelled Python corpus: 32 modules, about 35 prompts) together with the .py
files of an installed package (real code without prompts; default
markdown_it, a dependency of rich), K chosen so that the tree has about N
files (default 1,000). Then, in one process:

- promptlint: `promptlint.lint.run_check([TREE], config, models,
  select=["ALL"])`, the whole in-process `promptlint check` (discovery, the
  Python reader, the analysis of every prompt found, every rule,
  suppression comments), with the corpus config (fixtures/corpus/
  promptlint.toml, re-rooted at the tree). Process start and the report are
  not timed. The tokenizers the models need are loaded first and their load
  time is reported on its own (excluded), and one small untimed check pays
  the lazy imports (libcst, ...).
- baseline: for every .py file of the same tree, read its text and
  `libcst.parse_module(text)`: what any libcst-based tool pays at least.

Both run R times (default 3), interleaved so that both see the same machine
noise; medians are reported (minimums in brackets). The ratio
promptlint/libcst says "checking a tree costs N times parsing it": the
Python reader parses each file once with libcst, so a ratio near 1 means
the check is parse-bound, and what is above it is discovery, following
values, the prompts' analysis (tokenization per scope and per model) and
the rules. Files/s and MB/s are given for both; compare MB/s (or the ratio)
across packages, since file sizes differ (markdown_it averages 3.6 KB a
file, rich 12 KB, click 26 KB).

With --mirror, each --repo is a real repository instead (its newest commit
in the mirror, DIR/owner+name as the search tool's fetch writes it, written
out from git objects): promptlint checks every .py file of it, named on the
command line (the whole Python reader on each, cross-module values read in
the tree), under the default config, beside libcst.parse_module of the same
files, interleaved. It reports the input errors, and for each whether
CPython's own parser (`ast.parse`) accepts the file: valid Python must never
be an input error (exit 2), so any such file is listed as a failure, as is a
crash (an exception out of the check).

Default size and repeats finish in about two to three minutes on a
two-core machine; `--package rich` or `--package click` is slower per file.
Like the other benches this prints figures and exits 0; 2 for bad
arguments, a package that is not installed, or a tree without prompts.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib.util
import json
import math
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(REPO))

CORPUS = REPO / "fixtures" / "corpus"
PY_CORPUS = CORPUS / "python"
DEFAULT_PACKAGE = "markdown_it"
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo")


def _peak_mb(who) -> float:
    """Peak resident memory so far (Linux reports KB, macOS bytes)."""
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def package_dir(name: str) -> Path | None:
    """The source folder of an installed package (never imported: found by spec)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def py_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def build_tree(dest: Path, package: Path, copies: int) -> Path:
    """copyNNN/corpus/ (the Python corpus, its ABOUT.rst included) and
    copyNNN/<package>/ for each copy."""
    for i in range(copies):
        target = dest / f"copy{i:03d}"
        shutil.copytree(PY_CORPUS, target / "corpus", ignore=_IGNORE)
        shutil.copytree(package, target / package.name, ignore=_IGNORE)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", default=DEFAULT_PACKAGE,
                    help=f"installed package whose .py files fill the tree (default {DEFAULT_PACKAGE})")
    ap.add_argument("--files", type=int, default=1000, help="about how many files the tree should have (default 1000)")
    ap.add_argument("--copies", type=int, help="copies of corpus + package (overrides --files)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each side (median reported)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--jobs", type=lambda v: [int(x) for x in v.split(",")], default=[1], metavar="N[,M...]",
                    help="with --repo: run the check with each of these -j values (default 1), interleaved")
    ap.add_argument("--mirror", type=Path, help="folder of fetched repositories (owner+name/...)")
    ap.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME",
                    help="with --mirror: a repository to check whole (repeatable)")
    args = ap.parse_args(argv)
    if args.mirror is not None or args.repo:
        if args.mirror is None or not args.repo:
            ap.error("--mirror and --repo go together")
        return _run_repos(args)
    if args.repeat < 1 or args.files < 1 or (args.copies is not None and args.copies < 1):
        ap.error("--repeat, --files and --copies must be >= 1")
    if not PY_CORPUS.is_dir():
        print(f"error: {PY_CORPUS}: no such directory", file=sys.stderr)
        return 2
    package = package_dir(args.package)
    if package is None or not py_files(package):
        print(f"error: package {args.package!r} is not installed (or has no .py files)", file=sys.stderr)
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="promptlint-pybench-"))
    try:
        return _run(args, package, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, package: Path, tmp: Path) -> int:
    t0 = time.perf_counter()
    import libcst

    from promptlint import config as config_mod
    from promptlint.audit import select_models
    from promptlint.lint import run_check
    from promptlint.tokenizers import get_tokenizer
    import_s = time.perf_counter() - t0

    per_copy = len(py_files(PY_CORPUS)) + len(py_files(package))
    copies = args.copies or max(1, math.ceil(args.files / per_copy))
    t0 = time.perf_counter()
    tree = build_tree(tmp / "tree", package, copies)
    build_s = time.perf_counter() - t0
    files = py_files(tree)
    total_bytes = sum(p.stat().st_size for p in files)

    # The corpus's settings (two models, declared variables), rooted at the tree.
    config = dataclasses.replace(config_mod.load(CORPUS), root=tree)
    models = select_models(config)

    load_s: dict[str, float] = {}
    for spec in dict.fromkeys(m.tokenizer for m in models):
        t0 = time.perf_counter()
        get_tokenizer(spec)
        load_s[spec] = time.perf_counter() - t0

    # Untimed: a two-file check pays the lazy imports (libcst's parser, the
    # Python reader's modules); one parse warms libcst on the baseline side.
    warm = tmp / "warm"
    warm.mkdir()
    shutil.copy2(PY_CORPUS / "support_api.py", warm / "support_api.py")
    shutil.copy2(py_files(package)[0], warm / "pkgfile.py")
    t0 = time.perf_counter()
    run_check([warm], dataclasses.replace(config, root=warm), models, select=["ALL"])
    warm_s = time.perf_counter() - t0
    libcst.parse_module((warm / "pkgfile.py").read_text(encoding="utf-8"))

    def parse_all() -> int:
        n = 0
        for path in files:
            libcst.parse_module(path.read_text(encoding="utf-8"))
            n += 1
        return n

    check_times: list[float] = []
    parse_times: list[float] = []
    result = None
    for _ in range(args.repeat):  # interleaved: both sides see the same noise
        gc.collect()
        t0 = time.perf_counter()
        result = run_check([tree], config, models, select=["ALL"])
        check_times.append(time.perf_counter() - t0)
        gc.collect()
        t0 = time.perf_counter()
        parsed = parse_all()
        parse_times.append(time.perf_counter() - t0)
    assert parsed == len(files)
    if result is None or result.prompts == 0:
        print(f"error: no prompts found under {tree}", file=sys.stderr)
        return 2

    check_s, parse_s = _median(check_times), _median(parse_times)
    mb = total_bytes / 1e6
    figures = {
        "package": args.package,
        "package_dir": str(package),
        "copies": copies,
        "repeat": args.repeat,
        "files": len(files),
        "files_checked": result.files,
        "bytes": total_bytes,
        "corpus_files_per_copy": len(py_files(PY_CORPUS)),
        "package_files_per_copy": len(py_files(package)),
        "prompts": result.prompts,
        "findings": len(result.findings),
        "input_errors": [str(e) for e in result.errors][:20],
        "input_error_count": len(result.errors),
        "models": [m.key for m in models],
        "check_s_median": check_s,
        "check_s_min": min(check_times),
        "check_s_all": check_times,
        "check_files_per_s": len(files) / check_s,
        "check_mb_per_s": mb / check_s,
        "libcst_s_median": parse_s,
        "libcst_s_min": min(parse_times),
        "libcst_s_all": parse_times,
        "libcst_files_per_s": len(files) / parse_s,
        "libcst_mb_per_s": mb / parse_s,
        "ratio_check_over_libcst": check_s / parse_s,
        "tokenizer_load_s": load_s,
        "import_s": import_s,
        "warmup_check_s": warm_s,
        "tree_build_s": build_s,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print_text(figures)
    return 0


def _run_repos(args) -> int:
    """Whole real repositories from the mirror: see the module docstring."""
    import ast
    import subprocess

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import libcst
    from realworld_eval import CaseError, git_dir, write_tree

    from promptlint.config import from_table
    from promptlint.economics.providers import select_models
    from promptlint.lint import run_check

    out, status = [], 0
    for repo in args.repo:
        tmp = Path(tempfile.mkdtemp(prefix="promptlint-pyrepo-"))
        try:
            try:
                gdir = git_dir(args.mirror, repo)
            except CaseError as exc:
                print(f"error: {exc}", file=sys.stderr)
                status = 2
                continue
            commit = subprocess.run(["git", f"--git-dir={gdir}", "rev-parse", "HEAD"], capture_output=True,
                                    text=True, check=True).stdout.strip()
            tree = tmp / "tree"
            write_tree(gdir, commit, tree)
            files = py_files(tree)
            config = from_table({}, None, tree)
            models = select_models(config)
            run_check(files[:2], config, models, select=["ALL"])  # untimed: lazy imports, tokenizer load
            check_times, parse_times, ast_times, result, crash = [], [], [], None, None
            by_jobs: dict[int, list[float]] = {j: [] for j in args.jobs}
            reports: dict[int, set] = {j: set() for j in args.jobs}
            for _ in range(args.repeat):
                for jobs in args.jobs:
                    gc.collect()
                    t0 = time.perf_counter()
                    try:
                        result = run_check(files, config, models, select=["ALL"], jobs=jobs)
                    except Exception as exc:  # noqa: BLE001 - a crash is a result to report
                        crash = f"{type(exc).__name__}: {exc}"
                        break
                    by_jobs[jobs].append(time.perf_counter() - t0)
                    reports[jobs].add(tuple((f.rule, f.path, f.line_col, f.message) for f in result.findings))
                if crash:
                    break
                check_times.append(by_jobs[args.jobs[0]][-1])
                gc.collect()
                t0 = time.perf_counter()
                for path in files:
                    try:
                        libcst.parse_module(path.read_text(encoding="utf-8"))
                    except Exception:  # noqa: BLE001 - the baseline parses what it can
                        pass
                parse_times.append(time.perf_counter() - t0)
                gc.collect()
                t0 = time.perf_counter()
                for path in files:
                    try:
                        ast.parse(path.read_bytes())
                    except (SyntaxError, ValueError, RecursionError, MemoryError):
                        pass
                ast_times.append(time.perf_counter() - t0)
            errors = []
            for err in (result.errors if result else []):
                path = tree / err.path if not Path(err.path).is_absolute() else Path(err.path)
                try:
                    ast.parse(path.read_bytes())
                    valid = True
                except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
                    valid = False
                errors.append({"error": str(err).replace(str(tree) + "/", ""), "cpython_parses": valid})
            bad = [e for e in errors if e["cpython_parses"]]
            if crash or bad:
                status = 1
            check_s, parse_s = _median(check_times), _median(parse_times)
            partial = [n for n in (result.notes if result else []) if type(n).__name__ == "Incomplete"]
            out.append({
                "repo": repo, "commit": commit, "files": len(files),
                "bytes": sum(p.stat().st_size for p in files), "prompts": result.prompts if result else None,
                "findings": len(result.findings) if result else None, "input_errors": errors,
                "input_errors_on_valid_python": len(bad), "partly_analysed": [n.replace(str(tree) + "/", "")
                                                                             for n in partial],
                "crash": crash, "repeat": args.repeat, "check_s_median": check_s, "check_s_all": check_times,
                "libcst_s_median": parse_s, "libcst_s_all": parse_times,
                "ratio_check_over_libcst": check_s / parse_s if parse_times and parse_s else None,
                "ast_s_median": _median(ast_times), "ast_s_all": ast_times,
                "ratio_check_over_ast": check_s / _median(ast_times) if ast_times else None,
                "check_s_by_jobs": {j: _median(t) for j, t in by_jobs.items() if t},
                "same_findings_for_every_jobs": len({r for rs in reports.values() for r in rs}) <= 1,
                "peak_rss_mb": {"this_process": _peak_mb(resource.RUSAGE_SELF),
                                "largest_worker": _peak_mb(resource.RUSAGE_CHILDREN)},
            })
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print("promptlint check of every .py file of whole repositories, beside libcst.parse_module of the same "
              f"files (medians of {args.repeat}, interleaved)")
        for r in out:
            print(f"  {r['repo']}@{r['commit'][:10]}: {r['files']:,} .py files ({r['bytes'] / 1e6:.1f} MB), "
                  f"{r['prompts']} prompts, {r['findings']} findings, {len(r['input_errors'])} input errors "
                  f"({r['input_errors_on_valid_python']} on files CPython parses), "
                  f"{len(r['partly_analysed'])} partly analysed{', CRASH: ' + r['crash'] if r['crash'] else ''}")
            if r["check_s_all"]:
                print(f"      check {r['check_s_median']:.2f} s, libcst.parse_module {r['libcst_s_median']:.2f} s: "
                      f"ratio {r['ratio_check_over_libcst']:.2f}x; ast.parse {r['ast_s_median']:.2f} s: "
                      f"ratio {r['ratio_check_over_ast']:.2f}x")
                jobs = r["check_s_by_jobs"]
                if len(jobs) > 1:
                    base = jobs[min(jobs)]
                    print("      by jobs: " + ", ".join(f"-j {j} {t:.2f} s ({base / t:.2f}x)" for j, t in jobs.items())
                          + f"; same findings for every -j: {'yes' if r['same_findings_for_every_jobs'] else 'NO'}")
                print(f"      peak RSS: {r['peak_rss_mb']['this_process']:.0f} MB this process, "
                      f"{r['peak_rss_mb']['largest_worker']:.0f} MB the largest worker")
            for e in r["input_errors"][:5]:
                print(f"      input error: {e['error']} (CPython parses it: {e['cpython_parses']})")
            for n in r["partly_analysed"][:5]:
                print(f"      partly analysed: {n}")
    return status


def _print_text(f: dict) -> None:
    copies = f"{f['copies']} {'copy' if f['copies'] == 1 else 'copies'}"
    print(f"promptlint check over a Python tree beside libcst.parse_module: {copies} of "
          f"fixtures/corpus/python ({f['corpus_files_per_copy']} files) + {f['package']} "
          f"({f['package_files_per_copy']} files)")
    print(f"  {f['files']:,} .py files ({f['bytes'] / 1e6:.1f} MB); promptlint read {f['files_checked']:,} files, "
          f"found {f['prompts']:,} prompts and {f['findings']:,} findings, {f['input_error_count']} input errors; "
          f"models: {', '.join(f['models'])}")
    for err in f["input_errors"][:5]:
        print(f"    input error: {err}")
    print(f"  repeats: {f['repeat']} each, interleaved; medians (min in brackets)")
    print(f"  promptlint check:  {f['check_s_median']:8.2f} s  [{f['check_s_min']:.2f}]  "
          f"{f['check_files_per_s']:8.1f} files/s  {f['check_mb_per_s']:6.2f} MB/s")
    print(f"  libcst parse:      {f['libcst_s_median']:8.2f} s  [{f['libcst_s_min']:.2f}]  "
          f"{f['libcst_files_per_s']:8.1f} files/s  {f['libcst_mb_per_s']:6.2f} MB/s")
    print(f"  ratio check/parse: {f['ratio_check_over_libcst']:8.2f}x  (checking the tree costs "
          f"{f['ratio_check_over_libcst']:.2f}x parsing it with libcst)")
    loads = ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in f["tokenizer_load_s"].items())
    print(f"  tokenizer load (excluded): {loads}")
    print(f"  imports {f['import_s'] * 1e3:.0f} ms; warm-up check of 2 files (lazy imports, excluded) "
          f"{f['warmup_check_s'] * 1e3:.0f} ms; tree built in {f['tree_build_s']:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
