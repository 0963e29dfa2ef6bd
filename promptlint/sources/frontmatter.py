"""YAML front matter (`---` ... `---`) of Prompty, dotprompt and Markdown
prompts: finding it, loading it safely, and turning its input declarations
into what the variable table takes.

The YAML is loaded with ruamel's round-trip loader so every mapping keeps
its position; the opening `---` is blanked (not cut) before parsing, so the
loader's 0-based line numbers are the file's 1-based lines minus one and its
columns are the file's. Round-trip loading never calls a Python constructor,
and `!!python/...` tags are refused outright.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from promptlint.analysis.volatility import Verdict, VariableTable
from promptlint.ir import SourceError, SourceFile, Variable, Volatility
from promptlint.sources.base import check_alias_expansion

_OPEN = re.compile(r"---[ \t]*(\r\n|\n)")
_HEADER = re.compile(r"(?:(?:#[^\n]*|[ \t\r]*)\n)*")
_CLOSE = re.compile(r"^---[ \t]*(\r\n|\n|$)", re.M)
_PY_TAG = "tag:yaml.org,2002:python/"
DECLARED = "declared in front matter"


def has_front_matter(file: SourceFile) -> bool:
    """Whether the file opens with a `---` line (terminated or not)."""
    return _OPEN.match(file.text) is not None


def split_front_matter(file: SourceFile, *, allow_header: bool = False,
                       diagnostics: list | None = None) -> tuple[dict | None, int, int]:
    """(data, yaml_start, body_start) for a file that may open with front
    matter. Without it: (None, 0, 0). Empty front matter gives {}.
    `allow_header`: blank and `#` comment lines may come first (dotprompt
    allows a license header there; it is not part of the body).

    `data` is a ruamel CommentedMap (a dict): `data.lc.key(k)` and
    `data.lc.value(k)` are 0-based (line - 1, col - 1) in the file.

    With `diagnostics`, front matter that does not load is reported there
    and read as empty, so the body after it is still checked; without it,
    the error is raised."""
    header = _HEADER.match(file.text).end() if allow_header else 0
    opener = _OPEN.match(file.text, header)
    if opener is None:
        return None, 0, 0
    yaml_start = opener.end()
    close = _CLOSE.search(file.text, yaml_start)
    if close is None:
        line = file.position(opener.start())[0]
        raise SourceError(file.display_path, line, "front matter: no closing '---' line")
    body_start = close.end()
    try:
        data = load_yaml(file, yaml_start, close.start())
    except SourceError as exc:
        if diagnostics is None:
            raise
        diagnostics.append(exc)
        data = {}
    return data, yaml_start, body_start


def load_yaml(file: SourceFile, start: int, end: int, what: str = "front matter") -> dict:
    """Load file.text[start:end] as a YAML mapping; errors name the file line."""
    from ruamel.yaml import YAML  # (only where a file has front matter: a one-file run without it skips the import)
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    # Blank everything before `start` except line breaks so marks are file positions.
    prefix = re.sub(r"[^\r\n]", " ", file.text[:start])
    stream = prefix + file.text[start:end]
    yaml = YAML(typ="rt")
    try:
        node = yaml.compose(stream)
        _refuse_python_tags(node, file, what)
        check_alias_expansion(node, file, what)
        # built from the node just composed (not a second parse of the text)
        data = yaml.constructor.construct_document(node) if node is not None else None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        text = (exc.problem or exc.context or "invalid YAML").splitlines()[0]
        raise SourceError(file.display_path, line, f"{what}: {text}", col) from None
    except YAMLError as exc:
        text = (str(exc).splitlines() or ["invalid YAML"])[0]
        raise SourceError(file.display_path, file.position(start)[0], f"{what}: {text}") from None
    if data is None:
        data = YAML(typ="rt").load("{}")
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "a scalar"
        raise SourceError(file.display_path, file.position(start)[0], f"{what}: expected a mapping, got {kind}")
    return data


def _refuse_python_tags(node, file: SourceFile, what: str, seen: set[int] | None = None) -> None:
    seen = set() if seen is None else seen
    if node is None or id(node) in seen:
        return
    seen.add(id(node))
    if str(node.tag).startswith(_PY_TAG):
        mark = node.start_mark
        tag = "!!" + str(node.tag)[len("tag:yaml.org,2002:"):]
        raise SourceError(file.display_path, mark.line + 1, f"{what}: tag '{tag}' is not allowed", mark.column + 1)
    value = node.value
    if isinstance(value, list):
        for item in value:
            for sub in (item if isinstance(item, tuple) else (item,)):
                _refuse_python_tags(sub, file, what, seen)


# -- declared inputs ---------------------------------------------------------


@dataclass
class DeclaredInputs:
    """What a file's front matter says about its inputs."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)  # explicit volatility only
    samples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    names: tuple[str, ...] = ()  # every declared input, in declaration order

    def table(self, base: VariableTable) -> VariableTable:
        """`base` with these declarations on top (config overrides still win)."""
        return base.with_declared(self.verdicts, self.samples)

    def variables(self) -> dict[str, Variable]:
        """For PromptTemplate.variables."""
        names = dict.fromkeys([*self.names, *self.verdicts, *self.samples])
        out = {}
        for name in names:
            verdict = self.verdicts.get(name)
            out[name] = Variable(name, self.samples.get(name, ()),
                                 verdict.volatility if verdict else None, verdict.reason if verdict else "")
        return out

    def add_sample(self, name: str, value) -> None:
        if value is None:
            return
        text = sample_text(value)
        old = self.samples.get(name, ())
        if text not in old:
            self.samples[name] = (*old, text)

    def add_name(self, name: str) -> None:
        if name not in self.names:
            self.names = (*self.names, name)


def sample_text(value) -> str:
    """A sample as the template would see it: strings as they are, anything
    else (numbers, booleans, lists, mappings) as JSON text."""
    if isinstance(value, str):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _volatility(file: SourceFile, mapping: dict, key, what: str) -> Verdict:
    value = mapping[key]
    try:
        return Verdict(Volatility.parse(str(value)), DECLARED)
    except ValueError as exc:
        line, col = _value_pos(mapping, key)
        raise SourceError(file.display_path, line, f"front matter: {what}: {exc}", col) from None


def _value_pos(mapping, key) -> tuple[int, int]:
    try:
        line, col = mapping.lc.value(key)
        return line + 1, col + 1
    except (AttributeError, KeyError, TypeError):
        return 1, 1


def promptlint_options(data: dict | None) -> dict:
    """The `promptlint:` extension mapping of the front matter ({} if none)."""
    options = (data or {}).get("promptlint")
    return options if isinstance(options, dict) else {}


def _extension_variables(data: dict | None, file: SourceFile, out: DeclaredInputs) -> None:
    """`promptlint: {variables: {now: request}}` in any front matter."""
    variables = promptlint_options(data).get("variables")
    if not isinstance(variables, dict):
        return
    for name in variables:
        out.verdicts[str(name)] = _volatility(file, variables, name, f"promptlint.variables.{name}")


def prompty_inputs(data: dict | None, file: SourceFile) -> DeclaredInputs:
    """Prompty: `inputs:` (a mapping name -> {type, description, sample,
    default, volatility} or name -> type, or a list of {name: ...}) and the
    top-level `sample:` mapping. A string `sample:` (a file reference such as
    `${file:sample.json}`) is not followed."""
    out = DeclaredInputs()
    data = data or {}
    inputs = data.get("inputs")
    specs: list[tuple[str, object, object]] = []  # (name, spec, container for positions)
    if isinstance(inputs, dict):
        specs = [(str(k), v, inputs) for k, v in inputs.items()]
    elif isinstance(inputs, list):
        specs = [(str(item["name"]), item, item) for item in inputs
                 if isinstance(item, dict) and "name" in item]
    for name, spec, _ in specs:
        out.add_name(name)
        if isinstance(spec, dict):
            for key in ("sample", "default"):
                if key in spec:
                    out.add_sample(name, spec[key])
            if "volatility" in spec:
                out.verdicts[name] = _volatility(file, spec, "volatility", f"inputs.{name}.volatility")
    sample = data.get("sample")
    if isinstance(sample, dict):
        for name, value in sample.items():
            out.add_sample(str(name), value)
    _extension_variables(data, file, out)
    return out


_PICO_KEY = re.compile(r"^\s*([A-Za-z_$][\w$-]*)\s*(\?)?\s*(?:\(([^)]*)\))?\s*$")


def dotprompt_inputs(data: dict | None, file: SourceFile) -> DeclaredInputs:
    """dotprompt: `input: {schema: ..., default: {...}}` where the schema is
    Picoschema (`name?(type, description): ...`) or JSON Schema
    (`type: object, properties: {...}`); a schema given by name is not
    followed. Volatility comes from `promptlint: {variables: {...}}` (or a
    `volatility:` key in a JSON Schema property)."""
    out = DeclaredInputs()
    data = data or {}
    block = data.get("input")
    if isinstance(block, dict):
        schema = block.get("schema")
        if isinstance(schema, dict):
            if _is_json_schema(schema):
                for name, prop in (schema.get("properties") or {}).items():
                    name = str(name)
                    out.add_name(name)
                    if isinstance(prop, dict):
                        if "default" in prop:
                            out.add_sample(name, prop["default"])
                        for example in prop.get("examples") or ():
                            out.add_sample(name, example)
                        if "volatility" in prop:
                            out.verdicts[name] = _volatility(file, prop, "volatility",
                                                             f"input.schema.{name}.volatility")
            else:
                for key in schema:
                    m = _PICO_KEY.match(str(key))
                    if m and m.group(1) != "*":
                        out.add_name(m.group(1))
        defaults = block.get("default")
        if isinstance(defaults, dict):
            for name, value in defaults.items():
                out.add_sample(str(name), value)
    _extension_variables(data, file, out)
    return out


def _is_json_schema(schema: dict) -> bool:
    return isinstance(schema.get("properties"), dict) and schema.get("type", "object") == "object"


def markdown_inputs(data: dict | None, file: SourceFile) -> DeclaredInputs:
    """Plain Markdown prompts: only the `promptlint:` extension."""
    out = DeclaredInputs()
    _extension_variables(data, file, out)
    return out


__all__ = ["split_front_matter", "load_yaml", "has_front_matter", "DeclaredInputs", "sample_text",
           "promptlint_options", "prompty_inputs", "dotprompt_inputs", "markdown_inputs", "DECLARED"]
