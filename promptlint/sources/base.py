"""What every source reader gets and shares: the context of one run, reading
a file's text safely, and mapping decoded strings back to file offsets."""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pathspec

from promptlint.ir import SourceError, SourceFile

if TYPE_CHECKING:
    from promptlint.analysis.volatility import VariableTable

# Files bigger than this are refused rather than parsed (a prompt is never this big;
# a data dump picked up by a glob is).
MAX_FILE_BYTES = 2_000_000
MAX_INCLUDE_DEPTH = 16


MAX_YAML_VALUES = 100_000  # values a YAML document expands to, aliases followed


def check_alias_expansion(node, file, what: str = "YAML") -> None:
    """Refuse a composed YAML document whose aliases expand past
    MAX_YAML_VALUES values (a "billion laughs" file: 9 anchors of 9 aliases
    each are 387 million values). The size is computed once per node, so the
    check is linear in the document as written."""
    sizes: dict[int, int] = {}
    stack = [(node, False)]
    while stack:
        current, done = stack.pop()
        if current is None or (not done and id(current) in sizes):
            continue
        value = getattr(current, "value", None)
        if isinstance(value, list):
            children = [c for item in value for c in (item if isinstance(item, tuple) else (item,))]
        else:
            children = []
        if not done:
            sizes[id(current)] = -1  # on the stack: a recursive alias counts once
            stack.append((current, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        total = 1 + sum(max(sizes.get(id(c), 0), 0) for c in children)
        sizes[id(current)] = total
        if total > MAX_YAML_VALUES:
            raise SourceError(file.display_path, 1, f"{what} aliases expand to more than {MAX_YAML_VALUES:,} "
                                                    "values (an alias bomb?): not read")


class Skipped(str):
    """A note saying a file looked at was not read as a prompt, and why (-v
    prints it; summaries count them)."""


class Incomplete(str):
    """A note saying what a reader left unanalysed: printed without -v too,
    since the findings of that file may be incomplete (not an input error:
    the file is valid)."""


def _variable_table():
    """An empty table (imported here, not at the top: a run whose results
    all come from the cache never needs the volatility rules)."""
    from promptlint.analysis.volatility import VariableTable

    return VariableTable()


@dataclass
class SourceContext:
    """Per-run settings every reader needs."""

    variables: "VariableTable" = field(default_factory=lambda: _variable_table())
    root: Path = field(default_factory=Path.cwd)  # the project root (config folder): includes fall back to it
    display_root: Path | None = None  # reported paths are relative to it (default: root)
    default_role: str = "system"  # role of a plain template with no role markers
    max_file_bytes: int = MAX_FILE_BYTES
    max_include_depth: int = MAX_INCLUDE_DEPTH
    # [tool.promptlint.dialects]: glob -> template style for the files it matches
    dialects: dict[str, str] = field(default_factory=dict)
    # input errors that did not stop a file's reading (a front matter that does
    # not parse, above a body that does): reported, and the body still checked
    diagnostics: list[SourceError] = field(default_factory=list)
    # what a reader could not follow and read another way (a computed include):
    # not errors; `-v` prints them
    notes: list[str] = field(default_factory=list)
    # what readers keep for the rest of the run (the Python reader's project index)
    shared: dict = field(default_factory=dict)
    # the files the file being read now depends on (itself, its includes, the
    # modules its values come from) and the paths probed for one that were
    # not there: what the result cache checks before reusing its result
    deps: set = field(default_factory=set)
    absent: set = field(default_factory=set)
    trees: set = field(default_factory=set)  # roots whose every Python file the result depends on (fills)

    def display_path(self, path: Path) -> str:
        base = self._display_base()
        if path.is_absolute():
            try:
                return str(path.relative_to(base))
            except ValueError:
                pass
        try:
            return str(self._resolved(path).relative_to(base))
        except (ValueError, OSError, RuntimeError):
            return str(path)

    def _resolved(self, path: Path) -> Path:
        """path.resolve(), with each folder resolved once per run (a run
        names hundreds of files in the same few folders)."""
        if path.name in ("", ".", ".."):
            return path.resolve()
        parents = self.__dict__.setdefault("_parents", {})
        folder = parents.get(path.parent)
        if folder is None:
            folder = parents[path.parent] = path.parent.resolve()
        found = folder / path.name
        return found.resolve() if found.is_symlink() else found

    def _display_base(self) -> Path:
        """The resolved folder paths are shown relative to (resolved once)."""
        base = self.display_root or self.root
        cached = getattr(self, "_base_cache", None)
        if cached is None or cached[0] != base:
            self._base_cache = cached = (base, base.resolve())
        return cached[1]

    def inside_project(self, path: Path, near: Path) -> bool:
        """Whether `path` (links resolved) lies in the project of the file
        `near` that names it: under the config's root, or the git work tree
        holding `near`, or (outside any repository) the folder of `near`.
        Includes, partials, extends and templates loaded by code are read
        only there: no byte of a file outside is read or reported."""
        try:
            target = path.resolve()
        except (OSError, RuntimeError):
            return False
        from promptlint.fsutil import within

        return within(target, self._project_bases(near))

    def _project_bases(self, near: Path) -> tuple[Path, ...]:
        cache = self.shared.setdefault("project.bases", {})
        folder = near.parent.resolve()
        if folder not in cache:
            top = next((p for p in (folder, *folder.parents) if (p / ".git").exists()), None)
            cache[folder] = (self.root.resolve(), top or folder)
        return cache[folder]

    def note(self, file, span, message: str) -> None:
        line, col = span.line_col if span is not None else (1, 1)
        self.notes.append(f"{file.display_path}:{line}:{col}: {message}")

    def partial(self, file, span, message: str) -> None:
        """Part of a file was not analysed (a limit was reached): always shown, at info level."""
        line, col = span.line_col if span is not None else (1, 1)
        self.notes.append(Incomplete(f"{file.display_path}:{line}:{col}: {message}"))

    def dialect_for(self, path: Path) -> str:
        """The template style config sets for a file, else "auto" (sniffed)."""
        if self.dialects:
            try:
                rel = path.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                rel = path.as_posix()
            for pattern, style in self.dialects.items():
                if pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(rel):
                    return style
        return "auto"


def read_source(path: Path, ctx: SourceContext) -> SourceFile:
    """Read a prompt file as UTF-8 text, refusing binary, oversized and
    undecodable files with a one-line error that names the line."""
    from promptlint.stdin_text import bytes_of

    from promptlint.fsutil import UnreadableFile, read_bounded

    display = ctx.display_path(path)
    data = bytes_of(path)
    if data is None:
        ctx.deps.add(path)
    if data is not None and len(data) > ctx.max_file_bytes:
        raise SourceError(display, 1, f"file is {len(data):,} bytes, over the {ctx.max_file_bytes:,}-byte limit for a "
                                      "prompt file")
    try:
        data = read_bounded(path, ctx.max_file_bytes) if data is None else data
    except UnreadableFile as exc:
        raise SourceError(display, 1, str(exc)) from None
    except OSError as exc:
        raise SourceError(display, 1, f"cannot read file: {exc.strerror or exc}") from None
    if b"\x00" in data[:8192]:
        raise SourceError(display, 1, "binary file (contains NUL bytes), not a prompt")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError(display, line, f"invalid UTF-8 (byte 0x{data[exc.start]:02x})", col) from None
    return SourceFile(path, text, display)


_BREAK = re.compile(r"[\r\n]")
_ESCAPE_OR_BREAK = re.compile(r"[\\\r\n]")


def align_offsets(raw: str, decoded: str, base: int, escapes: bool = True) -> list[int]:
    """Map each character of `decoded` (a YAML/JSON string value) to the
    offset in the file of the `raw` source text it came from, which starts at
    `base`. Escapes, quotes, indentation and folding are skipped over. The list
    has len(decoded) + 1 entries; the last is the end of the value.
    `escapes=False` is for scalars where a backslash is literal (YAML plain,
    single-quoted and block scalars)."""
    out: list[int] = []
    p = 0
    n = len(raw)

    def past_break(i: int) -> int:
        """Offset after the line break at i and the next line's indentation."""
        i += 2 if raw.startswith("\r\n", i) else 1
        while i < n and raw[i] in " \t":
            i += 1
        return i

    special = _ESCAPE_OR_BREAK if escapes else _BREAK
    i, end = 0, len(decoded)
    tried = -1  # a plain run is tried once from its first character: linear even where it differs
    while i < end:
        if p > tried:  # a run of plain characters (no backslash, no line break) maps one to one
            stop = special.search(raw, p)
            run = (stop.start() if stop else n) - p
            tried = p + run
            if run > 1 and decoded.startswith(raw[p:p + run], i):
                out.extend(range(base + p, base + p + run))
                p += run
                i += run
                continue
        ch = decoded[i]
        i += 1
        while escapes and p + 1 < n and raw[p] == "\\" and raw[p + 1] in "\r\n":
            p = past_break(p + 1)  # an escaped line break decodes to nothing
        if p < n and raw[p] == ch and (ch != "\\" or not escapes):
            out.append(base + p)
            p += 1
            continue
        if ch == " " and p < n and raw[p] in "\r\n":  # a line break folded into a space
            out.append(base + p)
            p = past_break(p)
            continue
        if escapes and p < n and raw[p] == "\\":
            out.append(base + p)
            # skip the escape: \uXXXX (twice for a surrogate pair, as JSON writes an
            # astral character), \xXX, \UXXXXXXXX or a single char
            kind = raw[p + 1] if p + 1 < n else ""
            p += 12 if kind == "u" and ord(ch) > 0xFFFF else {"u": 6, "x": 4, "U": 10}.get(kind, 2)
            continue
        q = raw.find(ch, p)
        if q == -1:
            out.append(base + min(p, n))
        else:
            out.append(base + q)
            p = q + 1
    out.append(base + min(p, n))
    return out
