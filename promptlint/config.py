"""Settings from `[tool.promptlint]` in pyproject.toml or from promptlint.toml,
found upward from the first checked path. Unknown keys and bad values are
errors that name the file and the key: a typo must never be silently ignored.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from promptlint.economics.cost import Traffic
from promptlint.ir import Volatility

DEFAULT_PROVIDERS = ("openai/gpt-4.1", "anthropic/claude-sonnet-4.5", "google/gemini-2.5-flash")


class ConfigError(Exception):
    """A bad configuration: `path: key: message`, exit code 2."""

    def __init__(self, path: Path | str, key: str, message: str):
        super().__init__(f"{path}: {key}: {message}")


@dataclass
class Config:
    path: Path | None = None  # the file it came from, None for defaults
    root: Path = field(default_factory=Path.cwd)
    providers: tuple[str, ...] = DEFAULT_PROVIDERS
    exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    dialects: dict[str, str] = field(default_factory=dict)  # glob -> template style
    variables: dict[str, Volatility] = field(default_factory=dict)
    samples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    traffic: Traffic = field(default_factory=Traffic)
    models: dict[str, dict] = field(default_factory=dict)  # provider-table overrides
    default_role: str = "system"
    timestamp_precision: str | None = None  # [fix] timestamp-precision = "day": fix lowers clock precision to it
    select: tuple[str, ...] = ()  # rule codes or prefixes; empty means all
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fail_on: str = "warning"


def _expect(cond: bool, path, key, message):
    if not cond:
        raise ConfigError(path, key, message)


def _strings(value, path, key) -> tuple[str, ...]:
    _expect(isinstance(value, list) and all(isinstance(v, str) for v in value), path, key,
            "expected a list of strings")
    return tuple(value)


SELECTOR = re.compile(r"^(ALL|PL\d{0,3})$")  # a rule code or prefix (--select, select = [...])


def selector_problem(code: str) -> str | None:
    """What is wrong with a --select/--ignore/config selector, or None: not a
    code's shape, or one that matches no rule (a typo would otherwise run
    nothing, or ignore nothing, and pass)."""
    import difflib

    from promptlint import catalogue

    if not SELECTOR.match(code):
        return f"{code!r} is not a rule code or prefix (e.g. PL001, PL00, ALL)"
    rules = sorted(catalogue.load())
    if code == "ALL" or any(r.startswith(code) for r in rules):
        return None
    near = difflib.get_close_matches(code, rules, n=1)
    hint = f"did you mean {near[0]}? " if near else ""
    return f"{code!r} matches no rule ({hint}the rules are {rules[0]}-{rules[-1]}; `promptlint rules` lists them)"


def _selectors(value, path, key) -> tuple[str, ...]:
    codes = _strings(value, path, key)
    for code in codes:
        problem = selector_problem(code)
        _expect(problem is None, path, key, problem or "")
    return codes


MAX_TRAFFIC = 1e12  # requests a day, users ...: past this a figure is a typo (inf and nan are refused)


def _patterns(value, path, key) -> tuple[str, ...]:
    """Gitignore-style patterns, each checked now: a bad one (`[z-a]`) is a config error, not a crash later."""
    import pathspec

    patterns = _strings(value, path, key)
    for pattern in patterns:
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except Exception as exc:  # noqa: BLE001 - pathspec raises re.error, ValueError ...
            raise ConfigError(path, key, f"{pattern!r} is not a valid pattern ({' '.join(str(exc).split())})") from None
    return patterns


def _traffic(value, path) -> Traffic:
    _expect(isinstance(value, dict), path, "traffic", "expected a table")
    traffic = Traffic()
    for key, v in value.items():
        name = key.replace("-", "_")
        full = f"traffic.{key}"
        _expect(hasattr(traffic, name), path, full,
                "unknown key (expected requests-per-day, users, sessions-per-user-per-day, days-per-month, "
                "session-minutes, history-tokens-per-turn)")
        _expect(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= MAX_TRAFFIC, path, full,
                f"expected a positive number up to {MAX_TRAFFIC:g}")
        setattr(traffic, name, int(v) if name == "users" else float(v))
    return traffic


def _variables(value, path) -> tuple[dict[str, Volatility], dict[str, tuple[str, ...]]]:
    """`name = "request"` or `name = { volatility = "user", samples = ["a", "b"] }`."""
    _expect(isinstance(value, dict), path, "variables", "expected a table of name = volatility")
    classes: dict[str, Volatility] = {}
    samples: dict[str, tuple[str, ...]] = {}
    for name, v in value.items():
        full = f"variables.{name}"
        if isinstance(v, dict):
            unknown = set(v) - {"volatility", "samples"}
            _expect(not unknown, path, f"{full}.{next(iter(unknown), '')}", "unknown key (expected volatility, samples)")
            if "samples" in v:
                samples[name] = _strings(v["samples"], path, f"{full}.samples")
            v = v.get("volatility")
            if v is None:
                continue
        _expect(isinstance(v, str), path, full, "expected a volatility name")
        try:
            classes[name] = Volatility.parse(v)
        except ValueError as exc:
            raise ConfigError(path, full, str(exc)) from None
    return classes, samples


def from_table(table: dict, path: Path | None, root: Path) -> Config:
    cfg = Config(path=path, root=root)
    shown = path or "<config>"
    for key, value in table.items():
        if key == "providers":
            cfg.providers = _strings(value, shown, key)
            _expect(bool(cfg.providers), shown, key, "expected at least one provider/model")
        elif key in ("exclude", "extend-exclude"):
            cfg.exclude = cfg.exclude + _patterns(value, shown, key)
        elif key == "include":
            cfg.include = _patterns(value, shown, key)
        elif key == "dialects":
            from promptlint.sources.placeholders import STYLES

            _expect(isinstance(value, dict), shown, key, 'expected a table of "glob" = "style"')
            for glob, style in value.items():
                _expect(style in STYLES, shown, f"{key}.{glob}", f"expected one of: {', '.join(STYLES)}")
            cfg.dialects = dict(value)
        elif key == "variables":
            cfg.variables, cfg.samples = _variables(value, shown)
        elif key == "traffic":
            cfg.traffic = _traffic(value, shown)
        elif key == "models":
            _expect(isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()), shown, key,
                    "expected a table of model tables, e.g. [tool.promptlint.models.\"openai/gpt-4.1\"]")
            cfg.models = value
        elif key == "select":
            cfg.select = _selectors(value, shown, key)
        elif key in ("ignore", "extend-ignore"):
            cfg.ignore = cfg.ignore + _selectors(value, shown, key)
        elif key == "per-file-ignores":
            _expect(isinstance(value, dict), shown, key, 'expected a table of "glob" = ["PL001", ...]')
            cfg.per_file_ignores = {glob: _selectors(codes, shown, f"{key}.{glob}") for glob, codes in value.items()}
        elif key == "fail-on":
            _expect(value in ("error", "warning", "info"), shown, key, "expected error, warning or info")
            cfg.fail_on = value
        elif key == "fix":
            _expect(isinstance(value, dict), shown, key, "expected a table")
            for fkey, fvalue in value.items():
                _expect(fkey == "timestamp-precision", shown, f"fix.{fkey}", "unknown key (expected timestamp-precision)")
                _expect(fvalue == "day", shown, f"fix.{fkey}", 'expected "day"')
                cfg.timestamp_precision = fvalue
        elif key == "default-role":
            _expect(value in ("system", "developer", "user"), shown, key, "expected system, developer or user")
            cfg.default_role = value
        else:
            raise ConfigError(shown, key, "unknown key")
    return cfg


def find_config(start: Path) -> tuple[dict, Path | None]:
    """The nearest promptlint.toml, or pyproject.toml with [tool.promptlint],
    at or above `start`."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        own = folder / "promptlint.toml"
        if own.is_file():
            return _load(own), own
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            try:
                table = _load(pyproject).get("tool", {}).get("promptlint")
            except ConfigError:
                # a pyproject.toml that is not TOML (a project template's, full of
                # {{ placeholders }}) holds no config of ours unless it says so
                if "[tool.promptlint" in pyproject.read_text(encoding="utf-8", errors="replace"):
                    raise
                table = None
            if table is not None:
                return table, pyproject
    return {}, None


def _load(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "toml", str(exc)) from None
    except OSError as exc:
        raise ConfigError(path, "file", exc.strerror or str(exc)) from None
    if path.name == "promptlint.toml":
        return data.get("tool", {}).get("promptlint", data)
    return data


def load(start: Path, explicit: Path | None = None) -> Config:
    """Config for a run: the explicit `--config` file, else found upward."""
    if explicit is not None:
        table = _load(explicit)
        if explicit.name == "pyproject.toml":
            table = table.get("tool", {}).get("promptlint", {})
        return from_table(table, explicit, explicit.resolve().parent)
    table, path = find_config(start)
    root = path.parent if path is not None else Path.cwd()
    return from_table(table, path, root)
