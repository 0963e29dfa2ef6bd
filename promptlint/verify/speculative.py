"""Greedy and speculative greedy decoding, to measure speculative acceptance
on real prompts.

`greedy` is the reference: prefill the prompt once, then one target forward
pass per new token over a KV cache. `speculative_greedy` produces the same
tokens with fewer target passes: each step a drafter proposes up to `gamma`
tokens, the target scores [last token + drafts] in one forward pass, keeps
the longest prefix of drafts that equals its own argmax, appends its own
next token (the correction, or the bonus token when every draft was
accepted) and crops its cache back to what it accepted.

Two drafters:

* `ModelDrafter` -- a smaller (or quantised) model with its own KV cache.
  It drafts one token per forward pass and, at the next `propose`, crops its
  cache to the longest prefix it shares with the verified context, so it
  never prefills the context again (one or two tokens to catch up per step).
* `PromptLookupDrafter` -- prompt-lookup (n-gram) decoding: the tokens that
  followed the most recent earlier occurrence of the context's last n
  tokens; no model, so its cost is a list search.

Bookkeeping. Both loops prefill the whole prompt in one target pass and take
the first new token from it, so the first token is computed exactly as
`greedy` computes it; speculation starts with the second token. A "target
step" is one target forward pass after the prefill: `greedy` takes one per
token after the first, `speculative_greedy` one per verification. The
invariant of the loop: the target cache holds every context token but the
last, and the last is the first input of the next step.

Numerics. The target's argmax for a position comes from a forward pass over
1 + gamma tokens in speculation and over 1 token in `greedy`; the two
compute the same function but may take different kernels (matmul blocking,
the attention mask), so logits can differ by float rounding (~1e-6
relative in float32). That changes a token only when the two best logits
tie to within that noise. In float32 on CPU the outputs are identical in
practice (tests/test_speculative.py checks token equality on many prompts
and gammas); in bfloat16/float16, or on GPU kernels that pick algorithms by
shape, an exact tie can break differently, and the outputs then diverge
from that token on. They remain greedy decodes of the same model; when
comparing tokens, compare in float32 or report the first divergence.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import torch

from promptlint.verify import torchcompat

# --------------------------------------------------------------------------- results


@dataclass
class Generation:
    """A plain greedy decode."""

    tokens: list[int]  # new tokens only; an eos token that stopped it is included
    target_steps: int  # target forward passes after the prefill (one per token after the first)
    seconds: float  # wall time of the whole decode, prefill included
    prefill_seconds: float  # the prompt's one forward pass (it yields the first token)
    step_seconds: list[float] = field(default_factory=list)  # each one-token target decode step
    stopped: str = "max_new_tokens"  # "eos" | "max_new_tokens"

    @property
    def step_seconds_median(self) -> float:
        """The cost of one target decode step (nan when there were none)."""
        return statistics.median(self.step_seconds) if self.step_seconds else float("nan")


@dataclass
class SpeculationResult:
    """A speculative greedy decode and its acceptance."""

    tokens: list[int]  # new tokens; identical to greedy(...).tokens (see the module docstring)
    target_steps: int  # target verification passes after the prefill
    drafted: int  # draft tokens the target scored
    accepted: int  # draft tokens the target accepted (and emitted)
    step_tokens: list[int]  # tokens emitted by each target step (accepted drafts + the target's own token, cut at eos/max)
    seconds: float  # wall time of the whole decode, prefill included
    draft_seconds: float  # time spent in the drafter (propose), included in `seconds`
    prefill_seconds: float  # the prompt's target forward pass
    gamma: int
    stopped: str = "max_new_tokens"  # "eos" | "max_new_tokens"

    @property
    def acceptance_rate(self) -> float:
        """accepted / drafted (nan when nothing was drafted)."""
        return self.accepted / self.drafted if self.drafted else float("nan")

    @property
    def tokens_per_step(self) -> float:
        """Mean tokens emitted per target step (the mean accepted length + 1
        on full steps); greedy's is 1. The first token, which comes from
        the prefill in both loops, is not counted."""
        return sum(self.step_tokens) / self.target_steps if self.target_steps else float("nan")


# --------------------------------------------------------------------------- helpers


def _device(model) -> torch.device:
    return next(model.parameters()).device


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _ids(tokens: list[int], device: torch.device) -> torch.Tensor:
    return torch.tensor([tokens], dtype=torch.long, device=device)


def _check(prompt_ids: list[int], max_new_tokens: int) -> None:
    if not prompt_ids:
        raise ValueError("the prompt must hold at least one token")
    if max_new_tokens < 0:
        raise ValueError("max_new_tokens must be >= 0")


# --------------------------------------------------------------------------- greedy


def _prefill(model, prompt_ids: list[int], device):
    """The prompt through `model` once: its cache, the first greedy token
    (from the last position's logits only) and the seconds it took."""
    cache = torchcompat.new_cache(model)
    t0 = time.perf_counter()
    logits = torchcompat.forward(model, _ids(prompt_ids, device), cache, last_only=True)
    token = int(logits[-1].argmax())
    _sync(device)
    return cache, token, time.perf_counter() - t0


def greedy(model, prompt_ids: list[int], max_new_tokens: int, eos_ids: set[int]) -> Generation:
    """Greedy decoding with a KV cache: one prefill pass over the prompt
    (which yields the first token), then one one-token forward pass per
    further token. Stops after `max_new_tokens` tokens or after emitting a
    token in `eos_ids` (which is included in `tokens`)."""
    _check(prompt_ids, max_new_tokens)
    device = _device(model)
    tokens: list[int] = []
    step_seconds: list[float] = []
    prefill_seconds = 0.0
    stopped = "max_new_tokens"
    started = time.perf_counter()
    if max_new_tokens:
        with torch.no_grad():
            cache, token, prefill_seconds = _prefill(model, prompt_ids, device)
            while True:
                tokens.append(token)
                if token in eos_ids:
                    stopped = "eos"
                    break
                if len(tokens) >= max_new_tokens:
                    break
                t0 = time.perf_counter()
                logits = torchcompat.forward(model, _ids([token], device), cache)
                token = int(logits[-1].argmax())  # .item() waits for the device
                step_seconds.append(time.perf_counter() - t0)
    return Generation(
        tokens=tokens,
        target_steps=len(step_seconds),
        seconds=time.perf_counter() - started,
        prefill_seconds=prefill_seconds,
        step_seconds=step_seconds,
        stopped=stopped,
    )


# --------------------------------------------------------------------------- drafters


class Drafter(Protocol):
    """What `speculative_greedy` needs from a drafter.

    `propose(context, gamma)` returns at most `gamma` token ids predicted to
    follow `context` (the prompt plus every verified token so far; it only
    ever grows by verified tokens within one decode). A drafter that keeps
    state syncs itself from `context` -- there is no separate accept call,
    so rejected drafts are rolled back at the next `propose`. `reset()`
    drops the state between decodes. `seconds` accumulates the drafter's
    own time."""

    seconds: float

    def propose(self, context: list[int], gamma: int) -> list[int]: ...

    def reset(self) -> None: ...


class ModelDrafter:
    """Greedy drafts from a draft model (same tokenizer as the target).

    The drafter's KV cache holds the keys and values of `_cached`, the tokens
    it has fed. At `propose(context, gamma)` it keeps the longest common
    prefix of `_cached` and `context` (at most len(context) - 1 tokens, so
    there is a token to feed) by cropping its cache (torchcompat.crop), feeds
    the rest of the context in one pass -- the whole prompt the first time,
    afterwards only the target's correction token, or the last accepted
    draft and the bonus token when all drafts were accepted -- and then
    drafts one token per forward pass. The last draft is never fed, so the
    cache never holds more than gamma - 1 speculative tokens.

    Times: `seconds` is all time in `propose`; `step_seconds` the one-token
    draft decode steps alone (the cost of one draft step, for c)."""

    def __init__(self, draft_model):
        self.model = draft_model
        self.device = _device(draft_model)
        self.vocab_size = draft_model.get_output_embeddings().weight.shape[0]
        self.reset()

    def reset(self) -> None:
        self.cache = torchcompat.new_cache(self.model)
        self._cached: list[int] = []
        self.seconds = 0.0
        self.step_seconds: list[float] = []
        self.prefill_tokens = 0  # tokens fed to catch up with the context (prompt + corrections)

    def _common_prefix(self, context: list[int]) -> int:
        n = min(len(self._cached), len(context) - 1)
        if n <= 0:
            return 0
        a = np.asarray(self._cached[:n])
        b = np.asarray(context[:n])
        diff = np.flatnonzero(a != b)
        return int(diff[0]) if diff.size else n

    def propose(self, context: list[int], gamma: int) -> list[int]:
        if gamma <= 0 or not context:
            return []
        started = time.perf_counter()
        with torch.no_grad():
            keep = self._common_prefix(context)
            torchcompat.crop(self.cache, keep)
            del self._cached[keep:]
            feed = context[keep:]
            logits = torchcompat.forward(self.model, _ids(feed, self.device), self.cache)
            self._cached.extend(feed)
            self.prefill_tokens += len(feed)
            drafts = [int(logits[-1].argmax())]
            while len(drafts) < gamma:
                t0 = time.perf_counter()
                logits = torchcompat.forward(self.model, _ids([drafts[-1]], self.device), self.cache)
                self._cached.append(drafts[-1])
                drafts.append(int(logits[-1].argmax()))
                self.step_seconds.append(time.perf_counter() - t0)
        self.seconds += time.perf_counter() - started
        return drafts


class PromptLookupDrafter:
    """Prompt-lookup decoding (Saxena, "Prompt Lookup Decoding", 2023; vLLM's
    `ngram` speculator with prompt_lookup_max / prompt_lookup_min).

    For n from `max_ngram` down to `min_ngram`: find the most recent earlier
    occurrence of the context's last n tokens and propose the (up to) gamma
    tokens that followed it; the first n that matches wins. No model, no
    state. (Saxena's reference takes the earliest match; the most recent one
    is usually the better guess inside a generated continuation, and is
    what this drafter uses.)"""

    def __init__(self, max_ngram: int = 3, min_ngram: int = 1):
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError("need 1 <= min_ngram <= max_ngram")
        self.max_ngram = max_ngram
        self.min_ngram = min_ngram
        self.reset()

    def reset(self) -> None:
        self.seconds = 0.0

    def propose(self, context: list[int], gamma: int) -> list[int]:
        started = time.perf_counter()
        try:
            return self._lookup(context, gamma)
        finally:
            self.seconds += time.perf_counter() - started

    def _lookup(self, context: list[int], gamma: int) -> list[int]:
        if gamma <= 0:
            return []
        ids = np.asarray(context, dtype=np.int64)
        total = len(ids)
        for n in range(min(self.max_ngram, total - 1), self.min_ngram - 1, -1):
            # candidate starts i in [0, total - n): an earlier window, with
            # at least one token after it
            starts = total - n
            match = np.ones(starts, dtype=bool)
            for k in range(n):
                match &= ids[k : k + starts] == ids[total - n + k]
            hits = np.flatnonzero(match)
            if hits.size:
                follow = int(hits[-1]) + n
                return [int(t) for t in ids[follow : follow + gamma]]
        return []


# --------------------------------------------------------------------------- speculation


def speculative_greedy(
    target, drafter: Drafter, prompt_ids: list[int], max_new_tokens: int, gamma: int, eos_ids: set[int]
) -> SpeculationResult:
    """Greedy decoding of `target`, verified speculatively; the tokens equal
    `greedy(target, prompt_ids, max_new_tokens, eos_ids).tokens`.

    Each step: the drafter proposes up to min(gamma, remaining - 1) tokens
    (never more than can be emitted); the target runs [last token + drafts]
    in one forward pass over its cache; drafts are accepted while each
    equals the target's argmax at the position before it; the target's
    argmax after the last accepted draft is appended; the target cache is
    cropped to the context minus its new last token. Emission stops at the
    first eos token or at max_new_tokens. The drafter is reset first."""
    _check(prompt_ids, max_new_tokens)
    if gamma < 0:
        raise ValueError("gamma must be >= 0")
    device = _device(target)
    vocab = target.get_output_embeddings().weight.shape[0]
    drafter.reset()
    tokens: list[int] = []
    step_tokens: list[int] = []
    drafted = accepted = 0
    prefill_seconds = 0.0
    stopped = "max_new_tokens"
    started = time.perf_counter()

    def emit(new: list[int]) -> bool:
        """Append `new` up to eos / the budget; True when decoding is over."""
        nonlocal stopped
        for token in new:
            tokens.append(token)
            if token in eos_ids:
                stopped = "eos"
                return True
            if len(tokens) >= max_new_tokens:
                return True
        return False

    if max_new_tokens:
        with torch.no_grad():
            cache, first, prefill_seconds = _prefill(target, prompt_ids, device)
            context = list(prompt_ids)
            done = emit([first])
            context.append(first)
            while not done:
                budget = min(gamma, max_new_tokens - len(tokens) - 1)
                drafts = drafter.propose(context, budget)[:budget] if budget > 0 else []
                for i, t in enumerate(drafts):  # a draft the target cannot embed is never its argmax
                    if not 0 <= t < vocab:
                        drafts = drafts[:i]
                        break
                logits = torchcompat.forward(target, _ids([context[-1]] + drafts, device), cache)
                choice = logits.argmax(dim=-1).tolist()  # choice[i]: the target's token after input i
                k = 0
                while k < len(drafts) and drafts[k] == choice[k]:
                    k += 1
                drafted += len(drafts)
                new = drafts[:k] + [choice[k]]
                before = len(tokens)
                done = emit(new)
                emitted = len(tokens) - before
                step_tokens.append(emitted)
                accepted += min(k, emitted)
                context.extend(new)
                # keep [context before this step] + last token + accepted drafts
                torchcompat.crop(cache, len(context) - 1)
    return SpeculationResult(
        tokens=tokens,
        target_steps=len(step_tokens),
        drafted=drafted,
        accepted=accepted,
        step_tokens=step_tokens,
        seconds=time.perf_counter() - started,
        draft_seconds=drafter.seconds,
        prefill_seconds=prefill_seconds,
        gamma=gamma,
        stopped=stopped,
    )


# --------------------------------------------------------------------------- cost ratio


def decode_step_seconds(model, context_ids: list[int], steps: int = 16, warmup: int = 3) -> float:
    """Median wall time of one one-token decode step of `model` after
    `context_ids`: the context minus its last token is prefilled once; each
    step feeds the last token and crops it off again, so every step sees
    the same cache length."""
    if len(context_ids) < 1:
        raise ValueError("the context must hold at least one token")
    device = _device(model)
    last = _ids(context_ids[-1:], device)
    times: list[float] = []
    with torch.no_grad():
        cache = torchcompat.new_cache(model)
        if len(context_ids) > 1:
            torchcompat.forward(model, _ids(context_ids[:-1], device), cache)
        keep = torchcompat.length(cache)
        for i in range(warmup + steps):
            _sync(device)
            t0 = time.perf_counter()
            logits = torchcompat.forward(model, last, cache)
            int(logits[-1].argmax())  # as in decoding: the token reaches the host
            elapsed = time.perf_counter() - t0
            torchcompat.crop(cache, keep)
            if i >= warmup:
                times.append(elapsed)
    return statistics.median(times)


def draft_cost_ratio(target, draft, context_ids: list[int], steps: int = 16, warmup: int = 3) -> float:
    """c = (median time of one draft decode step) / (median time of one
    target decode step), both measured after the same context with
    `decode_step_seconds` (after `warmup` untimed steps each). The two
    models are measured alternately twice and the smaller median of each
    kept, to damp load from other processes."""
    draft_times, target_times = [], []
    for _ in range(2):
        target_times.append(decode_step_seconds(target, context_ids, steps, warmup))
        draft_times.append(decode_step_seconds(draft, context_ids, steps, warmup))
    return min(draft_times) / min(target_times)
