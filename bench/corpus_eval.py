#!/usr/bin/env python
"""How well promptlint's rules find what a careful reviewer would flag: the
labelled corpus in fixtures/corpus/ scored against `promptlint check`.

    python bench/corpus_eval.py [CORPUS] [--only PREFIX] [--json]

CORPUS defaults to fixtures/corpus/. Its LABELS.toml says, for every file,
the findings it must produce (`expect = ["PL001@3:15", ...]`, rule and exact
1-based line:col) and the rules it must not trigger (`forbid`, or
`clean = true`). The analysis settings come from the corpus's own
promptlint.toml (found upward from CORPUS, as `promptlint check CORPUS`
finds it).

`promptlint.lint.run_check` runs over the corpus with every rule of the
catalogue selected, and each finding is compared with the labels by
(rule, path, line, col):

- true positive: a finding that is in `expect`;
- false positive: a finding that is not in `expect` (listed as "forbidden"
  when the file forbids its rule or is labelled clean, as "unlabelled" when
  the file has no labels);
- false negative: an `expect` label with no finding.

Precision = TP / (TP + FP), recall = TP / (TP + FN), per rule and overall.
`--only PREFIX` scores only the files whose corpus-relative path starts with
PREFIX (`--only python/` for the Python sources): labels, findings, files
and the unlabelled/missing lists are all restricted to them (promptlint runs
over CORPUS/PREFIX when that is a folder or file, else over the whole
corpus, with the corpus's config either way).
Labels of a rule that is not in the catalogue (yet) are not scored: they are
counted as skipped, per rule. Expected severities (`severity = {...}`) are
compared on the true positives and reported separately; they do not change
precision or recall. Input errors (files promptlint could not read) are
listed: a corpus file must never be one.

Like the other benches this prints figures and exits 0; it exits 2 only for
a bad argument, a missing corpus or malformed labels.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / "fixtures" / "corpus"
LABELS = "LABELS.toml"
# The catalogue as planned: a label may name one of these before its rule lands.
PLANNED = ("PL001", "PL002", "PL003", "PL004", "PL005", "PL006", "PL007", "PL008")
SEVERITIES = ("info", "warning", "error")
_LABEL = re.compile(r"^(PL\d{3})@(\d+):(\d+)$")
_FILE_KEYS = {"expect", "forbid", "clean", "severity", "format", "pattern", "note"}


class LabelError(Exception):
    """LABELS.toml is malformed: `LABELS.toml: <file>: <problem>`."""


@dataclass(frozen=True, order=True)
class Key:
    rule: str
    path: str  # relative to the corpus, with forward slashes
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.rule}@{self.path}:{self.line}:{self.col}"


@dataclass
class FileLabels:
    path: str
    expect: list[Key] = field(default_factory=list)
    severity: dict[Key, str] = field(default_factory=dict)
    forbid: frozenset[str] = frozenset()
    clean: bool = False
    pattern: str = ""


def parse_label(text: str, path: str) -> Key:
    m = _LABEL.match(str(text).strip())
    if not m:
        raise LabelError(f"{LABELS}: {path}: {text!r} is not RULE@line:col (e.g. PL001@3:15)")
    return Key(m.group(1), path, int(m.group(2)), int(m.group(3)))


def load_labels(corpus: Path) -> dict[str, FileLabels]:
    """Every file's labels, by path relative to the corpus."""
    source = corpus / LABELS
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LabelError(f"{source}: {exc}") from None
    files = data.get("files")
    if not isinstance(files, dict) or set(data) - {"files"}:
        raise LabelError(f"{LABELS}: expected only [files.\"<path>\"] tables")
    out: dict[str, FileLabels] = {}
    for path, table in files.items():
        if not isinstance(table, dict):
            raise LabelError(f"{LABELS}: {path}: expected a table")
        unknown = set(table) - _FILE_KEYS
        if unknown:
            raise LabelError(f"{LABELS}: {path}: unknown keys {sorted(unknown)}")
        labels = FileLabels(path, pattern=str(table.get("pattern", "")))
        labels.expect = [parse_label(t, path) for t in table.get("expect", [])]
        if len(set(labels.expect)) != len(labels.expect):
            raise LabelError(f"{LABELS}: {path}: a label is listed twice")
        labels.clean = bool(table.get("clean", False))
        if labels.clean and labels.expect:
            raise LabelError(f"{LABELS}: {path}: clean = true with expected findings")
        if not labels.clean and not labels.expect and "forbid" not in table:
            raise LabelError(f"{LABELS}: {path}: give expect, forbid or clean = true")
        forbid = table.get("forbid", [])
        bad = [r for r in forbid if not re.match(r"^PL\d{3}$", str(r))]
        if bad:
            raise LabelError(f"{LABELS}: {path}: forbid holds non-rule codes {bad}")
        if {k.rule for k in labels.expect} & set(forbid):
            raise LabelError(f"{LABELS}: {path}: a rule is both expected and forbidden")
        labels.forbid = frozenset(forbid)
        for text, sev in (table.get("severity") or {}).items():
            key = parse_label(text, path)
            if key not in labels.expect:
                raise LabelError(f"{LABELS}: {path}: severity for {text}, which is not expected")
            if sev not in SEVERITIES:
                raise LabelError(f"{LABELS}: {path}: severity {sev!r} (expected info, warning or error)")
            labels.severity[key] = sev
        out[path] = labels
    return out


def _in_scope(path: str, only: str | None) -> bool:
    return only is None or path.startswith(only)


def corpus_files(corpus: Path) -> list[str]:
    """The files LABELS.toml must cover: every file of the corpus except its
    own metadata (the labels, the config, notes and git attributes)."""
    skip = {LABELS, "promptlint.toml", "ABOUT.rst", ".gitattributes", "README.md"}
    return sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*")
                  if p.is_file() and p.name not in skip and "__pycache__" not in p.parts)


def _relative(path: Path, corpus: Path) -> str:
    try:
        return path.resolve().relative_to(corpus.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def evaluate(corpus: Path = DEFAULT_CORPUS, only: str | None = None) -> dict:
    """Score promptlint on the corpus (or on its files whose relative path
    starts with `only`); the same dict `--json` prints."""
    from promptlint import catalogue
    from promptlint import config as config_mod
    from promptlint.audit import select_models
    from promptlint.lint import run_check

    corpus = corpus.resolve()
    only = only.replace("\\", "/").removeprefix("./") if only else None
    labels = {path: lab for path, lab in load_labels(corpus).items() if _in_scope(path, only)}
    config = config_mod.load(corpus)
    models = select_models(config)
    present = set(catalogue.load())
    target = corpus / only if only and (corpus / only).exists() else corpus
    result = run_check([target], config, models, select=["ALL"])

    found: dict[Key, str] = {}
    for f in result.findings:
        line, col = f.line_col
        key = Key(f.rule, _relative(f.span.file.path, corpus), line, col)
        if _in_scope(key.path, only):
            found.setdefault(key, f.severity.label)
    expected = {k: lab for lab in labels.values() for k in lab.expect}
    scored_rules = sorted(present | {k.rule for k in found})
    skipped = {r: sum(1 for k in expected if k.rule == r) for r in sorted({k.rule for k in expected} - present)}

    per_rule: dict[str, dict] = {}
    fps, fns, tps, severity_mismatches = [], [], [], []
    for rule in scored_rules:
        exp = {k for k in expected if k.rule == rule}
        got = {k for k in found if k.rule == rule}
        tp, fp, fn = exp & got, got - exp, exp - got
        per_rule[rule] = {"tp": len(tp), "fp": len(fp), "fn": len(fn),
                          "precision": _ratio(len(tp), len(tp) + len(fp)),
                          "recall": _ratio(len(tp), len(tp) + len(fn))}
        tps += sorted(tp)
        for k in sorted(fp):
            lab = labels.get(k.path)
            kind = ("unlabelled" if lab is None else
                    "forbidden" if lab.clean or k.rule in lab.forbid else "unexpected")
            fps.append({"finding": str(k), "rule": k.rule, "path": k.path, "line": k.line, "col": k.col,
                        "severity": found[k], "kind": kind})
        for k in sorted(fn):
            fns.append({"label": str(k), "rule": k.rule, "path": k.path, "line": k.line, "col": k.col,
                        "severity": labels[k.path].severity.get(k),
                        "pattern": labels[k.path].pattern})
        for k in sorted(tp):
            want = labels[k.path].severity.get(k)
            if want and want != found[k]:
                severity_mismatches.append({"finding": str(k), "expected": want, "found": found[k]})

    tp_n = sum(r["tp"] for r in per_rule.values())
    fp_n = sum(r["fp"] for r in per_rule.values())
    fn_n = sum(r["fn"] for r in per_rule.values())
    files = [f for f in corpus_files(corpus) if _in_scope(f, only)]
    return {
        "corpus": _relative(corpus, REPO) if corpus.is_relative_to(REPO) else str(corpus),
        "only": only,
        "config": str(config.path.relative_to(REPO) if config.path and config.path.is_relative_to(REPO)
                      else config.path),
        "models": [m.key for m in models],
        "rules_present": sorted(present),
        "rules_missing": [r for r in PLANNED if r not in present],
        "files": len(files),
        "prompts": result.prompts,
        "labels": len(expected),
        "labels_scored": sum(1 for k in expected if k.rule in present),
        "labels_skipped": skipped,
        "unlabelled_files": sorted(set(files) - set(labels)),
        "labels_without_file": sorted(set(labels) - set(files)),
        "input_errors": [str(e) for e in result.errors],
        "per_rule": per_rule,
        "overall": {"tp": tp_n, "fp": fp_n, "fn": fn_n,
                    "precision": _ratio(tp_n, tp_n + fp_n), "recall": _ratio(tp_n, tp_n + fn_n)},
        "false_positives": fps,
        "false_negatives": fns,
        "severity_mismatches": severity_mismatches,
        "severity_checked": sum(1 for k in tps if labels[k.path].severity.get(k)),
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def render_text(report: dict) -> str:
    scope = f" (only {report['only']}*)" if report.get("only") else ""
    lines = [(f"corpus {report['corpus']}{scope}: {report['files']} files, {report['prompts']} prompts, "
              f"{report['labels']} expected findings ({report['labels_scored']} scored)"),
             f"config {report['config']}; models {', '.join(report['models'])}",
             (f"rules in the catalogue: {', '.join(report['rules_present'])}"
              + (f"; not yet: {', '.join(report['rules_missing'])}" if report["rules_missing"] else "")),
             ""]
    lines.append(f"{'rule':<8}{'TP':>5}{'FP':>5}{'FN':>5}  {'precision':>9}  {'recall':>7}")
    for rule, r in report["per_rule"].items():
        lines.append(f"{rule:<8}{r['tp']:>5}{r['fp']:>5}{r['fn']:>5}  {_pct(r['precision']):>9}  {_pct(r['recall']):>7}")
    o = report["overall"]
    lines.append(f"{'overall':<8}{o['tp']:>5}{o['fp']:>5}{o['fn']:>5}  {_pct(o['precision']):>9}  {_pct(o['recall']):>7}")
    if report["labels_skipped"]:
        lines.append("skipped (rule not in the catalogue): "
                     + ", ".join(f"{r} {n}" for r, n in report["labels_skipped"].items()))
    lines.append("")
    lines.append(f"false positives ({len(report['false_positives'])}):")
    lines += [f"  {fp['finding']} [{fp['severity']}, {fp['kind']}]" for fp in report["false_positives"]] or ["  none"]
    lines.append(f"false negatives ({len(report['false_negatives'])}):")
    lines += [f"  {fn['label']} [{fn['severity'] or '-'}] {fn['pattern']}" for fn in report["false_negatives"]] or ["  none"]
    checked = report["severity_checked"]
    lines.append(f"severity mismatches ({len(report['severity_mismatches'])} of {checked} checked):")
    lines += [f"  {m['finding']}: expected {m['expected']}, found {m['found']}"
              for m in report["severity_mismatches"]] or ["  none"]
    for key, title in (("input_errors", "input errors"), ("unlabelled_files", "files without labels"),
                       ("labels_without_file", "labels for missing files")):
        if report[key]:
            lines.append(f"{title} ({len(report[key])}):")
            lines += [f"  {x}" for x in report[key]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS,
                        help="labelled corpus folder with LABELS.toml (default: fixtures/corpus)")
    parser.add_argument("--only", metavar="PREFIX",
                        help="score only files whose corpus-relative path starts with PREFIX (e.g. python/)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not (args.corpus / LABELS).is_file():
        print(f"error: {args.corpus / LABELS} not found", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))
    try:
        report = evaluate(args.corpus, args.only)
    except LabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        sys.stdout.write(render_text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
