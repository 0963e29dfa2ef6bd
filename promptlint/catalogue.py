"""The rule catalogue: one TOML file per rule in rules/ (id, name, severity,
what it finds, why it costs, the provider facts, the fix, and bad and good
examples with the exact position of each finding). The examples are the
rules' tests; docs/rules.md is generated from the same files.

In a source checkout (or an editable install) the files are read from the
repository's rules/ folder; a built wheel carries them as the package data of
`promptlint.catalogue_files`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from promptlint.checks.base import Severity

_CHECKOUT = Path(__file__).resolve().parent.parent / "rules"


@dataclass(frozen=True)
class Example:
    kind: str  # "bad" or "good"
    file: str  # file name, which decides the format (system.j2, chat.anthropic.json, ...)
    code: str
    findings: tuple[tuple[int, int], ...] = ()  # (line, col) of each finding of this rule
    files: dict = field(default_factory=dict)  # other files next to it (partials)
    config: dict = field(default_factory=dict)  # [tool.promptlint] table for this example
    note: str = ""
    fixed: str | None = None  # the file after `promptlint fix` (a fix example)
    unsafe_fix: bool = False  # the fix needs --unsafe-fixes
    locked: str | None = None  # the file when `promptlint lock` ran (PL009: `check --locked` compares)
    locked_files: dict | None = None  # the other files then (default: `files`)


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: Severity  # default severity (a rule may raise or lower it per finding)
    summary: str
    what: str
    why: str
    fix: str
    facts: tuple[str, ...]
    examples: tuple[Example, ...]
    path: str  # catalogue file name

    @property
    def title(self) -> str:
        return f"{self.id} {self.name}"


class CatalogueError(Exception):
    pass


def _files():
    if _CHECKOUT.is_dir():
        return sorted(p for p in _CHECKOUT.iterdir() if p.suffix == ".toml")
    from importlib import resources

    root = resources.files("promptlint.catalogue_files")
    return sorted((p for p in root.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)


def _example(raw: dict, where: str) -> Example:
    unknown = set(raw) - {"kind", "file", "code", "findings", "files", "config", "note", "fixed", "unsafe_fix", "locked",
                          "locked_files"}
    if unknown or raw.get("kind") not in ("bad", "good") or "file" not in raw or "code" not in raw:
        raise CatalogueError(f"{where}: an example needs kind (bad|good), file and code; unknown keys: {sorted(unknown)}")
    findings = []
    for item in raw.get("findings", []):
        line, col = (int(x) for x in str(item).split(":"))
        findings.append((line, col))
    if raw["kind"] == "bad" and not findings:
        raise CatalogueError(f"{where}: a bad example must list the line:col of its findings")
    if raw["kind"] == "good" and findings:
        raise CatalogueError(f"{where}: a good example has no findings")
    if "fixed" in raw and raw["kind"] != "bad":
        raise CatalogueError(f"{where}: only a bad example has a fix")
    return Example(raw["kind"], raw["file"], raw["code"], tuple(findings), dict(raw.get("files", {})),
                   dict(raw.get("config", {})), raw.get("note", ""), raw.get("fixed"), bool(raw.get("unsafe_fix")),
                   raw.get("locked"), raw.get("locked_files"))


def parse_rule(text: str, name: str) -> Rule:
    data = tomllib.loads(text)
    required = ("id", "name", "severity", "summary", "what", "why", "fix")
    missing = [k for k in required if k not in data]
    if missing:
        raise CatalogueError(f"{name}: missing {', '.join(missing)}")
    examples = tuple(_example(e, f"{name} example {i + 1}") for i, e in enumerate(data.get("examples", [])))
    return Rule(data["id"], data["name"], Severity.parse(data["severity"]), data["summary"].strip(),
                data["what"].strip(), data["why"].strip(), data["fix"].strip(), tuple(data.get("facts", ())),
                examples, name)


@functools.lru_cache(maxsize=1)
def load() -> dict[str, Rule]:
    """Every rule in the catalogue, by id, in id order (parsed once per
    version of the files, then read from the user cache: TOML parsing of
    the examples is most of a cached `check` run's own time otherwise)."""
    files = _files()
    texts = [(p.name, p.read_text(encoding="utf-8")) for p in files]
    key = hashlib.sha256("\0".join(f"{n}\0{t}" for n, t in texts).encode()).hexdigest()[:32]
    stored = _stored(key)
    if stored is not None:
        return stored
    rules: dict[str, Rule] = {}
    for name, text in texts:
        rule = parse_rule(text, name)
        if rule.id in rules:
            raise CatalogueError(f"{name}: duplicate rule id {rule.id}")
        rules[rule.id] = rule
    rules = dict(sorted(rules.items()))
    _store(key, rules)
    return rules


def _stored(key: str) -> dict[str, Rule] | None:
    from promptlint.fsutil import read_cached_json

    try:
        rules = {}
        for raw in read_cached_json("catalogue", key):
            examples = tuple(Example(**{**e, "findings": tuple(tuple(f) for f in e["findings"])})
                             for e in raw.pop("examples"))
            rule = Rule(**{**raw, "severity": Severity.parse(raw["severity"]), "facts": tuple(raw["facts"]),
                           "examples": examples})
            rules[rule.id] = rule
        return rules
    except (ValueError, KeyError, TypeError):  # None (nothing kept) is a TypeError too
        return None


def _store(key: str, rules: dict[str, Rule]) -> None:
    from promptlint.fsutil import store_cached_json

    data = []
    for rule in rules.values():
        raw = dataclasses.asdict(rule)
        raw["severity"] = rule.severity.label
        data.append(raw)
    store_cached_json("catalogue", key, data)


def by_code_or_name(code: str) -> Rule | None:
    rules = load()
    if code.upper() in rules:
        return rules[code.upper()]
    return next((r for r in rules.values() if r.name == code), None)
