"""Which files are prompts: default patterns, `.gitignore` and config excludes.

A file named on the command line is always read (unless config excludes it,
as ruff's --force-exclude does for pre-commit); folders are walked for the
default prompt patterns only, so a data YAML next to the prompts is not
mistaken for one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pathspec

# Patterns (gitignore syntax) of files that are prompts wherever they are.
PROMPT_PATTERNS = (
    "*.j2", "*.jinja", "*.jinja2", "*.prompty", "*.prompt",
    "*.messages.json", "*.messages.yaml", "*.messages.yml",
    "*.anthropic.json", "*.anthropic.yaml", "*.anthropic.yml",
    "*.prompt.txt", "*.prompt.md",
    "*.py",  # Python code: prompts at LLM call sites and prompt-named constants (sources/python.py)
)
# Inside a folder named prompts/, these are prompts too.
PROMPT_FOLDER_PATTERNS = ("**/prompts/**/*.txt", "**/prompts/**/*.md", "**/prompts/**/*.yaml",
                          "**/prompts/**/*.yml", "**/prompts/**/*.json")
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", "site-packages", "dist", "build"}
# Jinja partials are prompts in their own right only through includes.
PARTIAL_DIRS = {"partials", "_partials", "includes", "_includes", "layouts", "_layouts"}


def format_for(path: Path) -> str | None:
    """The source format of a file from its name."""
    name = path.name.lower()
    suffix = path.suffix.lower()
    if suffix in (".j2", ".jinja", ".jinja2"):
        return "jinja"
    if suffix == ".prompty":
        return "prompty"
    if suffix == ".prompt":
        return "dotprompt"
    if suffix in (".json", ".yaml", ".yml"):
        return "messages"
    if suffix in (".txt", ".md") or name.endswith((".prompt.txt", ".prompt.md")):
        return "text"
    if suffix == ".py":
        return "python"
    return None


@dataclass
class Candidate:
    path: Path
    format: str
    explicit: bool  # named on the command line (errors if not a prompt) or found by walking


class Discovery:
    def __init__(self, root: Path, exclude: tuple[str, ...] = (), include: tuple[str, ...] = ()):
        self.root = root.resolve()
        self.exclude = pathspec.GitIgnoreSpec.from_lines(exclude)
        self.prompts = pathspec.GitIgnoreSpec.from_lines(PROMPT_PATTERNS + PROMPT_FOLDER_PATTERNS + include)

    def _rel(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def excluded(self, path: Path) -> bool:
        return self.exclude.match_file(self._rel(path))

    def find(self, paths: list[Path]) -> list[Candidate]:
        found: list[Candidate] = []
        seen: set[Path] = set()
        for path in paths:
            if path.is_dir():
                for file in self._walk(path):
                    key = file.resolve()
                    if key not in seen:
                        seen.add(key)
                        found.append(Candidate(file, format_for(file) or "text", False))
            elif not self.excluded(path):
                key = path.resolve()
                if key not in seen:
                    seen.add(key)
                    found.append(Candidate(path, format_for(path) or "unknown", True))
        return found

    def _walk(self, top: Path):
        top = top.resolve()
        ignores: list[tuple[Path, pathspec.GitIgnoreSpec]] = self._parent_gitignores(top)
        for folder, dirs, files in os.walk(top):
            here = Path(folder)
            spec = _gitignore(here)
            if spec is not None:
                ignores.append((here, spec))
            active = [(base, s) for base, s in ignores if here == base or base in here.parents]

            def ignored(p: Path, is_dir: bool) -> bool:
                for base, s in active:
                    rel = p.relative_to(base).as_posix() + ("/" if is_dir else "")
                    if s.match_file(rel):
                        return True
                return self.excluded(p)

            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
                             and d not in PARTIAL_DIRS and not ignored(here / d, True))
            for name in sorted(files):
                file = here / name
                rel = file.relative_to(top).as_posix()
                if not (self.prompts.match_file(rel) or self.prompts.match_file(self._rel(file))):
                    continue
                if not ignored(file, False):
                    yield file

    def _parent_gitignores(self, top: Path) -> list[tuple[Path, pathspec.GitIgnoreSpec]]:
        """`.gitignore` files above `top` up to the repository root also apply."""
        out = []
        top = top.resolve()
        for folder in top.parents:
            spec = _gitignore(folder)
            if spec is not None:
                out.append((folder, spec))
            if (folder / ".git").exists():
                break
        return out


def _gitignore(folder: Path) -> pathspec.GitIgnoreSpec | None:
    path = folder / ".gitignore"
    if not path.is_file():
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except Exception:
        return None
