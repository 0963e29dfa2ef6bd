"""A revision's files, read from git objects without a checkout.

`promptlint diff --base REF` audits the base revision beside the working
tree. The source readers read from disk (includes and partials are resolved
against the file system), so the base revision's prompt files, and whatever
they include, are written into a temporary directory with the repository's
layout and audited there.

git runs as a subprocess with an argument list (never a shell), with its
paths relative to the repository's top level.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

from promptlint.discover import PARTIAL_DIRS, PROMPT_FOLDER_PATTERNS, PROMPT_PATTERNS, may_hold_prompt
from promptlint.sources.base import MAX_FILE_BYTES

# Files written beside the prompts whatever their name: discovery reads them. (Both sides
# are audited with the working tree's config, so the base's config files are not needed.)
SIDE_FILES = {".gitignore"}
# `{% include "x" %}`, `{% extends 'x' %}`, `{% import "x" as m %}`, `{% from "x" import m %}`
# with a literal name: the only includes the Jinja reader can follow.
_JINJA_REF = re.compile(r"""\{%-?\s*(?:include|extends|import|from)\s+["']([^"'\n]+)["']""")
# `{{> name}}` / `{{> folder/name}}`: dotprompt partials.
_PARTIAL_REF = re.compile(r"""\{\{~?>\s*([A-Za-z0-9_./-]+)""")
_MAX_CLOSURE_ROUNDS = 32


class GitError(Exception):
    """Not a git repository, an unknown revision, or git itself failing (exit 2)."""


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the top level, POSIX
    sha: str
    size: int


def _git(top: Path | str, *args: str, stdin: bytes | None = None) -> bytes:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        proc = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=str(top), input=stdin,
                              capture_output=True, env=env, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (needed for --base and --since)") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed ({proc.returncode})")
    return proc.stdout


def toplevel(cwd: Path, needs: str = "--base needs one; use --compare-to with a JSON report otherwise") -> Path:
    """The top level of the repository holding `cwd`; `needs` says, in the
    error, what needed one."""
    try:
        out = _git(cwd, "rev-parse", "--show-toplevel")
    except GitError:
        raise GitError(f"{cwd} is not inside a git repository ({needs})") from None
    return Path(out.decode("utf-8").strip()).resolve()


def resolve_commit(top: Path, ref: str) -> str:
    """The commit a revision names; GitError for an unknown one."""
    if not ref or ref.startswith("-") or "\n" in ref or "\0" in ref:
        raise GitError(f"{ref!r} is not a revision")
    try:
        out = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except GitError:
        raise GitError(f"unknown revision {ref!r} in {top}") from None
    sha = out.decode().strip()
    if not sha:
        raise GitError(f"unknown revision {ref!r} in {top}")
    return sha


def list_tree(top: Path, commit: str) -> dict[str, Entry]:
    """Every regular file of a commit (symlinks and submodules are skipped)."""
    out = _git(top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    entries: dict[str, Entry] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha, size = meta.split()
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            continue
        name = path.decode("utf-8", "surrogateescape")
        entries[name] = Entry(name, sha.decode(), int(size))
    return entries


def read_blobs(top: Path, shas: list[str]) -> dict[str, bytes]:
    """Blob contents by object id, in one `git cat-file --batch`."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    out = _git(top, "cat-file", "--batch", stdin=("\n".join(wanted) + "\n").encode())
    blobs: dict[str, bytes] = {}
    pos = 0
    for sha in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        blobs[sha] = out[pos:pos + size]
        pos += size + 1  # the content, then a newline
    return blobs


def renames(top: Path, commit: str) -> dict[str, str]:
    """Files git sees as renamed between `commit` and the working tree:
    {new path: old path}, relative to the top level. Untracked files are not
    considered (git only compares tracked ones)."""
    out = _git(top, "diff", "--name-status", "-M", "-z", "--no-ext-diff", "--no-textconv", "--no-relative",
               commit, "--")
    fields = out.split(b"\0")
    moved: dict[str, str] = {}
    i = 0
    while i < len(fields):
        status = fields[i].decode()
        if not status:
            i += 1
            continue
        if status[0] in "RC":
            old, new = (f.decode("utf-8", "surrogateescape") for f in fields[i + 1:i + 3])
            if status[0] == "R":
                moved[new] = old
            i += 3
        else:
            i += 2
    return moved


def repo_path(display: str, cwd: Path, top: Path) -> str:
    """A reported path (relative to `cwd`, or absolute) relative to `top`
    with `/`; as given when it lies outside."""
    p = Path(display)
    if not p.is_absolute():
        p = cwd / p
    try:
        return Path(os.path.normpath(p)).relative_to(top).as_posix()
    except ValueError:
        return display


ALL_LINES = None  # a file git does not know at the revision (new, untracked): every line is new


def changed_lines(top: Path, commit: str) -> dict[str, set[int] | None]:
    """Lines of the working tree that differ from `commit`: {path relative
    to the top level: its new or changed line numbers, or ALL_LINES for a
    file that is new (added, or untracked and not ignored)}. Renames are
    followed, so a moved file counts only the lines edited in it."""
    out = _git(top, "diff", "--unified=0", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
               "--src-prefix=a/", "--dst-prefix=b/",
               commit, "--")
    changed: dict[str, set[int] | None] = {}
    path = None
    for raw in out.split(b"\n"):
        if raw.startswith(b"+++ "):
            name = raw[4:].decode("utf-8", "surrogateescape")
            path = None if name == "/dev/null" else _unquoted(name)[2:]
            if path is not None:
                changed.setdefault(path, set())
        elif raw.startswith(b"@@ ") and path is not None:
            new = raw.split(b" ")[2]  # +start[,count]
            start, _, count = new[1:].partition(b",")
            changed[path].update(range(int(start), int(start) + (int(count) if count else 1)))
    added = _git(top, "diff", "--name-only", "--diff-filter=A", "-z", "--no-relative", commit, "--")
    untracked = _git(top, "ls-files", "--others", "--exclude-standard", "-z", "--full-name")
    for name in (added + b"\0" + untracked).split(b"\0"):  # whole files, after their hunks
        if name:
            changed[name.decode("utf-8", "surrogateescape")] = ALL_LINES
    return changed


def _unquoted(name: str) -> str:
    """A path as git's diff header writes it: C-quoted when it has special characters."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        import ast

        try:  # octal escapes of UTF-8 bytes: "\303\251" is é
            return ast.literal_eval(name).encode("latin-1").decode("utf-8", "surrogateescape")
        except (ValueError, SyntaxError, UnicodeError):
            return name
    return name


def _under(path: str, prefix: str) -> bool:
    return prefix in ("", ".") or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _normal(path: PurePosixPath) -> str | None:
    """`a/../b` -> `b`; None when it climbs out of the repository."""
    parts: list[str] = []
    for part in path.parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def select_files(entries: dict[str, Entry], targets: list[str], include: tuple[str, ...] = ()) -> set[str]:
    """Which files of the tree to write out: the files under the targets that
    may hold a prompt (repo-relative paths; a named file is always taken;
    discovery looks closer at what is written), partial folders and
    .gitignore files (discovery reads them)."""
    prompts = pathspec.GitIgnoreSpec.from_lines(PROMPT_PATTERNS + PROMPT_FOLDER_PATTERNS + tuple(include))
    chosen: set[str] = set()
    for path, entry in entries.items():
        if entry.size > MAX_FILE_BYTES:
            continue
        parts = path.split("/")
        side = parts[-1] in SIDE_FILES or any(p in PARTIAL_DIRS for p in parts[:-1])
        prompt = path in targets or (any(_under(path, t) for t in targets)
                                     and (prompts.match_file(path) or may_hold_prompt(path)))
        if side or prompt:
            chosen.add(path)
    return chosen


def included_names(text: str) -> list[str]:
    """Names a template may read from disk: Jinja includes/extends/imports
    with a literal name, and the files a dotprompt partial may live in."""
    names = _JINJA_REF.findall(text)
    for name in _PARTIAL_REF.findall(text):
        folder, _, base = name.rpartition("/")
        prefix = f"{folder}/" if folder else ""
        names += [f"{prefix}_{base}.prompt", f"partials/{prefix}{base}.prompt", f"partials/{prefix}_{base}.prompt"]
    return names


def materialise(top: Path, commit: str, dest: Path, targets: list[str], include: tuple[str, ...] = (),
                roots: tuple[str, ...] = ("",)) -> dict[str, Entry]:
    """Write the commit's prompt files under `targets`, and every file they
    include (followed transitively, relative to the including file and to each
    of `roots`, the config roots), into `dest` with the same relative layout.
    `dest` gets an empty `.git` folder so that discovery stops looking for
    `.gitignore` files there. Returns the commit's file listing."""
    entries = list_tree(top, commit)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / ".git").mkdir(exist_ok=True)
    written: set[str] = set()
    pending = select_files(entries, targets, include)
    for _ in range(_MAX_CLOSURE_ROUNDS):
        pending -= written
        if not pending:
            break
        blobs = read_blobs(top, [entries[p].sha for p in sorted(pending)])
        found: set[str] = set()
        for path in sorted(pending):
            data = blobs.get(entries[path].sha)
            if data is None:
                continue
            target = dest.joinpath(*path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written.add(path)
            if b"{%" not in data and b"{{" not in data:
                continue
            here = PurePosixPath(path).parent
            for name in included_names(data.decode("utf-8", "replace")):
                for base in (here, *(PurePosixPath(r) for r in roots)):
                    candidate = _normal(base / name)
                    if candidate and candidate in entries and entries[candidate].size <= MAX_FILE_BYTES:
                        found.add(candidate)
        pending = found
    return entries
