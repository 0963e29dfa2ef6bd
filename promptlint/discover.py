"""Which files are prompts: by convention, by name and folder, by content,
and inside configuration; `.gitignore` and config excludes apply.

Cheap checks come first, so a whole repository is fast to walk: the file's
name and extension, then (for names that could hold a prompt) a look at its
first bytes, and only then a parser, in the reader. Every file a walk looks
at gets a reason, taken or skipped, which `-v` prints.

- By convention, always: `*.j2`/`*.jinja`/`*.jinja2` (not `*.html.j2` and the
  like, which template other formats), `*.prompty`, `*.prompt`,
  `*.messages.*`, `*.anthropic.*`, `*.prompt.md`/`.txt`, `*.py`, and every
  text, Markdown, YAML or JSON file under a `prompts/` folder.
- By name or folder: Markdown, text and template files (`.md`, `.txt`,
  `.tmpl`, `.template`, `.mustache`, extensionless ...) whose name says
  prompt (`system*`, `*prompt*`, `*instructions*`, `persona`, `AGENTS.md`,
  `SKILL.md`), or that sit in a prompt-ish folder (`templates/`, `agents/`,
  `skills/`, `personas/`) and read as instructions.
- By content: any other such file whose text has template placeholders and
  reads as instructions to a model.
- Configuration: YAML, JSON and TOML files whose text has prompt-bearing
  keys (`system_prompt`, `instructions`, `prompt`, `template`, `*_prompt`,
  `*_template`, `backstory`, `messages`) or, under a prompt-ish name or
  folder, long instruction-like values; sources/config_prompts.py reads the
  values.

A file named on the command line goes through the same checks; one that is
not a prompt is skipped with a note (pre-commit passes every text file).
Config excludes apply to named files too, as ruff's --force-exclude does.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from promptlint.fsutil import within
from promptlint.stdin_text import bytes_of
from promptlint.sniff import directive_score, has_placeholders, reads_as_instructions

# Patterns (gitignore syntax) of files that are prompts wherever they are.
PROMPT_PATTERNS = (
    "*.j2", "*.jinja", "*.jinja2", "*.prompty", "*.prompt",
    "*.messages.json", "*.messages.yaml", "*.messages.yml",
    "*.anthropic.json", "*.anthropic.yaml", "*.anthropic.yml",
    "*.prompt.txt", "*.prompt.md",
    "*.py",  # Python code: prompts at LLM call sites and prompt-named constants (sources/python/)
)
# Inside a folder named prompts/, these are prompts too.
PROMPT_FOLDER_PATTERNS = ("**/prompts/**/*.txt", "**/prompts/**/*.md", "**/prompts/**/*.yaml",
                          "**/prompts/**/*.yml", "**/prompts/**/*.json")
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", "site-packages"}
# Build outputs, skipped where a project's root holds them (`features/build/`
# deeper in a tree is source).
OUTPUT_DIRS = {"dist", "build"}
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "Makefile", "Cargo.toml", "go.mod", ".git")
# Jinja partials are prompts in their own right only through includes.
PARTIAL_DIRS = {"partials", "_partials", "includes", "_includes", "layouts", "_layouts"}

JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2")
TEXT_SUFFIXES = {".md", ".markdown", ".mdx", ".mdc", ".txt", ".text", ".tmpl", ".tpl", ".template", ".mustache",
                 ".hbs", ".handlebars", ""}
DATA_SUFFIXES = {".json", ".yaml", ".yml", ".toml"}
# `x.html.j2`, `x.conf.jinja`: Jinja that templates another format, not a prompt.
_OTHER_FORMATS = {".html", ".htm", ".xml", ".svg", ".css", ".js", ".ts", ".sh", ".bash", ".conf", ".cfg", ".ini",
                  ".service", ".py", ".sql", ".tf", ".hcl", ".yaml", ".yml", ".json", ".toml", ".env", ".rst",
                  ".tex", ".csv", ".properties", ".nginx", ".j2"}
# Jinja that templates a build or service file: `Dockerfile.j2`, `nginx.conf.j2`.
_OTHER_FORMAT_NAMES = re.compile(r"^(dockerfile|containerfile|makefile|vagrantfile|jenkinsfile|procfile|gemfile|"
                                 r"caddyfile|justfile|brewfile)([._-].*)?$", re.IGNORECASE)
# ... or whose text starts like one (a Dockerfile, a shell script, markup, a manifest).
_OTHER_FORMAT_START = re.compile(r"\A(?:\s*(?:\{#.*?#\}|#[^\n]*)\s*)*(?:FROM\s+\S|#!|<\?xml|<!DOCTYPE|<html|"
                                 r"apiVersion:|kind:\s|server\s*\{|\[Unit\])", re.IGNORECASE | re.S)
# Files that are never prompts, whatever they contain.
_NEVER = re.compile(r"^(readme|changelog|changes|history|news|license|licence|copying|notice|authors|contributors|"
                    r"contributing|code_of_conduct|codeowners|funding|citation|release_notes)(\.(md|markdown|rst|txt|adoc|cff))?$|^(package(-lock)?|tsconfig.*|jsconfig|"
                    r"composer|renovate|lerna|nx|turbo|vercel|netlify|tslint|eslint.*|\.?babelrc|app|manifest|"
                    r"firebase|pnpm-lock|yarn|deno|bun|pyrightconfig|mkdocs|codecov|docker-compose.*|compose|"
                    r"environment|pyproject|promptlint|poetry|pdm|uv|cargo|pubspec|\.pre-commit-.*|\.?readthedocs|"
                    r"mypy|setup|tox|pixi|conda|meta|chart|values|kustomization|openapi.*|swagger.*)"
                    r"\.(json|ya?ml|toml|lock)$", re.IGNORECASE)
# Folders whose text files are documentation, not prompts: only convention
# and name matches are taken there.
_DOC_DIRS = {"docs", "doc", "documentation", "site", "website", "wiki", "man", "changelog", "changelogs",
             "examples_output", "test-results", "fixtures_output", "licenses", "third_party", "vendor"}
# Recorded HTTP interactions and test snapshots: requests as they were sent, not prompt sources.
_RECORDING_DIRS = {"cassettes", "vcr_cassettes", "__snapshots__", "snapshots", "recordings", "golden", "goldens"}
# A name that says the file is a prompt.
_PROMPT_NAME = re.compile(
    r"(^|[_\-.\s])(system|sys|prompts?|preprompts?|instructions?|persona|personas|soul|jailbreak|"
    r"agents?|skill|meta[_\-]?prompt)([_\-.\s]|$)|prompt|instruction|^(claude|gemini|agents|skill|copilot)\.md$",
    re.IGNORECASE)
# Folders whose instruction-like files are prompts.
_PROMPT_DIRS = {"prompts", "prompt", "preprompts", "system_prompts", "templates", "template", "agents", "agent",
                "skills", "personas", "persona", "instructions", "patterns", "roles", "chains", "tasks"}
_PROMPT_DIR_WORD = re.compile(r"prompt", re.IGNORECASE)

# A prompt-bearing key in YAML, JSON or TOML text (sources/config_prompts.py has the full rule).
CONFIG_KEY = re.compile(
    r"""(?im)^[ \t-]*["']?(?:[\w\-]*(?:prompt|template|instruction|system_message|backstory|persona)s?[\w\-]*|"""
    r"""messages|system|goal|role|description)["']?[ \t]*[:=]""")
# A chat request written as data: `"role": "system"` and the like, anywhere in the text.
CHAT_SHAPE = re.compile(r"""["']?role["']?\s*:\s*["']?(system|user|assistant|developer)\b""")
SNIFF_BYTES = 16_384  # what the sniff reads of a file: a prompt says what it is early


def _suffix(path: Path) -> str:
    name = path.name.lower()
    if name.startswith(".") and name.count(".") == 1:
        return ""  # .bashrc-like: no suffix
    return path.suffix.lower()


def format_for(path: Path) -> str | None:
    """The source format of a file from its name (None: not a kind of file
    promptlint reads)."""
    name = path.name.lower()
    suffix = _suffix(path)
    if suffix in JINJA_SUFFIXES:
        return "jinja"
    if suffix == ".prompty":
        return "prompty"
    if suffix == ".prompt":
        return "dotprompt"
    if suffix in DATA_SUFFIXES:
        return "messages"
    if suffix == ".py":
        return "python"
    if suffix in TEXT_SUFFIXES or name.endswith((".prompt.txt", ".prompt.md")):
        return "text"
    return None


def may_hold_prompt(rel: str) -> bool:
    """A cheap test on a repository path alone: could the file be a prompt
    (its kind of file is one promptlint reads, and nothing rules it out)?
    Used to choose what to read from git before discovery looks closer."""
    path = Path(rel)
    return format_for(path) is not None and not _NEVER.match(path.name)


@dataclass
class Candidate:
    path: Path
    format: str
    explicit: bool  # named on the command line, or found by walking
    reason: str = ""  # why it was taken (printed by -v)
    by_content: bool = False  # taken for what its text looks like: a parse failure is a skip, not an error


PROJECT_FILE = "a project file (README, licence, package manifest ...), never a prompt"


@dataclass
class Skip:
    path: Path
    reason: str


def _not_a_file(path: Path) -> str | None:
    """Why a name in a folder is not a file to read (a FIFO, a device, a link
    that leads nowhere or round in a loop), None for a regular file."""
    from promptlint.fsutil import file_kind

    try:
        kind = file_kind(path.stat().st_mode)
    except (OSError, RuntimeError):  # a dangling link, or a loop of links
        return "a symbolic link that leads nowhere or loops"
    return None if kind is None else f"{kind}, not a regular file"


def _read_head(path: Path) -> str | None:
    """The start of a file as text, or None for a binary or unreadable one
    (the reader reports those for files it is asked to read)."""
    from promptlint.fsutil import file_kind

    data = bytes_of(path)
    try:
        if data is None:
            if file_kind(path.stat().st_mode) is not None:  # a FIFO would block the read
                return None
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            try:
                data = os.read(fd, SNIFF_BYTES)
            finally:
                os.close(fd)
    except OSError:
        return None
    data = data[:SNIFF_BYTES]
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def classify(path: Path, rel_parts: tuple[str, ...], prompts_spec: pathspec.GitIgnoreSpec, rel: str,
             explicit: bool) -> tuple[str | None, str, bool]:
    """(format or None, why, taken for its content) for one file.
    `rel_parts`: the folders above it (relative to the walk's root, or the
    path as given for a named file)."""
    name = path.name
    lower = name.lower()
    fmt = format_for(path)
    if fmt is None:
        if prompts_spec.match_file(rel):  # [tool.promptlint] include names a kind of its own
            return "text", "matches [tool.promptlint] include", False
        return None, "not a kind of file promptlint reads", False
    if fmt == "jinja":
        inner = Path(path.stem).suffix.lower()
        if not explicit and (inner in _OTHER_FORMATS or _OTHER_FORMAT_NAMES.match(path.stem)):
            return None, f"Jinja template of a {inner or path.stem} file, not a prompt", False
        head = "" if explicit else (_read_head(path) or "")
        if _OTHER_FORMAT_START.match(head):
            return None, "Jinja template of a build, service or markup file (by its first line), not a prompt", False
        return fmt, "Jinja template", False
    if prompts_spec.match_file(rel):
        return fmt, "prompt file by convention or [tool.promptlint] include", False
    if _NEVER.match(lower):
        return None, PROJECT_FILE, False
    folders = {p.lower() for p in rel_parts}
    if fmt in ("prompty", "dotprompt", "python"):
        return fmt, "prompt file by convention", False
    named = bool(_PROMPT_NAME.search(path.stem if fmt != "text" else name))
    in_prompt_dir = bool(folders & _PROMPT_DIRS) or any(_PROMPT_DIR_WORD.search(p) for p in folders)
    if folders & _DOC_DIRS:
        return None, "in a documentation folder (docs/, site/ ...): its examples are not prompts", False
    if folders & _RECORDING_DIRS:
        return None, "in a folder of recorded requests or snapshots (cassettes/, __snapshots__/ ...)", False
    if fmt == "text" and not _suffix(path) and not (named or in_prompt_dir):
        return None, "a file without an extension outside a prompt folder", False
    head = _read_head(path)
    if head is None:
        return (fmt, "named on the command line", False) if explicit else (None, "binary or unreadable", False)
    if fmt == "messages":
        if CONFIG_KEY.search(head):
            return fmt, "data file with prompt-bearing keys", True
        if CHAT_SHAPE.search(head):
            return fmt, "data file holding chat messages", True
        if (named or in_prompt_dir) and reads_as_instructions(head):
            return fmt, "data file in a prompt folder or with a prompt name, with instruction-like text", True
        return None, "data file without prompt-bearing keys", False
    # Markdown, text and template files
    if named:
        return fmt, "its name says it is a prompt", False
    placeholders = has_placeholders(head)
    if in_prompt_dir:
        score = directive_score(head)
        if score >= 2 or placeholders and score >= 1:
            return fmt, "in a prompt folder and reads as instructions", True
    elif placeholders and directive_score(head) >= 3:
        return fmt, "has template placeholders and reads as instructions", True
    return None, "text that does not read as a prompt (no placeholders and instructions together)", False


@dataclass
class Discovery:
    root: Path
    exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    skipped: list[Skip] = field(default_factory=list)

    def __post_init__(self):
        self.root = self.root.resolve()
        self.exclude_spec = pathspec.GitIgnoreSpec.from_lines(self.exclude)
        self.prompts = pathspec.GitIgnoreSpec.from_lines(PROMPT_PATTERNS + PROMPT_FOLDER_PATTERNS
                                                         + tuple(self.include))

    def _rel(self, path: Path) -> str:
        if path.is_absolute():  # the walk's own paths: under the resolved root already, no syscalls
            try:
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def _inside(self, path: Path) -> bool:
        return not Path(self._rel(path)).is_absolute()

    def excluded(self, path: Path) -> bool:
        return self.exclude_spec.match_file(self._rel(path))

    def find(self, paths: list[Path]) -> list[Candidate]:
        found: list[Candidate] = []
        seen: set[Path] = set()
        for path in paths:
            if path.is_dir():
                for file, key, fmt, why, by_content in self._walk(path):
                    if key not in seen:
                        seen.add(key)
                        found.append(Candidate(file, fmt, False, why, by_content))
            elif self.excluded(path):
                self.skipped.append(Skip(path, "excluded by config"))
            else:
                key = path.resolve()
                if key in seen:
                    continue
                seen.add(key)
                given = bytes_of(path) is not None  # standard input stands for it
                if not given and (not path.exists() or not path.is_file()):
                    found.append(Candidate(path, format_for(path) or "unknown", True, "named on the command line"))
                    continue
                rel = self._rel(path)
                fmt, why, by_content = classify(path, tuple(Path(rel).parts[:-1]), self.prompts, rel, True)
                if fmt is None:
                    self.skipped.append(Skip(path, why))
                else:
                    found.append(Candidate(path, fmt, True, why, by_content))
        return found

    def _walk(self, top: Path):
        """(file, its resolved path, format, why, by content) for each prompt
        file under `top`. The walk's folders are real paths (os.walk does not
        enter linked folders), so paths are compared as strings and only a
        linked file is resolved."""
        top = top.resolve()
        top_s, root_s = str(top), str(self.root)
        ignores = [(str(base), spec) for base, spec in self._parent_gitignores(top)]
        for folder, dirs, files in os.walk(top):
            here = Path(folder)
            spec = _gitignore(here)
            if spec is not None:
                ignores.append((folder, spec))
            active = [(base, s) for base, s in ignores if _under(folder, base) is not None]

            def ignored(p: str, is_dir: bool) -> bool:
                for base, s in active:
                    if s.match_file(_under(p, base) + ("/" if is_dir else "")):
                        return True
                return self.exclude_spec.match_file(_relative(p, root_s))

            project_root = any((here / f).exists() for f in _PROJECT_FILES) if OUTPUT_DIRS & set(dirs) else False
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
                             and d not in PARTIAL_DIRS and not (project_root and d in OUTPUT_DIRS)
                             and not ignored(os.path.join(folder, d), True))
            # folders above the file within the project (docs/ anywhere above counts)
            inside = _under(folder, root_s)
            rel_parts = tuple(Path(inside if inside is not None else _under(folder, top_s)).parts)
            for name in sorted(files):
                file_s = os.path.join(folder, name)
                if ignored(file_s, False):
                    continue
                file = here / name
                link = file.is_symlink()
                odd = _not_a_file(file) or (self._outside(file, top) if link else None)
                if odd is not None:
                    self.skipped.append(Skip(file, odd))
                    continue
                rel = _relative(file_s, top_s)
                spec_rel = rel if self.prompts.match_file(rel) else _relative(file_s, root_s)
                fmt, why, by_content = classify(file, rel_parts, self.prompts, spec_rel, False)
                if fmt is None:
                    self.skipped.append(Skip(file, why))
                else:
                    yield file, file.resolve() if link else file, fmt, why, by_content

    def _outside(self, file: Path, top: Path) -> str | None:
        """A link found by a walk whose target lies outside the project (the
        config's root and the folder walked): not read, so no byte of it is
        reported or fixed."""
        if not file.is_symlink():
            return None
        target = file.resolve()
        bases = (self.root, top.resolve())
        if within(target, bases):
            return None
        return "a symbolic link to a file outside the project"

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


def _under(path: str, base: str) -> str | None:
    """`path` relative to the folder `base` in posix form ("" for the folder
    itself), None when it lies elsewhere; both absolute and normalised."""
    if path == base:
        return ""
    prefix = base if base.endswith(os.sep) else base + os.sep
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix):]
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def _relative(path: str, base: str) -> str:
    """`path` relative to `base` where it lies under it, else as it is (posix form)."""
    rel = _under(path, base)
    if rel is not None:
        return rel or "."
    return path if os.sep == "/" else path.replace(os.sep, "/")


def _gitignore(folder: Path) -> pathspec.GitIgnoreSpec | None:
    path = folder / ".gitignore"
    if not path.is_file():
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except Exception:
        return None


MAX_TREE_FILES = 20_000  # files a whole-tree lookup walks (a path's tail, the fill sites of a template)


def tree_files(root: Path, limit: int = MAX_TREE_FILES) -> list[Path] | None:
    """Every file under `root` in the folders discovery walks (not `.git`,
    `node_modules`, virtual environments, hidden folders), in a fixed
    order; None past `limit` files."""
    found = _tree_names(root, limit, lambda name: True)
    return None if found is None else [Path(p) for p in found]


def python_files(root: Path, limit: int = MAX_TREE_FILES) -> list[Path] | None:
    """The `.py` files of tree_files: what a result that depends on the whole
    tree (python.fills) reads."""
    found = python_file_names(root, limit)
    return None if found is None else [Path(p) for p in found]


def python_file_names(root: Path | str, limit: int = MAX_TREE_FILES) -> list[str] | None:
    """python_files as strings: what the result cache checks a tree against
    on every warm run, where building a Path for each file is most of the cost."""
    return _tree_names(root, limit, lambda name: name.endswith(".py") and name != ".py")


def _tree_names(root: Path | str, limit: int, keep) -> list[str] | None:
    """The paths (as strings) of tree_files whose name `keep` accepts; None
    past `limit` files in all."""
    out, seen = [], 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        seen += len(names)
        if seen > limit:
            return None
        out += [os.path.join(folder, n) for n in sorted(names) if keep(n)]
    return out


def find_candidates(paths: list[Path], config, notes: list[str] | None = None,
                    display_root: Path | None = None) -> list[Candidate]:
    """The files to read under `paths`; `notes` (if given) gets one line per
    file looked at: why it is read or skipped."""
    from promptlint.sources.base import Skipped, SourceContext

    discovery = Discovery(config.root, config.exclude, config.include)
    found = discovery.find(paths)
    if notes is not None:
        ctx = SourceContext(variables=None, root=config.root, display_root=display_root or Path.cwd())  # paths only
        notes += [f"{ctx.display_path(c.path)}: read ({c.reason})" for c in found]
        # every project has a README and a manifest: noted for -v, not counted as skipped
        notes += [(str if s.reason == PROJECT_FILE else Skipped)(f"{ctx.display_path(s.path)}: skipped ({s.reason})")
                  for s in discovery.skipped]
    return found
