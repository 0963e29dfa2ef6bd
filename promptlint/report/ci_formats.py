"""Findings in the report formats other CI systems read:

- `gitlab`: GitLab's Code Quality artifact (`artifacts: reports: codequality:`),
  a JSON array of Code Climate issues with the fields GitLab reads:
  description, check_name, fingerprint (the SARIF one, so the merge-request
  widget tells new findings from old), severity (info, minor, major,
  critical, blocker) and location.path / location.lines.begin;
- `junit`: JUnit XML (`artifacts: reports: junit:`, Jenkins, Azure Pipelines),
  one test suite per file and one failing test case per finding, the
  failure's message the finding's line; input errors are test cases with an
  `<error>`. Paths are relative to the repository root."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from promptlint import catalogue
from promptlint.report.sarif import display_path, fingerprints, repo_root

# promptlint severity -> Code Climate / GitLab severity
GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def to_gitlab(result, root=None) -> str:
    root = root or repo_root()
    rules = catalogue.load()
    issues = []
    for f, fp in zip(result.findings, fingerprints(result.findings, root)):
        row, _ = f.line_col
        end_row, _ = f.span.end_line_col
        name = rules[f.rule].name if f.rule in rules else f.rule
        issues.append({
            "type": "issue",
            "description": f"{f.rule} {f.message}",
            "check_name": f"{f.rule} {name}",
            "categories": ["Performance"],
            "fingerprint": fp,
            "severity": GITLAB_SEVERITY[f.severity.label],
            "location": {"path": display_path(f.span.file.path, root), "lines": {"begin": row, "end": max(row, end_row)}},
        })
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def to_junit(result, root=None, fail_on: str = "warning") -> str:
    """`fail_on`: findings below it (info, by default) are skipped test cases,
    so the report fails exactly when the command does."""
    root = root or repo_root()
    by_file: dict[str, list] = {}
    for f in result.findings:
        by_file.setdefault(display_path(f.span.file.path, root), []).append(f)
    errors: dict[str, list] = {}
    for e in result.errors:
        errors.setdefault(display_path(e.path, root), []).append(e)
    from promptlint.checks.base import Severity

    threshold = Severity.parse(fail_on)
    failing = lambda f: f.severity >= threshold  # noqa: E731
    failed = sum(1 for f in result.findings if failing(f))
    suites = ET.Element("testsuites", name="promptlint", tests=str(len(result.findings) + len(result.errors)),
                        failures=str(failed), errors=str(len(result.errors)),
                        skipped=str(len(result.findings) - failed))
    for path in sorted(set(by_file) | set(errors)):
        findings, broken = by_file.get(path, []), errors.get(path, [])
        n_failed = sum(1 for f in findings if failing(f))
        suite = ET.SubElement(suites, "testsuite", name=path, tests=str(len(findings) + len(broken)),
                              failures=str(n_failed), errors=str(len(broken)), skipped=str(len(findings) - n_failed))
        for f in findings:
            row, col = f.line_col
            case = ET.SubElement(suite, "testcase", name=f"{f.rule} at {path}:{row}:{col}", classname=path,
                                 file=path, line=str(row))
            if not failing(f):
                ET.SubElement(case, "skipped", message=f"{f.severity.label}, below --fail-on {fail_on}: "
                                                       f"{f.rule} {f.message}")
                continue
            failure = ET.SubElement(case, "failure", message=f"{f.rule} {f.message}", type=f.severity.label)
            failure.text = f"{path}:{row}:{col}: {f.rule} {f.message}" + (f"\nfix: {f.fix}" if f.fix else "")
        for e in broken:
            case = ET.SubElement(suite, "testcase", name=f"read {path}", classname=path, file=path,
                                 line=str(e.line))
            ET.SubElement(case, "error", message=e.message, type="input error").text = str(e)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
