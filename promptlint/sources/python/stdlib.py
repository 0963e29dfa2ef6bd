"""What the standard library and LangChain calls mean to the data flow,
read from their names (never called on user data):

- clocks (`datetime.now()`, `date.today()`, `time.time()`, `.strftime(fmt)`,
  `.isoformat()`, an f-string format spec) and their precision;
- `uuid1/uuid4`, `random.*`, `secrets.*` (nondeterministic), `os.getpid()`
  (per process), `os.environ`/`os.getenv` (per deployment);
- unordered iteration: directory listings without `sorted(...)`, sets;
  `json.dumps` of data that is not a literal, without `sort_keys=True`;
- string building: `str.format`/`format_map`, `%`, `string.Template`,
  `join`, `strip`, `replace`, `textwrap.dedent`, `inspect.cleandoc`, `str()`;
- LangChain message classes;
- anything else: classified by its name, or fixed per process when it runs
  at import.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from pathlib import Path
from dataclasses import replace

import libcst as cst

from promptlint.analysis.volatility import (
    AT_IMPORT, COMMAND_LINE, DEFAULT, ENV_ROOT, Verdict, answered, at_construction, classify_call, from_command_line,
    by_name_only, model_answer, no_evidence, read_at_import, sent_per_item, snake, strftime_precision,
)
from promptlint.ir import SourceError, SourceFile, Volatility
from promptlint.sources.python import files, lcel
from promptlint.sources.python.scope import INF, MESSAGE_ROLES, at_import, last_name
from promptlint.sources.python.tree import walk
from promptlint.sources.python import strings as strs
from promptlint.sources.python.strings import Lit
from promptlint.sources.python.values import (
    NOT_LITERAL, ConstV, DictV, FuncV, ListV, LoopV, MsgV, Opaque, SetV, Spread, StrV, TemplV,
    literal_data, literal_text, relabel, short, strongest,
)
from promptlint.sources.python.text import (  # the string half; fill, join, percent: used by the flow
    _derived, _dict_arguments, _dict_kwargs, call_kwargs, fill, join, percent, render_fields, str_method,
)

__all__ = ["call", "method", "unknown_call", "fill", "join", "percent", "clock_format", "clock_samples"]

V = Volatility
_NOW = "the current time changes every request"
CLOCKS = {
    "datetime.datetime.now": ("datetime", V.REQUEST, _NOW),
    "datetime.datetime.utcnow": ("datetime", V.REQUEST, _NOW),
    "datetime.datetime.today": ("datetime", V.REQUEST, _NOW),
    "datetime.date.today": ("date", V.DAY, "the date changes once a day"),
    "time.time": ("time", V.REQUEST, _NOW),
    "time.time_ns": ("time", V.REQUEST, _NOW),
    "time.monotonic": ("time", V.REQUEST, _NOW),
    "time.perf_counter": ("time", V.REQUEST, _NOW),
    "time.ctime": ("time", V.REQUEST, _NOW),
    "time.asctime": ("time", V.REQUEST, _NOW),
    "time.localtime": ("time", V.REQUEST, _NOW),
    "time.gmtime": ("time", V.REQUEST, _NOW),
}
RANDOM_MODULES = ("random.", "secrets.", "numpy.random.")
NONDETERMINISTIC = {"uuid.uuid1", "uuid.uuid4", "os.urandom"}
# fields declared with their default (`field(default=...)`, pydantic's `Field(default)`)
FIELD_DEFAULTS = {"dataclasses.field", "pydantic.Field", "pydantic.fields.Field", "attr.ib", "attrs.field",
                  "attr.attrib", "attrs.ib"}
PER_PROCESS = {"os.getpid", "os.getppid", "socket.gethostname", "platform.node", "threading.get_ident"}
PURE_MODULES = ("os.path.", "posixpath.", "ntpath.", "textwrap.", "html.", "re.", "math.", "urllib.parse.",
                "shlex.", "string.capwords", "base64.", "unicodedata.", "json.loads", "operator.")
LISTINGS = {"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob"}
PATH_LISTINGS = {"glob", "rglob", "iterdir"}
_PATH_FUNCTIONS = {"os.path.join": None, "os.path.dirname": os.path.dirname, "os.path.abspath": os.path.abspath,
                   "os.path.realpath": os.path.abspath, "os.path.normpath": os.path.normpath}
COMPLETION_ORDER = {"asyncio.as_completed", "asyncio.wait", "concurrent.futures.as_completed",
                    "concurrent.futures.wait"}
# Message classes by role (LangChain; UserMessage/AssistantMessage as AutoGen and Azure AI Inference name them).
LC_MESSAGES = {"SystemMessage": "system", "HumanMessage": "user", "AIMessage": "assistant",
               "ToolMessage": "tool", "FunctionMessage": "tool", "ChatMessage": None,
               "UserMessage": "user", "AssistantMessage": "assistant", "DeveloperMessage": "developer"}


class _RoleTemplates:
    """Message-template classes by the role in their name: LangChain's
    `SystemMessagePromptTemplate` and the same shape elsewhere (DB-GPT's
    `SystemPromptTemplate`, `HumanPromptTemplate`). `ChatPromptTemplate` is
    the container of messages, not one of them."""

    _NAME = re.compile(r"(?:(System|Human|User|AI|Assistant)(?:Message)?|(Chat)Message)PromptTemplate")
    _ROLE = {"System": "system", "Human": "user", "User": "user", "AI": "assistant", "Assistant": "assistant",
             "Chat": None}

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and self._NAME.fullmatch(name) is not None

    def __getitem__(self, name: str) -> str | None:
        found = self._NAME.fullmatch(name)
        if found is None:
            raise KeyError(name)
        return self._ROLE[found.group(1) or found.group(2)]

    def get(self, name: str, default=None):
        return self[name] if name in self else default


LC_TEMPLATES = _RoleTemplates()
_SAMPLE_TIMES = [_dt.datetime(2026, 11, 29, 11, 3, 51, 482913), _dt.datetime(2026, 11, 30, 14, 27, 8, 120394),
                 _dt.datetime(2026, 12, 1, 16, 45, 33, 904112), _dt.datetime(2026, 12, 2, 18, 2, 17, 5521)]


def clock_samples(clock: str | None, fmt: str | None = None, how: str = "str") -> tuple[str, ...]:
    """Realistic renders of a clock value (our fixed sample times, formatted as the code formats them)."""
    out = []
    for t in _SAMPLE_TIMES:
        value = t.date() if clock == "date" else t
        try:
            if fmt is not None:
                out.append(value.strftime(fmt))
            elif clock == "time":
                out.append(repr(t.timestamp()))
            elif how == "iso":
                out.append(value.isoformat())
            else:
                out.append(str(value))
        except (ValueError, TypeError):
            return ()
    return tuple(out)


def _live(flow, frame, verdict: Verdict, node) -> Verdict:
    """A value read when the code runs: at import, it is fixed per process;
    in an object's __init__, per object."""
    if frame.import_time:
        return at_import(verdict)
    if frame.constructing:
        return at_construction(verdict)
    return verdict


def _args(call: cst.Call):
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    return positional, keywords


# what a person types or picks in a form or at a terminal, read by the app for this request
STREAMLIT_INPUTS = frozenset({"text_input", "text_area", "chat_input", "number_input", "selectbox", "multiselect",
                              "radio", "select_slider", "slider", "file_uploader", "camera_input", "audio_input",
                              "date_input", "time_input", "pills", "segmented_control", "data_editor"})
FORM_INPUTS = frozenset({"click.prompt", "typer.prompt", "rich.prompt.Prompt.ask", "questionary.text",
                         "questionary.select", "sys.stdin.read", "sys.stdin.readline", "getpass.getpass"})


def call(flow, qual: str, node: cst.Call, frame):
    """A call whose callee is an import or a builtin, by its qualified name."""
    last = qual.rsplit(".", 1)[-1]
    positional, keywords = _args(node)
    span = flow.span(node)
    if qual in CLOCKS:
        clock, vol, why = CLOCKS[qual]
        verdict = _live(flow, frame, Verdict(vol, f"calls {last}(): {why}"), node)
        return Opaque(flow.src(node), verdict, node, clock=clock, samples=clock_samples(clock))
    if qual == "time.strftime" and positional:
        fmt = literal_text(flow.eval(positional[0], frame))
        verdict = strftime_precision(fmt) if fmt is not None else Verdict(V.REQUEST, f"calls strftime(): {_NOW}")
        return Opaque(flow.src(node), _live(flow, frame, verdict, node), node,
                      samples=clock_samples("datetime", fmt) if fmt else ())
    if qual in NONDETERMINISTIC or qual.startswith(RANDOM_MODULES):
        verdict = _live(flow, frame, Verdict(V.NONDETERMINISTIC, f"calls {qual}(): differs between identical "
                                                                  "requests"), node)
        return Opaque(flow.src(node), verdict, node, names=(last,))
    if qual in PER_PROCESS:
        return Opaque(flow.src(node), Verdict(V.DEPLOY, f"calls {qual}(): fixed per process"), node)
    if qual in ("os.getenv", "os.environ.get"):
        default = keywords.get("default", positional[1] if len(positional) > 1 else None)
        folder = flow.eval(default, frame) if default is not None else None
        if isinstance(folder, Opaque) and folder.path and folder.where is not None:
            # `Path(os.getenv("PROMPT_DIR", HERE / "prompt"))`: the repository's own folder, where a
            # deployment that sets nothing reads its files
            return replace(folder, label=flow.src(node), node=node)
        return environment(flow, node)
    if qual in FIELD_DEFAULTS:
        # a dataclass or pydantic field's default: what an object made without it holds
        default = keywords.get("default", positional[0] if positional and qual.endswith("Field") else None)
        if default is not None:
            return flow.eval(default, frame)
    if qual in FORM_INPUTS or qual.startswith("streamlit.") and last in STREAMLIT_INPUTS:
        return Opaque(flow.src(node), Verdict(V.REQUEST, f"what the user enters in {qual}(): changes every "
                                                         "request"), node, names=(last,))
    if qual in LISTINGS:
        return _listing(flow, node, f"{qual}()")
    if qual in COMPLETION_ORDER:
        # results as the tasks finish (as_completed), or sets of tasks (wait): the
        # order changes from run to run; gather() keeps the order it was given.
        # No mechanical fix: futures do not sort (gather(), or sorting the results, does)
        advice = "collect the results in the order the tasks were made (asyncio.gather(...) keeps it), or sort them"
        return Opaque(flow.src(node), Verdict(V.UNKNOWN, f"results of {qual}()"), node,
                      order=f"{qual}() yields results in the order the tasks finish",
                      fix={"kind": "manual", "advice": advice})
    if qual == "json.dumps" and positional:
        return json_dumps(flow, node, frame, positional[0], keywords)
    if qual in ("textwrap.dedent", "inspect.cleandoc") and positional:
        value = flow.eval(positional[0], frame)
        if isinstance(value, StrV):
            fn = strs.dedent if last == "dedent" else strs.cleandoc
            return StrV(fn(value.segs), node)
        return _derived(flow, value, node)
    if qual == "re.sub" and len(positional) >= 3 and not keywords:
        text = _re_sub(flow, node, frame, positional)
        if text is not None:
            return text
    if qual == "string.Template" and positional:
        value = flow.eval(positional[0], frame)
        return TemplV(value, node) if isinstance(value, StrV) else _derived(flow, value, node)
    if qual in ("importlib.resources.files", "importlib_resources.files") and positional:
        package = literal_text(flow.eval(positional[0], frame))
        where = files.package_folder(flow, package) if package else None
        return Opaque(flow.src(node), Verdict(V.STATIC, "a package's folder"), node, path=True, where=where)
    if qual in _DATA_LOADERS and positional:  # yaml.safe_load(text), json.load(fh)
        source = flow.eval(positional[0], frame)
        data = _data(flow, source, _DATA_LOADERS[qual], node)
        if data is not None:
            return data
        if isinstance(source, Opaque) and source.path and source.verdict.volatility <= V.DEPLOY:
            # json.load(open(config.demos_path)): a file the deployment ships, wherever it is
            return Opaque(flow.src(node), Verdict(V.STATIC, f"data read from a file by {qual}(): fixed per "
                                                            "release"), node)
    if qual in ("pathlib.Path", "pathlib.PurePath", "open", "io.open", "jinja2.FileSystemLoader"):
        values = [flow.eval(a, frame) for a in positional[:1]]
        where = _where(values[0]) if values else None
        if qual == "open" and len(positional) > 1 and "b" in (literal_text(flow.eval(positional[1], frame)) or ""):
            where = None  # a binary file is not text
        return Opaque(flow.src(node), strongest(flow.verdict(v) for v in values), node, path=True,
                      names=_arg_names(flow, positional, frame), where=where)
    if qual in _PATH_FUNCTIONS:  # os.path.join(os.path.dirname(__file__), "prompts", "x.md")
        values = [flow.eval(a, frame) for a in positional]
        wheres = [_where(v) for v in values]
        where = None
        if wheres and all(w is not None for w in wheres):
            where = os.path.join(*wheres) if qual.endswith(".join") else _PATH_FUNCTIONS[qual](wheres[0])
        return Opaque(flow.src(node), strongest(flow.verdict(v) for v in values), node, path=True,
                      names=tuple(n for v in values for n in flow.names_of(v))[:4], where=where)
    if last == "from_file" and qual.split(".")[-2:-1] and qual.split(".")[-2].endswith("PromptTemplate") \
            and (positional or "template_file" in keywords):
        # LangChain's PromptTemplate.from_file(path): the file's text, an f-string template
        where = _where(flow.eval(keywords.get("template_file", positional[0] if positional else None), frame))
        found = files.resolve(flow, where) if where is not None else None
        text = files.load(flow, found, node) if found is not None else None
        if text is not None:
            return text
    if qual == "jinja2.Template" and positional:
        value = flow.eval(positional[0], frame)
        return TemplV(value, node, style="jinja") if isinstance(value, StrV) else _derived(flow, value, node)
    if qual == "jinja2.Environment":
        loader = keywords.get("loader")
        where = _where(flow.eval(loader, frame)) if loader is not None else None
        return Opaque(flow.src(node), Verdict(V.STATIC, "a Jinja environment"), node, where=where)
    if qual.startswith(PURE_MODULES):  # a function of its arguments only
        values = [flow.eval(a, frame) for a in positional] + [flow.eval(v, frame) for v in keywords.values()]
        return Opaque(flow.src(node), strongest(flow.verdict(v) for v in values), node,
                      names=tuple(n for v in values for n in flow.names_of(v))[:4], parsed=qual in _DATA_LOADERS)
    if last in LC_MESSAGES or last in LC_TEMPLATES or last == "MessagesPlaceholder" or _lc_from_template(qual):
        return lc_message(flow, qual, node, frame)
    if (found := haystack_message(flow, qual, node, frame)) is not None:
        return found
    if "." not in qual:
        return builtin(flow, qual, node, frame, positional, keywords, span)
    return None


_DATA_LOADERS = {"yaml.safe_load": "yaml", "yaml.load": "yaml", "yaml.full_load": "yaml", "json.loads": "json",
                 "json.load": "json"}


def _data(flow, value, kind: str, node):
    """The parsed data of a text, or of the file a handle reads (`with
    open(path) as fh: json.load(fh)`)."""
    if isinstance(value, Opaque) and value.path and value.where is not None:
        found = files.resolve(flow, value.where)
        value = files.load(flow, found, node) if found is not None else None
    return files.parsed(flow, value, kind, node) if isinstance(value, StrV) else None


def _re_sub(flow, node, frame, positional):
    """`re.sub(pattern, repl, text)` with a literal pattern and replacement,
    done inside each literal run of the text (a whitespace tidy-up of a
    prompt keeps its text and its slots); None where that cannot be told."""
    pattern, repl = (literal_text(flow.eval(a, frame)) for a in positional[:2])
    value = flow.eval(positional[2], frame)
    if pattern is None or repl is None or not isinstance(value, StrV) or "\\" in repl:
        return None
    try:
        compiled = re.compile(pattern)
    except re.error:
        return None
    return StrV(strs.regex_replace(value.segs, compiled, repl), node)


def builtin(flow, name: str, node, frame, positional, keywords, span):
    if name == "isinstance" and len(positional) == 2:
        known = _isinstance(flow.eval(positional[0], frame), positional[1])
        return ConstV(known, node) if known is not None else flow.opaque(node, frame)
    values = [flow.eval(a, frame) for a in positional]
    first = values[0] if values else None
    if name == "sorted" and first is not None:
        return _sorted(flow, first, node)
    if name in ("list", "tuple") and not node.args:  # `formatted = list()`: an empty list, filled later
        return ListV([], node, is_tuple=name == "tuple")
    if name in ("list", "tuple", "reversed") and first is not None:
        if isinstance(first, ListV):
            return ListV(list(first.items), node, is_tuple=name == "tuple")
        if isinstance(first, DictV):
            return ListV([k for k, _ in first.pairs if k is not None], node)
        if isinstance(first, (Opaque, LoopV)) and not (isinstance(first, Opaque) and first.order):
            return ListV([first if isinstance(first, LoopV) else Spread(first, positional[0])], node)
        return first
    if name == "enumerate" and first is not None:
        # the items as they are; a loop over it binds a counter beside each (loops.item_of)
        known = flow.known_items(first)
        if known is None:
            return first
        start = values[1].value if len(values) > 1 and isinstance(values[1], ConstV) else 0
        return ListV([ListV([ConstV(start + i, node), item], node, is_tuple=True) for i, item in enumerate(known)],
                     node)
    if name in ("set", "frozenset"):
        if isinstance(first, ListV) and flow.known_items(first) is not None:
            return SetV(list(first.items), node)
        op = flow.opaque(node, frame, flow.verdict_items(first) if first is not None else None)
        op.order = "builds a set: string hashing is randomised per process"
        op.fix = {"kind": "sorted_iteration", "span": span}
        return op
    if name == "str" and first is not None:
        if isinstance(first, Opaque):
            return relabel(first, flow.src(node), node)
        return StrV(flow.segs(first), node)
    if name == "format" and first is not None:
        spec = literal_text(values[1]) if len(values) > 1 else None
        return StrV(fill(flow, first, None, spec, positional[0]), node)
    if name == "dict":
        pairs, keys = [], []
        if isinstance(first, DictV):
            pairs, keys = list(first.pairs), list(first.key_nodes or [None] * len(first.pairs))
        for arg in node.args:
            if arg.keyword is not None:
                s, e = flow.span(arg.keyword)
                pairs.append((StrV([Lit(arg.keyword.value, list(range(s, e + 1)))]), flow.eval(arg.value, frame)))
                keys.append(arg)
        return DictV(pairs, node, keys)
    if name == "input":
        return Opaque(flow.src(node), Verdict(V.REQUEST, "reads input() from the user: changes every request"), node)
    if name in ("len", "repr", "int", "float", "min", "max", "sum", "enumerate"):
        verdict = strongest(flow.verdict(v) for v in values)
        return Opaque(flow.src(node), verdict, node, names=tuple(n for v in values for n in flow.names_of(v))[:4])
    return None


def attribute(flow, qual: str, node, frame):
    if qual == "sys.argv":  # what the user typed after the command: a script's request
        return Opaque(flow.src(node), COMMAND_LINE, node, names=("argv",))
    if qual in ("os.environ",):
        return Opaque(flow.src(node), Verdict(V.DEPLOY, "read from the environment: fixed per deployment"), node,
                      qual=qual)
    return None


def environment(flow, node) -> Opaque:
    return Opaque(flow.src(node), Verdict(V.DEPLOY, "read from the environment: fixed per deployment"), node)


def value_attribute(flow, base: Opaque, attr: str, node, frame):
    """`x.attr` on a value we do not follow: its name decides, else the base."""
    if base.clock:
        if attr in ("year", "month", "day") and base.verdict.volatility > V.DAY:
            return replace(base, label=flow.src(node), node=node, span=None, clock=None,
                           verdict=Verdict(V.DAY, f"the {attr} of {short(base.label)}: changes at most once a day"))
        return replace(base, label=flow.src(node), node=node, span=None, clock=None)
    if base.path and attr in ("parent", "parents", "name", "stem", "suffix"):
        return replace(base, label=flow.src(node), node=node, span=None, path=attr == "parent",
                       where=files.parent(base.where) if attr == "parent" else None)
    from promptlint.sources.python.scope import _dotted_name, strip_self

    dotted = _dotted_name(node)
    # (an environment object, `env.research_problem`, is fixed only by its name: its field's name decides)
    fixed = not no_evidence(base.verdict) and base.verdict.volatility <= V.DEPLOY \
        and not (base.kind == "name" and ENV_ROOT.match(snake(base.label)))
    # an option of the command line (`args.company`) is what the user typed for this run, whatever its name
    # (and a field of a row in a loop that sends one request per row, `row.question`, is that row's)
    # (and every field of a model's response, `resp.choices[0].message.content`, is that answer)
    typed = (from_command_line(base.verdict.reason) or sent_per_item(base.verdict.reason)
             or answered(base.verdict.reason)) \
        and not flow.ctx.variables.configured(strip_self(dotted or ""))
    if dotted and not typed and not (fixed and not flow.ctx.variables.configured(strip_self(dotted))):
        verdict = flow.ctx.variables.resolve(strip_self(dotted))
        if not no_evidence(verdict):
            return Opaque(flow.src(node), verdict, node, names=(strip_self(dotted),), kind="name")
    # a field of data fixed per release (`example.text` of the few-shot examples) is as fixed
    return Opaque(flow.src(node), base.verdict, node, names=base.names, kind="name" if dotted else "expr")


def template_by_path(flow, node: cst.Call, frame):
    """`service.create_prompt_template("memory/summary.j2", query=q)`,
    `render_template("system.j2", user=name)`: a call given a Jinja
    template file by a written-out name (found where get_template would
    look) and values by keyword is that template rendered with them."""
    positional, keywords = _args(node)
    if not positional or not keywords or not isinstance(positional[0], cst.SimpleString):
        return None
    name = positional[0].evaluated_value
    if not isinstance(name, str) or not files.JINJA_PATH.fullmatch(name):
        return None
    found = files.find_template(flow, name, None)
    text = files.load(flow, found, node) if found is not None else None
    if text is None:
        return None
    kwargs = call_kwargs(flow, node, frame, keywords)
    return StrV(render_fields(flow, text, strs.scan_jinja_fields, [], kwargs, dict(keywords)), node)


def prompty_execute(flow, node: cst.Call, frame):
    """`prompty.execute("chat.prompty", inputs={...})`: the Prompty file (found
    beside the module, as Prompty resolves it, or in a prompts folder) with its
    front matter left out, its Jinja body rendered with the inputs."""
    positional, keywords = _args(node)
    if not positional or not isinstance(positional[0], cst.SimpleString):
        return None
    name = positional[0].evaluated_value
    if not isinstance(name, str) or not name.endswith(".prompty"):
        return None
    found = files.find_template(flow, name, None)
    text = files.load(flow, found, node) if found is not None else None
    if text is None:
        return None
    from promptlint.sources.frontmatter import split_front_matter  # YAML: only for a Prompty file found

    whole = "".join(seg.text for seg in text.segs if isinstance(seg, Lit))
    try:
        _, _, body_start = split_front_matter(SourceFile(found, whole))
    except SourceError:
        body_start = 0
    start, end = flow.span(node)
    body = StrV([Lit.synthetic(whole[body_start:], start, end)], node)
    inputs = flow.eval(keywords["inputs"], frame) if "inputs" in keywords else None
    if not isinstance(inputs, DictV):
        return StrV(render_fields(flow, body, strs.scan_jinja_fields, [], {}), node)
    return StrV(render_fields(flow, body, strs.scan_jinja_fields, [], _dict_kwargs(inputs), _dict_arguments(inputs)),
                node)


# a function or method that loads a prompt file by name (load_prompt, get_template, convo.template)
_LOADER = re.compile(r"_*(?:(?:load|get|read|render|fetch|build|make|create)_)?(?:prompt|template)"
                     r"(?:_template|_file)?s?(?:_text|_content|_str)?", re.IGNORECASE)
_NAME_KEYWORDS = ("template", "template_name", "name", "prompt", "prompt_name", "prompt_id", "path", "file")


# a class of settings made from keywords (a TypedDict, a dataclass, a pydantic model), by its name;
# Open WebUI's pipelines and functions keep theirs in `Valves`
_SETTINGS_CLASS = re.compile(r"[A-Z]\w*(?:Config|Configuration|Settings|Options|Params|Parameters)|(?:User)?Valves")


def settings_object(flow, last: str, node: cst.Call, frame):
    """`MetapromptOptimizerConfig(metaprompt=..., max_steps=...)`,
    `self.Valves(**{"TEMPLATE": "..."})`: a settings object built from
    keywords only holds them, by name (`cfg["metaprompt"]`, `cfg.metaprompt`)."""
    if not _SETTINGS_CLASS.fullmatch(last) or not node.args or any(a.keyword is None and a.star != "**"
                                                                     for a in node.args):
        return None
    pairs, elements = [], []
    for arg in node.args:
        if arg.keyword is not None:
            key = StrV([Lit.synthetic(arg.keyword.value, *flow.span(arg.keyword))], arg.keyword)
            pairs.append((key, flow.eval(arg.value, frame)))
            elements.append(arg)
            continue
        spread = flow.eval(arg.value, frame)  # `**{"TEMPLATE": ...}`: the mapping's keys
        if not isinstance(spread, DictV) or any(not isinstance(k, StrV) for k, _ in spread.pairs):
            return None
        pairs += spread.pairs
        elements += spread.key_nodes or [None] * len(spread.pairs)
    return DictV(pairs, node, elements, fields=True)


# a helper of the app's that reads a file (load_prompts, read_yaml, get_config, parse_toml)
_DATA_LOADER = re.compile(r"(?:load|read|get|open|parse|fetch)", re.IGNORECASE)


def data_by_path(flow, last: str, node: cst.Call, frame):
    """`FileUtils.load_prompts("agents/workforce/assigner.yaml")`,
    `read_yaml("prompts.yaml")`: a loader we cannot follow, given a YAML,
    JSON or TOML file by a written-out path, gives that file's data (its
    strings as text, so that `PROMPTS["SYSTEM"].format(task=t)` fills
    them); only files inside the project, found where `find_data_file`
    looks."""
    if not _DATA_LOADER.search(last):
        return None
    positional, keywords = _args(node)
    named = positional[0] if positional else next((keywords[k] for k in _NAME_KEYWORDS if k in keywords), None)
    if not isinstance(named, cst.SimpleString) or not isinstance(named.evaluated_value, str):
        return None
    found = files.find_data_file(flow, named.evaluated_value)
    text = files.load(flow, found, node) if found is not None else None
    if text is None:
        return None
    return files.parsed(flow, text, files.DATA_SUFFIXES[found.suffix.lower()], node)


def template_by_name(flow, last: str, node: cst.Call, frame):
    """`load_prompt("action_template")`, `prompt_engine.load_prompt(template=
    "summarize", block_cnt=n)`, `convo.template("implement_changes", file=f)`:
    a loader we cannot follow, given a prompt file by its bare name, is that
    file's text; with values by keyword, rendered with them (Jinja for a
    Jinja file or one that uses {{ }}, else str.format fields), each value
    at the argument that passes it. A name that matches several files is
    not guessed: a note lists them."""
    if not _LOADER.fullmatch(last):
        return None
    positional, keywords = _args(node)
    keywords = dict(keywords)
    named = positional[0] if positional else next((keywords.pop(k) for k in _NAME_KEYWORDS if k in keywords), None)
    name = _written_name(flow, named, frame)
    if name is None:
        return None
    found, candidates = files.find_by_name(flow, name)
    if found is None and Path(name).suffix.lower() in files.PROMPT_SUFFIXES:
        found = files.find_template(flow, name, None)  # `_load_template("system.md")`: a file named in full
    if found is None and not candidates and not keywords:
        data, candidates = files.find_by_name(flow, name, files.DATA_SUFFIXES)
        text = files.load(flow, data, node) if data is not None else None
        if text is not None:  # get_prompt("deepsearch"): the prompts of prompt/deepsearch.yaml, by key
            return files.parsed(flow, text, files.DATA_SUFFIXES[data.suffix.lower()], node)
    if found is None:
        if candidates:
            shown = ", ".join(flow.ctx.display_path(p) for p in candidates[:4])
            flow.ctx.note(flow.file, flow.file_span(*flow.span(node)),
                          f"{name!r} names {len(candidates)} prompt files ({shown}): not guessed")
        return None
    text = files.load(flow, found, node)
    if text is None or not (keywords or any(a.star == "**" for a in node.args)):
        return text
    kwargs = call_kwargs(flow, node, frame, keywords)
    jinja = found.suffix.lower() in files.JINJA_SUFFIXES or "{{" in (literal_text(text) or "")
    return StrV(render_fields(flow, text, strs.scan_jinja_fields if jinja else strs.scan_format, [], kwargs,
                              keywords), node)


def _written_name(flow, node, frame) -> str | None:
    """The name a loader is given: a literal, or a name bound to one (a helper's
    parameter, `_load_prompt_text("inner_state")` calling `load_prompt(name)`)."""
    return literal_text(flow.eval(node, frame)) if isinstance(node, (cst.SimpleString, cst.Name)) else None


# a message object's methods that give it as a plain dict (pydantic, dataclasses, the SDKs' own)
_SERIALISES = ("model_dump", "dict", "to_dict", "as_dict", "to_openai", "to_openai_dict", "to_message")
_LC_FORMAT = ("format", "aformat", "format_messages", "aformat_messages")  # a LangChain message template's


def method(flow, base, attr: str, node: cst.Call, frame):
    """A method call on a value the flow knows."""
    positional, keywords = _args(node)
    if isinstance(base, StrV):
        return str_method(flow, base, attr, node, frame, positional, keywords)
    if isinstance(base, lcel.ChatTemplV):
        return lcel.method(flow, base, attr, node, frame)
    if isinstance(base, MsgV) and attr in _SERIALISES:
        return base  # SystemMessage(content=text).model_dump(): the same message, as the SDK's dict
    if isinstance(base, TemplV) and base.style == "jinja" and attr == "render":
        args = [flow.eval(a, frame) for a in positional]
        kwargs = call_kwargs(flow, node, frame, keywords)
        if args and isinstance(args[0], DictV):
            kwargs = {**_dict_kwargs(args[0]), **kwargs}
        return StrV(render_fields(flow, base.text, strs.scan_jinja_fields, [], kwargs, dict(keywords)), node)
    if isinstance(base, MsgV) and base.template and attr in _LC_FORMAT and isinstance(base.content, StrV) \
            and base.style in (None, "format", "jinja"):
        # SystemMessagePromptTemplate.from_template(t).format(programs=p): the message, filled
        kwargs = call_kwargs(flow, node, frame, keywords)
        if base.node is not None:
            flow.filled.add(id(base.node))
        scanner = strs.scan_jinja_fields if base.style == "jinja" else strs.scan_format
        filled = MsgV(base.role, StrV(render_fields(flow, base.content, scanner, [], kwargs, dict(keywords)), node),
                      node)
        return ListV([filled], node) if attr.endswith("format_messages") else filled
    if isinstance(base, TemplV) and base.style != "jinja" and attr in ("substitute", "safe_substitute"):
        args = [flow.eval(a, frame) for a in positional]
        kwargs = call_kwargs(flow, node, frame, keywords)
        if args and isinstance(args[0], DictV):
            kwargs = {**_dict_kwargs(args[0]), **kwargs}
        return StrV(render_fields(flow, base.text, strs.scan_dollar, [], kwargs, dict(keywords)), node)
    if isinstance(base, DictV):
        if attr == "get" and positional:
            key = literal_text(flow.eval(positional[0], frame))
            found = base.get(key) if key is not None else None
            if found is not None:
                return found
            if len(positional) > 1:
                return flow.eval(positional[1], frame)
        if attr in ("items", "keys", "values"):
            if attr == "keys":
                return ListV([k for k, _ in base.pairs if k is not None], node)
            if attr == "values":
                return ListV([v for _, v in base.pairs], node)
            return ListV([ListV([k, v], None, is_tuple=True) for k, v in base.pairs if k is not None], node)
        if attr == "copy":
            return base
    if isinstance(base, ListV) and attr == "copy":
        return base
    if isinstance(base, FuncV):
        return None
    if isinstance(base, Opaque):
        return opaque_method(flow, base, attr, node, frame, positional)
    return None


# names of mappings filled as servers connect (`mcp_tools`, `mcp_servers`, `connected_servers`)
_CONNECTED = re.compile(r"(?:^|_)mcp(?:_|$)|(?:^|_)(?:connected|active)_(?:servers|tools|connections)(?:$|\b)", re.I)


def _stored(flow, store, key: str):
    """What this file stores under `key` in the same store (`store.set(key,
    value)`), when that is one module-level list or dict written out
    here, item by item (`cl.user_session.set("regular_tools", regular_tools)`
    at chat start, read back with `.get("regular_tools", [])`): the value the
    later requests find."""
    where = flow.src(store)
    memo = flow.__dict__.setdefault("_stored", {})
    if (where, key) not in memo:
        memo[(where, key)] = _find_stored(flow, where, key)
    return memo[(where, key)]


def _find_stored(flow, where: str, key: str):
    found = []

    def visit(node):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "set" \
                and len(node.args) == 2 and _literal_string(node.args[0].value) == key \
                and flow.src(node.func.value) == where:
            found.append(node.args[1].value)

    walk(flow.index.module.node, visit)
    if len(found) != 1 or not isinstance(found[0], cst.Name):
        return None
    name = found[0].value
    at = flow.span(found[0])[0]
    if any(name in scope.bindings or name in scope.params for scope in flow.index.functions
           if flow.span(scope.node)[0] <= at < flow.span(scope.node)[1]):
        return None  # the function that stores it has a value of its own by that name
    binding = flow.index.module.last(name, INF)
    if binding is None or binding.kind != "assign" or not isinstance(binding.value, (cst.List, cst.Dict)):
        return None  # a module-level list or dict written out: the same on every request
    value = flow.eval(binding.value, flow.import_frame)
    return value if isinstance(value, (ListV, DictV)) and flow.known_items(value) is not None else None


def _literal_string(node) -> str | None:
    return node.evaluated_value if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str) \
        else None


def opaque_method(flow, base: Opaque, attr: str, node, frame, positional):
    if base.pinned and attr in _KEEPS_TEXT:
        # `system_prompt.replace("{time}", now).strip()`: a template we cannot read, filled, then
        # trimmed or recased: what changes in it, and where it entered, stay
        return replace(base, label=flow.src(node), node=node)
    if attr == "strftime" and not base.clock and V.UNKNOWN < base.verdict.volatility <= V.DAY:
        # a date (`TODAY` of another module) formatted: it changes no more often than the date does
        return replace(base, label=flow.src(node), node=node, span=None)
    if base.clock:
        if attr == "strftime" and positional:
            fmt = literal_text(flow.eval(positional[0], frame))
            return clock_format(flow, base, fmt, node)
        if attr in ("isoformat", "ctime", "timestamp", "replace", "astimezone", "time"):
            how = "iso" if attr == "isoformat" else "str"
            samples = clock_samples(base.clock, how=how) if attr in ("isoformat", "ctime") else ()
            return replace(base, label=flow.src(node), node=node, span=None, samples=samples,
                           clock=base.clock if attr in ("replace", "astimezone") else None)
        if attr == "date":
            verdict = base.verdict
            if verdict.volatility > V.DAY:
                verdict = Verdict(V.DAY, f"the date of {short(base.label)}: changes once a day")
            return replace(base, label=flow.src(node), node=node, span=None, clock="date", verdict=verdict,
                           samples=clock_samples("date"))
    if attr == "get" and len(positional) == 2 and not base.path:
        # settings.get("metaprompt", DEFAULT_METAPROMPT): the default, unless the lookup says it changes
        looked_up = replace(base, label=flow.src(node), node=node, span=None, clock=None, samples=())
        default = positional[1]
        if isinstance(default, (cst.Dict, cst.List, cst.Set)) and not default.elements:
            # session.get("mcp_tools", {}): an empty default is only what a first request finds
            key = literal_text(flow.eval(positional[0], frame))
            stored = _stored(flow, node.func.value, key) if key else None
            if stored is not None:
                return stored
            return replace(looked_up, names=(key,) if key else looked_up.names)
        return flow.likeliest([looked_up, flow.eval(default, frame)])
    if attr in ("items", "values", "keys") and not positional and _CONNECTED.search(" ".join((*base.names, base.label))):
        # mcp_tools.items(): a mapping filled as each MCP server connects, in the order they answered
        s, e = flow.span(node)
        return replace(base, label=flow.src(node), node=node, span=None,
                       order=f"{short(base.label)} is filled as each MCP server connects, in the order they answer",
                       fix={"kind": "sorted_iteration", "span": (s, e)})
    if attr in _FILLS and not base.path:
        filled = _filled_unknown(flow, base, attr, node, frame, positional)
        if filled is not None:
            return filled
        if base.pinned and not by_name_only(base.verdict.reason):
            # `prompt.replace("{{TIMEZONE}}", tz)` after the clock was filled in: filled again with
            # values that change no more often, it keeps that change (on evidence: a name's guess
            # does not outlive the next fill) and where it entered
            return replace(base, label=flow.src(node), node=node)
    if attr in PATH_LISTINGS:
        return _listing(flow, node, f".{attr}()")
    if base.path and attr in ("parent", "with_name", "with_suffix", "joinpath", "resolve", "absolute",
                              "expanduser"):
        where = base.where if attr in ("resolve", "absolute") else None
        if attr == "joinpath":
            where = files.joined(base.where, *(_where(flow.eval(a, frame)) for a in positional))
        elif attr == "parent":
            where = files.parent(base.where)
        return replace(base, label=flow.src(node), node=node, span=None, where=where)
    if attr == "open" and base.path and base.where is not None:
        return base  # `with path.open() as f: f.read()`: the file, read as the path's text
    if attr in ("read_text", "read") and base.path and base.where is not None:
        found = files.resolve(flow, base.where)
        text = files.load(flow, found, node) if found is not None else None
        if text is not None:
            return text
    if attr == "from_string" and positional:  # a Jinja environment (jinja2, Flask's app.jinja_env, ...)
        value = flow.eval(positional[0], frame)
        return TemplV(value, node, style="jinja") if isinstance(value, StrV) else None
    if attr == "get_template" and positional:
        name = literal_text(flow.eval(positional[0], frame))
        found = files.find_template(flow, name, base.where) if name else None
        text = files.load(flow, found, node) if found is not None else None
        if text is not None:
            return TemplV(text, node, style="jinja")
    if attr in ("read_text", "read", "read_bytes") and (base.path or attr == "read_text"):
        if base.verdict.volatility > V.STATIC:
            return Opaque(flow.src(node), Verdict(base.verdict.volatility, f"read from {short(base.label)}: "
                                                                            f"{base.verdict.reason}"),
                          node, names=base.names)
        return Opaque(flow.src(node), Verdict(V.STATIC, "read from a file: fixed per release (the file itself "
                                                         "is checked when it is a prompt file)"), node)
    if attr in ("items", "keys", "values", "copy") and base.order:
        return replace(base, label=flow.src(node), node=node, span=None)
    return None


_FILLS = ("format", "format_map", "replace", "substitute", "safe_substitute", "render")
# str methods that give the same text trimmed or recased: what changes in it changes in the result
_KEEPS_TEXT = ("strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize", "casefold", "expandtabs",
               "removeprefix", "removesuffix")


def _filled_unknown(flow, base: Opaque, attr: str, node: cst.Call, frame, positional):
    """A template we cannot read (from config, a database, another
    service) filled with values (`prompt_config["system"].format(**kwargs)`):
    the text it gives changes with the most volatile value, from the
    argument that passes it (where it enters the text, wherever the result
    is used). None when no value changes more often than the template."""
    _, keywords = _args(node)
    found = [(flow.eval(a, frame), a) for a in positional[1 if attr == "replace" else 0:]]
    found += [(flow.eval(v, frame), v) for v in keywords.values()]
    for a in node.args:
        if a.star == "**":
            found.append((flow.eval(a.value, frame), a.value))
    # **kwargs, format_map(mapping), render({...}): the values the mapping holds
    found = [(x, arg) for v, arg in found for x in ([x for _, x in v.pairs] if isinstance(v, DictV) else [v])]
    scored = [(flow.verdict(v), v, arg) for v, arg in found]
    verdict, value, arg = max(scored, key=lambda f: f[0].volatility, default=(None, None, None))
    if verdict is None or verdict.volatility < V.USER or verdict.volatility <= base.verdict.volatility:
        return None
    return Opaque(flow.src(node), Verdict(verdict.volatility, f"{short(base.label)} filled with "
                                                              f"{short(flow.label_of(value))}: {verdict.reason}"),
                  node, names=flow.names_of(value), span=_entered(flow, value, verdict, arg), pinned=True)


def _entered(flow, value, verdict: Verdict, arg) -> tuple[int, int]:
    """Where the most volatile part of a value filled into a template we
    cannot read entered the text: where a loop wrote each item's text (the
    snippets a loop formats, then joined: the format in the loop), else at
    the argument (`"\\n".join(chunks)` passed as is enters there)."""
    from promptlint.ir import Slot, SlotKind

    if isinstance(value, Opaque) and value.pinned and value.span is not None:
        return value.span
    if isinstance(value, StrV):
        best = next((seg for seg in value.segs if isinstance(seg, Slot) and seg.span is not None
                     and seg.span.file is flow.file and seg.volatility >= verdict.volatility), None)
        inside = None
        while best is not None and best.kind is SlotKind.LOOP and not best.order_varies:
            best = next((c for c in best.children if isinstance(c, Slot) and c.span is not None
                         and c.span.file is flow.file and c.volatility >= best.volatility
                         and c.span.start > best.span.start), None)
            inside = best or inside
        if inside is not None:
            return inside.span.start, inside.span.end
    return flow.span(arg)


# what isinstance() says of the values the flow builds, by the type's last name
_IS = {
    "str": {"str", "Sequence", "Iterable", "Collection", "Container", "Reversible", "Hashable", "object"},
    "list": {"list", "Sequence", "MutableSequence", "Iterable", "Collection", "Container", "Reversible", "object"},
    "tuple": {"tuple", "Sequence", "Iterable", "Collection", "Container", "Reversible", "Hashable", "object"},
    "dict": {"dict", "Mapping", "MutableMapping", "Iterable", "Collection", "Container", "object"},
}
_TYPE_NAMES = {n for names in _IS.values() for n in names} | {"int", "float", "bool", "bytes", "set", "frozenset",
                                                             "Set", "MutableSet", "type", "BaseModel"}


def _isinstance(value, types_node) -> bool | None:
    """isinstance(value, types) for a string, list, tuple or dict the flow
    built; None when the value or a type is not known."""
    kind = ("str" if isinstance(value, StrV) else "tuple" if isinstance(value, ListV) and value.is_tuple
            else "list" if isinstance(value, ListV) else "dict" if isinstance(value, DictV) else None)
    if kind is None:
        return None
    nodes = [el.value for el in types_node.elements] if isinstance(types_node, cst.Tuple) else [types_node]
    unknown = False
    for t in nodes:
        name = t.attr.value if isinstance(t, cst.Attribute) else t.value if isinstance(t, cst.Name) else None
        if name is None or name not in _TYPE_NAMES:
            unknown = True  # `*MULTI_MODAL_TYPES`, an app's class
        elif name in _IS[kind]:
            return True
    return None if unknown else False


def _where(value) -> str | None:
    """The path a value names: a literal string, or a path value that knows its own."""
    if isinstance(value, StrV):
        return literal_text(value)
    return value.where if isinstance(value, Opaque) else None


def _arg_names(flow, positional, frame) -> tuple[str, ...]:
    return tuple(n for a in positional[:1] for n in flow.names_of(flow.eval(a, frame)))


def _answers(dotted: str) -> bool:
    """A call whose result is a model's answer (calls.answers; imported here late: calls reads stdlib)."""
    from promptlint.sources.python.calls import answers
    from promptlint.sources.python.scope import strip_self

    return answers(strip_self(dotted).split("."))


def unknown_call(flow, node, frame, dotted: str) -> Opaque:
    """A call we cannot follow: a known name (`now`, `uuid4`) says what it
    returns, else at import it is fixed per process, else its name decides."""
    from promptlint.sources.python.scope import call_name, strip_self

    last = dotted.rsplit(".", 1)[-1]
    if last in LC_MESSAGES or last == "MessagesPlaceholder" or _lc_from_template(dotted):
        return lc_message(flow, dotted, node, frame)
    if (found := haystack_message(flow, dotted, node, frame)) is not None:
        return found
    message = role_content_message(flow, node, frame)
    if message is not None:
        return message
    if _TEXT_PART.search(last):
        _, keywords = _args(node)
        if set(keywords) == {"text"} and len(node.args) == 1:  # TextContent(text=...), Part(text=...)
            return flow.eval(keywords["text"], frame)
    chained = prompt_chain(flow, last, node, frame)
    if chained is not None:
        return chained
    template = lcel.chat_template(flow, dotted, node, frame, template_format(flow, _args(node)[1], frame))
    if template is not None:
        return template
    settings = settings_object(flow, last, node, frame)
    if settings is not None:
        return settings
    wrapped = prompt_wrapper(flow, last, node, frame) or template_by_path(flow, node, frame) or \
        template_by_name(flow, last, node, frame) or data_by_path(flow, last, node, frame)
    if wrapped is not None:
        return wrapped
    known = classify_call(strip_self(dotted))
    if known is not None:
        verdict = _live(flow, frame, known, node)
    elif _answers(dotted):
        # `resp = client.chat.completions.create(...)`: whatever it is called, and wherever it goes next
        verdict = model_answer(short(flow.src(node.func)) + "()")
    elif frame.import_time:
        verdict = Verdict(V.DEPLOY, f"{AT_IMPORT} by {short(flow.src(node))}: fixed until the "
                                    "process restarts")
    elif _READS_FILE.fullmatch(last):
        # U.load_text(f"{package_path}/primitives/{name}.js"): a file of the deployment, unless
        # the path it is given changes (a user's folder)
        verdict = derived_from(flow, node, frame) or \
            Verdict(V.STATIC, f"read from a file by {short(flow.src(node.func))}(): fixed per release (the file "
                              "itself is checked when it is a prompt file)")
    elif last in _KEEPS_TEXT and (same := derived_from(flow, node, frame)) is not None:
        # `(response.text or "").strip()`: the text it cleans says how often it changes, not its object's name
        verdict = same
    elif (submitted := _submitted(flow, node, frame)) is not None:
        # `os_future.result()` of `executor.submit(desktop.get_windows_version)`: what that function returns
        verdict = _call_verdict(flow, strip_self(submitted))
        verdict = Verdict(verdict.volatility, f"the result of {submitted}(), run in an executor: {verdict.reason}")
    else:
        verdict = _call_verdict(flow, strip_self(dotted))
        # what the arguments say matters where the name says nothing, or less than per request
        # (and not fixed text): only there are they evaluated
        weighed = no_evidence(verdict) or V.STATIC < verdict.volatility < V.REQUEST
        derived = derived_from(flow, node, frame) if weighed else None
        if derived is not None and derived.volatility > verdict.volatility and verdict.volatility is not V.STATIC:
            # `store.search_memories(utterance)`: found with this turn's words, it changes with them
            # (a name that says fixed text, `resolve_instructions(run_context)`, keeps its word)
            verdict = derived
        if no_evidence(verdict):
            verdict = derived or \
                Verdict(V.UNKNOWN, f"returned by {short(flow.src(node.func))}(), which promptlint does not "
                                   "follow: no evidence of how often it changes (declare it in "
                                   "[tool.promptlint.variables])")
    return Opaque(flow.src(node), verdict, node, names=(call_name(dotted),))


# a framework's text part of a message, given its text and nothing else
_TEXT_PART = re.compile(r"(?:Text|Content|Block|Part)(?:Param)?$")
# a helper that returns a file's contents, by its name: load_text(path), read_file(path), load_yaml(path)
_READS_FILE = re.compile(r"(?:load|read|open|get|download)_?"
                         r"(?:text|file|txt|json|yaml|yml|toml|contents?|file_contents?)(?:_file)?", re.IGNORECASE)


def derived_from(flow, node: cst.Call, frame) -> Verdict | None:
    """A call we cannot follow, given a value that changes per user or more
    often (`retriever.search(question)`, `summarise(history)`): what it
    returns is computed from that value, so it changes with it. None when no
    argument has such evidence. A method's object is such a value too
    (`node.get_content()` of a retrieved node, `user.display_name()`)."""
    found = []
    reads = set(flow.reads)  # evaluated for evidence only: the text is not part of a prompt here
    inputs = [arg.value for arg in node.args if not arg.star]
    receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
    if receiver is not None and not _is_self(receiver) and not _class_like(receiver) \
            and not _imported(flow, receiver, frame):
        inputs.insert(0, receiver)
    for arg in inputs:
        # names and their attributes and items only: a nested call is not
        # evaluated for this (inlining it at every unknown call would multiply
        # the work in recursive helpers)
        if not _plain_reference(arg):
            continue
        value = flow.eval(arg, frame)
        verdict = flow.verdict(value)
        if verdict.volatility >= V.USER:
            found.append((verdict, short(flow.src(arg))))
    flow.reads = reads
    if not found:
        return None
    verdict, label = max(found, key=lambda f: f[0].volatility)
    return Verdict(verdict.volatility, f"computed by {short(flow.src(node.func))}() from {label}: {verdict.reason}")


def _is_self(node) -> bool:
    return isinstance(node, cst.Name) and node.value in ("self", "cls")


def _imported(flow, node, frame) -> bool:
    """A module or an object imported into the module (`json`, `logger` from
    another package): code, not data, and not worth reading that module for."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    if not isinstance(node, cst.Name):
        return False
    name, scope = node.value, frame.scope
    while scope is not None and not scope.is_module:
        if name in scope.bindings or name in scope.params:
            return False
        scope = scope.parent
    found = flow.index.module.bindings.get(name)
    return bool(found) and all(b.kind == "import" for b in found)


def _class_like(node) -> bool:
    """`RunQueryTool`, `models.Prompt`: a CapWords name is a class (PEP 8), code rather than data."""
    last = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return bool(re.match(r"_?[A-Z][a-z0-9]+[A-Z]?\w*$", last)) and not last.isupper()


def _plain_reference(node) -> bool:
    """`question`, `self.query`, `state["messages"]`, `messages[-1][CONTENT]`: a name, its
    attributes and items at constants or names; also one with a literal fallback
    (`(resp.text or "")`), and the same text cleaned (`text.strip().lower()`)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _KEEPS_TEXT:
        node = node.func.value
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or) \
            and isinstance(node.right, (cst.SimpleString, cst.Integer, cst.List, cst.Dict, cst.Name)):
        node = node.left
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Subscript) and not all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.SimpleString, cst.Integer, cst.Name))
                or isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.UnaryOperation)
                and isinstance(e.slice.value.expression, cst.Integer)
                for e in node.slice):
            return False
        node = node.value
    return isinstance(node, cst.Name)


def _lc_from_template(qual: str) -> bool:
    parts = qual.split(".")
    return len(parts) >= 2 and parts[-1] == "from_template" and parts[-2] in LC_TEMPLATES


# a function handed to an executor or an event loop, its result read from the future later
_SUBMITS = {"submit": 0, "run_in_executor": 1, "create_task": 0, "ensure_future": 0, "apply_async": 0}


def _submitted(flow, node: cst.Call, frame) -> str | None:
    """The dotted name of the function whose result a future gives
    (`f = executor.submit(get_version); f.result()`), else None."""
    from promptlint.sources.python.scope import _dotted_name

    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "result" or not isinstance(func.value, cst.Name):
        return None
    call = frame.scope.assigned(func.value.value, flow.span(node)[0])
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value not in _SUBMITS:
        return None
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    at = _SUBMITS[call.func.attr.value]
    return _dotted_name(positional[at]) if len(positional) > at else None


def _call_verdict(flow, dotted: str) -> Verdict:
    """An unknown call by its name: a config entry for the whole dotted name,
    then the method's name (`users_info`, then without a verb: `get_history`
    -> `history`), then the object's name when it names a value
    (`memory_store.recall()`), not a service (`app.client.x()`)."""
    from promptlint.sources.python.scope import call_name

    table = flow.ctx.variables
    if dotted in table.overrides:
        return table.resolve(dotted)
    last = dotted.rsplit(".", 1)[-1]
    if _CONVERSION.match(last):
        return DEFAULT  # `post_to_raw_text(post)`, `to_markdown()`: says the form, its input the content
    if last in _ANY_CALLABLE:
        return DEFAULT  # `function(**params)` of a tool picked at run time: the name says nothing of its result
    for name in (last, call_name(last)):
        verdict = table.resolve(name)
        if not no_evidence(verdict):
            return verdict
    root = dotted.split(".", 1)[0]
    if root != dotted:
        verdict = table.resolve(root)
        if not no_evidence(verdict) and verdict.volatility >= V.USER:
            return verdict
    return DEFAULT


# names of whatever callable a variable holds (`function = getattr(tools, name)`)
_ANY_CALLABLE = frozenset({"function", "func", "fn", "f", "callable", "callback", "handler", "method", "fun"})
_CONVERSION = re.compile(r"^(?:\w+_)?(?:to|as|into)_\w+$")
_WRAPPER = re.compile(r"^\w*(?:Prompt|Template|Instructions?)$")


def prompt_chain(flow, callee: str, node: cst.Call, frame):
    """`LLMChain(llm=model, prompt=PROMPT)` (LangChain's chains): the chain
    is its prompt template, filled when it runs (`chain.run(goal=...)`,
    `chain.invoke({...})`; see calls.site)."""
    if not callee.endswith("Chain"):
        return None
    _, keywords = _args(node)
    if "prompt" not in keywords:
        return None
    value = flow.eval(keywords["prompt"], frame)
    if isinstance(value, TemplV):
        return value
    if isinstance(value, lcel.ChatTemplV):
        value = lcel.single_text(value)
    return TemplV(value, node, style="format") if isinstance(value, StrV) else None


def prompt_wrapper(flow, callee: str, node: cst.Call, frame):
    """`TextPrompt("...")`, `SystemPrompt(text)`: a class of the app's that
    wraps prompt text (a str subclass, a template class) is its text."""
    if not _WRAPPER.match(callee):
        return None
    positional, keywords = _args(node)
    text = positional[0] if positional else keywords.get("template", keywords.get("text"))
    if text is None:
        return None
    value = flow.eval(text, frame)
    # the text, made at this call: a fill of it (`.format`, `.partial`) is the prompt, not this call
    return StrV(list(value.segs), node) if isinstance(value, StrV) else None


def role_content_message(flow, node: cst.Call, frame):
    """Any framework's message object built with `role=` and `content=`
    (`Message(role="system", content=text)`, `ChatMessage(...)`): a message,
    its role taken from a literal, else from the role expression's words."""
    positional, keywords = _args(node)
    if "role" in keywords and "content" not in keywords and len(positional) == 1 and len(node.args) == 2 \
            and CLASS_NAME.match(flow.src(node.func)):
        # `Message(text, role="user")`, `Message([image, text], role="user")`: the content first
        return MsgV(_role_of(flow, keywords["role"], frame, flow.ctx.default_role), flow.eval(positional[0], frame),
                    node)
    if "role" not in keywords or "content" not in keywords:
        return _role_first_message(flow, node, positional, keywords, frame)
    role = _role_of(flow, keywords["role"], frame, flow.ctx.default_role)
    return MsgV(role, flow.eval(_wrapped_text(flow, keywords["content"]), frame), node)


def _wrapped_text(flow, node):
    """The text a message class of another package wraps (`Message(text)`,
    `Message(text=prompt)`), else the node itself."""
    if isinstance(node, cst.Call) and CLASS_NAME.match(flow.src(node.func)) and len(node.args) == 1 \
            and not node.args[0].star and (node.args[0].keyword is None or node.args[0].keyword.value == "text"):
        return node.args[0].value
    return node


CLASS_NAME = re.compile(r"(?:\w+\.)*[A-Z]\w*$")  # a class by its name: `Message`, `types.Part`


def _role_first_message(flow, node: cst.Call, positional, keywords, frame):
    """A message class of another package given the role first and the text
    second (`Turn("system", Message(text))`, `ChatMessage("user", text)`):
    a message of that role; a class wrapping the text alone (`Message(text)`)
    is its text."""
    if len(positional) != 2 or keywords or not CLASS_NAME.match(flow.src(node.func)) \
            or not isinstance(positional[0], cst.SimpleString) \
            or positional[0].evaluated_value not in MESSAGE_ROLES:
        return None
    return MsgV(positional[0].evaluated_value, flow.eval(_wrapped_text(flow, positional[1]), frame), node)


def _role_of(flow, node, frame, default: str) -> str:
    """A message's role: a literal, else the words of the expression (`MessageRole.SYSTEM`)."""
    return literal_text(flow.eval(node, frame)) or role_in_words(flow.src(node)) or default


def role_in_words(text: str) -> str | None:
    """The role an expression names by its words (`MessageRole.SYSTEM`, `RoleType.HUMAN`: user)."""
    lowered = text.lower()
    found = next((r for r in ("system", "developer", "assistant", "user", "human") if r in lowered), None)
    return "user" if found == "human" else found


_HAYSTACK_MESSAGE = re.compile(r"(?:^|\.)ChatMessage\.from_(system|user|assistant)$")


def haystack_message(flow, name: str, node, frame):
    """Haystack's `ChatMessage.from_system(text)` / `from_user` / `from_assistant`:
    a message whose text a ChatPromptBuilder renders as Jinja."""
    match = _HAYSTACK_MESSAGE.search(name)
    if match is None:
        return None
    positional, keywords = _args(node)
    text = keywords.get("text", positional[0] if positional else None)
    value = flow.eval(text, frame) if text is not None else StrV([], node)
    return MsgV(match.group(1), value, node, template=True, style="jinja")


def lc_message(flow, qual: str, node, frame):
    last = qual.rsplit(".", 1)[-1]
    positional, keywords = _args(node)
    if _lc_from_template(qual):
        return lc_template_method(flow, qual.split(".")[-2], node, frame, None)
    if last == "MessagesPlaceholder":
        name = positional[0] if positional else keywords.get("variable_name")
        text = literal_text(flow.eval(name, frame)) if name is not None else None
        return MsgV("user", None, node, template=True, placeholder=text or "history")
    if last in LC_TEMPLATES:  # SystemMessagePromptTemplate(prompt=...): not followed
        return MsgV(LC_TEMPLATES[last] or "user", flow.opaque(node, frame), node)
    role = LC_MESSAGES[last]
    if role is None:
        role_node = keywords.get("role")
        role = _role_of(flow, role_node, frame, "user") if role_node is not None else "user"
    content = keywords.get("content", positional[0] if positional else None)
    value = flow.eval(content, frame) if content is not None else StrV([], node)
    return MsgV(role, _with_tool_calls(flow, value, keywords, frame, node), node)


def _with_tool_calls(flow, value, keywords, frame, node):
    """A message's tool calls and tool-call id are sent with its text: one
    that changes per request (`"id": uuid4().hex` in a few-shot example)
    changes the message, wherever the text is fixed."""
    extra = []
    for key in ("tool_calls", "tool_call_id"):
        if key in keywords:
            found = flow.eval(keywords[key], frame)
            verdict = flow.verdict(found)
            if verdict.volatility > V.DEPLOY:
                extra.append(flow.slot(Opaque(flow.src(keywords[key]), verdict, keywords[key],
                                              names=flow.names_of(found))))
    if not extra:
        return value
    return StrV(flow.segs(value) + extra, node)


def lc_template_method(flow, cls_name: str, node, frame, style: str | None):
    """`SystemMessagePromptTemplate.from_template("...")` inside a chat template."""
    positional, keywords = _args(node)
    role = LC_TEMPLATES.get(cls_name) or "user"
    text = keywords.get("template", positional[0] if positional else None)
    value = flow.eval(text, frame) if text is not None else StrV([], node)
    fmt = keywords.get("template_format")
    style = _lc_style(literal_text(flow.eval(fmt, frame)) if fmt is not None else None) or style
    return MsgV(role, value, node, template=True, style=style)


def template_format(flow, keywords: dict, frame) -> str:
    """A LangChain template's `template_format=` as our style name ("format" when not given)."""
    fmt = keywords.get("template_format")
    return _lc_style(literal_text(flow.eval(fmt, frame)) if fmt is not None else None) or "format"


def _lc_style(fmt: str | None) -> str | None:
    return {"f-string": "format", "jinja2": "jinja", "mustache": "handlebars"}.get(fmt or "", None)


def clock_format(flow, base: Opaque, fmt: str | None, node) -> Opaque:
    """A clock formatted with `fmt`: the format decides how often the text changes."""
    verdict = base.verdict
    imported = read_at_import(verdict.reason)  # the clock was read then: so is its text
    if fmt is not None and base.clock == "date" and verdict.volatility > V.DAY:
        verdict = Verdict(V.DAY, f"formats the current date to {fmt!r}: changes once a day")
    elif fmt is not None and (verdict.volatility == V.REQUEST or imported):
        verdict = strftime_precision(fmt)
    if imported:
        verdict = at_import(verdict)
    return replace(base, label=flow.src(node), node=node, span=None, verdict=verdict, clock=None,
                   samples=clock_samples(base.clock, fmt) if fmt is not None else base.samples)


def _sorted(flow, value, node):
    if isinstance(value, (ListV, SetV)):
        items = list(value.items)
        texts = [literal_data(i) for i in items]
        if all(t is not NOT_LITERAL for t in texts):
            try:
                items = [i for _, i in sorted(zip(texts, items), key=lambda p: p[0])]
            except TypeError:
                pass
        return ListV(items, node)
    if isinstance(value, DictV):
        return _sorted(flow, ListV([k for k, _ in value.pairs if k is not None], value.node), node)
    if isinstance(value, LoopV):
        return replace(value, order=None, fix=None)
    if isinstance(value, Opaque):
        return replace(value, label=flow.src(node), node=node, span=None, order=None, fix=None)
    return value


def _listing(flow, node, what: str) -> Opaque:
    s, e = flow.span(node)
    return Opaque(flow.src(node), Verdict(V.DEPLOY, f"lists files on disk ({what}): changes when they do"),
                  node, order=f"{what} returns files in arbitrary order",
                  fix={"kind": "sorted_iteration", "span": (s, e)})


def json_dumps(flow, node, frame, data_node, keywords) -> StrV | Opaque:
    data = flow.eval(data_node, frame)
    options = {}
    for key in ("indent", "sort_keys", "ensure_ascii", "separators"):
        if key in keywords:
            value = literal_data(flow.eval(keywords[key], frame))
            if value is NOT_LITERAL:
                return _derived(flow, data, node)
            options[key] = tuple(value) if key == "separators" and isinstance(value, list) else value
    plain = literal_data(data)
    if plain is not NOT_LITERAL:
        s, e = flow.span(node)
        try:
            return StrV([Lit.synthetic(json.dumps(plain, **options), s, e)], node)
        except (TypeError, ValueError):
            return _derived(flow, data, node)
    if options.get("sort_keys") or isinstance(data, (DictV, ListV)) and not _has_unknown_mapping(data) \
            or _declared_order(data_node):
        op = _derived(flow, data, node)
        if isinstance(data, (DictV, ListV)):
            op.verdict = Verdict(op.verdict.volatility, f"json.dumps of a literal: {op.verdict.reason}")
        return op
    s, e = flow.span(node)
    inner = flow.verdict(data)
    if isinstance(data, Opaque) and data.parsed and not data.order:
        # data parsed from JSON or YAML text keeps the text's key order: the text decides
        op = _derived(flow, data, node)
        op.verdict = Verdict(inner.volatility, f"json.dumps of parsed data, whose keys keep the order of the "
                                               f"text it was parsed from: {inner.reason}")
        return op
    what = short(flow.src(data_node))
    return Opaque(flow.src(node), Verdict(V.NONDETERMINISTIC,
                  f"json.dumps({what}) without sort_keys=True: the key order follows how the data was built "
                  f"(a merge, a set, a database round trip), so identical requests can serialise differently"
                  + (f"; its content is {inner.volatility.label}" if inner.volatility > V.STATIC else "")),
                  node, names=flow.names_of(data), fix={"kind": "json_sort_keys", "span": (s, e)})


# pydantic and dataclasses serialise an object's fields in the order the class declares them
_DECLARED_ORDER = frozenset({"model_json_schema", "schema", "json_schema", "model_dump", "dict", "asdict"})


def _declared_order(node) -> bool:
    """`json.dumps(Model.model_json_schema())`, `json.dumps(asdict(obj))`:
    data whose keys follow a class's field declarations, the same every time."""
    return isinstance(node, cst.Call) and last_name(node.func) in _DECLARED_ORDER


def _has_unknown_mapping(value) -> bool:
    """A literal container whose serialised order is not fixed by the literal:
    a `**spread` of an unknown dict, a set, or a comprehension over one.
    (An unknown leaf value is taken for a scalar: its own class decides.)"""
    if isinstance(value, DictV):
        return any(k is None or _has_unknown_mapping(v) for k, v in value.pairs)
    if isinstance(value, ListV):
        return any(_has_unknown_mapping(i) for i in value.items)
    if isinstance(value, (Opaque, LoopV)):
        return bool(value.order)
    return isinstance(value, (Spread, SetV))
