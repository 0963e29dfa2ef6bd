"""How real Python builds prompts (issue 12), reproduced in our own words in
tests/data/realworld_python/: builders nobody in the file calls, sections
accumulated in a class, a keyword value that is a clock, a serialised dict in
an adapter, agent SDK instructions, branches and early returns, values
imported from other modules, tool lists assembled at run time and template
files loaded by the code. Each file gives exactly its findings, at the
position of the volatile part."""

import json
from pathlib import Path


from promptlint.audit import run_audit, select_models
from promptlint.config import from_table
from tests.helpers import fixture_tree_tests, invoke

DATA = Path(__file__).parent / "data" / "realworld_python"

# (path, rule, line, column, severity) of every finding, and why it is right
EXPECTED = {
    # LangChain pipelines: a chat template piped into a model and configured
    # (`(PROMPT | model.with_structured_output(...)).with_config(...)`), run with a mapping of
    # inputs: the field takes the value the run passes (the request's body); a value passed through
    # by name is reported at the field it fills
    "pipelines/schema_edit.py": [("PL001", 15, 26, "error")],
    # a template invoked on its own (`prompt.ainvoke({...})`) whose system text is a settings
    # dataclass's field default from another module (`Configuration.from_runnable_config(config)`):
    # the inputs fill it, and the clock and the queries sit ahead of the conversation
    "pipelines/queries.py": [("PL001", 20, 24, "error"), ("PL001", 21, 28, "error")],
    "pipelines/prompts.py": [],
    "pipelines/configuration.py": [],
    # a prompt template kept as a field set in __init__, filled by a method of the app's own
    "pipelines/classifier.py": [("PL008", 16, 1, "info"), ("PL001", 19, 1, "warning")],
    # a constant named with the word first (TEMPLATE_INIT_...), read as a prompt because its text
    # addresses a model; TEMPLATE_DIR, a path, is not one
    "pipelines/codegen_prompts.py": [("PL001", 8, 1, "error")],
    # string.Template text in class attributes named with the word first, one per language:
    # `$question` opens each, ahead of the requirements
    "pipelines/answer_templates.py": [("PL001", 10, 46, "error"), ("PL001", 21, 43, "error")],
    # a YAML file of prompts a helper of the app reads by a written-out path (not followed: not in
    # the tree), its entries filled with .format; the system text reaches the model through the
    # wrapper's set_instructions(); the YAML itself is checked as a prompt file too
    "pipelines/assigner.py": [("PL001", 11, 26, "error"), ("PL008", 11, 56, "info")],
    "pipelines/prompts/agents/assigner.yaml": [("PL001", 2, 56, "error"), ("PL008", 5, 3, "info")],
    # a prompt constant filled in a nested helper into a local `prompt` and sent through a call we do
    # not read: the local variable is the prompt, each value passed through by name at its field
    # (the feedback comes from the graph's state, which its one caller here passes: per session)
    "pipelines/reflection.py": [("PL001", 9, 1, "error"), ("PL001", 14, 1, "warning")],
    # a prompt written into a local variable of a graph node and handed to another module's helper
    "pipelines/manager.py": [("PL001", 12, 2, "error")],
    # CrewAI: Agent(role=, goal=, backstory=) is a system prompt, Task(description=) the task message
    "pipelines/crew.py": [("PL001", 22, 47, "error")],
    # settings made from keywords (a TypedDict) whose template is the module's default, read back by
    # key; the trajectories passed through by name are reported at their field in that template
    "pipelines/optimizer.py": [("PL001", 9, 1, "warning")],
    # pydantic messages sent as dicts (.model_dump()): the context appended to the system text
    "pipelines/chat_llm.py": [("PL001", 16, 60, "error")],
    # a sliding window of the chat's last turns ahead of a fixed instruction filled by .populate()
    "pipelines/followup.py": [("PL001", 21, 50, "error"), ("PL001", 22, 47, "error")],
    # a builder's parameter named like a setting (company_name), which its callers here fill with a
    # command-line option (args.company of parse_args()): what the callers pass decides
    "scripts/stock_report.py": [("PL001", 16, 70, "warning")],
    # an app's own conversation object filled with add_system/add_user: the issue (a problem
    # statement, cleaned by a helper) is added before the fixed API description
    "threads/search_agent.py": [("PL001", 12, 24, "error")],
    # <<markers>> replaced with str.replace: the conversation, passed through by name, at its marker
    "threads/grader.py": [("PL001", 7, 1, "warning"), ("PL008", 21, 96, "info")],
    # handoff tools made from a set of names that the caller builds: no fixed order
    "threads/handoffs.py": [("PL002", 9, 83, "warning")],
    # a data URL made by a helper (a short wrapper around the encoded photo), named for what it is
    "threads/photo_items.py": [("PL001", 19, 56, "error")],
    # CrewAI fills {query} in the agent's texts and the task's description from kickoff(inputs=...)
    "pipelines/crew_query.py": [("PL001", 8, 69, "error")],
    # a fact store passed in, with a fallback for an empty one: the facts enter at their field, ahead of
    # the fixed output rules
    "memory/fact_merge.py": [("PL001", 7, 1, "error")],
    # the project's own template class given (role, text) pairs, as from_messages is
    "evals/choice_template.py": [("PL008", 6, 57, "info"), ("PL001", 8, 1, "error")],
    # a loop over a dataset that writes one request per row: each row's question differs per request
    # (also at module level, where values read at import would otherwise be fixed per process)
    "evals/batch_judge.py": [("PL001", 5, 1, "error")],
    # a computer-use agent's parsed screen, named for what it is, ahead of the fixed action rules
    "agents/screen_agent.py": [("PL001", 17, 85, "error")],
    # one of two prompts chosen per question: inside the chosen one, the question sits ahead of that
    # prompt's fixed rules (each branch is cached apart)
    "agents/plot_or_table.py": [("PL001", 17, 120, "error")],
    # a game state described by if/else arms on the latest observation, a table entry chosen by the
    # last action and the score: the helper's text enters at its call in the system prompt
    "agents/fighter.py": [("PL001", 30, 2, "error")],
    # the same, read from a framework's session store through a flatten() helper; the fixed tools after
    # them are what the app stored under their key at chat start
    "threads/mcp_store.py": [("PL002", 20, 25, "error")],
    # an endpoint fills the schema the request carries into the system prompt: a field of the request
    # is per request, whatever it is called (`jsonSchema` names no setting here)
    "extract/schema_update.py": [("PL001", 14, 41, "error")],
    # the Agents SDK's instructions given as a function: what it returns on each run
    "agents/dynamic_instructions.py": [("PL001", 8, 37, "error")],
    # Gemini's GenerativeModel(system_instruction=...) is the system prompt of the calls it makes
    "agents/gemini_model.py": [("PL001", 10, 56, "error")],
    # a LangChain chat model invoked with one written-out string: a user message
    "chains/invoke_text.py": [("PL001", 10, 37, "error")],
    # Haystack's PromptBuilder and ChatPromptBuilder (ChatMessage.from_system/from_user): Jinja templates
    "retrieval/haystack_rag.py": [("PL001", 8, 1, "error"), ("PL001", 22, 41, "warning")],
    # Semantic Kernel's inline prompt function: its {{$variables}} are fields (no evidence for audience)
    "scripts/sk_function.py": [("PL008", 9, 47, "info")],
    # a tool list a function rebinds through `global` while the agent runs: it changes within a session
    "agents/self_tools.py": [("PL001", 23, 86, "warning")],
    # an object that keeps the conversation (appended in chat()) sends it after a system prompt with the
    # time: every turn re-sends the history uncached
    "convo/kept_history.py": [("PL001", 14, 35, "error")],
    # a CrewAI task built by a factory method: its parameters are what the run was given
    "pipelines/crew_factory.py": [("PL001", 11, 39, "error")],
    # prompty.execute("x.prompty", inputs={...}): the Prompty file rendered with the inputs, each value at
    # the input that passes it (the file itself is checked as Prompty too)
    "prompty_app/products.py": [("PL001", 10, 28, "error")],
    "prompty_app/products.prompty": [("PL001", 14, 1, "error")],
    # a Prompty file's loop over the entries found for the question: they enter at the argument that
    # passes them, in the code (the file alone cannot tell what they are: info)
    "prompty_app/answer.py": [("PL001", 12, 56, "error")],
    "prompty_app/answer.prompty": [("PL008", 16, 1, "info")],
    # a template read in __init__ inside `with path.open() as f:`, filled with str.replace()
    "judges/math_judge.py": [("PL001", 16, 55, "error"), ("PL001", 16, 88, "error")],
    # a reply hook that returns another module's template filled with the order found in the chat:
    # a function returning a prompt constant filled is a builder, whatever its name
    "orders/utils.py": [("PL001", 13, 40, "error")],
    # the template alone, in a module of prompts: {order} has no evidence of its own, but the module
    # that fills it (utils.py) passes the order found in the chat: per request
    "orders/prompts.py": [("PL001", 3, 80, "error")],
    # templates of a prompts module filled only by another module (`from . import prompts`,
    # `TaskPrompts.triage().format(...)`): each field takes what the fill site passes (the request's
    # text); a field filled with a setting is fixed, not an undeclared input
    "fills/prompts.py": [("PL001", 4, 49, "error"), ("PL001", 21, 31, "error"), ("PL001", 30, 51, "error")],
    "fills/desk.py": [],
    # ... or a LangChain pipeline made from it (`PromptTemplate.from_template(T) | llm`), run with a dict
    "fills/escalate.py": [("PL001", 9, 37, "error")],
    # a function that sends one prompt (to an expert model) and hands another to a runner of another
    # module: the second is a prompt of its own, with the clock the function reads (per request)
    "planner/expert_then_plan.py": [("PL001", 15, 36, "error"), ("PL008", 16, 20, "info")],
    # system messages put together by a method the others return through (`self._messages(...)`),
    # each text's lines joined into one: the clock closes the first message, ahead of the second's rules
    "assistant/call_center_prompts.py": [("PL001", 31, 18, "error")],
    # a clock moved by a timedelta and formatted as a date: once a day (info), not per request
    "dates/yesterday_classifier.py": [("PL001", 11, 33, "info"), ("PL001", 11, 64, "info")],
    # a template read through its module (`from . import prompts`), after the clock
    "fills/reply.py": [("PL001", 11, 25, "error")],
    # an entry of a table the module holds, looked up by the user's id, is that user's
    "bookings/support_agent.py": [("PL001", 18, 34, "warning")],
    # a comprehension's pages enter the text at its element, written before its `for`
    "crawlchat/appendix_chat.py": [("PL001", 9, 27, "warning")],
    # agno's Agent(add_datetime_to_context=True) writes the time into its system message, ahead of
    # the expected output: reported at the switch
    "agno_agents/research.py": [("PL001", 18, 29, "error")],
    # a chat template filled with format_messages and handed to the app's own model wrapper
    "argparser/tool_args.py": [("PL001", 12, 28, "error")],
    # PromptTemplate(template=...) made and filled in the function: read filled ({instruction} is the
    # local text passed to it), not also unfilled
    "sections/survey_writer.py": [("PL008", 12, 29, "info"), ("PL001", 12, 68, "error")],
    # a subclass reads self.instruction as its base class's __init__ set it (a file loaded once): clean
    "webagent/constructor.py": [],
    # a tool loop that rewrites its system message each pass, ahead of the messages the run has
    # gathered: every pass re-sends them uncached (the task, set before the loop, is the same each pass)
    "react_loop/agent.py": [("PL001", 15, 60, "error")],
    # an agent's steps: the question it was called with is the same on every pass that gathers the
    # history, so the passes share the prefix up to the history (no finding) ...
    "react_loop/steps.py": [],
    # ... while a retry loop gathers nothing: the question still keeps the rules after it uncached
    "react_loop/retries.py": [("PL001", 7, 28, "error")],
    # the task set before an agent's loop (sent through the class's own wrapper method) stays the
    # same on every pass, though the loop rewrites `messages[-1]` (what a pass appended) past the
    # context limit: clean
    "react_loop/context_limit.py": [],
    "react_loop/research_prompt.py": [],
    # a function nothing in its module calls: its parameters take what the tree's other modules pass
    # (routes.py: the fields of the incoming request)
    "characters/generator.py": [("PL001", 6, 39, "error"), ("PL001", 6, 56, "error"), ("PL001", 6, 77, "error")],
    # random.shuffle(packages) before the list is joined into the system prompt: a new order every call
    "shuffled/packages.py": [("PL002", 11, 43, "error")],
    # a LlamaIndex QuestionAnswerPrompt kept as self.qaprompt (a short word glued to "prompt")
    "llamaqa/search.py": [("PL001", 11, 14, "error")],
    # `messages += [...]` in an except arm, then messages.append(...): the appended message is sent
    # too (the question again, ahead of the fixed answer rules)
    "reformulate/final_answer.py": [("PL001", 15, 57, "warning"), ("PL001", 17, 55, "warning"),
                                    ("PL001", 18, 73, "error")],
    # MCP tools kept in a session mapping filled as each server connects (an empty default is only
    # what the first request finds), flattened in that order into tools=
    "threads/mcp_chat.py": [("PL002", 18, 42, "warning")],
    # a date from another module, formatted as a date: it changes once a day (info)
    "scripts/receptionist.py": [("PL001", 9, 86, "info")],
    "scripts/calendar_state.py": [],
    # a script's company from the command line (sys.argv, read at import): per process start
    "scripts/company_report.py": [("PL001", 11, 56, "warning")],
    # prompts kept in a dict grouped by stage, and a table of task templates (`dataset2prompt`)
    "registry/nested_prompts.py": [("PL001", 10, 44, "error"), ("PL001", 11, 27, "error"),
                                   ("PL001", 21, 62, "error")],
    # the previous and this step of an agent run ahead of the fixed extraction rules
    "agents/step_extractor.py": [("PL001", 14, 63, "warning"), ("PL001", 14, 101, "error")],
    # a per-turn code context as a system message ahead of the conversation the object keeps
    # (self._messages, reassigned and appended to by its methods)
    "agents/code_context.py": [("PL001", 21, 51, "error")],
    # each task's tools gathered in a set and handed on as list(tools): no fixed order
    "agents/turn_tools.py": [("PL002", 10, 50, "warning")],
    # a local `full_prompt` put together from prompt constants, sent through the app's own client
    "retrieval/contextualizer.py": [("PL001", 8, 1, "error")],
    # documents formatted by a helper (list() filled in a loop, joined) and passed by name to a
    # chain: reported at the field the name fills
    "retrieval/formatted_docs.py": [("PL001", 8, 1, "error")],
    # a module constant built at import with the time from a short helper: it differs in every
    # process (each run of the agent), so a warning at the f-string field that calls the helper
    "pipelines/autonomous.py": [("PL001", 14, 8, "warning")],
    # the uploaded video, as a data URL, ahead of the fixed instructions of the same message
    "pipelines/video.py": [("PL001", 21, 60, "error")],
    # a builder function nobody in the file calls: the clock inside its f-string
    "assistant/templates.py": [("PL001", 7, 48, "error")],
    # parts.append / text += / "\n\n".join(parts): the clock read three lines earlier,
    # reported where it enters the text
    "assistant/context.py": [("PL001", 14, 43, "error")],
    # SYSTEM_PROMPT.format(system_time=datetime.now(...).isoformat()): the value decides, not `format`
    "assistant/graph.py": [("PL001", 16, 47, "error")],  # at the argument: where the clock enters the prompt
    # messages[-1] of the conversation is this turn's (retrieved documents): formatted into the
    # system message ahead of the history, it throws the conversation's prefix away every turn; the
    # joined documents are passed through by name, so they are reported at the field they fill
    "retrieval/answer.py": [("PL001", 10, 1, "error")],
    # a conversation the code receives (a voice pipeline's context, chat_ctx.items): memories or
    # passages found for this turn inserted after the system prompt, or appended to its text, sit
    # ahead of the whole history; reported where each item enters the text. An insert at
    # len(messages) appends, one before the last user turn (found searching from the end) is by
    # the current turn, and the caller's profile changes no more often than the history
    "voice/recall.py": [("PL001", 18, 29, "error")],
    "voice/lookup_node.py": [("PL001", 18, 29, "error"), ("PL001", 30, 48, "error")],
    # the same added to the system message's text through templates of a dict per language (read
    # by its first entry): reported at the wrapper's field the joined items fill
    "knowledge/prepend.py": [("PL001", 18, 73, "error")],
    "knowledge/locale.py": [],
    # LlamaIndex's ChatPromptTemplate(message_templates=[ChatMessage(role=MessageRole.SYSTEM, ...)]):
    # every message is a template, its role named by the enum
    "codedocs/templates.py": [("PL001", 10, 6, "error")],
    # the system text a helper returns, wrapped in the framework's TextContent(text=...)
    "codedocs/step.py": [("PL001", 12, 2, "warning")],
    # a module-level dict a tool function fills while the app runs is state, listed near the top
    # of the system prompt (a registry the module fills at import is not); the per-call turn
    # number stays in the helper, not moved onto the state's line
    "cli/engineer.py": [("PL001", 36, 56, "warning"), ("PL005", 36, 89, "info")],
    # LLMChain(prompt=TEMPLATE) of another module, run with a dict of inputs: the goal enters at
    # the dict's value; the template's own module reports its field where nothing fills it
    "chains/code_tool.py": [("PL001", 11, 42, "error")],
    # a service method given a Jinja file by its path under templates/ and the values by keyword
    # (private-gpt's layout): the builder is read for the file it renders, the question enters at
    # its argument, ahead of the history the template loops over
    "summaries/builder.py": [("PL001", 12, 23, "error")],
    "chains/prompts.py": [("PL001", 7, 44, "error"), ("PL008", 9, 61, "info")],
    # json.dumps of call data without sort_keys ahead of fixed instructions (a user message follows):
    # under 64 stable tokens and no conversation to lose, an info (PL005)
    "adapters/tool_calls.py": [("PL005", 13, 66, "info")],
    # Agent(instructions=...) of an agent SDK
    "agents/planner.py": [("PL001", 18, 34, "error")],
    # Google ADK's Agent(global_instruction=..., instruction=...): the global one comes first
    "agents/adk_team.py": [("PL001", 22, 85, "error")],
    # if/else: the timed arm wins; the early return's prompt has no stable text after it
    "research/branches.py": [("PL001", 9, 41, "error")],
    # constants imported from another module of the tree (absolute, relative, a class attribute,
    # `module.NAME`): their text counts as the stable text after the per-user tier, reported at the value that fills the field
    "helpdesk/chat/system.py": [("PL001", 9, 50, "warning")],
    "helpdesk/prompts/sections.py": [],
    # a tool offered only while the page can scroll: the list changes with the viewport
    "browser/surfer.py": [("PL001", 22, 9, "error")],
    # the same on a client whose create() takes the messages first (AutoGen): UserMessage objects,
    # a history item popped from a list not followed, imported UPPER_CASE tools (constants, not
    # "history"), and the prompt tidied by re.sub
    "browser/team_surfer.py": [("PL001", 36, 13, "error")],
    # a tool list grown under a setting, or a literal list: deterministic; a plugin folder's listing
    # and tools gathered as the servers answer: their order changes between requests
    "agents/toolbox.py": [("PL002", 41, 26, "error"), ("PL002", 49, 17, "error")],
    "agents/settings.py": [],
    # a model object that takes the messages first (smolagents' generate, LlamaIndex's chat)
    "agents/stepper.py": [("PL001", 17, 35, "error")],
    # template files the code loads (Path(__file__).parent / ..., os.path.join + open, a Jinja
    # environment's get_template): the fields get the volatility of what the call passes, reported at that argument
    "release/agent.py": [("PL005", 14, 74, "info"), ("PL005", 20, 58, "info"), ("PL005", 29, 63, "info")],
    # a clock read in a class's __init__ and kept on the object is read once per object: at the end
    # of a conversation object's system prompt it loses nothing (info); ahead of a long fixed brief
    # it still starts a prefix each object (session) alone uses (warning), not one per request
    "made_once/assistant.py": [("PL005", 16, 24, "info"), ("PL001", 38, 47, "warning")],
    "made_once/prompts.py": [],
    "made_once/__init__.py": [],
    # a LiveKit agent gives its instructions to super().__init__; they come from a builder of another
    # module that reads a prompt file from a folder the environment may move (the repository's own by
    # default; its `except OSError: return ""` is the error path, not the prompt) and fills its
    # `{{CURRENT_DATE_CONTEXT}}` with two .replace calls: the time is per request in the builder, per
    # object (session) where the agent's __init__ calls it; the date alone is once a day (info)
    "voice_agent/agent.py": [("PL001", 11, 26, "warning")],
    "voice_agent/settings.py": [("PL001", 22, 33, "info"), ("PL001", 23, 44, "error"), ("PL008", 23, 56, "info")],
    "voice_agent/prompt/default.md": [("PL001", 3, 62, "error")],
    # a prompt file in a folder a setting names (unknown text) filled with the clock: what its loader's
    # `except OSError: return ""` gives is the failure, not the prompt; the clock stays in the system text
    "voice_agent/remote.py": [("PL005", 21, 60, "info")],
    # a template file loaded at import by a helper given its name (`ANSWER = load_prompt("answer.txt")`):
    # reported at the call that names the file, not inside the helper every load shares; a template of
    # another module bound with PromptTemplate(partial_variables={...}): at the value that fills the field
    "loaded/prompts.py": [("PL001", 12, 19, "error")],
    "loaded/prompts/answer.txt": [("PL001", 3, 11, "error"), ("PL001", 6, 1, "error")],
    "loaded/letters.py": [("PL001", 18, 30, "error")],
    "loaded/templates.py": [],
    "loaded/__init__.py": [],
    # a builder choosing between two constants, one of which the module also sends through it
    # (`SYSTEM_PROMPT = get_system_prompt(is_lead=True)`): the other branch stays a prompt of its own
    "branches_kept/prompts.py": [("PL001", 18, 1, "error")],
    "release/prompts/system.md": [],
    "release/prompts/agent.j2": [],
    # functions of another module inlined where they are called (a RAG chat service): the retrieved
    # chunks go through fit_in() of the prompts package and stay where they are written; the
    # citation rules come from citation_prompt(), which renders a prompt file its module loads at
    # import through a memoising load_prompt(); a static method's text; and a model wrapper's
    # chat(system, history) with the history as msg[1:]; the messages of `history` spliced after the
    # system message are the conversation so far, so the chunks at the end of it cost the history too
    # (app_config.system_template: a template, fixed text, by its name)
    "knowledge/service.py": [("PL001", 9, 87, "error"), ("PL001", 18, 22, "error")],
    "knowledge/prompts/generator.py": [("PL001", 27, 16, "info")],  # a builder reading a prompt constant
    # a system template each app configures (text we cannot read) filled through **kwargs, with the
    # retrieved knowledge put in kwargs["knowledge"] first: reported at the fill, where the
    # knowledge enters the text, though the text then goes through fit_in() of another module
    "knowledge/configured.py": [("PL001", 9, 62, "error")],
    # item assignment: a loop that rewrites messages[0]["content"] each step, and format values
    # gathered in a dict (values["now"] = time.strftime("%c")) then passed as **values; the steps
    # a name passes through are reported at the field they fill
    "agents/rewrite.py": [("PL001", 9, 17, "error"), ("PL005", 14, 19, "info")],
    # prompt templates a subclass loads from a YAML file of its package (importlib.resources) and
    # passes to super().__init__; the base class renders them with the run's task (smolagents'
    # layout); a JSON file of replies read through a file handle; `a or b` with `a` an input
    "planner/agents.py": [("PL001", 26, 95, "error"), ("PL005", 41, 70, "info")],
    "knowledge/prompts/loader.py": [],
    # prompt files loaded by their bare name: by a loader of the package that builds the path at
    # run time (Voyager's load_prompt("action_template")) and by a prompt engine we cannot read,
    # given the values by keyword (Skyvern's prompt_engine.load_prompt(template="summary",
    # block_cnt=...)); a LangChain message template filled by .format(programs=...); a file
    # helper's text (load_text) fixed per release; a prompt handed to a model wrapper as prompt=
    "runs/agent.py": [("PL001", 20, 45, "error"), ("PL001", 29, 19, "error")],
    "runs/prompts/action_template.txt": [("PL008", 3, 1, "info")],
    "runs/prompts/summary.j2": [("PL008", 1, 39, "info")],
    "runs/prompts/__init__.py": [],
    # a conversation helper that renders an agent's prompt file by name (gpt-pilot's
    # convo.template("implement_changes", ...)): of two files with that name, the one in the folder
    # named like the module; the model object called with the result; Gemini's generate_content
    # with its system_instruction; LlamaIndex's llm.complete(prompt)
    "convo/code_monkey.py": [("PL001", 13, 23, "error")],
    "convo/prompts/code-monkey/implement_changes.prompt": [("PL008", 2, 60, "info")],
    "convo/prompts/reviewer/implement_changes.prompt": [],
    "convo/travel.py": [("PL001", 22, 78, "error"), ("PL001", 27, 38, "error")],
    # self.current_page, set to "" in __init__ and assigned again in navigate(): it changes as the
    # agent browses (agenticSeek's browser agent), as its name says
    "browser/navigator.py": [("PL001", 17, 11, "error"), ("PL001", 18, 2, "error")],
    # LangChain's PromptTemplate.from_file of a package resource, formatted with a ** dict whose
    # clock has seconds (a desktop agent's layout); the Markdown file is also a prompt of its own
    "desktop/prompt.py": [("PL001", 14, 33, "error")],
    "desktop/system.md": [("PL001", 3, 30, "error")],
    # messages made by abstract role helpers (self.system_message(text)) of a base class: the
    # list is the prompt, each text in its role (vanna's VannaBase.get_sql_prompt)
    "retrieval/sql_base.py": [("PL001", 22, 40, "error")],
    # a message helper of another module that branches on an optional argument (the default
    # decides the arm); a schema parsed from JSON text keeps its key order; a conversion method
    # (post_to_raw_text) and a *_template say nothing that changes: only the clock is reported
    # the helper returns a label and the clock: the clock enters the prompt at the f-string field
    "codegen/generator.py": [("PL001", 24, 53, "error")],
    "codegen/chat.py": [],
    # lists named for tools filled in an order that changes (a set of configured names, a folder's
    # glob), which a base class or another module sends: the loop is reported; sorted() or a
    # list keeps the order (R2R's _register_tools, shell_gpt's function folder)
    "registry/rag_agent.py": [("PL002", 11, 26, "warning")],
    "registry/plugins.py": [("PL002", 11, 46, "warning")],
    # a helper that rebinds its parameter (`initial_prompt += ...; return initial_prompt`), inlined
    # where it is called: the retrieved docs it appends stay in the prompt (vanna's add_*_to_prompt);
    # the list the method returns is one prompt, not two. Called twice, the helper's part is told by
    # the argument that brings it: the docs at theirs; the tables, which another call brought in
    # with the text built so far, not at the docs' argument
    "retrieval/sql_context.py": [("PL008", 9, 25, "info"), ("PL001", 17, 81, "error")],
    # a helper that fills an optional argument only when the caller passes none (mem0's
    # _resolve_dates): the caller's timestamp reaches the prompt, the fallback date is the other arm
    "knowledge/extraction.py": [("PL001", 16, 41, "error")],
    # a call we cannot follow, given the question: what it returns changes with it
    "knowledge/search.py": [("PL001", 15, 42, "error")],
    # search results accumulated in a loop (`prompt = prompt + ... + text`), the text cut to a
    # limit (`prompt[0:limit]` keeps its head) and, in the other arm, the question alone: the arm
    # the cache fares worst with is the prompt; the citation counter is the same on every request
    "websearch/answer.py": [("PL001", 10, 53, "error")],
    # a module-level mapping of prompts by name (PROMPTS["community_summary"] = "..."), and a
    # model callable from the config named like one (use_llm_func(prompt))
    "graph/prompts.py": [("PL001", 8, 1, "error")],
    "graph/reports.py": [("PL001", 8, 41, "error")],
    # templates of another module filled with str.replace, in nested if/else arms merged from the
    # inside out (the arm with the clock is found though another arm binds the name last); a name
    # rebound in an `async for` body is not carried into the iterable, which is read once
    "docqa/answer.py": [("PL001", 18, 54, "info"), ("PL001", 18, 80, "error")],
    "docqa/settings.py": [],
    # a template constant a builder returns unfilled: its fields are the caller's to fill
    "memory/templates.py": [("PL001", 2, 1, "error")],
    # a sliding window of the history (history[-3:]) drops a turn each time: per request, ahead
    # of the fixed instruction; the model object called with the message list
    "followup/suggest.py": [("PL001", 13, 50, "error"), ("PL001", 14, 47, "error")],
    # what the assistant replied and the prompt an optimiser works on change per call
    "judges/templates.py": [("PL001", 10, 14, "error"), ("PL001", 21, 24, "error"), ("PL008", 22, 10, "info")],
    # a Streamlit script runs from the top on every interaction: its widgets' values are per request
    "storyapp/app.py": [("PL001", 10, 23, "error"), ("PL001", 10, 44, "error"), ("PL001", 10, 59, "error")],
    # a method that hands its parameter to the model call: what callers pass it is the prompt
    "react/completion.py": [("PL008", 15, 46, "info"), ("PL001", 15, 74, "error")],
    # a module named for its prompts: its constants that read as instructions are prompts, whatever
    # their names (`REACT`), and are reported where they are written
    "react/prompts.py": [("PL001", 1, 18, "error"), ("PL008", 3, 1, "info")],
    # text another module's helper returns, with a clock: reported where it enters the f-string
    "coder/system.py": [("PL001", 7, 4, "error")],
    "coder/clock.py": [],
    # few-shot demos from a saved program (json.load of a shipped file, or a constant): fixed
    "rerank/filter.py": [],
    "rerank/saved.py": [],
    # LangGraph's state.messages is the conversation: the clock formatted into the system message
    # ahead of it throws the history away on every turn
    "reactgraph/graph.py": [("PL001", 9, 55, "error")],
    # a parameter whose default is a template constant of another module: the function's prompt
    "qachain/answer.py": [("PL001", 6, 40, "error")],
    "qachain/shared/constants.py": [("PL001", 4, 1, "error")],
    "qachain/shared/__init__.py": [],
    # a Jinja file found by its name one folder down (prompts/templates/), rendered with this
    # cycle's messages (joined in the argument: the value enters the prompt there)
    "layers/layer.py": [("PL001", 9, 70, "warning")],
    "layers/prompts/templates/layer_instructions.md": [("PL001", 5, 1, "error")],
    "layers/paths.py": [],
    # few-shot tool calls get a fresh uuid as their id: the example messages differ per request
    # (the examples' own fields stay fixed)
    "extract/fewshot.py": [("PL001", 15, 21, "error"), ("PL001", 17, 46, "error")],
    # a grader's template filled from a sample's metadata: a fallback (`meta.get("q") or x`,
    # `(meta or {}).get("r", "")`) and a choice of which answer goes first only read values, so
    # each is reported at the template field it fills
    "judges/pairwise_grader.py": [("PL001", 7, 13, "error"), ("PL001", 9, 11, "error")],
    # a short labelled value chosen by a conditional (`shown = ("Instruction: " + x) if x else ""`)
    # enters the prompt at the f-string field, like a helper that returns one
    "agents/user_simulator.py": [("PL001", 9, 64, "error")],
    # a project helper given the user text as `msg=` beside `system_message=`
    "scripts/citation_round.py": [("PL001", 12, 1, "error"), ("PL001", 15, 1, "error")],
    # Open WebUI: the template is a Valves setting made from a mapping; a tool's output (a callable
    # picked at run time says nothing of its result) replaces {{CONTEXT}}, and
    # add_or_update_system_message puts the result ahead of the conversation
    "pipelines/valves_context.py": [("PL001", 20, 1, "error")],
    # a template in a local `*_INSTRUCT` variable, the references joined in the argument that fills it
    "retrieval/sure_instruct.py": [("PL001", 21, 50, "error")],
    # a membership test on a set of tool names reads the same in any order: no finding
    "agents/toolkit_sections.py": [],
    # a step that sets the first message's text outright (`messages[0]["content"] = ...`): the
    # template from another module with the portfolio serialised into its marker, unsorted keys
    "convo/portfolio_state.py": [("PL001", 13, 28, "error")],
    "convo/prompts.py": [("PL008", 2, 1, "info")],
    # a conversation gathered newest first and sent reversed (`messages[::-1]`): the system message
    # appended last goes first, its clock ahead of the whole history
    "convo/newest_first.py": [("PL001", 14, 78, "error")],
    # a conversation handed in (a caller's `message` into `def with_context(self, messages)`): its
    # first message is the client's system prompt, fixed; the chunks retrieved for this turn at the
    # end of it go ahead of the rest of the conversation, which every turn then re-sends
    "voice_kb/agent.py": [("PL001", 27, 2, "error")],
    # the request body's messages (the conversation the client sends, again each turn) spliced after
    # a system template whose context block a tool's result fills
    "pipes/context_filter.py": [("PL001", 10, 5, "error")],
    # an UPPER_CASE template imported from another module of the tree (not named as a prompt, read
    # as one by its text), copied and filled with `.replace` by a helper nothing here calls
    "evalkit/apply_templates.py": [("PL001", 16, 51, "error"), ("PL008", 17, 50, "info")],
    "evalkit/templates/multiple_choice.py": [],
    # a list of prompts, one per item (`[T.format(CONCEPT=c) for c in concepts]`), from a template
    # imported with `from .concept_templates import *` and handed to a helper we cannot read: each
    # item's value is per request, ahead of the template's fixed instructions
    "evalkit/genres.py": [("PL001", 7, 49, "error")],
    "evalkit/concept_templates.py": [],
    # resume-writer templates kept as constants: the applicant's details (per user) and the job
    # posting (per request), each ahead of fixed HTML instructions
    "careers/resume_prompts.py": [("PL001", 23, 3, "warning"), ("PL001", 31, 3, "error"),
                                  ("PL008", 34, 3, "info")],
    # pydantic-ai's `@agent.instructions` / `@agent.system_prompt`: the function's text is the system
    # prompt, and the run's message history follows it; chunks retrieved per query at the end of the
    # instructions cost that history on every turn; a plain `@agent.system_prompt` runs once per
    # conversation (a clock in it is fixed for it) and a fixed one says nothing: no finding
    "pydantic_rag/agent.py": [("PL001", 38, 22, "error")],
    # a system prompt built on the object (`self.system_prompt = ""`, then `+=` part by part) in the
    # method that sends it, from templates kept one per language (`KNOWLEDGE_TEMPLATE[lang]`, read by
    # the first): the reference document goes ahead of the role's fixed instructions
    "roleplay/agent.py": [("PL001", 11, 1, "error"), ("PL008", 21, 1, "info")],
    # a hook that prepends a message to the conversation it is handed (`q.messages = [m] + q.messages`):
    # the request's documents go ahead of the whole history
    "convo/memory_prepend.py": [("PL001", 9, 63, "error")],
    # the same through a @staticmethod helper called as `self._format_block(found)`: no `self` to
    # skip, its first parameter is what the call passes (the search results, per request)
    "convo/memory_static.py": [("PL001", 25, 32, "error")],
    # messages replayed one per item with the item's own role (a reply chain: the history), then the
    # configured system prompt (text we cannot read) with the time put into it by .replace(), trimmed,
    # appended last and sent reversed through a keyword dict: the time is ahead of the whole chain
    "convo/chat_bot_reply.py": [("PL001", 19, 23, "error")],
    # messages inserted first into a conversation reached by a string key (`kwargs["messages"]`):
    # a pydantic schema dumped unsorted keeps its declaration order (no finding), a clock breaks
    "convo/json_mode.py": [("PL001", 21, 77, "error")],
    # a builder returning its two texts as a pair (`return sys_prompt, query_text`): system, then user;
    # a pair whose names say no roles (`return test_prompt, full_prompt`) is not one
    "agents/prompt_pair.py": [("PL001", 8, 69, "error")],
    # a template read from a resource root of the app's own (`data_path / "safety" / "x.txt"`, a path
    # object we cannot place): the written-out tail names one file of the tree, its {prompt} the request's
    "probes/safety_probe.py": [("PL001", 18, 86, "error")],
    "probes/resources/safety/polish_template.txt": [("PL001", 1, 23, "error")],
    # templates a helper __init__ calls reads into self (a custom one from the settings in the other
    # arm), sent as the framework's own Turn("system", Message(text)) / Turn(role=, content=Message(text=))
    # conversations, one of them through a helper that wraps its argument (`prompt=conv`)
    "probes/goal_attack.py": [("PL001", 34, 62, "error"), ("PL001", 42, 61, "error")],
    "probes/resources/attack/attacker_system.txt": [("PL001", 2, 1, "error")],
    "probes/resources/attack/softer.txt": [("PL001", 1, 10, "error")],
    # an image part is not text: its JSON wrapper is no stable text after the values ahead of it
    "evals/screenshot_judge.py": [],
    # a judge prompt written in Chinese (`你是...`, `请判断`, `JSON格式`), kept in a local named `prompt` and
    # handed to the app's own client: the question and both answers ahead of the fixed judging rules
    "evals/answer_judge_zh.py": [("PL001", 7, 13, "error"), ("PL001", 10, 10, "error"), ("PL001", 13, 10, "warning")],
    # a template constant filled in another module through PromptTemplate(template=..., input_variables=...)
    # with what a web route's caller passes (a query parameter: each request's own)
    "newsdesk/prompts.py": [("PL001", 2, 34, "error")],
    "newsdesk/answer.py": [("PL001", 12, 59, "error")],
    "newsdesk/api.py": [],
    # a task brief filled inside a loop over items of data (`for section in json.loads(outline)`):
    # each pass sends a different section ahead of the fixed instructions
    "newsdesk/briefs.py": [("PL001", 7, 41, "error")],
    "newsdesk/desk.py": [],
    # a route parameter the framework injects (`style = Depends(house_style)`) is no request input
    "newsdesk/headlines.py": [],
    # a file of prompts a loader gives by its bare name (`get_prompt("search")` reads
    # prompt/search.yaml, its path built at run time), indexed by key and filled with the time to
    # the second, handed as `messages=` text to the app's own model helper
    "deepsearch/reasoning.py": [("PL001", 14, 14, "error")],
    "deepsearch/prompts.py": [],
    "deepsearch/prompt/search.yaml": [("PL001", 8, 19, "info")],
    # an MCP server's prompt: the client passes its arguments on every prompts/get
    "notes_mcp/recent.py": [("PL001", 12, 31, "error")],
    # a name holding what a helper of the app's returned (`table = read_board(...)`) enters the
    # prompt at the f-string field, as the call itself would
    "games/board_worker.py": [("PL001", 16, 40, "error")],
    # a module-level prompt built at import: a helper of another module that looks up the location,
    # like the clock, is read once per process
    "voice/boot_prompt.py": [("PL001", 6, 59, "warning"), ("PL001", 7, 31, "warning")],
    "voice/locate.py": [],
    # a vision model given messages (`vision_model.call([...])`) of the app's own message class,
    # its content first (`Message([image, text], role="user")`): the screenshot ahead of the
    # fixed instructions
    "desktop/screen_agent.py": [("PL001", 18, 43, "error")],
    # what the knowledge-graph search found (`{{graph_knowledges}}`) is the request's
    "knowledge/clarify_prompt.py": [("PL001", 6, 1, "error")],
    # a helper of the app's given the system text by a `system_*` keyword (`system_query=`), built by
    # another module's static method that puts the observation time first
    "kg/atom_extract.py": [("PL001", 13, 26, "error")],
    "kg/prompts.py": [("PL001", 6, 39, "error")],
    # a benchmark's environment object: `env.research_problem` is the run's task, not a setting
    "bench_agent/research.py": [("PL001", 5, 19, "warning")],
    # the people in the thread (`{users}`) ahead of the assistant's rules: per conversation
    "slackbot/prompts.py": [("PL001", 3, 51, "warning")],
    # a file a helper rebuilds line by line (`kept += line + "\n"`, its header dropped) is that file:
    # it enters the imported template at the `.replace(...)` that puts it in
    "buildfix/fixer.py": [("PL001", 28, 60, "error")],
    "buildfix/templates.py": [],
    # templates of a module of prompts kept in lower-case names and a table of them; the module's
    # `if __name__ == "__main__":` demo fills one with literals, which does not stand for the app's use
    "judges/judge_prompts.py": [("PL001", 10, 10, "error"), ("PL008", 11, 15, "info")],
    # a helper that hands its parameter to a loader we cannot read (`_load_prompt_text(name)` calling
    # `load_prompt(name)`): the file is found by the name the call passes, and the time put in by
    # `.replace` is reported at that argument
    "companion/inner_state.py": [("PL001", 16, 27, "error")],
    "companion/prompts/state_update.txt": [("PL001", 3, 15, "error")],
    # a builder whose every branch returns a result object made with the prompt first
    # (`return PromptResult(system_prompt, [...])`): one prompt per branch
    "agents/result_builder.py": [("PL001", 16, 38, "info"), ("PL001", 17, 2, "error"),
                                 ("PL001", 20, 34, "info"), ("PL001", 21, 2, "error")],
    # the deployment's settings downloaded by a fixed name (`download_file(CONFIG_FILE_NAME)`): fixed
    "assistant/blob_config.py": [],
    # a request dict written out here, its system message inserted first into its own list: no
    # conversation is handed in, so nothing after it is a history
    "assistant/vision_payload.py": [],
    # a private loader given a file name in full (`_load_template("system.md")`), whose body we cannot
    # follow (a cache filled from package resources): the file is found in the package's prompt folder
    # (a future's `.result()` of `executor.submit(desktop.get_windows_version)` is that function's
    # result: the Windows version, per release)
    "desktop_agent/context.py": [("PL001", 22, 37, "error"), ("PL001", 22, 91, "info")],
    "desktop_agent/prompt/system.md": [("PL001", 1, 6, "error"), ("PL008", 2, 18, "info")],
    # what a model answered (`client.models.generate_content(...)`, its `.text` cleaned with a fallback,
    # returned by a helper and passed on by the caller) is per request whatever it is named: the
    # exhibit named from a photo, ahead of the tour's fixed instructions
    "photoguide/museum.py": [("PL001", 5, 88, "error")],
    "photoguide/settings.py": [],
    # a builder of another module given the user's name (what the caller passes says so: the student's
    # first name): the prompt it returns changes per user, reported where this module puts it in
    "pals/persona.py": [("PL001", 3, 57, "warning"), ("PL001", 3, 71, "warning")],
    "pals/chat.py": [("PL001", 10, 47, "warning")],
    # a helper called once per item of a loop over data (`for item in parsed_items: self._plan(item)`):
    # what it puts in the prompt of the item (`item["kind"]`) differs from one request to the next,
    # in the template of the other module it fills too
    "testgen/plan_prompts.py": [("PL001", 2, 11, "error"), ("PL001", 2, 24, "error")],
    "testgen/planner.py": [("PL001", 15, 47, "error"), ("PL001", 15, 66, "error")],
    # an ADK instruction's `{trip_outline}` is what the agent with output_key="trip_outline" answered (the
    # session state ADK fills it from at each run), where the constant is defined and where the agent is
    "tripplan/prompts.py": [("PL001", 6, 18, "error")],
    "tripplan/agents.py": [("PL001", 15, 17, "error")],
    # a builder joining its sections with the empty ones left out (`"\n".join(s for s in sections if s)`)
    # is its sections in order; the run's iteration counter ahead of the fixed workspace rules
    "orchestra/system_prompt.py": [("PL001", 15, 37, "error")],
    # tools appended in a loop inside a loop over an unsorted folder listing follow the listing's order
    "toolkit/registry.py": [("PL002", 10, 17, "warning")],
    # the job a cover letter is written for is the request's, put in by `.replace("{job_title}", ...)`
    "careers/cover_letter.py": [("PL001", 5, 50, "error")],
}


test_named_file_gives_exactly_its_findings, _walk = fixture_tree_tests(DATA, EXPECTED)


def test_folder_walk_gives_the_same_findings():
    _walk()


def test_a_builder_is_a_prompt_at_its_return_even_when_nothing_calls_it():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "assistant" / "templates.py"], config, select_models(config))
    names = {p.template.name: p for p in audit.prompts}
    assert set(names) == {"templates:system_message_template", "templates:summary_prompt"}
    assert names["templates:system_message_template"].template.span.line_col == (5, 5)
    assert not names["templates:summary_prompt"].has_breaker  # {style} is a setting


def test_a_return_without_prompt_text_is_not_a_prompt_of_its_own():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "research" / "branches.py"], config, select_models(config))
    (prompt,) = audit.prompts  # `return header` alone carries no instructions
    assert prompt.template.span.line_col == (12, 5)


def test_imported_text_is_part_of_the_prompt_at_the_place_it_is_used():
    from promptlint.ir import Text

    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "helpdesk" / "chat" / "system.py"], config, select_models(config))
    (prompt,) = audit.prompts
    parts = prompt.template.sections[0].parts
    text = "".join(p.text for p in parts if isinstance(p, Text))
    assert "# Escalation\nHand the conversation to a human agent" in text
    assert text.count("End every answer by asking whether the customer needs anything else") == 2
    escalation = next(p for p in parts if isinstance(p, Text) and "# Escalation" in p.text)
    assert escalation.span.file.path.name == "system.py" and escalation.span.line_col == (10, 15)


def test_a_loaded_template_file_is_read_and_said_so():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "release" / "agent.py"], config, select_models(config), display_root=DATA)
    assert "release/agent.py:20:14: reads release/prompts/agent.j2: its text is the value here" in audit.notes
    on_call = next(p for p in audit.prompts if p.template.name == "agent:on_call")
    (slot,) = [s for s in on_call.template.slots() if s.label == "{{ context }}"]
    assert slot.volatility.label == "request" and slot.span.line_col == (20, 58)
    assert "calls now()" in slot.reason


def test_a_prompt_file_loaded_by_name_is_read_and_a_name_that_matches_two_files_is_not_guessed(tmp_path):
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "runs" / "agent.py"], config, select_models(config), display_root=DATA)
    assert "runs/agent.py:18:27: reads runs/prompts/action_template.txt: its text is the value here" in audit.notes
    (summary,) = [p for p in audit.prompts if p.template.name == "agent:summarize_failure"]
    assert summary.template.sections[0].role == "user"  # prompt= of a wrapper: the user's turn
    primitives = [s for s in audit.prompts[0].template.slots() if s.label.startswith("load_text(")]
    assert primitives and all(s.volatility.label == "static" and "read from a file by load_text()" in s.reason
                              for s in primitives)
    for folder in ("prompts/planner", "prompts/critic"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "task.j2").write_text("Plan the task {{ goal }}.\n" + "Follow the rules. " * 40)
    (tmp_path / "run.py").write_text("from engine import load_prompt\n\n\ndef plan(goal):\n"
                                     "    return llm(prompt=load_prompt('task', goal=goal) + 'Answer briefly.')\n")
    config = from_table({}, None, tmp_path)
    audit = run_audit([tmp_path / "run.py"], config, select_models(config), display_root=tmp_path)
    assert "run.py:5:23: 'task' names 2 prompt files (prompts/critic/task.j2, prompts/planner/task.j2): " \
        "not guessed" in audit.notes
    assert not any(p.has_breaker for p in audit.prompts)


def test_model_calls_read_their_roles_and_an_agents_own_prompt_folder_wins():
    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "convo" / "code_monkey.py", DATA / "convo" / "travel.py",
                       DATA / "retrieval" / "sql_base.py"], config, select_models(config), display_root=DATA)
    assert ("convo/code_monkey.py:11:17: reads convo/prompts/code-monkey/implement_changes.prompt: its text is "
            "the value here") in audit.notes
    roles = {p.template.name: [s.role for s in p.template.sections] for p in audit.prompts}
    assert roles["travel:plan_trip"] == ["system", "user"]  # system_instruction of the config, then contents
    assert roles["travel:summarize"] == ["user"]
    assert roles["code_monkey:CodeMonkey.implement_changes"] == ["user"]
    assert roles["sql_base:SqlBase.get_sql_prompt"] == ["system", "user"]  # abstract role helpers


def test_sorted_of_a_choice_between_a_list_and_a_set_has_a_fixed_order(tmp_path):
    # crewAI's a2ui prompt: sorted(allowed if allowed is not None else STANDARD_COMPONENTS)
    body = ('STANDARD = {"Text", "Image", "Button", "Card", "List", "Tabs"}\n\n\n'
            "def build_ui_system_prompt(allowed=None):\n"
            "    components = WRAP(allowed if allowed is not None else STANDARD)\n"
            '    return f"""You can generate rich UI. Components: {", ".join(components)}.\n""" + '
            '"Emit one JSON message per line, never wrapped in prose or code fences. Follow the schema. " * 5\n')
    (tmp_path / "ui.py").write_text(body.replace("WRAP", "sorted"))
    assert invoke(tmp_path, "check", "--select", "PL002", "ui.py").exit_code == 0
    (tmp_path / "ui.py").write_text(body.replace("WRAP", "list"))
    result = invoke(tmp_path, "check", "--select", "PL002", "ui.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("ui.py:6:65: PL002 for item in components has no fixed order")


def test_prompt_keyword_of_a_terminal_library_is_not_a_model_prompt(tmp_path):
    (tmp_path / "cli.py").write_text(
        "import click\nfrom app import handler\n\n\n"
        "@click.option('--name', prompt='Your name, please (it is printed on the visitor badge with the date)')\n"
        "def hello(name):\n"
        "    return handler(prompt=f'Greet {name} in one sentence. Mention the weather only if asked.')\n")
    config = from_table({}, None, tmp_path)
    audit = run_audit([tmp_path / "cli.py"], config, select_models(config))
    assert [p.template.name for p in audit.prompts] == ["cli:hello"]  # handler's prompt=, not click's


def test_a_file_outside_the_project_is_not_read(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("not a prompt")
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\ndef ask(q):\n"
        f"    system = open({str(outside)!r}).read()\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=[\n"
        "        {'role': 'system', 'content': system}, {'role': 'user', 'content': q}])\n")
    config = from_table({}, None, project)
    audit = run_audit([project / "app.py"], config, select_models(config))
    assert not any("secret.txt" in n for n in audit.notes)
    assert "not a prompt" not in "".join(p.text for pr in audit.prompts for _, p, _ in pr.template.iter_parts()
                                         if hasattr(p, "text") and isinstance(p.text, str))


def test_an_import_cycle_is_not_followed_and_says_so(tmp_path):
    (tmp_path / "a.py").write_text("from b import RULES\nSYSTEM_PROMPT = 'You are the assistant. ' + RULES\n")
    (tmp_path / "b.py").write_text("from a import RULES\n")
    config = from_table({}, None, tmp_path)
    audit = run_audit([tmp_path / "a.py"], config, select_models(config))
    assert audit.errors == []
    assert any("RULES from " in n and "b.py: not followed (import depth 4 or a cycle)" in n for n in audit.notes), audit.notes


# ------------------------------------------------------------------ robust and linear

def _long_agent_function(assignments: int) -> str:
    """A function of the shape that once failed as 'nests too deeply': hundreds of
    branches and assignments, each building on the one before."""
    lines = ["from openai import OpenAI", "", "client = OpenAI()", "", "", "def run_agent(task, flags):",
             "    prompt = 'You are the build assistant of a monorepo. Follow the steps below. '"]
    for i in range(assignments):
        lines += [f"    part{i} = prompt + 'Step {i}: run the checks of stage {i} and report failures. '",
                  f"    if flags.get('f{i}'):", f"        prompt = part{i} + str(flags['f{i}'])",
                  "    else:", f"        prompt = part{i}"]
    lines.append("    return client.chat.completions.create(model='gpt-4.1', messages=["
                 "{'role': 'system', 'content': prompt}, {'role': 'user', 'content': task}])")
    return "\n".join(lines) + "\n"


def test_a_long_function_is_read_in_linear_time(tmp_path):
    (tmp_path / "agent.py").write_text(_long_agent_function(180))
    result = invoke(tmp_path, "check", "--select", "PL001,PL008", "--show-info", "agent.py")
    assert result.exit_code == 0, result.stderr  # only an info finding: flags are undeclared input
    assert result.stderr == ""
    assert result.stdout.startswith("agent.py:10:26: PL008 input flags.f0 has no volatility evidence")
    # twice the statements, about twice the work (libcst's parse dominates): no blow-up
    (tmp_path / "agent2.py").write_text(_long_agent_function(360))
    assert invoke(tmp_path, "check", "agent2.py").exit_code == 0


def test_a_recursive_helper_that_sets_keys_on_its_argument_is_read_without_blowing_up(tmp_path):
    # openai-agents' strict_schema: keys assigned on a parameter are followed only where the function
    # fills a template with them (.format(**kwargs)); once, every recursive call evaluated them all
    (tmp_path / "schema.py").write_text(
        "def ensure_strict(schema, depth=0):\n"
        "    schema['additionalProperties'] = False\n"
        "    schema['items'] = ensure_strict(schema.get('items'), depth + 1)\n"
        "    schema['anyOf'] = [ensure_strict(v, depth + 1) for v in schema.get('anyOf', [])]\n"
        "    schema['allOf'] = [ensure_strict(v, depth + 1) for v in schema.get('allOf', [])]\n"
        "    schema['oneOf'] = [ensure_strict(v, depth + 1) for v in schema.get('oneOf', [])]\n"
        "    schema.update({**schema})\n"
        "    return schema\n\n\n"
        "SYSTEM_PROMPT = 'You answer with JSON that follows this schema: ' + str(ensure_strict({'type': 'object'}))\n")
    result = invoke(tmp_path, "check", "--show-info", "schema.py")
    assert result.exit_code == 0
    assert result.stderr == ""  # no "nests too deeply", no budget line
    assert result.stdout == "All checks passed: 1 prompt in 1 file.\n"


def test_an_operator_chain_past_the_limit_is_info_not_an_input_error(tmp_path):
    body = " ".join(f"+ 'part {i} '" for i in range(5_000))
    (tmp_path / "huge_prompt.py").write_text(f"SYSTEM_PROMPT = 'You are helpful. ' {body}\n")
    (tmp_path / "fine.py").write_text(_long_agent_function(3))
    result = invoke(tmp_path, "check", ".")
    assert result.exit_code == 0
    assert ("info: huge_prompt.py:1:1: this statement chains 5,000 binary operators, past the Python "
            "reader's limit of 1,000") in result.stderr
    assert result.stdout.endswith("No findings: 1 prompt in 2 files; 1 file only partly analysed "
                                  "(see the info lines).\n")


def test_the_per_file_time_budget_keeps_what_was_read_and_says_where_it_stopped(tmp_path, monkeypatch):
    import promptlint.sources.python as reader

    (tmp_path / "agent.py").write_text(_long_agent_function(180))
    monkeypatch.setattr(reader, "MAX_FILE_SECONDS", 0.0)
    result = invoke(tmp_path, "check", "agent.py")
    assert result.exit_code == 0
    assert "agent.py:" in result.stderr and "the Python reader stopped here after 0 s, its per-file budget: " \
        "0 prompts were read, the rest of the file was not analysed" in result.stderr
    assert "1 file only partly analysed" in result.stdout


def test_a_budget_that_runs_out_inside_an_imported_module_is_info_at_the_importing_file(tmp_path, monkeypatch):
    # the budget is the importing file's, shared with the modules it reads: it can run out on a
    # node of another file (once an internal error, KeyError on that node, on a real repository)
    from promptlint.sources.python import flow as flow_module

    (tmp_path / "helpers.py").write_text("def rules():\n    return 'Answer in English. ' * 40\n")
    (tmp_path / "agent.py").write_text("from helpers import rules\n\nSYSTEM_PROMPT = rules() + 'Be brief.'\n")
    real_eval = flow_module.Flow.eval

    def eval_until_helpers(self, node, frame):
        if self.file.path.name == "helpers.py":
            raise flow_module.OverBudget(node, self)
        return real_eval(self, node, frame)

    monkeypatch.setattr(flow_module.Flow, "eval", eval_until_helpers)
    result = invoke(tmp_path, "check", "agent.py")
    assert result.exit_code == 0, result.stderr
    assert "internal error" not in result.stderr
    assert ("info: agent.py:1:1: the Python reader stopped in this file (reading helpers.py, which it imports) "
            "after 20 s, its per-file budget: 0 prompts were read") in result.stderr


# ------------------------------------------------------------------ fix on the new shapes

def test_fix_sorts_a_listing_in_a_tool_list_keeps_the_mode_and_is_idempotent(tmp_path):
    import shutil
    import stat

    for rel in ("agents/toolbox.py", "agents/settings.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / rel, tmp_path / rel)
    path = tmp_path / "agents" / "toolbox.py"
    path.chmod(0o750)
    before = path.read_text()
    result = invoke(tmp_path, "fix", "agents/toolbox.py")
    assert result.stdout.splitlines()[0] == "agents/toolbox.py: fixed 1 (PL002)"
    after = path.read_text()
    assert after == before.replace('for name in os.listdir("plugins")]', 'for name in sorted(os.listdir("plugins"))]')
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.py", "toolbox.py"]  # no temporary file
    # tools gathered as the servers answer have no mechanical fix: said, with the reason, and untouched
    assert ("agents/toolbox.py:49:17: PL002 left as is: no automatic fix; collect the results in the order the "
            "tasks were made (asyncio.gather(...) keeps it), or sort them") in result.stderr
    # the sorted listing still changes when plugins are added: an info finding, counted as remaining
    assert result.stdout.splitlines()[-1] == "Fixed 1 finding in 1 file; 2 remaining."
    again = invoke(tmp_path, "fix", "agents/toolbox.py")
    assert again.stdout.splitlines()[-1] == "Fixed 0 findings in 0 files; 2 remaining."
    assert path.read_text() == after


def test_fix_leaves_a_template_another_module_fills_and_says_why(tmp_path):
    """The field's evidence is in another module (fills): no mechanical fix
    moves it, so fix writes nothing and says so, finding by finding."""
    import shutil

    shutil.copytree(DATA / "fills", tmp_path / "fills")
    path = tmp_path / "fills" / "prompts.py"
    before = path.read_text()
    result = invoke(tmp_path, "fix", "--unsafe-fixes", "fills/prompts.py")
    assert result.exit_code == 1
    assert ("fills/prompts.py:4:49: PL001 left as is: no automatic fix; move it after the stable content (the end "
            "of the last user message), or declare its real volatility in [tool.promptlint.variables]") in result.stderr
    assert result.stdout.splitlines()[-1] == "Fixed 0 findings in 0 files; 3 remaining."
    assert path.read_text() == before


def test_fill_sites_past_the_limit_are_not_read_and_the_note_says_so(tmp_path, monkeypatch):
    from promptlint.sources.python import fills

    monkeypatch.setattr(fills, "MAX_FILL_MODULES", 1)
    monkeypatch.setenv("PROMPTLINT_NO_CACHE", "1")
    rules = "Answer in two sentences, quote the ticket, never guess a cause, and name the product. " * 4
    (tmp_path / "prompts.py").write_text(f'ORDER_TEMPLATE = """Order: {{order}}\n\n{rules}"""\n')
    for name in ("first.py", "second.py"):
        (tmp_path / name).write_text("from prompts import ORDER_TEMPLATE\n\n\ndef relay(user_message):\n"
                                     "    return ORDER_TEMPLATE.format(order=user_message)\n")
    result = invoke(tmp_path, "check", "-v", "prompts.py")
    assert "prompts.py:1:28: PL001 {order} changes per request" in result.stdout
    assert "prompts.py:1:18: ORDER_TEMPLATE: fill sites past 1 importing modules not read" in result.stderr



def test_a_module_that_does_not_import_the_template_is_not_read_for_fill_sites(tmp_path, monkeypatch):
    # another module that writes the same name (its own ORDER_TEMPLATE) and fills it, without an
    # import of prompts.py, cannot be a fill site: it is not parsed (the search once parsed every
    # module using the name, a whole repository's on a common one), so its syntax error says nothing
    monkeypatch.setenv("PROMPTLINT_NO_CACHE", "1")
    rules = "Answer in two sentences, quote the ticket, never guess a cause, and name the product. " * 4
    (tmp_path / "prompts.py").write_text(f'ORDER_TEMPLATE = """Order: {{order}}\n\n{rules}"""\n')
    (tmp_path / "other.py").write_text('ORDER_TEMPLATE = "x {order}"\n\n\ndef relay(m):\n'
                                       "    return ORDER_TEMPLATE.format(order=m)\n\n\ndef broken(:\n")
    (tmp_path / "relay.py").write_text("from prompts import ORDER_TEMPLATE\n\n\ndef relay(user_message):\n"
                                       "    return ORDER_TEMPLATE.format(order=user_message)\n")
    result = invoke(tmp_path, "check", "-v", "prompts.py")
    assert "prompts.py:1:28: PL001 {order} changes per request" in result.stdout
    assert "other.py" not in result.output
def test_a_list_extended_in_a_loop_by_a_helper_that_reads_it_is_read_once(tmp_path):
    # `parts.extend(await more(parts))` in a loop: reading `parts` inside its own growth once
    # recursed without end ("nests too deeply"); the list is read as it was before the loop
    (tmp_path / "agent.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\nasync def more(parts, item):\n"
        "    return [f'{item}: {len(parts)}']\n\n\nasync def ask(question, items):\n"
        "    parts = ['You are the inventory assistant. Answer from the stock list only.']\n"
        "    for item in items:\n        parts.extend(await more(parts, item))\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=[\n"
        "        {'role': 'system', 'content': '\\n'.join(parts)}, {'role': 'user', 'content': question}])\n")
    result = invoke(tmp_path, "check", "agent.py")
    assert result.exit_code == 0 and "partly analysed" not in result.stdout, result.output


def test_the_evaluation_budget_says_where_it_ran_out(tmp_path, monkeypatch):
    import promptlint.sources.python.flow as flow

    (tmp_path / "agent.py").write_text(_long_agent_function(40))
    monkeypatch.setattr(flow, "MAX_STEPS", 50)
    result = invoke(tmp_path, "check", "agent.py")
    assert result.exit_code in (0, 1)
    assert "the Python reader's budget of 50 evaluations ran out here" in result.stderr
    assert "1 file only partly analysed" in result.stdout


def test_a_client_create_with_the_messages_first_reads_its_text_through_re_sub():
    from promptlint.ir import Text

    config = from_table({}, None, DATA)
    audit = run_audit([DATA / "browser" / "team_surfer.py"], config, select_models(config))
    (prompt,) = audit.prompts
    assert prompt.template.span.line_col == (40, 22)
    assert [s.role for s in prompt.template.sections] == ["tools", "user", "user"]
    (user,) = [p for p in prompt.template.sections[1].parts if isinstance(p, Text)]
    # re.sub(r"(\n\s*){3,}", "\n\n", ...) done on the literal: the three line ends are two,
    # and the text that is left keeps its place in the file
    assert user.text.startswith("Consider the screenshot of the page and the list of elements below.\n\nAnswer")
    assert user.span.line_col == (8, 1)
    tools = prompt.template.sections[0]
    constants = [s for s in tools.parts if not isinstance(s, Text) and s.label == "TOOL_HISTORY_BACK"]
    assert constants and constants[0].volatility.label == "static"
    assert "UPPER_CASE" in constants[0].reason


def test_an_attribute_that_reads_itself_is_not_followed_round_the_loop(tmp_path):
    # `self.team = self.team.strip()` in __init__, read by the prompt: reading it once recursed
    # until the stack ran out ("nests too deeply"), and the file's prompts were lost
    (tmp_path / "agent.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\nclass Agent:\n"
        "    def __init__(self, team):\n        self.team = team\n        self.team = self.team.strip()\n\n"
        "    def ask(self, question):\n"
        "        return client.chat.completions.create(model='gpt-4.1', messages=[\n"
        "            {'role': 'system', 'content': 'You are the inventory assistant. Answer from the stock list.'\n"
        "             + self.team}, {'role': 'user', 'content': question}])\n")
    result = invoke(tmp_path, "check", "agent.py")
    assert result.exit_code == 0, result.output
    assert "partly analysed" not in result.stdout and result.stderr == ""
    assert result.stdout == "All checks passed: 1 prompt in 1 file.\n"


def test_a_message_list_a_method_builds_and_returns_is_one_prompt():
    from promptlint.sources import load
    from promptlint.sources.base import SourceContext

    prompts = load(DATA / "retrieval" / "sql_context.py", "python", SourceContext(root=DATA))
    assert [p.name for p in prompts] == ["sql_context:SqlPrompter.get_sql_prompt"]
    assert [s.role for s in prompts[0].sections] == ["system", "user"]


def test_an_if_the_defaults_skip_leaves_the_parameter_as_the_caller_gave_it(tmp_path):
    # verbose defaults to False: the arm that rebinds `when` never runs, so the clock the
    # caller passes is what reaches the prompt
    (tmp_path / "agent.py").write_text(
        "from datetime import datetime\nfrom openai import OpenAI\n\nclient = OpenAI()\n\n\n"
        "def stamp(when, verbose=False):\n    if verbose:\n        when = 'later'\n    return f'Time: {when}'\n\n\n"
        "def ask(question):\n"
        "    system = stamp(datetime.now()) + '\\n' + ('You answer questions about the Fernhill library: its "
        "opening hours, its loans and renewals, its events and its study rooms. Be brief and friendly, and "
        "say when you do not know. ' * 3)\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=[\n"
        "        {'role': 'system', 'content': system}, {'role': 'user', 'content': question}])\n")
    result = invoke(tmp_path, "check", "agent.py")
    assert result.exit_code == 1, result.output
    assert "agent.py:10:21: PL001 when changes per request" in result.stdout, result.stdout


OPENAI_HEAD = "from openai import OpenAI\n\nclient = OpenAI()\n\n\n"


def _check(tmp_path, name: str, source: str):
    """`promptlint check` of one app file written in the test."""
    (tmp_path / name).write_text(source)
    return invoke(tmp_path, "check", name)


def test_a_system_message_that_is_the_whole_prompt_parameter_is_no_evidence(tmp_path):
    # `prompt` alone names a user's prompt as often as the system prompt a caller passes:
    # as the whole system message ahead of the history it is the latter, no finding
    result = _check(tmp_path, "bench.py",
        OPENAI_HEAD + "def replay(chat_history, prompt):\n"
        "    messages = [{'role': 'system', 'content': prompt}]\n"
        "    for item in chat_history:\n"
        "        messages.append({'role': item['role'], 'content': item['text']})\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=messages)\n")
    assert result.exit_code == 0, result.output
    assert "PL001" not in result.stdout


def test_module_state_is_a_container_a_function_fills_not_an_imported_module():
    import libcst as cst

    from promptlint.sources.python.scope import Index

    module = cst.parse_module(
        "import os\nseen = {}\nlog = []\nLIMITS = {}\n\n\n"
        "def clean(path):\n    os.remove(path)\n    seen[path] = True\n    LIMITS['x'] = 1\n\n\n"
        "def note(line):\n    log.append(line)\n\n\nnote('started')\n")
    index = Index(module, lambda node: (0, 0))
    assert index.changed_at_run_time("seen") == "clean"
    assert index.changed_at_run_time("os") is None  # an import, whatever its methods are called
    assert index.changed_at_run_time("LIMITS") is None  # UPPER_CASE: a constant by convention
    assert index.changed_at_run_time("log") is None  # note() runs at import: filled once


def test_a_method_of_a_class_or_module_says_nothing_of_the_data(tmp_path):
    # `RunQueryTool.name()`: the class's words (query) are not evidence the name changes per
    # request; a method of a retrieved item (`hit.get_text()`) is as volatile as the item, and
    # the passages joined are reported where they enter the text
    result = _check(tmp_path, "agent.py",
        "from .tools import RunQueryTool\n" + OPENAI_HEAD + "def ask(question, index):\n"
        "    hits = index.search(question)\n"
        "    system = (f'Use {RunQueryTool.name()} to run SQL. ' + 'You answer questions about the Fernhill "
        "library: its opening hours, its loans and renewals, its events and its study rooms. Be brief and '\n"
        "              'friendly, and say when you do not know. Always cite the source you used. ' * 2)\n"
        "    context = '\\n'.join(hit.get_text() for hit in hits)\n"
        "    return client.chat.completions.create(model='gpt-4.1', messages=[\n"
        "        {'role': 'system', 'content': system},\n"
        "        {'role': 'user', 'content': context + ' Answer the question using only the passages above, '\n"
        "         'quoting them where you can, and keep to three sentences at most. Say so when the passages '\n"
        "         'do not answer it, and never invent a source. ' * 3 + question}])\n")
    assert result.exit_code == 1, result.output
    assert "RunQueryTool" not in result.stdout
    assert "agent.py:14:37: PL001 context changes per request" in result.stdout, result.stdout


def test_a_pipeline_headed_by_a_template_of_another_module_is_filled_where_it_runs(tmp_path):
    # the template is imported; partial inputs are bound ahead of the run and the run passes the rest
    (tmp_path / "prompts.py").write_text(
        "from langchain_core.prompts import PromptTemplate\n\n"
        "ANSWER = PromptTemplate.from_template(\n"
        '    "Context:\\n{context}\\nAnswer in the reader\'s language, cite every source by its number, never '
        'invent a source, say when the context does not hold the answer, keep it under two hundred words, prefer '
        'short sentences, and end with one line that lists the sources you cited in the order you cited them. '
        'When two sources disagree, say so and give both readings with their numbers. Quote at most one sentence '
        'from any source. Question: {question}"\n)\n')
    (tmp_path / "run.py").write_text(
        "from langchain_openai import ChatOpenAI\n\nfrom prompts import ANSWER\n\n\n"
        "def answer(question, retriever):\n"
        "    chain = ANSWER.partial(question=question) | ChatOpenAI(model='gpt-4.1')\n"
        "    return chain.invoke({'context': retriever.invoke(question)})\n")
    result = invoke(tmp_path, "check", "run.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("run.py:8:37: PL001 {context} changes per request")


def test_a_template_filled_without_a_model_gives_its_messages_and_a_bare_template_stays_a_template(tmp_path):
    # format_messages fills the template (the clock decides); a template nothing fills is read by its names
    (tmp_path / "chat.py").write_text(
        "from datetime import datetime\n\nfrom langchain_core.prompts import ChatPromptTemplate\n"
        "from langchain_openai import ChatOpenAI\n\n"
        "PROMPT = ChatPromptTemplate.from_messages([\n"
        '    ("system", "Now: {now}. You are a careful assistant for a hardware store. Answer questions about '
        'products, stock and opening hours, never promise delivery dates, point to a human for refunds, and keep '
        'every answer under eighty words, in the customer\'s language, with prices in euros and no emojis. When a '
        'product is out of stock, name the nearest store that has it and the usual restocking day, and never '
        'guess a price you were not given."),\n'
        '    ("human", "{text}"),\n])\n\n\n'
        "def reply(text):\n"
        "    messages = PROMPT.format_messages(now=datetime.now().isoformat(), text=text)\n"
        "    return ChatOpenAI(model='gpt-4.1').invoke(messages)\n")
    result = invoke(tmp_path, "check", "chat.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("chat.py:13:43: PL001 {now} changes per request")


def test_a_chat_template_with_no_messages_is_not_an_input_error(tmp_path):
    # valid Python: from_messages() with nothing to read, piped and invoked, is no prompt and no error
    (tmp_path / "empty.py").write_text(
        "from langchain_core.prompts import ChatPromptTemplate\n\n"
        "P = ChatPromptTemplate.from_messages()\n\n\n"
        "def run(llm, q):\n    return (P | llm).invoke({'q': q})\n")
    result = invoke(tmp_path, "check", "empty.py")
    assert result.exit_code == 0
    assert "internal error" not in result.output


def test_a_clock_read_at_import_is_said_to_change_per_process_start():
    """A module constant built at import holds the time its process started:
    the finding says so (not "per release", not "per request") and why."""
    result = invoke(DATA, "check", "--format", "json", "pipelines/autonomous.py")
    assert result.exit_code == 1
    (finding,) = json.loads(result.output)["findings"]
    assert "current_time() changes per process start" in finding["message"]
    assert "computed once at import" in finding["message"]
