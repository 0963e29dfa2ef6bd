"""PL009: a prompt's stable prefix differs from promptlint.lock. It compares
a whole audit with the lock, so `check --locked` calls `locked_findings`
instead of a per-prompt `check` (without --locked the rule has nothing to
compare with). The lock's code is imported only then: `check` without
--locked loads this module just for its id."""

from __future__ import annotations

from promptlint.checks.base import Finding, Severity
from promptlint.ir import Scope, Span

RULE = "PL009"
FIX = "if the change is meant, run `promptlint lock` and commit promptlint.lock with it"


def locked_findings(lock, prompts, root) -> list[Finding]:
    """One finding per prompt whose stable prefix, at the widest scope where
    it does, shrank or changed against the lock (a lockfile.Lock): the first
    token that differs and the template line it comes from."""
    from promptlint.lockfile import prompt_id

    out = []
    for result in prompts:
        pid = prompt_id(result.template, root)
        entry = lock.prompts.get(pid)
        if entry is None:
            continue
        finding = _first_change(entry, result)
        if finding is not None:  # the place may be an include shared by several prompts: name this one
            finding.prompt = result.template.name
            finding.prompt_path = result.template.source.display_path
            finding.message = f"prompt {pid}: {finding.message}"
            finding.summary = f"prompt {pid}: {finding.summary}"
            out.append(finding)
    return out


def _first_change(entry, result) -> Finding | None:
    from promptlint.lockfile import RenderTokens, locked_length, prefix_id_of
    from promptlint.tokenizers import get_tokenizer

    for spec, scopes in sorted(entry.prefixes.items()):
        analysis = result.analyses.get(spec)
        if analysis is None:
            continue
        tokens = RenderTokens(analysis, get_tokenizer(spec))
        for scope in Scope:
            locked = scopes.get(scope.key)
            if locked is None:
                continue
            stable = locked_length(analysis, tokens, scope.key)
            kept = analysis.tokens[:locked.tokens]
            if stable >= locked.tokens and prefix_id_of(kept) == locked.sha256:
                continue
            return _finding(analysis, tokens, scope, locked, stable, kept, spec)
    return None


def _finding(analysis, tokens, scope, locked, stable, kept, spec) -> Finding:
    from promptlint.lockfile import BLOCK, first_line_difference, first_token_difference, prefix_id_of

    where = scope.key if scope is not Scope.GLOBAL else "shared by all users"
    if len(kept) == locked.tokens and prefix_id_of(kept) == locked.sha256:
        # the text is as locked, but a slot inside it now varies at this scope
        breaker = analysis.scopes[scope.key].breaker
        span = breaker.span if breaker is not None and breaker.span is not None else \
            _source_at(analysis, tokens.offset(stable))
        what = f"`{breaker.label}` now varies" if breaker is not None else "a slot in it now varies"
        message = (f"stable prefix ({where}) shrank from {locked.tokens:,} to {stable:,} tokens against "
                   f"promptlint.lock ({spec}): {what} at token {stable:,}")
        return Finding(RULE, Severity.ERROR, message, span, tokens=locked.tokens - stable, fix=FIX,
                       summary=f"stable prefix shrank from {locked.tokens:,} to {stable:,} tokens")
    at = first_token_difference(locked, analysis.tokens)
    lines = tokens.text_before(locked.tokens).splitlines(keepends=True)
    line_start = sum(map(len, lines[:first_line_difference(locked, "".join(lines))]))
    offset = max(line_start, tokens.offset(at))  # the first line that differs, past the last block that agrees
    message = (f"stable prefix ({where}) differs from promptlint.lock ({spec}) from token {at:,} (within "
               f"{BLOCK} tokens): {locked.tokens:,} tokens were locked, {stable:,} are stable now")
    return Finding(RULE, Severity.ERROR, message, _source_at(analysis, offset), tokens=max(0, locked.tokens - at),
                   fix=FIX, summary=f"stable prefix differs from promptlint.lock from token {at:,}")


def _source_at(analysis, offset: int) -> Span:
    """Where the reference render's character `offset` comes from: the very
    character of literal text written as it renders, else the innermost
    slot that rendered it, else the prompt."""
    reference = analysis.reference
    offset = min(offset, max(0, len(reference.text) - 1))
    piece = reference.piece_at(offset)
    if piece is not None:
        span = getattr(piece.part, "span", None)
        if span is not None:
            text = getattr(piece.part, "text", None)
            if isinstance(text, str) and span.end - span.start == len(text):
                return Span(span.file, span.start + (offset - piece.start), span.end)
            return span
        for slot in reversed(piece.slots):
            if slot.span is not None:
                return slot.span
    template = analysis.template
    return template.span or Span(template.source, 0, 0)
