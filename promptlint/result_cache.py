"""The result cache of `promptlint check`: one entry per checked file, as
ruff keeps one, so a second run over an unchanged tree does no analysis.

An entry is keyed by the run (tool version and code, the resolved config,
the models with their provider-table values, the rules selected) and the
file's path, and holds the file's findings before the run-wide steps
(one finding per place, per-file ignores, suppression comments, the
baseline), its input errors and notes, and what its result depends on:
the sha256 of every file read for it (itself, its includes, the modules its
values come from, transitively) and the paths probed for a module that were
not there. An entry is used only when all of those are as recorded, so a
changed include or imported module, or a module created where an import
looked, re-analyses the files that depend on it. Entries are written
atomically (a temporary file renamed over the old one), so concurrent runs
(pre-commit runs hooks in parallel) see an old entry or a new one; an
unreadable or foreign entry is a miss.

Where: --cache-dir, else $PROMPTLINT_CACHE_DIR/results, else the user cache
folder (~/.cache/promptlint/results); --no-cache turns it off. Deleting the
folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from promptlint.checks.base import Edit, Finding, Severity
from promptlint.fsutil import cache_root
from promptlint.ir import SourceError, SourceFile, Span
from promptlint.sources.base import Incomplete, Skipped

FORMAT = 1  # entry layout; an entry of another layout is a miss
# a file modified this close to the time a tree's sha256 was taken may have changed since within the
# same mtime (coarse file-system clocks): its tree is read and hashed again
RACY_SECONDS = 2
_NOTE_KINDS = {"note": str, "skipped": Skipped, "incomplete": Incomplete}


@dataclass
class FileResult:
    """What checking one file gave, before the run-wide steps."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    prompts: int = 0
    files: list[SourceFile] = field(default_factory=list)  # the files its prompts' text comes from
    deps: set[Path] = field(default_factory=set)  # resolved paths read for it
    absent: set[Path] = field(default_factory=set)  # paths probed that were not there
    trees: set[Path] = field(default_factory=set)  # roots whose every Python file it depends on
    cached: bool = False  # came from the cache


def default_dir() -> Path:
    return cache_root() / "results"


def _code_fingerprint() -> str:
    """The tool's version and its code (size and mtime of each module and
    rule file): an edited checkout never reuses results of the old code."""
    import promptlint

    root = os.path.dirname(promptlint.__file__)
    h = hashlib.sha256(getattr(promptlint, "__version__", "").encode())
    for folder in (root, os.path.join(os.path.dirname(root), "rules")):
        found = []
        for here, _, names in os.walk(folder):
            found += [os.path.join(here, n) for n in names if n.endswith((".py", ".toml", ".md"))]
        for path, name in zip(sorted(found), _relative_names(folder, sorted(found))):
            try:
                st = os.stat(path)
            except OSError:
                continue
            h.update(f"{name}:{st.st_size}:{st.st_mtime_ns};".encode("utf-8", "surrogateescape"))
    return h.hexdigest()




class ResultCache:
    def __init__(self, folder: Path, run_key: str):
        self.folder = Path(folder)
        self.run_key = run_key
        self._read: dict[str, tuple[str, bytes] | None] = {}  # each file's sha256 and bytes, read once per run
        self._trees: dict[str, str | None] = {}  # each root's Python files hashed together, once per run
        self.hits = 0
        self.misses = 0

    @classmethod
    def for_run(cls, folder: Path | None, config, models, rules, display_root) -> "ResultCache":
        from promptlint.economics.providers import table_bytes

        table = table_bytes()
        key = hashlib.sha256()
        for part in (f"format {FORMAT}", _code_fingerprint(), hashlib.sha256(table).hexdigest(), repr(config),
                     repr(models), ",".join(sorted(r.id for r in rules)),
                     str(display_root or Path.cwd())):  # findings carry paths as shown from there
            key.update(part.encode("utf-8", "backslashreplace") + b"\0")
        return cls(folder or default_dir(), key.hexdigest())

    # ------------------------------------------------------------ entries

    def _entry(self, path: Path) -> Path:
        name = hashlib.sha256(f"{self.run_key}\0{path}".encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / name[:2] / f"{name[2:]}.json"

    def content(self, path: str) -> tuple[str, bytes] | None:
        """(sha256, bytes) of the file now, None when it cannot be read."""
        if path not in self._read:
            try:
                with open(path, "rb") as f:
                    data = f.read()
                self._read[path] = (hashlib.sha256(data).hexdigest(), data)
            except OSError:
                self._read[path] = None
        return self._read[path]

    def sha(self, path: str | Path) -> str | None:
        found = self.content(str(path))
        return found[0] if found is not None else None

    def tree_sha(self, root: str) -> str | None:
        """One sha256 of the paths and bytes of the Python files under `root`
        that discovery walks (a file added, removed or edited anywhere changes
        it); None past the walk's limit. Reading every file of a large tree
        on each run costs more than the rest of a warm run, so the sha256 is
        kept beside the files' paths, sizes and mtimes (as git's index and
        ruff's cache keep them): while those are the same, the files are not
        read again, unless one was modified within RACY_SECONDS of the time
        the sha256 was taken (an edit in the same clock tick keeps its mtime:
        git's "racily clean" case), which is read and hashed again."""
        if root not in self._trees:
            from promptlint.discover import python_file_names

            files = python_file_names(root)
            self._trees[root] = None if files is None else self._tree_contents(root, files)
        return self._trees[root]

    def _tree_contents(self, root: str, files: list[str]) -> str:
        stats, newest = hashlib.sha256(), 0
        names = _relative_names(root, files)
        for f, name in zip(files, names):
            try:
                st = os.stat(f)
                stats.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
                newest = max(newest, st.st_mtime_ns)
            except OSError:
                stats.update(f"{f}: unreadable\0".encode("utf-8", "surrogateescape"))
        record = self.folder / "trees" / f"{hashlib.sha256(root.encode('utf-8', 'surrogateescape')).hexdigest()}.json"
        try:
            kept = json.loads(record.read_bytes())
            if kept["stat"] == stats.hexdigest() and newest < kept["taken_ns"] - RACY_SECONDS * 10**9:
                return kept["sha"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        taken = time.time_ns()
        h = hashlib.sha256()
        for f, name in zip(files, names):
            try:
                with open(f, "rb") as data:
                    h.update(f"{name}\0".encode("utf-8", "surrogateescape") + data.read() + b"\0")
            except OSError:
                h.update(f"{f}: unreadable\0".encode("utf-8", "surrogateescape"))
        sha = h.hexdigest()
        try:
            from promptlint.fsutil import atomic_write_bytes

            atomic_write_bytes(record, json.dumps({"stat": stats.hexdigest(), "sha": sha, "taken_ns": taken}).encode())
        except OSError:
            pass  # the next run reads the files again
        return sha

    def get(self, path: Path) -> FileResult | None:
        """The entry for the file, when everything it depends on is as
        recorded. The file is hashed here in any case, before it is
        analysed on a miss: if it changes while it is analysed, its entry
        records the text from before, so the next run misses (never stale)."""
        path = path.resolve()
        self.sha(path)
        try:
            data = json.loads(self._entry(path).read_bytes())
            if data.get("key") != self.run_key or data.get("path") != str(path):
                raise ValueError("another entry")
            if any(self.sha(p) != h for p, h in data["deps"].items()):
                raise ValueError("a dependency changed")
            if any(os.path.exists(p) for p in data["absent"]):
                raise ValueError("a probed path appeared")
            if any(self.tree_sha(root) != h for root, h in data.get("trees", {}).items()):
                raise ValueError("a Python file of the tree changed")
            result = _load(data, self.content)
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, path: Path, result: FileResult) -> None:
        path = path.resolve()
        deps = {str(p): self.sha(p) for p in sorted(result.deps | {path})}
        trees = {str(p.resolve()): self.tree_sha(str(p.resolve())) for p in result.trees}
        if None in deps.values() or None in trees.values():
            return  # a file read for it is gone already, or a tree past the limit: nothing safe to record
        data = {"key": self.run_key, "path": str(path), "deps": deps,
                "absent": sorted({str(p.resolve()) for p in result.absent} - set(deps)), "trees": trees,
                **_dump(result)}
        try:
            from promptlint.fsutil import atomic_write_bytes

            atomic_write_bytes(self._entry(path), json.dumps(data, separators=(",", ":")).encode())
        except OSError:
            pass  # an unwritable cache only costs the next run its speed


def _relative_names(root: str, files: list[str]) -> list[str]:
    """Each file's path relative to `root` (the walk's files lie under it)."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    return [f[len(prefix):] if f.startswith(prefix) else str(Path(f).relative_to(root)) for f in files]


# ---------------------------------------------------------------- (de)serialising

def _dump(result: FileResult) -> dict:
    files = {}

    def file_id(f: SourceFile) -> int:
        key = str(f.path.resolve())
        if key not in files:
            files[key] = (len(files), f.display_path)
        return files[key][0]

    def span(s: Span) -> list:
        return [file_id(s.file), s.start, s.end]

    findings = [{"rule": f.rule, "severity": f.severity.label, "message": f.message, "span": span(f.span),
                 "tokens": f.tokens, "usd": f.usd_per_month, "model": f.model, "fix": f.fix, "prompt": f.prompt,
                 "edits": [[span(e.span), e.text] for e in f.edits], "unsafe": f.unsafe, "gated": f.gated,
                 "summary": f.summary, "prompt_path": f.prompt_path} for f in result.findings]
    for f in result.files:
        file_id(f)
    kinds = {v: k for k, v in _NOTE_KINDS.items()}
    return {"findings": findings, "prompts": result.prompts, "files": [[p, d] for p, (_, d) in files.items()],
            "touched": [files[str(f.path.resolve())][0] for f in result.files],
            "errors": [[e.path, e.line, e.col, e.message] for e in result.errors],
            "notes": [[kinds.get(type(n), "note"), str(n)] for n in result.notes]}


def _load(data: dict, content) -> FileResult:
    files = []
    for path, display in data["files"]:
        found = content(path)
        if found is None:
            raise ValueError(f"{path} is gone")
        files.append(SourceFile(Path(path), found[1].decode("utf-8-sig"), display))

    def span(s) -> Span:
        return Span(files[s[0]], s[1], s[2])

    findings = [Finding(f["rule"], Severity.parse(f["severity"]), f["message"], span(f["span"]), f["tokens"],
                        f["usd"], f["model"], f["fix"], f["prompt"], tuple(Edit(span(s), t) for s, t in f["edits"]),
                        f["unsafe"], f["gated"], f["summary"], f.get("prompt_path")) for f in data["findings"]]
    return FileResult(findings=findings, errors=[SourceError(p, line, m, col) for p, line, col, m in data["errors"]],
                      notes=[_NOTE_KINDS[k](t) for k, t in data["notes"]], prompts=data["prompts"],
                      files=[files[i] for i in data["touched"]], cached=True)
