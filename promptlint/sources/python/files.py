"""Template files the code loads: `Path(__file__).parent / "prompts" /
"system.md"`, `open(os.path.join(HERE, "x.txt")).read()`,
`env.get_template("agent.j2")`. Where the path is written out (literals,
`__file__`, `.parent`, `/`, `joinpath`, `os.path.join`/`dirname`), the
file is read (never executed) and its text becomes the value, so that a
`.format(now=...)` or `.render(now=...)` on it gives its fields the
volatility of the values the call passes. The text is placed at the call
that reads it, as imported values are (project).

Limits: only files inside the project root or beside the reading module,
text files under the reader's size limit; a path computed at run time
(an argument, a setting) stays a file of unknown content, fixed per release.
A template named by `get_template` is looked for in the loader's folder
when the code names it, else beside the module and in the `templates/` and
`prompts/` folders of it and its parents. A package's resources
(`importlib.resources.files("app.prompts").joinpath("agent.yaml")`) are
looked for in the package's folder, found as imports are.

Data files the code parses (`yaml.safe_load(text)`, `json.load(fh)`) become
dicts and lists of their strings (safe loaders only: no tags, nothing
constructed), so that `templates["planning"]["update"]` is the text there;
MAX_DATA_NODES values at most.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from promptlint.ir import SourceError
from promptlint.sources.base import read_source
from promptlint.sources.python.strings import Lit
from promptlint.sources.python.values import ConstV, DictV, ListV, StrV, literal_text

_TEMPLATE_FOLDERS = ("", "templates", "prompts", "prompt", "prompt_templates", "templates/prompts")
MAX_PARENTS = 6
JINJA_PATH = re.compile(r"[\w./-]+\.(?:j2|jinja2?)")  # "memory/summary.j2": a Jinja file named in the code
WRITTEN_JINJA_PATH = re.compile(rf"[\"']{JINJA_PATH.pattern}[\"']")  # ... as a string literal in the source
MAX_DATA_NODES = 20_000  # values of one parsed data file turned into ours
MAX_DATA_DEPTH = 64


def joined(base: str | None, *parts: str | None) -> str | None:
    """A path built from known pieces, None when one is not known."""
    if base is None or any(p is None for p in parts):
        return None
    return os.path.join(base, *parts)


def parent(where: str | None) -> str | None:
    return None if where is None else os.path.dirname(where)


def _inside(path: Path, flow) -> bool:
    """Within the project of the module reading it (SourceContext.inside_project)."""
    return flow.ctx.inside_project(path, flow.file.path)


# a path joined onto a root we cannot place (`resources / "x" / "y.txt"`): `ANYWHERE/x/y.txt`
ANYWHERE = "*"
PATH_PART = re.compile(r"[\w.-]+(?:/[\w.-]+)*")


def resolve(flow, where: str) -> Path | None:
    """The file a path names: absolute, else relative to the module's folder
    or the project root (the working directory the app is usually run from);
    a tail under a root we cannot place (`*/fitd/template.txt`), the one file
    of the checked tree whose path ends so."""
    if where.startswith(ANYWHERE + os.sep):
        return _by_tail(flow, where[len(ANYWHERE) + 1:])
    path = Path(where)
    candidates = [path] if path.is_absolute() else [flow.file.path.parent / path, Path(flow.ctx.root) / path]
    for candidate in candidates:
        if candidate.is_file() and _inside(candidate, flow):
            return candidate
    return None


def _by_tail(flow, tail: str) -> Path | None:
    """The one file under the project root whose path ends with `tail` (two
    parts at least, the last a file name with a suffix), else None."""
    parts = tail.split("/")
    if len(parts) < 2 or "." not in parts[-1] or ".." in parts:
        return None
    memo = flow.ctx.shared.setdefault("python.files_by_tail", {})
    if tail not in memo:
        memo[tail] = _walk_for_tail(flow, parts)
    return memo[tail]


def _walk_for_tail(flow, parts: list[str]) -> Path | None:
    """The walk behind `_by_tail`: the files discovery would walk (at most
    MAX_TREE_FILES); None unless exactly one ends so."""
    from promptlint.discover import tree_files

    tail = "/" + "/".join(parts)
    found = [p for p in tree_files(flow.ctx.root) or () if p.name == parts[-1]
             and p.as_posix().endswith(tail) and _inside(p, flow)]
    return found[0] if len(found) == 1 else None


def load(flow, path: Path, node) -> StrV | None:
    """The file's text as a value placed at `node`; None (with a note) when it
    cannot be read as text."""
    try:
        file = read_source(path, flow.ctx)
    except SourceError as exc:
        flow.ctx.note(flow.file, flow.file_span(*flow.span(node)), f"{exc.path}: not read ({exc.message})")
        return None
    start, end = flow.span(node)
    flow.ctx.note(flow.file, flow.file_span(start, end), f"reads {file.display_path}: its text is the value here")
    return StrV([Lit.synthetic(file.text, start, end)], node)


def find_template(flow, name: str, folder: str | None) -> Path | None:
    """`env.get_template(name)`: in the loader's folder when known, else beside
    the module and in the template folders of it and its parents."""
    if folder is not None:
        return resolve(flow, os.path.join(folder, name))
    here = flow.file.path.parent
    for base in [here, *list(here.parents)[:MAX_PARENTS]]:
        for sub in _TEMPLATE_FOLDERS:
            candidate = base / sub / name
            if candidate.is_file() and _inside(candidate, flow):
                return candidate
        # one folder deeper or beside (prompts/templates/x.md, prompts/system/x.j2): only when unique
        if BARE_NAME.fullmatch(name):
            found = sorted({p for d in _PROMPT_FOLDERS for pattern in (f"{d}/*/{name}", f"*/{d}/{name}")
                            for p in base.glob(pattern) if p.is_file() and _inside(p, flow)})
            if len(found) == 1:
                return found[0]
        if base.resolve() == Path(flow.ctx.root).resolve():
            break
    return None


# a prompt file a loader finds by its bare name: load_prompt("action_template")
PROMPT_SUFFIXES = (".j2", ".jinja", ".jinja2", ".prompt", ".txt", ".md", ".tmpl")
JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2", ".prompt")
DATA_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml"}
_PROMPT_FOLDERS = ("prompts", "prompt", "templates", "prompt_templates")
BARE_NAME = re.compile(r"[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)*")


def find_by_name(flow, name: str, suffixes=PROMPT_SUFFIXES) -> tuple[Path | None, list[Path]]:
    """A prompt file a loader is given by its bare name (`load_prompt(
    "action_template")`, `prompt_engine.load_prompt("summarize")`,
    `convo.template("implement_changes")`): `name` plus a prompt suffix,
    beside the module or in a prompts/templates folder of the module's
    package or its parents (directly, one folder down, or one folder above
    it: skyvern/forge/prompts/skyvern/x.j2 from skyvern/services/). The
    nearest base wins; at equal distance, the one in a folder named like the
    module (code_monkey.py: prompts/code-monkey/); ties left are ambiguous
    (None, with the candidates). `suffixes`: DATA_SUFFIXES for a loader that
    gives a file of several prompts by its name (`get_prompt("deepsearch")
    ["reasoning_prompt"]` reading prompt/deepsearch.yaml)."""
    if not BARE_NAME.fullmatch(name) or Path(name).suffix.lower() in (*PROMPT_SUFFIXES, *DATA_SUFFIXES):
        return None, []
    memo = flow.ctx.shared.setdefault("python.prompt_files_by_name", {})  # one search per folder and name a run
    key = (flow.file.path.parent, flow.file.path.stem, name, tuple(suffixes))
    if key not in memo:
        memo[key] = _find_by_name(flow, name, suffixes)
    return memo[key]


def _find_by_name(flow, name: str, suffixes) -> tuple[Path | None, list[Path]]:
    here = flow.file.path.parent
    root = Path(flow.ctx.root).resolve()
    stem = re.sub(r"[-_]", "", flow.file.path.stem.lower())
    for base in [here, *list(here.parents)[:MAX_PARENTS]]:
        found: list[Path] = []
        patterns = [name + "{}"] + [f"{d}/{name}{{}}" for d in _PROMPT_FOLDERS] + \
            [f"{d}/*/{name}{{}}" for d in _PROMPT_FOLDERS] + [f"*/{d}/{name}{{}}" for d in _PROMPT_FOLDERS] + \
            [f"*/{d}/*/{name}{{}}" for d in _PROMPT_FOLDERS]
        for pattern in patterns:
            for suffix in suffixes:
                found += [p for p in base.glob(pattern.format(suffix)) if p.is_file() and _inside(p, flow)]
        found = sorted(set(found))
        if len(found) > 1:
            named = [p for p in found if re.sub(r"[-_]", "", p.parent.name.lower()) == stem]
            found = named if len(named) == 1 else found
        if found:
            return (found[0], found) if len(found) == 1 else (None, found)
        if base.resolve() == root:
            break
    return None, []


DATA_PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.(?:ya?ml|json|toml)")


def find_data_file(flow, name: str) -> Path | None:
    """A data file a loader of the app's is given by a written-out path
    (`load_prompts("agents/assigner.yaml")`): relative to the module or the
    project root, else under the prompts/templates folders of the module's
    package or its parents, or one folder below them; only when one file
    matches at the nearest level."""
    if not DATA_PATH.fullmatch(name) or ".." in name.split("/"):
        return None
    direct = resolve(flow, name)
    if direct is not None:
        return direct
    memo = flow.ctx.shared.setdefault("python.data_files_by_path", {})
    key = (flow.file.path.parent, name)
    if key not in memo:
        memo[key] = _find_data_file(flow, name)
    return memo[key]


def _find_data_file(flow, name: str) -> Path | None:
    here = flow.file.path.parent
    root = Path(flow.ctx.root).resolve()
    for base in [here, *list(here.parents)[:MAX_PARENTS]]:
        patterns = [f"{d}/{name}" for d in _PROMPT_FOLDERS] + [f"*/{d}/{name}" for d in _PROMPT_FOLDERS] + \
            [f"*/{name}"]
        found = sorted({p for pattern in patterns for p in base.glob(pattern) if p.is_file() and _inside(p, flow)})
        if len(found) == 1:
            return found[0]
        if found or base.resolve() == root:
            return None
    return None


def package_folder(flow, dotted: str) -> str | None:
    """The folder of package `dotted` (`app.prompts`), looked for as an import
    is: under the module's folder and its ancestors, inside the project."""
    parts = [p for p in dotted.split(".") if p]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    here = flow.file.path.parent
    for base in [here, *list(here.parents)[:MAX_PARENTS + 2]]:
        candidate = base.joinpath(*parts)
        if candidate.is_dir() and _inside(candidate, flow):
            return str(candidate)
    return None


def parsed(flow, text: StrV, kind: str, node):
    """The data of a YAML or JSON text known in full (a file the code read),
    as dicts, lists and strings placed where the text is; None when it is not
    known or does not parse."""
    source = literal_text(text)
    if source is None or not text.segs:
        return None
    start, end = text.segs[0].offsets[0], text.segs[0].offsets[-1]
    try:
        if kind == "json":
            import json

            data = json.loads(source)
        elif kind == "toml":
            import tomllib

            data = tomllib.loads(source)
        else:
            from ruamel.yaml import YAML

            data = YAML(typ="safe", pure=True).load(source)
    except Exception as exc:  # noqa: BLE001 - any parse error: the value stays unknown
        flow.ctx.note(flow.file, flow.file_span(*flow.span(node)), f"not parsed as {kind}: "
                                                                   f"{str(exc).splitlines()[0] if str(exc) else exc}")
        return None
    budget = [MAX_DATA_NODES]

    def value(d, depth):
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DATA_DEPTH:
            raise OverflowError
        if isinstance(d, str):
            return StrV([Lit.synthetic(d, start, end)], node)
        if isinstance(d, dict):
            pairs = [(StrV([Lit.synthetic(str(k), start, end)], node), value(v, depth + 1)) for k, v in d.items()]
            return DictV(pairs, node, [None] * len(pairs))
        if isinstance(d, list):
            return ListV([value(v, depth + 1) for v in d], node)
        if d is None or isinstance(d, (bool, int, float)):
            return ConstV(d, node)
        return StrV([Lit.synthetic(str(d), start, end)], node)  # a date or timestamp the loader made

    try:
        return value(data, 0)
    except (OverflowError, RecursionError):
        flow.ctx.note(flow.file, flow.file_span(*flow.span(node)), f"{kind} data too large to follow "
                                                                   f"({MAX_DATA_NODES:,} values at most)")
        return None
