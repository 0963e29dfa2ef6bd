"""Python source files: the prompts an application sends, found by reading
its code with libcst. Nothing is imported or executed: the module is parsed,
its names are indexed, and the values reaching prompt arguments are followed
by a small data-flow pass (flow) over the syntax tree.

What becomes a prompt (one PromptTemplate each, named `stem:function`, or
`stem:line` at module level, with `:line` added where a function holds
several):

1. call sites (calls): OpenAI Chat Completions and Responses,
   Anthropic Messages (with `cache_control` breakpoints), LiteLLM, LangChain
   chat and text templates and message lists, agent SDKs
   (`Agent(instructions=...)`, `agent.run(task)`), and any call with
   `messages=[{"role": ..., "content": ...}]`; the template's span is the call;
2. message dicts a function gathers and hands to a wrapper of the app's own
   (the list as it is when the function ends);
3. constants named like prompts (`SYSTEM_PROMPT`, `*_PROMPT`, `*_TEMPLATE`,
   `*_INSTRUCTIONS`), of the module or of a class, and app classes wrapping
   prompt text (`TextPrompt("...")`), when nothing else here uses them;
4. builders: every `return` of a function or method named like one
   (`build_system_prompt`, `get_system_message`, `*_messages`) or returning
   text that reads as instructions, even when nothing in the file calls it;
5. what a function puts early into a conversation it is handed (injected):
   a message inserted at a fixed position, text appended to the first
   message, read with the history after it;
6. lists named for tools filled in an order that changes (toollists).

Spans point into the .py file: a literal's text at its characters (through
escapes, implicit concatenation and `textwrap.dedent`), a slot at the
expression in the f-string braces, at the `{name}` placeholder of a
`.format()`ed string, or at the argument that could not be followed.

Volatility comes from the code first (clocks and their format's precision,
uuid, random, `os.getpid()`, environment variables, unsorted directory
listings and sets, `json.dumps` without `sort_keys=True`, values computed
once at import), then from names through the variable table (config, then
the name). A slot whose fix is mechanical carries it in `Slot.fix`:
{"kind": "json_sort_keys" | "sorted_iteration", "span": (start, end)}.

Values imported from other modules of the tree are read there (project).
Limits (see flow for the data flow's): `if` arms are merged, the most
volatile winning, and loop counts are not evaluated (a loop adds one
region); functions are not inlined across modules; string methods other
than the common building ones make a value opaque, keeping its volatility;
a file with no word suggesting a prompt (prompt, template, messages,
completion, ...) is not parsed at all, so its syntax errors are not
reported. Valid Python is never an input error: past a limit (nesting,
operator chains, the per-file time budget) the file is reported as partly
analysed, at info level.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
import sys
import threading
import time
import warnings
from collections import Counter

import libcst as cst

from promptlint.analysis.volatility import Verdict, no_evidence, per_item
from promptlint.ir import (
    Breakpoint, PromptTemplate, Section, Slot, SlotKind, SourceError, SourceFile, Span, Text, Volatility,
)
from promptlint.sources.base import SourceContext
from promptlint.sources.python.calls import Sections, is_message_list, lc_message_list, might_send, site
from promptlint.sources.python.flow import UPPER_CONSTANT, Flow, OverBudget
from promptlint.sources.placeholders import BARE_DOLLAR_FIELD
from promptlint.sources.python import files, fills, injected, toollists
from promptlint.sources.python import strings as strs
from promptlint.sources.python.scope import INF, MESSAGE_ROLES, ROLE_ADDS, _dotted_name, last_name
from promptlint.sources.python.stdlib import CLASS_NAME
from promptlint.sources.python.values import DictV, ListV, LoopV, MsgV, StrV, literal_text
from promptlint.sources.python.strings import MIN_PROMPT_TEXT, Lit, has_words as _has_words
from promptlint.sources.python.tree import positions, walk
from promptlint.sniff import directive_score

FORMAT = "python"
# What a module must contain for us to recognise a prompt in it (an SDK call, a
# LangChain class, a prompt-named constant or function); other files are not parsed.
_HINTS = re.compile(
    r"\.create\(|\.parse\(|\.stream\(|\.a?generate\(|\.a?chat\(|completion\(|from_messages|from_template|PromptTemplate"
    r"|prompty\.execute|PromptBuilder\(|GenerativeModel\("
    # Gemini's and a model object's own sending methods (calls._GENAI, calls._COMPLETE)
    r"|\.(?:generate_content|send_message)(?:_async|_stream)?\(|\.a?complete\("
    r"|(?:System|Human|AI)Message|\.a?invoke\(|\bmessages\s*=|\b(?:global_)?instructions?\s*="
    r"|[(,\s](?:(?:system|user|sys)_(?:prompt|message|msg|query|instructions?)|prompt)\s*=(?!=)"
    r"|^[ \t]*\w*(?:prompt|template|instruction)\w*[ \t]*(?::[^=\n]*)?=(?!=)"
    r"|\bdef[ \t]+\w*(?:prompt|instructions|messages)\w*[ \t]*\("
    r"|[\"']role[\"'][ \t]*:[ \t]*[\"'](?:system|developer|user|assistant)[\"']"
    r"|\([ \t]*[\"'](?:system|developer)[\"'][ \t]*,"
    r"|chain\.a?(?:run|predict|invoke|call|batch|stream)\(|from_chain\("
    r"|\bbackstory\s*=|^[ \t]*from[ \t]+crewai\b"
    # `from .prompts import order_template` and `.format(...)` of it
    r"|^[ \t]*from[ \t]+\S+[ \t]+import[ \t][^\n]*\w_?(?:prompt|template|instructions)\b"
    rf"|{files.WRITTEN_JINJA_PATH.pattern}",
    re.I | re.M)
# `SYSTEM_PROMPT`, `prompt`, `qa_prompt`, and a short word glued on (`qaprompt`, `sysprompt`)
_PROMPT_CONSTANT = re.compile(r"^(?:\w*_)?(?:[a-z]{0,6}prompts?|template|instructions?|instruct)$", re.I)
_UPPER_WORD = re.compile(r"\b_*[A-Z][A-Z0-9_]+\b")
MAX_STARRED = 200  # UPPER_CASE names looked up through `import *` per module
# the name first, what it is for after (`TEMPLATE_INIT_CODE_GENERATION`, `PROMPT_SUMMARY`): also what
# code names paths and settings (`TEMPLATE_DIR`, `PROMPT_MAX_TOKENS`), so it counts only when its text
# reads as instructions to a model
_PROMPT_LEADING = re.compile(r"^(?:prompt|template|instructions?)_\w+$", re.I)
# build_system_prompt, get_instructions, make_messages, get_system_message (not test_* functions)
_PROMPT_FUNCTION = re.compile(r"^(?!test_)\w*?(?:^|_)(?:prompt|instructions|system_message|messages)$"
                              r"|^(?!test_)_?(?:build|make|get|create|render|format|compose|generate|load)_\w*(?:prompt|"
                              r"instructions?|system_message|system|context|messages?)(?:_\w+)?$", re.I)
# An unnamed function counts when the text it returns reads as instructions to a model.
BUILDER_DIRECTIVES = 3
# A function's local variable named as a prompt needs fewer: its name says what it is.
LOCAL_DIRECTIVES = 2
_LOCAL_PROMPT = re.compile(r"^[ \t]+\w*(?:prompt|instructions|instruct)[ \t]*\+?=(?!=)", re.I | re.M)
_WORD = re.compile(r"[A-Za-z_]\w*")
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")  # the names a function's source calls
MIN_TEMPLATE_TEXT = 100  # characters of a template named with the word first, in a language we cannot read
MIN_FUNCTION_TEXT = MIN_PROMPT_TEXT  # literal characters a prompt-named function's string needs to count as a prompt
_USER_ROLE = re.compile(r"(?:^|_)(?:user|human)(?:_|$)", re.I)
# `*_TEMPLATE` is also what code names URL, script and README templates: such a
# constant counts only in a module that talks to a model, or when its name
# says what it is for (SQL_PROMPT_TEMPLATE, SYSTEM_TEMPLATE, CHAT_TEMPLATE).
# a wrapper's parameter that carries the prompt to the model call inside it
_PROMPT_PARAM = re.compile(r"prompt|messages|^msgs$|^system|instruction|^query$|^input$|^text$|^content$", re.I)
# a module-level mapping of prompts by name: PROMPTS, SYSTEM_PROMPTS, prompt_templates
MAX_KEYED_DEPTH = 3  # levels of dicts inside a dict of prompts that are read as groups of prompts
_PROMPT_COLLECTION = re.compile(r"^(?:\w*_)?(?:prompts|templates|instructions)$", re.I)
_PROMPT_IN_NAME = re.compile(r"prompt|template|instruction", re.I)
_TEMPLATE_COLLECTION = re.compile(r"^(?:\w*_)?templates$", re.I)
# a module whose path says it holds prompts: `prompts.py`, `agent_prompts.py`, `prompts/qa/multiple_choice.py`
_PROMPT_MODULE = re.compile(r"(?:^|[/\\_])(?:prompts?|prompt_templates?)(?:\.py$|[/\\])")
_TEMPLATE_ONLY = re.compile(r"^(?:\w*_)?template$", re.I)
_PROMPT_WORDS = re.compile(r"prompt|instruction|system|user|human|assistant|chat|message|agent|llm|query|rag", re.I)
_LC_FILLS = ("format_messages", "aformat_messages")  # a LangChain chat template's messages, filled
_LLM_IMPORTS = re.compile(
    r"^[ \t]*(?:from|import)[ \t]+(?:openai|anthropic|litellm|langchain\w*|llama_index|google\.generativeai"
    r"|google\.genai|vertexai|mistralai|cohere|groq|ollama|together|instructor|dspy|haystack|semantic_kernel"
    r"|autogen|crewai|pydantic_ai|guidance|outlines|huggingface_hub|transformers|vllm|boto3)\b", re.M)


def _result_text(flow, node, frame):
    """The text a builder's result object is made with (`Result(prompt, extras)`,
    `PromptResult(text=prompt)`): its first argument or its `prompt`/`text`
    keyword, when that is text with words; None otherwise."""
    if not isinstance(node, cst.Call) or not CLASS_NAME.match(flow.src(node.func)):
        return None
    first = next((a.value for a in node.args if a.keyword is None and not a.star), None)
    if first is None:
        first = next((a.value for a in node.args if a.keyword is not None
                      and a.keyword.value in ("prompt", "text", "system_prompt", "content")), None)
    value = flow.eval(first, frame) if first is not None else None
    return value if isinstance(value, StrV) and _has_words(value, MIN_FUNCTION_TEXT) else None


def _main_blocks(flow, module: cst.Module) -> list[tuple[int, int]]:
    """The spans of the module's `if __name__ == "__main__":` blocks."""
    out = []
    for statement in module.body:
        if isinstance(statement, cst.If) and isinstance(statement.test, cst.Comparison) \
                and isinstance(statement.test.left, cst.Name) and statement.test.left.value == "__name__":
            out.append(flow.span(statement))
    return out


def _instructions(text: str) -> bool:
    """Text that addresses a model (the same test discovery uses)."""
    return directive_score(text) >= BUILDER_DIRECTIVES


def read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    """Every prompt of a Python module; [] for a module without one."""
    if not _HINTS.search(file.text) and not _instructions(file.text) and not toollists.HINT.search(file.text) \
            and not injected.HINT.search(file.text):
        return []
    return _deep(lambda: _read(file, ctx), file, ctx)


def _past_parser_limits(file: SourceFile) -> tuple[int, str] | None:
    """(line, what) where the file is past a limit that keeps libcst's parse
    bounded (it is quadratic in operator chains and in bracket nesting)."""
    chain = _longest_operator_chain(file.text)
    if chain is not None:
        length, line = chain
        return line, (f"this statement chains {length:,} binary operators, past the Python reader's limit of "
                      f"{MAX_OPERATOR_CHAIN:,} (the parser's time grows with the square of a chain)")
    nesting = _deepest_brackets(file.text)
    if nesting is not None:
        depth, line = nesting
        return line, (f"brackets nest {depth:,} levels deep here, past the Python reader's limit of "
                      f"{MAX_BRACKET_DEPTH:,} (the parser's memory grows with the square of the depth)")
    return None


def _read(file: SourceFile, ctx: SourceContext) -> list[PromptTemplate]:
    past = _past_parser_limits(file)
    if past is not None:
        line, what = past
        start = sum(len(x) for x in file.text.splitlines(keepends=True)[:line - 1])
        ctx.partial(file, Span(file, start, start), f"{what}; the file was not analysed")
        return []
    module = _parse(file)
    collector = _Collector().collect(module)
    if not collector.calls and not _named_prompt_candidates(module) and not _instructions(file.text) \
            and not (_LOCAL_PROMPT.search(file.text) and directive_score(file.text) >= LOCAL_DIRECTIVES) \
            and not files.WRITTEN_JINJA_PATH.search(file.text) and not collector.tool_lists \
            and not collector.injections and not _fills_imported_constant(module, file.text):
        return []  # nothing shaped like a prompt: skip the (costly) position pass
    flow = Flow(module, positions(module), file, ctx)
    reader = _Reader(flow, file, ctx)
    flow.deadline = time.monotonic() + MAX_FILE_SECONDS
    try:
        reader.run(collector)
    except OverBudget as exc:
        here = exc.node is not None and exc.flow is flow  # else: inside a module this file imports
        where = reader.span(exc.node) if here else None
        inside = "" if here or exc.flow is None else f" (reading {exc.flow.file.display_path}, which it imports)"
        ctx.partial(file, where, f"the Python reader stopped {'here' if here else 'in this file'}{inside} after "
                                 f"{MAX_FILE_SECONDS:g} s, its per-file budget: {len(reader.found)} prompts were "
                                 "read, the rest of the file was not analysed")
    return reader.templates()


# libcst computes positions (and we evaluate) by recursing over the tree: a
# prompt written as 1,000 implicitly concatenated lines is 1,000 levels deep.
# The work runs in a thread with a large stack and a higher recursion limit.
_STACK_BYTES = 512 * 1024 * 1024
# Wall-clock budget of one file's analysis: past it, the prompts read so far are
# kept and the rest of the file is reported as not analysed (info, not an error).
MAX_FILE_SECONDS = 20.0
_RECURSION_LIMIT = 60_000


def _deep(work, file: SourceFile, ctx: SourceContext):
    result: dict = {}

    def run():
        try:
            result["value"] = work()
        except RecursionError as exc:
            result["error"] = exc
            result["parses"] = _cpython_parses(file.text)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            result["error"] = exc

    old_limit = sys.getrecursionlimit()
    try:
        old_size = threading.stack_size(_STACK_BYTES)
    except (ValueError, RuntimeError):  # the platform refuses: recurse as deep as we can here
        run()
    else:
        try:
            sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
            worker = threading.Thread(target=run, name="promptlint-python-reader", daemon=True)
            worker.start()
            worker.join()
        finally:
            threading.stack_size(old_size)
            sys.setrecursionlimit(old_limit)
    error = result.get("error")
    if isinstance(error, BeyondLibcst):
        ctx.partial(file, None, f"{error}; its prompts were not analysed")
        return []
    if isinstance(error, RecursionError):
        if result["parses"]:  # valid Python: never an input error, but say what was not analysed
            ctx.partial(file, None, "nests too deeply for the Python reader (past its stack of "
                                    f"{_STACK_BYTES >> 20} MiB); its prompts were not analysed")
            return []
        raise SourceError(file.display_path, 1, "Python file nests too deeply to analyse") from None
    if error is not None:
        raise error
    return result["value"]


class BeyondLibcst(Exception):
    """Valid Python (CPython parses it) that libcst cannot parse."""


# libcst's parser gives up on an implicit concatenation of about 3,400 string
# literals (CPython takes any number): such a run is cut into groups joined by
# `+`, which gives the same value and keeps every offset (see _split_runs)
MAX_CONCATENATED = 1_000


def _split_runs(text: str) -> str | None:
    """`text` with every MAX_CONCATENATED-th string of a long implicit
    concatenation preceded by `+` in place of the space before it (the
    string starts a line, after its indentation), or None when no run is
    that long or no such space is there."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    chars = list(text)
    run, changed = 0, False
    for tok in tokens:
        if tok.type in (tokenize.NL, tokenize.COMMENT):
            continue
        if tok.type != tokenize.STRING and tok.type != getattr(tokenize, "FSTRING_START", -1):
            run = 0
            continue
        run += 1
        if run > 1 and run % MAX_CONCATENATED == 1:
            line, col = tok.start
            offset = starts[line - 1] + col
            if col >= 1 and text[starts[line - 1]:offset].isspace():
                chars[offset - 1] = "+"
                changed = True
    return "".join(chars) if changed else None


def _parse(file: SourceFile) -> cst.Module:
    try:
        return cst.parse_module(file.text)
    except cst.ParserSyntaxError as exc:
        # Python's own parser (parsing only, nothing runs) says where and what
        # as Python users know it; libcst's message is the fallback
        m = re.match(r"^(?:parser|tokenizer) error: (?:error at (\d+):(\d+): )?(.*)$", exc.message, re.S)
        line, col = exc.raw_line, exc.raw_column + 1
        message = exc.message
        if m:
            message = m.group(3)
            if m.group(1):
                line, col = int(m.group(1)), int(m.group(2)) + 1
        try:
            with warnings.catch_warnings():  # invalid escapes in the user's code are not our message
                warnings.simplefilter("ignore")
                ast.parse(file.text)
        except SyntaxError as err:
            if err.lineno:
                line, col, message = err.lineno, err.offset or 1, err.msg or message
        except (ValueError, RecursionError, MemoryError):
            pass
        else:  # CPython parses it: a limit of libcst's, never the user's syntax error
            split = _split_runs(file.text)
            if split is not None:
                try:
                    return cst.parse_module(split)
                except cst.ParserSyntaxError:
                    pass
            raise BeyondLibcst(f"libcst cannot parse it (at line {line}), though Python does") from None
        raise SourceError(file.display_path, line, f"Python syntax error: {message}", col) from None
    except RecursionError:
        if _cpython_parses(file.text):
            raise  # valid Python too deep for libcst: _deep says so, at info level
        raise SourceError(file.display_path, 1, "Python syntax error: nested too deeply to parse") from None


# libcst parses a chain of binary operators (`"a" + "b" + ...`) in time that grows
# with the square of its length: 1,000 take 0.1 s, 20,000 take minutes.
MAX_OPERATOR_CHAIN = 1_000
# libcst's parser takes memory growing with the square of bracket nesting (400
# nested conditional expressions in parentheses: 0.5 GB; 900: 2.3 GB)
MAX_BRACKET_DEPTH = 200
_BRACKET = re.compile(r"[()\[\]{}]")
_STRINGS_AND_COMMENTS = re.compile(r"""(\"\"\"|\'\'\')[\s\S]*?\1|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*""")


def _deepest_brackets(text: str) -> tuple[int, int] | None:
    """(depth, line) where brackets first nest past MAX_BRACKET_DEPTH, else
    None: one pass over the tokens (strings and comments are not brackets)."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_BRACKET_DEPTH:
        return None
    # a scan of the brackets outside strings and comments (one regex pass): when they
    # stay within the limit, no tokenizing is needed (most files); else tokenize says
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRINGS_AND_COMMENTS.sub("", text)):
        depth = depth + 1 if m.group() in "([{" else max(0, depth - 1)
        deepest = max(deepest, depth)
    if deepest <= MAX_BRACKET_DEPTH:
        return None
    import io
    import tokenize

    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP:
                if tok.string in "([{":
                    depth += 1
                    if depth > MAX_BRACKET_DEPTH:
                        return depth, tok.start[0]
                elif tok.string in ")]}":
                    depth = max(0, depth - 1)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None  # the parser reports what is wrong
    return None
_OPERATOR = re.compile(r"[-+*/%|&^@<>]|\b(?:and|or)\b")


def _longest_operator_chain(text: str) -> tuple[int, int] | None:
    """(length, line) of the longest chain of binary operators when it is past
    MAX_OPERATOR_CHAIN, else None; a file with fewer operators than that in all
    is not parsed for it."""
    if len(_OPERATOR.findall(text)) <= MAX_OPERATOR_CHAIN:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # libcst's parse reports it
    nested = set()
    ops = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp):
            ops.append(node)
            if isinstance(node.left, ast.BinOp):
                nested.add(id(node.left))
        elif isinstance(node, ast.BoolOp) and len(node.values) > MAX_OPERATOR_CHAIN:
            return len(node.values) - 1, node.lineno
    for node in ops:
        if id(node) in nested:
            continue
        length, inner = 0, node
        while isinstance(inner, ast.BinOp):
            length, inner = length + 1, inner.left
        if length > MAX_OPERATOR_CHAIN:
            return length, node.lineno
    return None


def _cpython_parses(text: str) -> bool:
    """Whether CPython's own parser accepts the file (parsing only)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


class _Collector:
    """The calls shaped like prompt sites and the list literals holding
    LangChain messages, in source order, with the def or class around each
    (one tree.walk over the module)."""

    def __init__(self):
        self.stack: list = [None]
        self.calls: list = []
        self.lists: list = []
        # message dicts a function gathers, wherever they are sent (a wrapper of
        # the app's own): (list name or list literal, owner, statement)
        self.message_lists: list = []
        # lists named for tools, filled in a loop or built by a comprehension:
        # (name, the loop or None, the comprehension or None, owner)
        self.tool_lists: list = []
        self.loops: list = []  # the for statements the walk is inside
        self.sums: list = []  # the `a + b` expressions the walk is inside (a message list is one operand)
        # messages or text put into a conversation this code receives (injected): (node, kind, owner)
        self.injections: list = []
        # calls of a function or method of this module by name (`self.predict(prompt)`): name -> [(call, owner)]
        self.local_calls: dict[str, list] = {}

    def collect(self, module: cst.Module) -> "_Collector":
        visits = {cst.Call: self.visit_Call, cst.Assign: self.visit_Assign, cst.AnnAssign: self.visit_AnnAssign,
                  cst.List: self.visit_List, cst.FunctionDef: self.stack.append, cst.ClassDef: self.stack.append,
                  cst.For: self.loops.append, cst.AugAssign: self.visit_injection,
                  cst.BinaryOperation: self.visit_BinaryOperation}
        scopes = (cst.FunctionDef, cst.ClassDef)

        def enter(node):
            found = visits.get(type(node))
            if found is not None:
                found(node)

        def leave(node):
            if type(node) in scopes:
                self.stack.pop()
            elif type(node) is cst.For:
                self.loops.pop()
            elif type(node) is cst.BinaryOperation and isinstance(node.operator, cst.Add):
                self.sums.pop()

        walk(module, enter, leave)
        return self

    def visit_BinaryOperation(self, node):
        if isinstance(node.operator, cst.Add):
            self.sums.append(node)

    def visit_Call(self, node):
        if might_send(node):
            self.calls.append((node, self.stack[-1]))
        func = node.func
        if isinstance(func, cst.Name) or isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value in ("self", "cls"):
            self.local_calls.setdefault(last_name(func), []).append((node, self.stack[-1]))
        self.visit_injection(node)
        target = toollists.fills(node)
        # each loop around the fill, innermost first: tools appended per module of a folder listing
        # (`for file in os.listdir(d): ... for tool in module_tools: tools.append(tool)`) follow its order
        if target is not None:
            self.tool_lists += [(target, loop, None, self.stack[-1]) for loop in reversed(self.loops)]
        if not might_send(node):  # a call we know reads its tools= itself
            for arg in node.args:
                if toollists.passed(arg) and not any(t[0] == arg.keyword.value and t[3] is self.stack[-1]
                                                     for t in self.tool_lists):
                    self.tool_lists.append((arg.keyword.value, None, arg.value, self.stack[-1]))
        func = node.func
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and (func.attr.value in ("append", "insert", "extend")
                     and any(_role_dict(a.value) or _role_list(a.value) for a in node.args)
                     or func.attr.value in ROLE_ADDS)):
            self.message_lists.append((func.value.value, self.stack[-1], node))

    def visit_injection(self, node):
        kind = injected.site(node)
        if kind is not None:
            self.injections.append((node, kind, self.stack[-1]))

    def visit_Assign(self, node):
        self.visit_injection(node)
        if toollists.built(node.value):
            for target in node.targets:
                name = toollists.tool_target(target.target)
                if name is not None:
                    self.tool_lists.append((name, None, node.value, self.stack[-1]))
        if _role_list(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.message_lists.append((target.target.value, self.stack[-1], node))

    def visit_AnnAssign(self, node):
        if node.value is not None and _role_list(node.value) and isinstance(node.target, cst.Name):
            self.message_lists.append((node.target.value, self.stack[-1], node))

    def visit_List(self, node):
        if any(isinstance(el.value, cst.Call) and last_name(el.value.func) in _LC_MESSAGE_CLASSES
               for el in node.elements):
            self.lists.append((node, self.stack[-1]))
        elif _role_list(node):
            # `[system] + history`: the list is the whole sum it opens, not the literal alone
            whole = self.sums[0] if self.sums else node
            self.message_lists.append((whole, self.stack[-1], whole))


_LC_MESSAGE_CLASSES = ("SystemMessage", "HumanMessage", "AIMessage")


def _role_dict(node) -> bool:
    """`{"role": "system", "content": ...}` written out in the code."""
    if not isinstance(node, cst.Dict):
        return False
    keys = {}
    for el in node.elements:
        if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString):
            keys[el.key.evaluated_value] = el.value
    role = keys.get("role")
    return "content" in keys and isinstance(role, cst.SimpleString) and role.evaluated_value in MESSAGE_ROLES


def _role_call(node) -> bool:
    """`create_chat_message("system", prompt)`, `make_msg(role="user", ...)`:
    a call given a role by name and something more (what it returns is
    checked when the list is evaluated: only a helper that builds a message
    makes the list a prompt)."""
    if not isinstance(node, cst.Call) or len(node.args) < 2:
        return False
    first = node.args[0]
    role = first.value if first.keyword is None else \
        next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "role"), None)
    return isinstance(role, cst.SimpleString) and role.evaluated_value in MESSAGE_ROLES


def _role_list(node) -> bool:
    return isinstance(node, cst.List) and any(_role_dict(el.value) or _role_call(el.value) for el in node.elements)


def _prompt_pair(node, value) -> list | None:
    """A builder's `return system_prompt, user_prompt` (or `[sys, query]`):
    the system text, then the user's, when the variables' names say those
    roles (`sys_*` first, then `user_*`, `human_*`, `query*`); not a pair of
    other texts (`return test_prompt, full_prompt`). None unless it is two
    or three texts, one of them with words."""
    if not isinstance(value, ListV) or not 2 <= len(value.items) <= 3 \
            or not all(isinstance(item, StrV) for item in value.items) \
            or not any(_has_words(item, MIN_FUNCTION_TEXT) for item in value.items) \
            or not isinstance(node, (cst.Tuple, cst.List)) or len(node.elements) != len(value.items):
        return None
    out = []
    for k, (item, element) in enumerate(zip(value.items, node.elements)):
        name = (last_name(element.value) or "").lower()
        role = "system" if "sys" in name else "user" if _USER_ROLE.search(name) or "query" in name else None
        if role is None or (role == "system") != (k == 0):
            return None
        out.append((role, item, element.value))
    return out


def _named_prompt_candidates(module: cst.Module) -> bool:
    """A function or method named like a prompt builder, or a constant named like a prompt."""
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and _PROMPT_FUNCTION.search(stmt.name.value):
            return True
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock) and any(
                isinstance(m, cst.FunctionDef) and _PROMPT_FUNCTION.search(m.name.value) for m in stmt.body.body):
            return True
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) and any(
                        _PROMPT_CONSTANT.match((a.asname.name if a.asname else a.name).value)
                        for a in small.names if isinstance((a.asname.name if a.asname else a.name), cst.Name)):
                    return True  # `from .prompts import order_template`: a function here may fill it
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                    [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                if any(isinstance(t, cst.Name) and _PROMPT_CONSTANT.match(t.value) for t in targets):
                    return True
                if any(isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name)
                       and _PROMPT_COLLECTION.match(t.value.value) for t in targets):
                    return True  # PROMPTS["summary"] = "..."
    return False


_FILL_CALL = re.compile(r"\.(?:format|format_map|replace|substitute|render)\(")


def _agent_instructions(func: cst.FunctionDef) -> cst.Decorator | None:
    """`@agent.instructions` / `@agent.system_prompt` (pydantic-ai): the function's
    return is part of the agent's system prompt, computed for each run."""
    for decorator in func.decorators:
        node = decorator.decorator
        node = node.func if isinstance(node, cst.Call) else node
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and node.attr.value in ("instructions", "system_prompt"):
            return decorator
    return None


def _recomputed_each_run(decorator: cst.Decorator) -> bool:
    """`@agent.instructions` and `@agent.system_prompt(dynamic=True)` are computed
    again for every run, ahead of the message history it continues; a plain
    `@agent.system_prompt` only when a run starts without one (its text is then
    kept in the history, the same for the whole conversation)."""
    node = decorator.decorator
    call = node if isinstance(node, cst.Call) else None
    name = (call.func if call is not None else node).attr.value
    return name == "instructions" or call is not None and any(
        a.keyword is not None and a.keyword.value == "dynamic" and isinstance(a.value, cst.Name)
        and a.value.value == "True" for a in call.args)


def _each_prompt(value):
    """`prompts = [T.format(concept=c) for c in concepts]`: one prompt per
    item, each the text of the comprehension's element (its loop variable
    per item); any other value as it is."""
    if isinstance(value, ListV) and len(value.items) == 1:
        value = value.items[0]
    if isinstance(value, LoopV) and isinstance(value.body, StrV) and not value.order:
        return StrV([_per_item(seg, value) for seg in value.body.segs], value.body.node)
    return value


def _per_item(seg, loop: LoopV):
    """A value of the loop's item with no evidence of its own differs from
    one prompt of the list to the next: per request."""
    if isinstance(seg, Slot) and no_evidence(Verdict(seg.volatility, seg.reason)) and set(seg.names) & set(loop.names):
        return dataclasses.replace(seg, volatility=Volatility.REQUEST, reason=per_item(loop.label).reason)
    return seg


def _fills_imported_constant(module: cst.Module, text: str) -> bool:
    """`from templates.MCQA import MCQA` in a module that fills templates:
    a function here may fill and return that constant (_Reader.imported_instructions
    reads whether it is a prompt)."""
    if not _FILL_CALL.search(text):
        return False
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if not isinstance(small, cst.ImportFrom):
                    continue
                if isinstance(small.names, cst.ImportStar) and small.module is not None or any(
                        isinstance(a.name, cst.Name) and UPPER_CONSTANT.match(a.name.value)
                        for a in (() if isinstance(small.names, cst.ImportStar) else small.names)):
                    return True
    return False


class _Reader:
    def __init__(self, flow: Flow, file: SourceFile, ctx: SourceContext):
        self.flow = flow
        self.file = file
        self.ctx = ctx
        self.stem = file.path.stem
        self.found: list[tuple[int, str, list[Section], str | None, Span, object]] = []  # (start, label, ...)
        self.gathered: set[int] = set()  # id(scope) of the functions whose message lists message_leftovers read
        self.origins: dict[int, int] = {}  # id(found entry) -> id of the call it was read at

    def span(self, node) -> Span:
        return self.flow.file_span(*self.flow.span(node))

    def scope_of(self, owner):
        """The scope of the def or class around a node (None: the module)."""
        index = self.flow.index
        if owner is None:
            return index.module
        if isinstance(owner, cst.ClassDef):
            info = index.classes.get(id(owner))
            return info.scope if info is not None and info.scope is not None else index.module
        return index.scopes.get(id(owner), index.module)

    def run(self, collector: _Collector) -> list[PromptTemplate]:
        flow = self.flow
        collector.calls = [(c, self.scope_of(o)) for c, o in collector.calls]
        collector.lists = [(n, self.scope_of(o)) for n, o in collector.lists]
        consumed: set[str] = set()
        wrappers = []
        for call, scope in collector.calls:
            if id(call) in flow.used:
                continue
            flow.reads = set()
            with flow.sent_at(call):
                result = site(flow, call, flow.frame_for(scope))
            if result is not None:  # what a call that sends nothing we read evaluated stays a prompt of its own
                sections, model, _, written = result
                flow.used.add(id(call))
                if written or _has_text(sections):  # a wrapper passing its caller's messages through: no prompt
                    consumed |= flow.reads
                    self.add(call, scope, sections, model)
                    continue
            if not scope.is_module:  # a function that only passes its parameter on: its callers give the text
                wrappers.append((call, scope, result[1] if result is not None else None))
        for call, scope, model in wrappers:
            self.wrapped(collector, call, scope, model)
        self.langchain_leftovers(collector, consumed)
        self.injections(collector)
        self.message_leftovers(collector, consumed)
        self.named_prompts(consumed)
        self.tool_lists(collector, consumed)
        return self.templates()

    def wrapped(self, collector: _Collector, sink: cst.Call, scope, model) -> None:
        """A function of this module that hands its parameter to a model call
        (`def prediction(self, prompt): ... Completion.create(prompt=prompt)`):
        what its callers here pass for that parameter is a prompt, read at
        each call (`self.prediction(prompt)`), one level deep."""
        flow = self.flow
        func = scope.node
        if not isinstance(func, cst.FunctionDef):
            return
        params = [p.name.value for p in func.params.params]
        passed = {a.value.value for a in sink.args if isinstance(a.value, cst.Name)}
        for name in list(passed):  # `conv = Conversation([Turn("user", Message(prompt))])`, then `prompt=conv`
            bindings = scope.bindings.get(name, ())
            if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
                passed |= set(_WORD.findall(flow.src(bindings[0].value))) & set(params)
        wanted = [(i, name) for i, name in enumerate(params) if name in passed and _PROMPT_PARAM.search(name)]
        if not wanted:
            return
        method = bool(params) and params[0] in ("self", "cls")
        build = Sections(flow)
        for call, owner in collector.local_calls.get(func.name.value, ()):
            if id(call) in flow.used or isinstance(call.func, cst.Attribute) != method:
                continue
            caller = self.scope_of(owner)
            if caller is scope:
                continue  # a recursive retry passes the same prompt on
            positional = [a.value for a in call.args if a.keyword is None and not a.star]
            keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            sections = []
            for index, name in wanted:
                at = index - 1 if method else index
                node = keywords.get(name, positional[at] if 0 <= at < len(positional) else None)
                if node is None:
                    continue
                value = flow.eval_at(node, flow.frame_for(caller), call)  # as sent from that call
                if isinstance(value, ListV) and is_message_list(value):
                    sections += build.messages(value, node)
                elif isinstance(value, StrV) and _has_words(value, MIN_FUNCTION_TEXT):
                    sections.append(build.system(value, node) if "system" in name else
                                    build.section("user", build.content(value), node))
            if _has_text(sections):
                flow.used.add(id(call))
                self.add(call, caller, sections, model)

    def tool_lists(self, collector: _Collector, consumed: set[str]) -> None:
        """Lists named for tools whose order changes (see toollists), where no
        call here sends them; one prompt per loop or comprehension."""
        seen: set = set()
        for target, loop, value, owner in collector.tool_lists:
            where = loop if loop is not None else value
            if id(where) in seen or target in consumed or target.split(".")[-1] in consumed:
                continue
            seen.add(id(where))
            scope = self.scope_of(owner)
            flow = self.flow
            sections = toollists.unordered_tools(flow, target, loop, value, flow.frame_for(scope))
            if sections:
                label = target if scope.is_module else f"{scope.label}.{target}"
                self.found.append((flow.span(where)[0], label, sections, None, self.span(where), None))

    def injections(self, collector: _Collector) -> None:
        """Messages and text put early into a conversation received from elsewhere (injected)."""
        build = Sections(self.flow)
        for node, kind, owner in collector.injections:
            if id(node) in self.flow.used:
                continue
            scope = self.scope_of(owner)
            sections = injected.read(self.flow, build, node, kind, scope)
            if sections:
                self.flow.used.add(id(node))
                self.add(node, scope, sections)

    def add(self, node, scope, sections, model=None, label=None, span=None) -> None:
        start = self.flow.span(node)[0] if node is not None else span.start
        label = label or (f"{self.file.position(start)[0]}" if scope is None or scope.is_module else scope.label)
        entry = (start, label, sections, model, span or self.span(node), scope)
        self.found.append(entry)
        if node is not None:
            self.origins[id(entry)] = id(node)

    def langchain_leftovers(self, collector: _Collector, consumed: set[str]) -> None:
        """LangChain message lists and messages not sent through a call we know."""
        flow = self.flow
        build = Sections(flow)
        for node, scope in collector.lists:
            if id(node) in flow.used:
                continue
            flow.reads = set()
            value = flow.eval(node, flow.frame_for(scope))
            if lc_message_list(flow, value):
                consumed |= flow.reads
                self.add(node, scope, build.messages(value, node))
        for call, scope in collector.calls:
            if id(call) in flow.used:
                continue
            if last_name(call.func) in _LC_FILLS:
                # `template.format_messages(context=...)` handed to the app's own client: the
                # messages the template gives, filled (a template we do not know gives none)
                flow.reads = set()
                value = flow.eval(call, flow.frame_for(scope))
                if lc_message_list(flow, value):
                    consumed |= flow.reads
                    flow.used.add(id(call))
                    self.add(call, scope, build.messages(value, call))
                continue
            if last_name(call.func) not in _LC_MESSAGE_CLASSES:
                continue
            flow.reads = set()
            value = flow.eval(call, flow.frame_for(scope))
            if isinstance(value, MsgV):
                consumed |= flow.reads
                flow.used.add(id(call))
                self.add(call, scope, [build.message(value, False, None, call)])

    def message_leftovers(self, collector: _Collector, consumed: set[str]) -> None:
        """Message dicts a function gathers and sends through a wrapper of the
        app's own (`messages.append({"role": "system", "content": prompt})`,
        then `self.call_llm(messages)`): the list, as it is when the function
        ends, is a prompt."""
        flow = self.flow
        build = Sections(flow)
        seen: set = set()
        read = set()  # list literals assigned to a name read as a prompt: the name's list is that prompt
        for target, owner, stmt in collector.message_lists:
            scope = self.scope_of(owner)
            key = (id(scope), target if isinstance(target, str) else id(target))
            if key in seen or id(target) in read or any(id(d) in flow.used for d in _dicts(stmt)):
                continue
            seen.add(key)
            frame = flow.frame_for(scope)
            flow.reads = set()
            with flow.sent_at(stmt):
                if isinstance(target, str):
                    end = INF if scope.is_module else flow.span(scope.node)[1]
                    value = flow.lookup(target, end, frame)
                else:
                    value = flow.eval(target, frame)
            if not (isinstance(value, ListV) and is_message_list(value)):
                continue
            sections = build.messages(value, stmt)
            if _has_text(sections):
                consumed |= flow.reads
                self.add(stmt, scope, sections)
                self.gathered.add(id(scope))
                if isinstance(stmt, (cst.Assign, cst.AnnAssign)):
                    read.add(id(stmt.value))

    def named_prompts(self, consumed: set[str]) -> None:
        """Module constants and functions named like prompts that nothing here sends."""
        flow = self.flow
        build = Sections(flow)
        module = flow.index.module
        candidates = []
        fillable = {}  # label -> node of the constants and builders another module may fill (fills)
        talks_to_a_model = bool(self.found) or bool(_LLM_IMPORTS.search(self.file.text))
        # prompt constants of the module, and of its classes (`class Prompts: SYSTEM = "..."`)
        holders = [(module, "")] + [(info.scope, f"{info.node.name.value}.")
                                    for info in flow.index.classes.values() if info.scope is not None]
        prompt_module = _PROMPT_MODULE.search(self.file.display_path.replace("\\", "/")) is not None
        for holder, prefix in holders:
            for name, bindings in holder.bindings.items():
                # `ROW_TEMPLATE` in a module that talks to no model (and is not one of
                # prompts) is a prompt only when its text addresses one
                unsure = _TEMPLATE_ONLY.match(name) and not talks_to_a_model and not prompt_module \
                    and not _PROMPT_WORDS.search(name)
                last = bindings[-1]
                # in a module of prompts (`prompts.py`, `templates/qa.py`) any name may hold one
                leading = _PROMPT_LEADING.match(name) is not None or (not prefix and prompt_module)
                if (last.kind == "aug" or last.kind == "assign" and isinstance(last.target, cst.Name)) \
                        and (_PROMPT_CONSTANT.match(name) or leading):
                    flow.reads = set()
                    value = flow.lookup(name, float("inf"), flow.frame_for(holder))
                    reads = flow.reads - {name}
                    if isinstance(value, StrV) and _has_words(value) and (not leading or _reads_as_prompt(value)) \
                            and (not unsure or _instructions(_literal(value))):
                        role = self.named_role(name)
                        span = Span(self.file, last.start, last.end)
                        candidates.append((prefix + name, reads, span, [Section(role, build.text(value, "auto"),
                                                                                 span)]))
                        fillable[prefix + name] = last.value
        candidates += self.keyed_prompts(module, build)
        candidates += self.init_templates(build)
        # module names whose own text reads as instructions, or named as a prompt (`PROMPT =
        # open("prompt.j2").read()`): a function using one builds a prompt
        instruction_names = {name for name, bindings in module.bindings.items()
                             if bindings[-1].kind == "assign" and (_PROMPT_CONSTANT.match(name) or _instructions(
                                 self.file.text[bindings[-1].start:bindings[-1].end]))
                             # `from .prompts import order_template`: a prompt of another module
                             or bindings[-1].kind == "import" and (_PROMPT_CONSTANT.match(name)
                                                                   or self.imported_instructions(bindings[-1]))}
        instruction_names |= self.starred_instructions(module)
        for scope in flow.index.functions:
            built = self.builder(scope, build, instruction_names)
            if built and not scope.params and scope.parent is not None and scope.parent.is_module:
                fillable[scope.label] = scope.node.name  # `Prompts.order()`: a template its caller fills
            candidates += built
        candidates += self.local_prompts(build, {label for label, *_ in candidates})
        # what a script's demo (`if __name__ == "__main__": t = build(...)` with literals) reads stays a
        # prompt of its own: the demo does not stand for the app's use of it
        demos = _main_blocks(flow, module.node)
        used_by_others = set().union(*(reads for _, reads, span, _ in candidates
                                       if not any(a <= span.start < b for a, b in demos))) if candidates else set()
        # a prompt another one here reads is left out when a prompt kept holds all its text
        # (`SYSTEM = get_system_prompt(True)` holds the builder's parent branch, not its child one,
        # which stays a prompt); the widest are kept first, and of two with the same text the first
        skipped = {i for i, c in enumerate(candidates) if c[0] in consumed}
        if used_by_others:  # (most modules have no prompt another one reads)
            places = [_places(sections, self.file) for _, _, _, sections in candidates]
            kept = [places[i] for i, c in enumerate(candidates) if i not in skipped and c[0] not in used_by_others]
            for i in sorted((i for i, c in enumerate(candidates) if i not in skipped and c[0] in used_by_others),
                            key=lambda i: -len(places[i])):
                if any(places[i] <= k for k in kept):
                    skipped.add(i)
                else:
                    kept.append(places[i])
        for i, (name, _, span, sections) in enumerate(candidates):
            if i in skipped:
                continue
            if name in fillable:
                fills.apply(flow, name, sections, fillable[name])
            self.found.append((span.start, name, sections, None, span, None))

    def imported_instructions(self, b) -> bool:
        """`from templates.MCQA import MCQA`: an UPPER_CASE constant of another
        module of the tree whose text reads as instructions (a template a
        function here fills and returns)."""
        if not UPPER_CONSTANT.match(b.name) or b.qual is None:
            return False
        value = self.flow.project.value(self.flow, b.qual, b.node or self.flow.index.module.node)
        return isinstance(value, StrV) and _instructions(_literal(value))

    def starred_instructions(self, module) -> set[str]:
        """The UPPER_CASE names this module uses but does not bind that a
        module it imports everything from defines as instructions."""
        if not module.stars:
            return set()
        used = set(_UPPER_WORD.findall(self.file.text)) - set(module.bindings)
        out = set()
        for name in sorted(used)[:MAX_STARRED]:
            value = self.flow.from_star(name, None)
            if isinstance(value, StrV) and _instructions(_literal(value)):
                out.add(name)
        return out

    def local_prompts(self, build: Sections, built: set[str]) -> list:
        """A prompt a function writes into a local variable named like one
        (`prompt = f"As the research manager, ..."`) and hands to a
        helper we cannot read (another module's `invoke_structured(llm,
        prompt)`): its text as the function leaves it, when it reads as
        instructions to a model. Not where the function already sends or
        returns a prompt we read. (name, reads, span, sections) each."""
        flow = self.flow
        out, made_by = [], []  # the prompts, and the node each one's text was made at
        for scope in flow.index.functions:
            if scope.label in built:
                continue
            start, end = flow.span(scope.node)
            # where the function already sends a prompt we read, a local that prompt takes its
            # text from is part of it; another one (handed to a helper we cannot read) is not
            here = [found for found in self.found if start <= found[0] < end]
            for name, bindings in scope.bindings.items():
                last = bindings[-1]
                if not _PROMPT_CONSTANT.match(name) or last.kind not in ("assign", "aug") \
                        or last.kind == "assign" and not isinstance(last.target, cst.Name) \
                        or len(bindings) == 1 and isinstance(last.value, (cst.Name, cst.Attribute)):
                    continue  # `example_prompt = SYSTEM_PROMPT`: another name for a prompt read as its own
                flow.reads = set()
                value = _each_prompt(flow.lookup(name, end, flow.frame_for(scope)))
                # its text reads as instructions, or it is put together from prompt constants
                # (`full_prompt = f"{SYSTEM_PROMPT}\n\n{CHUNK_TEMPLATE.format(...)}"`)
                if not (isinstance(value, StrV) and _has_words(value, MIN_FUNCTION_TEXT)
                        and (directive_score(_literal(value)) >= LOCAL_DIRECTIVES
                             or any(_PROMPT_CONSTANT.match(read) for read in flow.reads if read != name)
                             or id(value.node) in flow.template_fills)):
                    continue
                # (a template the function fills, `tpl.format(...)`, is not sent as it is: known once
                # the fill has been read)
                sent = [at for found in here if self.origins.get(id(found)) not in flow.filled
                        for section in found[2] for at in _part_spans(section.parts)]
                if sent and _mostly_within(value, sent):
                    continue
                role = "system" if "system" in name.lower() and not _USER_ROLE.search(name) \
                    else self.named_role(name)
                span = Span(self.file, bindings[0].start, last.end)
                # a template left unfilled here (`.format` happens in the helper) keeps its fields
                out.append((f"{scope.label}.{name}", flow.reads, span,
                            [Section(role, build.text(value, _unfilled_style(value)), span)]))
                made_by.append(id(value.node))
        # a template another local fills (`tpl = PromptTemplate(template=t)`, then `prompt =
        # tpl.format(...)`) is read filled, as that local: not also unfilled, as its own
        return [entry for entry, made in zip(out, made_by) if made not in flow.filled]

    def named_role(self, name: str) -> str:
        """The role a prompt named `name` takes: user for `*user*`/`*human*`, else the default."""
        return "user" if _USER_ROLE.search(name) else self.ctx.default_role

    def sends_inside(self, node) -> bool:
        """Whether a prompt we read already starts inside `node` (a function, a class)."""
        start, end = self.flow.span(node)
        return any(start <= found[0] < end for found in self.found)

    def init_templates(self, build: Sections) -> list:
        """A prompt template an object keeps as a field, written in its
        `__init__` (`self.prompt_template = "..."`) and filled by a
        method of the app's own: a prompt of its own, unless the class
        already sends one we read. (name, reads, span, sections) each."""
        flow = self.flow
        out = []
        for info in flow.index.classes.values():
            if self.sends_inside(info.node):
                continue
            for name, bindings in info.attrs.items():
                last = bindings[-1]
                if last.kind != "attr" or not _PROMPT_CONSTANT.match(name):
                    continue
                scope = flow.index.scopes.get(id(last.node))
                if scope is None or scope.node.name.value != "__init__":
                    continue
                flow.reads = set()
                value = flow.eval(last.value, flow.frame_for(scope))
                if isinstance(value, StrV) and _instructions(_literal(value)):
                    role = self.named_role(name)
                    span = Span(self.file, *flow.span(last.value))
                    out.append((f"{info.node.name.value}.{name}", flow.reads, span,
                                [Section(role, build.text(value, "auto"), span)]))
        return out

    def keyed_prompts(self, module, build: Sections) -> list:
        """The entries of a module-level collection of prompts, keyed by name
        (`PROMPTS["summarize"] = "..."`, `TEMPLATES = {"qa": "..."}`), as
        prompts of their own: (name, reads, span, sections) each."""
        flow = self.flow
        out = []
        for name, bindings in module.bindings.items():
            collection = _PROMPT_COLLECTION.match(name)
            loose = not collection and not _PROMPT_CONSTANT.match(name)
            if loose and not _PROMPT_IN_NAME.search(name):  # `dataset2prompt`: entries must read as prompts
                continue
            entries = []
            value = flow.lookup(name, bindings[-1].end, flow.frame_for(module))
            if isinstance(value, DictV):  # `prompt = {"execute": {"_USER_PROMPT": "..."}}`: nested by topic
                entries += _keyed_entries(value, f"{name}", MAX_KEYED_DEPTH)
            elif not collection:
                continue
            for m in module.mutations.get(name, ()):
                if m.method == "setitem" and len(m.keys) == 1 and isinstance(m.keys[0], str) \
                        and isinstance(m.call, cst.Assign):
                    entries.append((f'{name}["{m.keys[0]}"]', m.keys[0],
                                    flow.eval(m.call.value, flow.frame_for(module)), m.call))
            for label, key, entry, node in entries:
                if not isinstance(entry, StrV) or not _has_words(entry, MIN_FUNCTION_TEXT):
                    continue
                if (loose or _TEMPLATE_COLLECTION.match(name)) and not _instructions(_literal(entry)):
                    continue  # TEMPLATES may hold a web page's or a script's text: it must read as a prompt
                role = self.named_role(key)
                span = self.span(node)
                out.append((label, set(), span, [Section(role, build.text(entry, "auto"), span)]))
        return out

    def builder(self, scope, build: Sections, instruction_names: set[str]) -> list:
        """The prompts a function or method builds and returns: named like a
        prompt builder (`build_system_prompt`, `get_system_message`), or
        returning text that reads as instructions (its own literals, or a
        module constant that does). One per `return` that gives a prompt (a
        builder with a branch per environment builds several): a list of
        (name, reads, span, sections)."""
        flow = self.flow
        func = scope.node
        name = func.name.value
        if name.startswith("test_"):
            return []
        found = flow.returns_of(func)
        if not found:
            return []
        # `build_system_prompt`, or a public method of a class of prompts (`TaskPrompts.research()`;
        # a private one, `_skill_block()`, is a part the others put in)
        agent_text = _agent_instructions(func)
        named = bool(_PROMPT_FUNCTION.search(name)) or agent_text is not None or (
            scope.cls is not None and not name.startswith("_")
            and _PROMPT_IN_NAME.search(scope.cls.node.name.value) is not None)
        if not named:  # cheap tests on the function's source before any evaluation
            start, end = flow.span(func)
            source = self.file.text[start:end]
            if directive_score(source) < 2 and not instruction_names & set(_WORD.findall(source)) \
                    and not files.WRITTEN_JINJA_PATH.search(source) \
                    and not any(_PROMPT_FUNCTION.search(c) for c in _CALLED.findall(source)):
                return []  # nor a template file it renders, nor what a prompt builder returns (`self._messages(...)`)
        role = "system" if agent_text is not None else self.named_role(name)
        out = []
        for ret in found:
            flow.reads = set()
            value = flow.eval(ret.value, flow.frame_for(scope))
            reads = flow.reads - {name}
            if isinstance(value, StrV) and _has_words(value, MIN_FUNCTION_TEXT) and (
                    named or _instructions(_literal(value)) or any(_PROMPT_CONSTANT.match(r) for r in reads)):
                # a template returned unfilled (`return THINK_ABOUT_IT`): the caller fills its fields
                sections = [Section(role, build.text(value, _unfilled_style(value)), self.span(ret.value))]
            elif isinstance(value, ListV) and is_message_list(value):
                if id(scope) in self.gathered:
                    continue  # the list it returns is read already, where the function builds it
                sections = build.messages(value, ret.value)
            elif isinstance(value, MsgV) and isinstance(value.content, StrV) and _has_words(value.content,
                                                                                          MIN_FUNCTION_TEXT):
                sections = [build.message(value, False, None, ret.value)]
            elif named and (pair := _prompt_pair(ret.value, value)) is not None:
                sections = [Section(role, build.text(text, _unfilled_style(text)), self.span(node))
                            for role, text, node in pair]
            elif named and (wrapped := _result_text(flow, ret.value, flow.frame_for(scope))) is not None:
                # `return ChatPromptBuildResult(system_prompt, [parts])`: the builder's result object
                # carries the prompt first
                sections = [Section(role, build.text(wrapped, _unfilled_style(wrapped)), self.span(ret.value))]
            else:
                continue
            if agent_text is not None and _recomputed_each_run(agent_text):
                sections = sections + [self.run_history(agent_text)]
            out.append((scope.label, reads, self.span(func.name if len(found) == 1 else ret), sections))
        return out

    def run_history(self, decorator: cst.Decorator) -> Section:
        """What pydantic-ai sends after an agent's instructions and system
        prompts: the run's message history (a per-session slot, placed at the
        decorator that makes the function part of the agent's prompt)."""
        span = self.span(decorator.decorator)
        called = decorator.decorator
        agent = _dotted_name((called.func if isinstance(called, cst.Call) else called).value) or "the agent"
        slot = Slot(label=f"the message history of {agent}'s run", kind=SlotKind.VARIABLE,
                    volatility=Volatility.SESSION, span=span, names=("message_history",),
                    reason="the conversation history pydantic-ai sends after the instructions")
        return Section("user", [slot], span)

    def templates(self) -> list[PromptTemplate]:
        # a template the code fills (`from_template(t).format(programs=p)`) is read filled, as
        # the prompt built from it: not also as a prompt of its own
        if len(self.found) > 1:
            self.found = [f for f in self.found if self.origins.get(id(f)) not in self.flow.filled]
        self.found.sort(key=lambda f: f[0])
        counts = Counter(label for _, label, *_ in self.found)
        out = []
        for start, label, sections, model, span, _ in self.found:
            name = f"{self.stem}:{label}"
            if counts[label] > 1:
                name += f":{self.file.position(start)[0]}"
            sections = [Section(s.role, _copy(s.parts), s.span) for s in sections]
            out.append(PromptTemplate(name, self.file, FORMAT, sections, model=model, span=span))
        return out




def _part_spans(parts) -> list[tuple[int, int]]:
    """(start, end) in the file of each literal text of a prompt (not its
    values: two prompts may share one, `related_files` computed once)."""
    out = []
    for part in parts:
        if isinstance(part, Text) and part.span is not None:
            out.append((part.span.start, max(part.span.end, part.span.start + 1)))
        elif isinstance(part, Slot):
            out += _part_spans(part.children) + _part_spans(part.else_children)
    return out


def _mostly_within(value: StrV, spans: list[tuple[int, int]]) -> bool:
    """Whether most of a string's literal text (by characters) lies in `spans`:
    the string is part of that prompt, not one sharing a value with it."""
    merged: list[list[int]] = []  # the spans, overlaps merged, by start: one bisect per literal
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    starts = [s for s, _ in merged]
    total = covered = 0
    for seg in value.segs:
        if isinstance(seg, Lit):
            total += len(seg.text)
            i = bisect.bisect_right(starts, seg.offsets[0]) - 1
            if i >= 0 and seg.offsets[0] < merged[i][1]:
                covered += len(seg.text)
    return total > 0 and 2 * covered >= total


def _keyed_entries(value: DictV, label: str, depth: int) -> list:
    """(label, key, value, node) of each entry of a dict of prompts, and of
    the dicts inside it that group them (up to `depth` levels)."""
    if not isinstance(value.node, cst.Dict):
        return []  # read from a data file (that file is a prompt file of its own) or built by a call
    keys = {literal_text(k) for k, _ in value.pairs if isinstance(k, StrV)}
    if keys & {"role", "content"}:
        return []  # one message, not a collection of prompts (sent as it is, where it is used)
    out = []
    for k, v in value.pairs:
        key = literal_text(k) if isinstance(k, StrV) else None
        if not key or k.node is None:
            continue
        if isinstance(v, DictV):
            if depth > 1:
                out += _keyed_entries(v, f'{label}["{key}"]', depth - 1)
            continue
        out.append((f'{label}["{key}"]', key, v, k.node))
    return out


def _has_text(sections: list[Section]) -> bool:
    def any_text(parts) -> bool:
        return any(isinstance(p, Text) and p.text.strip()
                   or isinstance(p, Slot) and (any_text(p.children) or any_text(p.else_children)) for p in parts)

    return any(any_text(s.parts) for s in sections)


def _dicts(node) -> list:
    """The dict and list literals inside a statement or expression (a
    message list built by a helper has no dict of its own here)."""
    found: list = []

    class Visitor(cst.CSTVisitor):
        def visit_Dict(self, n):
            found.append(n)

        def visit_List(self, n):
            found.append(n)

    node.visit(Visitor())
    return found


def _unfilled_style(value: StrV) -> str | None:
    """Text with nothing filled in yet is a template whose fields someone
    else fills ("auto": its placeholders are read); filled text is not."""
    return "auto" if not any(isinstance(seg, Slot) for seg in value.segs) else None


def _reads_as_prompt(value: StrV) -> bool:
    """Text that addresses a model, or a long text with template fields (in
    any language: `template_zh`), not a path or a setting."""
    text = _literal(value)
    if _instructions(text):
        return True
    if len(text) < MIN_TEMPLATE_TEXT:
        return False
    return any(item[0] == "field" for item in strs.scan_format(text) or []) or \
        BARE_DOLLAR_FIELD.search(text) is not None


def _literal(value: StrV) -> str:
    return "".join(s.text for s in value.segs if isinstance(s, Lit))


def _copy(parts: list) -> list:
    """Fresh part objects per prompt: rules tell slots apart by identity, and
    a constant used in two places would otherwise share its slots."""
    out = []
    for p in parts:
        if isinstance(p, Slot):
            out.append(dataclasses.replace(p, children=_copy(p.children), else_children=_copy(p.else_children)))
        elif isinstance(p, Breakpoint):
            out.append(Breakpoint(p.ttl, p.span))
        elif isinstance(p, Text):
            out.append(Text(p.text, p.span))
        else:
            out.append(p)
    return out


def _places(sections, file) -> frozenset:
    """Where in this file a prompt's text is written (each character of its
    literal text, and where each value enters): two prompts with the same
    places are the same text, reached two ways (filled or not)."""
    out = set()

    def walk(parts):
        for part in parts:
            span = getattr(part, "span", None)
            if span is not None and span.file is file:
                if isinstance(part, Slot):
                    out.add(-1 - span.start)  # (apart from the characters of text)
                else:
                    out.update(range(span.start, max(span.end, span.start + 1)))
            if isinstance(part, Slot):
                walk(part.children)
                walk(part.else_children)

    for section in sections:
        walk(section.parts)
    return frozenset(out)
