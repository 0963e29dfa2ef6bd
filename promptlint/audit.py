"""The audit pipeline: discover -> sources -> prefix analysis -> economics.

One function, `run_audit`, used by the CLI and by tests; it never prints.
Input errors are collected per file and the rest of the run continues.
"""

from __future__ import annotations

import re

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from promptlint import sources
from promptlint.analysis.conversation import Conversation, conversation
from promptlint.analysis.prefix import PrefixAnalysis, ScopePrefix, analyze, move_to_end, varying_slots
from promptlint.analysis.volatility import VariableTable
from promptlint.config import Config
from promptlint.discover import Candidate, find_candidates  # noqa: F401 (re-exported)
from promptlint.economics.cost import CostEstimate, estimate
from promptlint.economics.providers import ModelSpec, cacheable, cut_by, select_models  # noqa: F401 (re-exported)
from promptlint.ir import NotAPrompt, PromptTemplate, Scope, SourceError
from promptlint.sources.base import Skipped, SourceContext
from promptlint.tokenizers import get_tokenizer


# A layout has a cache breaker when moving its volatile content after the
# stable content would make at least this many more tokens stable. Smaller
# gains are short labels between volatile values ("Customer: {{ name }}")
# that move with them; 64 tokens is four vLLM blocks of 16 and half of
# OpenAI's 128-token increment, where a fix starts to pay.
MIN_BREAKER_GAIN = 64


@dataclass
class ModelResult:
    spec: ModelSpec
    cached: dict[str, int]  # tokens the provider caches per scope, after its rules
    cost: CostEstimate
    if_fixed: CostEstimate | None = None  # with the volatile content moved after the stable content
    if_fixed_cached: dict[str, int] | None = None
    cut: str | None = None  # the provider rule that cached less than the stable prefix shared by all users


@dataclass
class PromptResult:
    template: PromptTemplate
    analyses: dict[str, PrefixAnalysis]  # per tokenizer spec
    models: list[ModelResult]
    # what-if per tokenizer: every slot that varies at the first breaker's scope
    # moved, in order, after the stable content (the volatile-suffix layout)
    fixed: dict[str, PrefixAnalysis] = field(default_factory=dict)
    # the conversation history the prompt carries, and what a per-request value
    # ahead of it costs per turn (analysis/conversation.py), with the first tokenizer
    conversation: Conversation | None = None

    @property
    def primary(self) -> PrefixAnalysis:
        return self.analyses[self.models[0].spec.tokenizer]

    @property
    def breaker(self) -> ScopePrefix | None:
        """Where the stable prefix ends at the widest broken scope (may be harmless)."""
        return self.primary.first_breaker

    @property
    def tokens_lost(self) -> int:
        """Stable tokens the layout throws away at the first breaker's scope:
        the what-if stable prefix minus today's."""
        sp = self.breaker
        fixed = self.fixed.get(self.primary.tokenizer)
        if sp is None or fixed is None:
            return 0
        return max(0, fixed.stable(sp.scope.key) - sp.stable_tokens)

    @property
    def turn_breaker(self) -> bool:
        """A per-request value sits ahead of the conversation history, so each
        turn re-sends at least MIN_BREAKER_GAIN tokens uncached."""
        chat = self.conversation
        return chat is not None and chat.breaker is not None and chat.lost_per_turn >= MIN_BREAKER_GAIN

    @property
    def has_breaker(self) -> bool:
        """A volatile slot sits ahead of stable content worth caching (in the
        template, or the conversation after it)."""
        return self.tokens_lost >= MIN_BREAKER_GAIN or self.turn_breaker


@dataclass
class AuditResult:
    prompts: list[PromptResult] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    models: list[ModelSpec] = field(default_factory=list)
    files: int = 0
    notes: list[str] = field(default_factory=list)  # why each file was read or skipped (-v)
    missing: int = 0  # named paths that do not exist (the command line reports each)


def source_context(config: Config, display_root: Path | None = None) -> SourceContext:
    return SourceContext(
        variables=VariableTable(overrides=config.variables, samples=config.samples),
        root=config.root,
        # paths are reported as the user typed them, whatever config governs them;
        # `promptlint diff` passes the base revision's copy of the working directory
        display_root=display_root or Path.cwd(),
        default_role=config.default_role,
        dialects=config.dialects,
    )


# Requests that carry their own explicit breakpoints: without one, an
# explicit-caching provider caches nothing. Other prompts (templates) have no
# notion of breakpoints; for them one is assumed at the end of the stable
# prefix, where the integrating code would put it.
EXPLICIT_FORMATS = frozenset({"messages-anthropic"})
_EXPLICIT_MODEL = re.compile(r"(^|[/.])(claude|anthropic)", re.IGNORECASE)


def is_explicit_request(template: PromptTemplate) -> bool:
    """An Anthropic-style request: a message file in Anthropic's shape, or an
    Anthropic call in Python code (its model names Claude)."""
    if template.format in EXPLICIT_FORMATS:
        return True
    return template.format == "python" and bool(template.model and _EXPLICIT_MODEL.search(template.model))


def _breakpoints(analysis: PrefixAnalysis) -> list[int] | None:
    breakpoints: list[int] | None = [pos for pos, _ in analysis.breakpoint_tokens]
    if not breakpoints and not is_explicit_request(analysis.template):
        breakpoints = None
    return breakpoints


def _cached(spec: ModelSpec, analysis: PrefixAnalysis) -> dict[str, int]:
    breakpoints = _breakpoints(analysis)
    return {scope.key: cacheable(spec, analysis.stable(scope.key), breakpoints) for scope in Scope}


def audit_template(template: PromptTemplate, models: list[ModelSpec], config: Config) -> PromptResult:
    analyses: dict[str, PrefixAnalysis] = {}
    fixed: dict[str, PrefixAnalysis] = {}
    results: list[ModelResult] = []
    for spec in models:
        if spec.tokenizer not in analyses:
            tokenizer = get_tokenizer(spec.tokenizer)
            analyses[spec.tokenizer] = analysis = analyze(template, tokenizer)
            breaker = analysis.first_breaker
            if breaker is not None and breaker.breaker is not None:
                moved = varying_slots(template, breaker.scope)
                fixed[spec.tokenizer] = analyze(move_to_end(template, moved), tokenizer)
        analysis = analyses[spec.tokenizer]
        cached = _cached(spec, analysis)
        result = ModelResult(spec, cached, estimate(spec, analysis.total_tokens, cached, config.traffic),
                             cut=cut_by(spec, analysis.stable("global"), _breakpoints(analysis)))
        if spec.tokenizer in fixed:
            what_if = fixed[spec.tokenizer]
            result.if_fixed_cached = _cached(spec, what_if)
            result.if_fixed = estimate(spec, what_if.total_tokens, result.if_fixed_cached, config.traffic)
        results.append(result)
    primary = analyses[models[0].tokenizer] if models else None
    chat = conversation(template, primary.reference, get_tokenizer(primary.tokenizer), config.traffic) \
        if primary is not None else None
    return PromptResult(template, analyses, results, fixed, chat)


def load_templates(candidates: list[Candidate], config: Config, errors: list[SourceError],
                   display_root: Path | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   notes: list[str] | None = None) -> Iterator[PromptTemplate]:
    """Every prompt template in the candidate files, file by file; input
    errors go to `errors` and the run goes on with the next file. A file
    with no prompt in it, or one taken only for what its text looked like
    that turns out not to parse, is skipped with a line in `notes`."""
    ctx = source_context(config, display_root)
    notes = notes if notes is not None else []
    for index, candidate in enumerate(candidates):
        yield from load_file(candidate, ctx, errors, notes)
        if progress is not None:
            progress(index + 1, len(candidates))


def load_file(candidate: Candidate, ctx: SourceContext, errors: list[SourceError],
              notes: list[str]) -> list[PromptTemplate]:
    """The prompt templates of one candidate file (see load_templates)."""
    try:
        templates = sources.load(candidate.path, candidate.format, ctx)
    except NotAPrompt as exc:
        notes.append(Skipped(f"{exc.path}: skipped ({exc.message})"))
        templates = []
    except SourceError as exc:
        if candidate.by_content:
            notes.append(Skipped(f"{exc.path}: skipped (taken for its content, but {exc})"))
        else:
            errors.append(exc)
        templates = []
    except RecursionError:
        errors.append(SourceError(ctx.display_path(candidate.path), 1, "template nests too deeply to analyse"))
        templates = []
    except Exception as exc:  # noqa: BLE001 - one file's bug must not stop the run
        errors.append(internal_error(ctx.display_path(candidate.path), "reading", exc))
        templates = []
    errors += ctx.diagnostics
    ctx.diagnostics.clear()
    notes += ctx.notes
    ctx.notes.clear()
    return templates


def run_audit(paths: list[Path], config: Config, models: list[ModelSpec],
              progress: Callable[[int, int], None] | None = None,
              display_root: Path | None = None, jobs: int = 1) -> AuditResult:
    """`jobs`: processes to audit the files in (0: one per core; see parallel)."""
    from promptlint.parallel import map_files

    result = AuditResult(models=models)
    candidates = find_candidates(paths, config, result.notes, display_root)
    result.files = len(candidates)
    for done, (prompts, errors, notes) in enumerate(map_files(audit_file, candidates, config, models, None,
                                                              display_root, jobs), 1):
        result.prompts += prompts
        result.errors += errors
        result.notes += notes
        if progress is not None:
            progress(done, len(candidates))
    return result


def audit_file(candidate: Candidate, ctx: SourceContext, config: Config, models: list[ModelSpec], _=None):
    """(prompt results, input errors, notes) of one file."""
    prompts, errors, notes = [], [], []
    for template in load_file(candidate, ctx, errors, notes):
        try:
            prompts.append(audit_template(template, models, config))
        except Exception as exc:  # noqa: BLE001 - one prompt's bug must not stop the run
            errors.append(internal_error(template.source.display_path, f"auditing {template.name} of", exc))
    return prompts, errors, notes


def internal_error(path: str, doing: str, exc: Exception) -> SourceError:
    """An unexpected exception on one file, as its one-line input error (the
    run goes on with the other files); known secrets are redacted."""
    from promptlint.secrets import redact

    what = " ".join(str(exc).split())[:200]
    return SourceError(path, 1, redact(f"internal error {doing} this file ({type(exc).__name__}: {what}); "
                                       "please report it"))


def merge_results(results: list[AuditResult]) -> AuditResult:
    """One result from runs under different configs (files governed by
    different promptlint.toml / pyproject.toml files)."""
    merged = AuditResult(models=results[0].models if results else [])
    for r in results:
        merged.prompts += r.prompts
        merged.errors += r.errors
        merged.files += r.files
        merged.notes += r.notes
    return merged
