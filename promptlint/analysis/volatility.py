"""Volatility of a template input, from what the source says, then its name,
then the user's config. Nothing here executes user code: it reads names and
calls as text.

Precedence (highest first): a config override in
`[tool.promptlint.variables]`, evidence in the source (a call to `now()`, a
`| random` filter, a front-matter declaration), the name, and finally the
conservative default (an undeclared input is assumed to change per request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from promptlint.ir import Volatility

V = Volatility


@dataclass(frozen=True)
class Verdict:
    volatility: Volatility
    reason: str


# Calls and filters whose result we know, whatever the names around them.
CALLS: dict[str, Verdict] = {
    "now": Verdict(V.REQUEST, "calls now(): the current time changes every request"),
    "utcnow": Verdict(V.REQUEST, "calls utcnow(): the current time changes every request"),
    "time": Verdict(V.REQUEST, "calls time(): the current time changes every request"),
    "strftime": Verdict(V.REQUEST, "formats the current time"),
    "today": Verdict(V.DAY, "calls today(): changes once a day"),
    "uuid": Verdict(V.NONDETERMINISTIC, "calls uuid(): differs between identical requests"),
    "uuid4": Verdict(V.NONDETERMINISTIC, "calls uuid4(): differs between identical requests"),
    "uuid1": Verdict(V.NONDETERMINISTIC, "calls uuid1(): differs between identical requests"),
    "random": Verdict(V.NONDETERMINISTIC, "uses random: differs between identical requests"),
    "shuffle": Verdict(V.NONDETERMINISTIC, "shuffles: order differs between identical requests"),
    "choice": Verdict(V.NONDETERMINISTIC, "random choice: differs between identical requests"),
    "randint": Verdict(V.NONDETERMINISTIC, "random number: differs between identical requests"),
}

FILTERS: dict[str, Verdict] = {
    "random": Verdict(V.NONDETERMINISTIC, "the | random filter picks a different item each render"),
    "shuffle": Verdict(V.NONDETERMINISTIC, "the | shuffle filter reorders every render"),
}

# Filters that make iteration order stable.
SORTING_FILTERS = frozenset({"sort", "dictsort"})


def _rule(volatility: Volatility, what: str, *patterns: str) -> tuple[re.Pattern, Verdict]:
    regex = re.compile(r"^(?:" + "|".join(patterns) + r")$")
    return regex, Verdict(volatility, f"the name suggests {what}")


# Checked in order against the lower-cased snake_case name; first match wins.
NAME_RULES: list[tuple[re.Pattern, Verdict]] = [
    # switches set by the caller (`show_examples`) are not the content their
    # name mentions; with no other evidence they count as per-request input
    (re.compile(r"^(show|include|use|enable|disable|with|hide|skip|add)_.+$"),
     Verdict(V.REQUEST, "the name suggests a switch the caller sets, assumed to change per request")),
    _rule(V.STATIC, "fixed configuration",
          r"(base_|main_)?system_?(prompt|message|instructions?)", r"preamble", r"(global_|base_)?instructions?",
          r".*guidelines?", r".*polic(y|ies)", r"tools?", r"tool_(defs|definitions|specs|list|schemas?)",
          r"functions?", r"(few_shot_)?examples?", r".*schema", r"persona", r"tone", r"style",
          r"(output|response|answer)_format", r"format_instructions", r"rules"),
    _rule(V.NONDETERMINISTIC, "a random or unique value (differs between identical requests)",
          r".*uuid.*", r".*nonce.*", r"random.*", r".*_random", r"salt", r"shuffled.*"),
    _rule(V.REQUEST, "the current time (changes every request)",
          r"now", r"(current_|curr_|utc_)?(date_?time|timestamp|time|ts|clock)(_now|_utc|_iso|_str)?",
          r".*_(timestamp|datetime|time|at)", r"time_?now", r"current_time.*"),
    _rule(V.DAY, "a date (changes once a day)",
          r"(current_|todays?_|the_)?(date|day|weekday|today)(_str|_iso)?", r"today.*"),
    _rule(V.REQUEST, "a per-request identifier",
          r"(request|req|trace|span|correlation|call|message|msg|run|turn|event)_?id"),
    _rule(V.SESSION, "per-conversation state",
          r".*(history|conversation|transcript|dialog|dialogue|memory|memories|scratchpad).*",
          r"session.*", r".*_session", r"thread_?id", r"chat_?id", r"summary", r"(previous|prior|past)_.*",
          r"plan", r"notes", r"state", r"thread", r"(chat_|conversation_)?messages", r"turns"),
    _rule(V.REQUEST, "per-request input",
          r".*(question|query|queries|input|utterance|request|ask|message|msg|prompt|instruction_override).*",
          r".*(documents?|docs?|context|chunks?|passages?|snippets?|results?|retrieved|sources|citations|attachments?|images?|(?<!pro)files?|page|article|ticket|email_body|body|content|text|data|payload)",
          r"(remaining|left|used)_.*", r".*_(remaining|left|count|counter|budget)", r"turn.*", r"step.*",
          r"location", r"weather", r"news"),
    _rule(V.USER, "a per-user value",
          r"(user|customer|client|member|account|tenant|org|organization|organisation|player|patient|student|employee|caller)(_.*)?",
          r".*_(user|customer|account|tenant)", r"(first|last|full|display|preferred)_?name", r"name", r"username", r"email",
          r"phone", r"address", r"locale", r"lang", r"language", r"timezone", r"tz", r"tier", r"subscription.*",
          r"preferences?", r"profile", r"persona_user", r"role", r"country", r"city", r"age", r"gender"),
    _rule(V.DEPLOY, "a per-release value",
          r".*version.*", r"build.*", r"release.*", r"env(ironment)?", r"deployment", r"git_.*", r"commit.*",
          r"model(_name|_id)?", r"(assistant|bot|agent|app|company|product|brand|service|platform|org_brand)_?name",
          r"company", r"product", r"brand", r"app", r"assistant", r"bot"),
    _rule(V.STATIC, "fixed configuration",
          r".*(instructions?|guidelines?|rules|policy|policies|examples?|few_shots?|schema|format|persona|style|tone|tools?|functions?|capabilities|constraints|faq|glossary|catalog|catalogue|menu|system_prompt|preamble|disclaimer)"),
]

DEFAULT = Verdict(
    V.REQUEST,
    "an input with no evidence of stability is assumed to change per request "
    "(declare it in [tool.promptlint.variables])",
)


def snake(name: str) -> str:
    """`userName` / `User-Name` / `user.name` -> `user_name`."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"[^a-zA-Z0-9]+", "_", name).strip("_").lower()


def classify_name(name: str) -> Verdict:
    """Volatility from a variable name alone. Dotted names (`user.name`) are
    tried whole, then by their root (`user`), then by their last attribute."""
    parts = [p for p in re.split(r"[.\[\]]+", name) if p]
    candidates = [snake(name)]
    if len(parts) > 1:
        candidates += [snake(parts[0]), snake(parts[-1])]
    for candidate in candidates:
        for regex, verdict in NAME_RULES:
            if regex.match(candidate):
                return Verdict(verdict.volatility, f"{verdict.reason} ({name!r})")
    return DEFAULT


def classify_call(func: str) -> Verdict | None:
    """Volatility from a called function's name (`now`, `datetime.now`, `uuid4`)."""
    last = func.rsplit(".", 1)[-1]
    return CALLS.get(last)


class VariableTable:
    """Resolves an input name to a verdict: config override, then declared
    variable (front matter), then the name. Also holds known sample values."""

    def __init__(self, overrides: dict[str, Volatility] | None = None,
                 declared: dict[str, Verdict] | None = None,
                 samples: dict[str, tuple[str, ...]] | None = None):
        self.overrides = overrides or {}
        self.declared = declared or {}
        self.samples = samples or {}

    def with_declared(self, declared: dict[str, Verdict] | None = None,
                      samples: dict[str, tuple[str, ...]] | None = None) -> "VariableTable":
        """A table for one file: its front-matter declarations and samples on
        top of this one (config overrides still win)."""
        return VariableTable(
            self.overrides,
            {**self.declared, **(declared or {})},
            {**self.samples, **(samples or {})},
        )

    @staticmethod
    def _keys(name: str) -> tuple[str, str]:
        return name, re.split(r"[.\[]", name, maxsplit=1)[0]

    def resolve(self, name: str) -> Verdict:
        keys = self._keys(name)
        for key in keys:
            if key in self.overrides:
                return Verdict(self.overrides[key], f"set in config ([tool.promptlint.variables] {key})")
        for key in keys:
            if key in self.declared:
                return self.declared[key]
        return classify_name(name)

    def samples_for(self, name: str) -> tuple[str, ...]:
        """Known sample values for exactly this name (not its root: the
        sample of `user` says nothing about `user.name`)."""
        return self.samples.get(name, ())


# strftime directives finer than a day: a format without them has day precision
_TIME_DIRECTIVES = re.compile(r"%[-_0^#]?[HIMSpfXcTsrRzZkl]")


def strftime_precision(fmt: str) -> Verdict:
    """`now().strftime(fmt)`: the format decides how often the text changes."""
    if _TIME_DIRECTIVES.search(fmt):
        return Verdict(V.REQUEST, f"formats the current time to {fmt!r}: changes every request")
    return Verdict(V.DAY, f"formats the current date to {fmt!r}: changes once a day")
