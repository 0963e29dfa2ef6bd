"""Volatility of a template input, from what the source says, then its name,
then the user's config. Nothing here executes user code: it reads names and
calls as text.

Precedence (highest first): a config override in
`[tool.promptlint.variables]`, evidence in the source (a call to `now()`, a
`| random` filter, a front-matter declaration), a name that says what the
value is, and otherwise UNKNOWN: no evidence either way. An unknown input
does not end a stable prefix for a finding (a finding needs evidence); the
audit shows the prefix both ways and a hint names the inputs to declare.
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


# What a verdict's reason starts with, or holds, when the value was read once
# per process (a module evaluated at import) or comes from the command line:
# the readers mark it, the rules say how often it changes in those words.
AT_IMPORT = "computed once at import"
COMMAND_LINE = Verdict(V.SESSION, "command-line arguments: fixed for one run of the program, new for the next")


# A prompt sent inside a loop over data (a dataset, rows from a file): each item is a request of its own.
PER_ITEM = "one request per item"


def per_item(label: str) -> Verdict:
    return Verdict(V.REQUEST, f"{PER_ITEM} of {label}: the prompt is sent inside the loop over it")


def sent_per_item(reason: str | None) -> bool:
    return PER_ITEM in (reason or "")


# What a model call returned: sampled for this request, so it differs between requests whatever it is named.
MODEL_ANSWER = "what the model answered"


def model_answer(call: str) -> Verdict:
    return Verdict(V.REQUEST, f"{MODEL_ANSWER} ({call}): a model's output differs between requests")


def answered(reason: str | None) -> bool:
    return MODEL_ANSWER in (reason or "")


def read_at_import(reason: str | None) -> bool:
    return AT_IMPORT in (reason or "")


def read_from_clock_or_chance(reason: str | None) -> bool:
    """Whether a verdict comes from reading the clock or a random source
    (CALLS: now(), time(), uuid4(), random ...), not from a name or an input."""
    return any(v.reason in (reason or "") for v in CALLS.values() if v.volatility > V.SESSION)


CONSTRUCTED = "read once when the object is made (__init__)"


def at_construction(verdict: Verdict) -> Verdict:
    """A clock or random value read in `__init__` and kept on the object
    (`self.system_prompt = f"... {datetime.now()}"`): read once when the
    object is made, the same for every request it serves (a conversation
    object's whole session, a long-lived agent's whole process)."""
    if verdict.volatility > V.SESSION and read_from_clock_or_chance(verdict.reason) \
            and CONSTRUCTED not in verdict.reason:
        return Verdict(V.SESSION, f"{CONSTRUCTED}: {verdict.reason}; it stays for the object's requests")
    return verdict


def from_command_line(reason: str | None) -> bool:
    return COMMAND_LINE.reason in (reason or "")


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
    # what the user typed after the command: fixed for one run of a script, new for the next
    "parse_args": COMMAND_LINE,
    "parse_known_args": COMMAND_LINE,
}

FILTERS: dict[str, Verdict] = {
    "random": Verdict(V.NONDETERMINISTIC, "the | random filter picks a different item each render"),
    "shuffle": Verdict(V.NONDETERMINISTIC, "the | shuffle filter reorders every render"),
}

# Filters that make iteration order stable.
SORTING_FILTERS = frozenset({"sort", "dictsort"})


# What a verdict's reason says when only a name decided it (no value was seen).
BY_NAME = "the name suggests"


def by_name_only(reason: str | None) -> bool:
    return BY_NAME in (reason or "")


def _rule(volatility: Volatility, what: str, *patterns: str) -> tuple[re.Pattern, Verdict]:
    regex = re.compile(r"^(?:" + "|".join(patterns) + r")$")
    return regex, Verdict(volatility, f"{BY_NAME} {what}")


# Checked in order against the lower-cased snake_case name; first match wins.
# A name is evidence only when it says what the value is; a name that could be
# a setting as well as an input (`name`, `role`, `language`, `topic`) matches
# nothing and the input stays UNKNOWN.
_SETTINGS_NAME = re.compile(r"^(?!(?:user|request|req|session|customer|tenant|account|client|member|player)_)"
                            r"(.+_)?(settings|config|configuration|configs|cfg|options|opts|params|parameters|prefs)$")
SETTINGS = Verdict(V.UNKNOWN, f"{BY_NAME} settings: no evidence of how often they change")
NAME_RULES: list[tuple[re.Pattern, Verdict]] = [
    # switches the caller sets (`show_examples`, `use_tools`) say nothing about
    # how often they change; the text they guard is as stable as the rest
    (re.compile(r"^(show|include|use|enable|disable|with|hide|skip|add|has|is|allow|can|should)_.+$"
                r"|^(.+_)?(no|without)_[a-z].*$"),  # `grounded_no_context`, `no_tools`: a switch too
     Verdict(V.UNKNOWN, f"{BY_NAME} a switch the caller sets: no evidence of how often it changes")),
    # settings named for what they configure (`query_settings`, `answer_config`) are settings, not
    # the query or the answer: how often they change is the deployment's to say
    (_SETTINGS_NAME, SETTINGS),
    # a template is the fixed text an input is put into (`user_message_head_template`)
    _rule(V.STATIC, "a template (fixed text the inputs are put into)",
          r".+_(template|templates|tmpl|tpl)", r"template"),
    # limits and counts the deployment configures
    _rule(V.STATIC, "a configured limit",
          r"(max|min|maximum|minimum)_.+", r".+_(limit|limits|max|min|threshold|cap|window)",
          r"(num|number_of|n)_(max_)?(actions|steps|tools|results|retries|attempts|turns|iterations|examples|shots)"),
    _rule(V.STATIC, "fixed configuration",
          r"(.+_)?(system|sys)_?(prompt|message|msg|instructions?|content|text)", r"preamble", r"expected_outputs?", r"(global_|base_)?instructions", r"(global_|base_)instruction",
          r".*guidelines?", r".*polic(y|ies)", r"tools?", r"tool_(defs|definitions|specs|list|schemas?|descriptions?)",
          r"functions?", r"tool_names", r"(few_shot_)?examples?", r".*schema", r"persona", r"tone", r"style",
          r"(output|response|answer|reply|return|json|result)_format", r"format_instructions", r"rules",
          # what the app says about itself or its agent (`personality_context`), not what a request brings
          r"(personality|persona|agent|system|business|company|domain|role|app|product|brand|character)_context"),
    _rule(V.NONDETERMINISTIC, "a random or unique value (differs between identical requests)",
          r".*uuid.*", r".*nonce.*", r"random.*", r".*_random", r"salt", r"shuffled.*"),
    _rule(V.REQUEST, "the current time (changes every request)",
          r"now", r"(current_|curr_|utc_|local_|server_|system_)?(date_?time|timestamp|time|ts|clock)(_now|_utc|_iso|_str|_string|_text)?",
          r".*_(timestamp|datetime|date_time)(_str|_iso|_string|_text)?", r"time_?now", r"now_(time|datetime|date_time|ts)", r"current_time.*",
          r"(.+_)?(current|now|request|sent|received|local|server|system|utc)_(date_?time|time|timestamp|at)(_.+)?",
          # `created_at`, `review_started_at`: a past participle before `_at` is a
          # time; other `*_at` names (`good_at`, `look_at`) are not
          r".+ed_at", r"(.+_)?(expires|due|starts|ends)_at"),
    _rule(V.DAY, "a date (changes once a day)",
          r"(current_|todays?_|the_|local_)?(date|day|weekday|today|yesterday|tomorrow)(_str|_iso|_string|_text|_date)?",
          r"today.*"),
    _rule(V.REQUEST, "a per-request identifier",
          r"(request|req|trace|span|correlation|call|message|msg|run|turn|event|interaction)_?id",
          r"(pr|pull_request|issue|ticket|order|case|invoice|incident|job|task|claim)_?(number|num|no|id)"),
    _rule(V.SESSION, "per-conversation state",
          r".*(history|conversation|transcript|dialog|dialogue|memory|memories|scratchpad).*",
          r"session.*", r".*_session", r"thread_?id", r"chat_?id", r"(chat_|conversation_|running_)?summary",
          r"(previous|prior|past|prev)_.*", r"plan",
          # an agent's plan as it stands this step
          r"(all|current|terminal|sub|task|execution|action|next|new|updated|revised|overall|full|step|work)_plans?",
          r"notes", r"state", r"(message_|chat_)?thread", r"(chat_|conversation_)?messages",
          # a graph's or an agent's conversation state (LangGraph's `state.messages`)
          r"(state|agent|graph|session|thread|memory|all|running)_messages",
          r"turns",
          # who takes part in this conversation (a thread's `users`, a meeting's `participants`)
          r"(thread_|chat_|channel_|conversation_|room_|meeting_)?(users|participants|attendees)(_list|_names)?",
          # what a run works on (a research topic, a navigation goal): fixed for the run, new for the
          # next; a goal the user keeps for weeks (`weekly_goal`) says nothing of the kind
          r"(research|navigation|search|section|report|essay|article|blog|run|task|session|conversation)_"
          r"(topics?|goals?|objectives?|problems?)",
          # the repository or branch a coding agent's session works on, and its state
          r"(repo|repos|repository|repositories|git_repo)(_name|_names|_url|_path|_dir|_directory|_full_name)?",
          r"(git_)?branch(_name)?",
          r"(file|files|directory|folder|repo|repository|project|workspace)_(tree|map|structure|listing|layout)"),
    _rule(V.REQUEST, "per-request input",
          r".*(question|query|queries|input|utterance|request|ask|message|msg|instruction_override).*",
          r"(user_|human_)?prompt",
          # the prompt a prompt optimiser or judge is given to work on
          r"(original|candidate|generated|rewritten|revised|optimi[sz]ed|improved|given|target|student)_prompts?",
          # one instruction is what this request asks (an agent's task, a dataset row's
          # `instruction`); `instructions` are the app's own (the rule above)
          r"(user_|human_|task_|current_|new_)?instruction",
          # what the request is about: the task, goal, topic or problem it states
          r"(the_|current_|user_|main_)?(tasks?|goals?|objectives?|topics?|subject|problem|problem_statement|issue|"
          r"issue_(description|text|body|title)|job_(description|posting|listing|ad|title|role|position)|requirements?|spec|specification)"
          r"(_description|_prompt|_text|_list|_stmt|_statement)?",
          # the language a request asks for (not an app-wide `language` setting)
          r"(source|target|output|input|dest|destination|reply|response)_lang(uage)?(_code|_name)?",
          r"lang(uage)?_code",
          r".*(documents?|context|chunks?|passages?|snippets?|results?|retrieved|sources?|citations?|attachments?|images?|(?<!pro)files?|pages?|articles?|tickets?|email_body|body|content|text|(?<!tool_)(?<!function_)(?<!schema_)(?<!config_)(?<!settings_)(?<!meta)data|payload|observations?|outputs?|hits|matches|records|rows)",
          # `docs` are retrieved documents; `command_docs`, `api_docs` are reference text
          r"((retrieved|relevant|context|search|source|input|user|top|ranked|selected|matched|related|similar|ref|"
          r"reference)_)?docs?",
          # the passages a RAG prompt cites, or the reference answer a grader compares with
          r"(formatted_|retrieved_|relevant_)?references?",
          # facts extracted or recalled for this request (`existing_facts`, `relevant_facts`)
          r"(.+_)?facts",
          # what a RAG search found for it (`graph_knowledges`, `retrieved_knowledge`); a
          # `domain_knowledge` the app is written with is not named so
          r"((graph|retrieved|relevant|related|search|searched|recalled|kg|kb|external|web|rag)_)?knowledges?",
          r"(.+_)?context_(above|below|before|after|text|str)", r"(git_|pr_|pull_request_|code_|file_)?(diff|patch)(es)?(_content|_text|_str)?",
          # what this run produced or is looking at: code, errors, logs, the editor's selection
          r"(source_)?code", r"(error|errors|exception|traceback|stack_?trace|logs?|stderr|stdout)(_.+)?",
          r"selection", r"(selected|highlighted)_.+", r"clipboard", r"screenshots?",
          # media the request carries, as a data URL or encoded bytes (`video_data_url`, `image_b64`)
          r"(.+_)?(images?|img|videos?|audio|photos?|pictures?|screenshots?|frames?)(_data)?_(url|uri|b64|base64|bytes)",
          r"(.+_)?(base64|b64)_(images?|img|videos?|audio|photos?|screenshots?)", r"data_ur[li]",
          # an agent run's record (what a judge or an optimiser reads), an NLI pair a grader is given
          r"(.+_)?(trajector(y|ies)|traces?|transcripts?|rollouts?)(_str|_text)?", r"premise", r"hypothes[ie]s",
          # the titles of the documents a conversation is about
          r"(doc|docs|document|documents|paper|papers|article|articles|source|sources)_(titles?|names?|overviews?|"
          r"summaries|abstracts?)",
          # the page a crawler or a browsing agent is given, and its markup
          r"urls?", r"(page|web|webpage|website|site|current|target|source|input|article|document|doc)_urls?",
          r"(.+_)?websites?",
          r"(.+_)?html(_content|_code|_text|_source|_snippet)?",
          # the page a browsing agent is looking at
          r"viewport(_.+)?", r"(ax|accessibility)_?tree(_.+)?", r"dom(_tree|_state|_snapshot)?",
          # and the screen a computer-use agent is looking at (`screen_info`, `parsed_screen`)
          r"(current_|parsed_)?screen(_info|_state|_content|_text|_elements|_description|_parse|_layout)?",
          # a name that says it is the value now
          r"(current|cur|curr|this)_.+",
          r"(remaining|left|used)_.*", r".*_(remaining|left|count|counter|budget)", r"(current_)?(turn|step|iteration|attempt)(_.*)?",
          r"weather", r"news",
          # what a learning agent scored on this step
          r"(last_|current_|step_|episode_|total_)?rewards?",
          # what a model or the app under test said this turn
          r"(.+_)?(reply|replies|response|responses|answer|answers|completion|generation|prediction|solution)"),
    _rule(V.USER, "a per-user value",
          r"member_(name|id|email|profile)", r"(user|customer|client|account|tenant|player|patient|student|employee|caller|author|recipient|"
          r"sender|contact|candidate|applicant|guest|buyer|learner|reader)(_.*)?",
          r".*_(user|customer|account|tenant)", r"(first|last|full|display|preferred)_?name", r"username", r"email",
          r"phone", r"address", r"timezone", r"tz", r"(user_|current_)?location(_data|_name|_info)?", r"city",
          r"country", r"tier", r"subscription.*", r"preferences?", r"profile",
          r"persona_user", r"personal_(info|information|details|data)", r"(user_)?resume(_text|_data|_json)?", r"cv"),
    _rule(V.DEPLOY, "a per-release value",
          r".*version.*", r"build.*", r"release.*", r"env(ironment)?", r"deployment", r"git_.*", r"commit.*",
          r"model(_name|_id)?", r"(assistant|bot|agent|app|company|product|brand|service|platform|org_brand)_?name",
          r"company", r"product", r"brand", r"app", r"assistant", r"bot"),
    _rule(V.STATIC, "fixed configuration",
          r".*(instructions|guidelines?|rules|policy|policies|examples?|few_shots?|schema|persona|style|tone|tools?|functions?|capabilities|constraints|faq|glossary|catalog|catalogue|menu|system_prompt|preamble|disclaimer)"),
]

UNKNOWN = Verdict(
    V.UNKNOWN,
    "no evidence of how often it changes (held fixed; declare it in [tool.promptlint.variables])",
)
DEFAULT = UNKNOWN  # what an input with nothing to go on gets


def no_evidence(verdict: Verdict) -> bool:
    """Whether a verdict says nothing about how often the value changes."""
    return not verdict.volatility.evidenced


def snake(name: str) -> str:
    """`userName` / `User-Name` / `user.name` -> `user_name`."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"[^a-zA-Z0-9]+", "_", name).strip("_").lower()


_SHAPE_SUFFIX = re.compile(r"(?<=[a-z0-9])_(section|sections|block|blocks|list|text|str|string|info|part|parts|"
                           r"snippet|md|markdown|html|json|yaml|xml)$")


# an environment object (`env.research_problem`, a benchmark's or a gym's): its field's own name says
# what it holds, the deployment `env` only what is left
ENV_ROOT = re.compile(r"^(env|environment)$")
# what an endpoint is handed: the request, its body or its form
_REQUEST_ROOT = re.compile(r"^(request|req|request_body|body|payload|form|form_data)$")


def classify_name(name: str) -> Verdict:
    """Volatility from a variable name alone. Dotted names (`user.name`) are
    tried whole, then by their root (`user`), then by their last attribute."""
    parts = [p for p in re.split(r"[.\[\]]+", name) if p]
    if len(parts) > 1 and _REQUEST_ROOT.match(snake(parts[0])):
        # a field of the request an endpoint was sent (`request.jsonSchema`, `body.text`) is that
        # request's, whatever the field is called
        return Verdict(V.REQUEST, f"a field of the incoming request ({name!r})")
    candidates = [snake(name)]
    if len(parts) > 1 and (_SETTINGS_NAME.match(snake(parts[0])) or ENV_ROOT.match(snake(parts[0]))):
        # a field of settings (`query_settings.prompts`, `app_config.system_template`) is what its
        # own name says, else a setting: not the query the settings' name mentions
        candidates = [snake(parts[-1]), snake(parts[0])]
    elif len(parts) > 1:
        candidates += [snake(parts[0]), snake(parts[-1])]
    # `sources_section`, `history_block`, `tools_list`: the suffix says how the
    # value is laid out, the name before it what it is
    candidates += [c[: -len(m.group(0))] for c in list(candidates) if (m := _SHAPE_SUFFIX.search(c))]
    fallback = UNKNOWN
    for candidate in candidates:
        for regex, verdict in NAME_RULES:
            if regex.match(candidate):
                found = Verdict(verdict.volatility, f"{verdict.reason} ({name!r})")
                if found.volatility.evidenced:
                    return found
                if fallback is UNKNOWN:
                    fallback = found  # a switch: say so, unless another part of the name is evidence
                break
    return fallback


# A name whose truth is its value: `{% if is_admin %}` flips with it.
_FLAG_NAME = re.compile(r"^(.+_)?(show|include|use|enable|disable|with|hide|skip|add|has|is|allow|can|should|needs?)_.+$"
                        r"|^.+_(enabled|disabled|on|off|flag|mode)$|^(verbose|debug|premium|admin|beta)$")


def presence_test(tested: str, verdict: Verdict, body_names) -> Verdict:
    """The class of `{% if x %}` / `{{#if x}}` where x is only tested for
    being set. A value present on every request keeps the branch fixed,
    whatever its own class, so the test is evidence of change only when the
    name is a flag (its truth is its value) or the block shows the value
    itself (`{% if memory %}Memory: {{ memory }}{% endif %}` is the memory
    block). `body_names`: the inputs the branches read."""
    if not verdict.volatility.evidenced or verdict.volatility <= Volatility.DEPLOY:
        return verdict
    root = re.split(r"[.\[]", tested, maxsplit=1)[0]
    last = snake(re.split(r"[.\[\]]+", tested.strip("."))[-1])
    if _FLAG_NAME.match(last) or any(re.split(r"[.\[]", n, maxsplit=1)[0] == root for n in body_names):
        return verdict
    return Verdict(Volatility.UNKNOWN, f"only tests whether {tested} is set, which nothing says changes "
                                       f"(its value would be {verdict.volatility.label}: {verdict.reason})")


def classify_call(func: str) -> Verdict | None:
    """Volatility from a called function's name (`now`, `datetime.now`, `uuid4`)."""
    last = func.rsplit(".", 1)[-1]
    return CALLS.get(last)


_ROOT_END = re.compile(r"[.\[]")  # where a dotted or indexed name's root ends


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
        return name, _ROOT_END.split(name, maxsplit=1)[0]

    def configured(self, name: str) -> bool:
        """Whether the config or the file declares this name (or its root)."""
        return any(key in self.overrides or key in self.declared for key in self._keys(name))

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
