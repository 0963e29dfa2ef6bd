"""Speculative greedy decoding on tiny random Llamas: the output equals plain
greedy decoding for every drafter and gamma; acceptance bookkeeping; the
4-bit fake-quantised draft."""

from __future__ import annotations

import math
import random

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tinymodel import tiny_llama

from promptlint.verify import torchcompat
from promptlint.verify.quantize import LEVELS, fake_quantize, requantize_4bit
from promptlint.verify.speculative import (
    ModelDrafter,
    PromptLookupDrafter,
    decode_step_seconds,
    draft_cost_ratio,
    greedy,
    speculative_greedy,
)

VOCAB = 1024
MAX_NEW = 24
GAMMAS = (1, 3, 5)


def _prompt(seed: int, length: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(VOCAB) for _ in range(length)]


PROMPTS = [_prompt(1, 1), _prompt(2, 7), _prompt(3, 23), _prompt(4, 60)]


@pytest.fixture(scope="module")
def target():
    return tiny_llama(seed=0)


@pytest.fixture(scope="module")
def other_draft():
    return tiny_llama(seed=1)


@pytest.fixture(scope="module")
def q4_draft(target):
    return requantize_4bit(target)


@pytest.fixture(scope="module")
def references(target):
    return [greedy(target, p, MAX_NEW, set()).tokens for p in PROMPTS]


# ------------------------------------------------------------------ greedy


def test_greedy_records_steps_and_times(target):
    g = greedy(target, PROMPTS[1], MAX_NEW, set())
    assert len(g.tokens) == MAX_NEW
    assert g.target_steps == MAX_NEW - 1 == len(g.step_seconds)
    assert all(s > 0 for s in g.step_seconds) and g.prefill_seconds > 0
    assert g.seconds >= g.prefill_seconds + sum(g.step_seconds)
    assert g.stopped == "max_new_tokens" and g.step_seconds_median > 0


def test_greedy_matches_uncached_argmax(target):
    """The cached loop decodes what full recomputation decodes."""
    prompt = PROMPTS[2]
    tokens = greedy(target, prompt, 8, set()).tokens
    context = list(prompt)
    with torch.no_grad():
        for token in tokens:
            logits = torchcompat.forward(target, torch.tensor([context]), torchcompat.new_cache(target))
            assert int(logits[-1].argmax()) == token
            context.append(token)


def test_multi_token_pass_matches_one_token_passes(target):
    """The numerics speculation relies on: scoring k tokens in one pass gives
    the logits (float32, CPU) and argmaxes of k one-token passes."""
    prompt, more = PROMPTS[2], _prompt(9, 6)
    with torch.no_grad():
        cache = torchcompat.new_cache(target)
        torchcompat.forward(target, torch.tensor([prompt]), cache)
        together = torchcompat.forward(target, torch.tensor([more]), cache)
        cache = torchcompat.new_cache(target)
        torchcompat.forward(target, torch.tensor([prompt]), cache)
        one_by_one = torch.cat([torchcompat.forward(target, torch.tensor([[t]]), cache) for t in more])
    assert torch.allclose(together, one_by_one, atol=1e-5, rtol=1e-5)
    assert together.argmax(-1).tolist() == one_by_one.argmax(-1).tolist()


# ------------------------------------------------------------------ equality with greedy


@pytest.mark.parametrize("gamma", GAMMAS)
@pytest.mark.parametrize("which", ["other_seed", "q4_of_target", "prompt_lookup"])
def test_speculative_equals_greedy(target, other_draft, q4_draft, references, which, gamma):
    for prompt, reference in zip(PROMPTS, references):
        if which == "prompt_lookup":
            drafter = PromptLookupDrafter(max_ngram=3, min_ngram=1)
        else:
            drafter = ModelDrafter(other_draft if which == "other_seed" else q4_draft)
        result = speculative_greedy(target, drafter, prompt, MAX_NEW, gamma, set())
        assert result.tokens == reference
        assert result.gamma == gamma
        assert sum(result.step_tokens) == len(result.tokens) - 1  # the first token comes from the prefill
        assert result.target_steps == len(result.step_tokens) <= MAX_NEW - 1
        assert 0 <= result.accepted <= result.drafted <= gamma * result.target_steps
        assert result.accepted == sum(result.step_tokens) - result.target_steps  # one target token per step
        assert 0 <= result.draft_seconds <= result.seconds
        if isinstance(drafter, ModelDrafter):
            # rolled back by crop, never re-prefilled: the prompt once, then one
            # or two catch-up tokens per step
            assert drafter.prefill_tokens <= len(prompt) + 2 * result.target_steps
            assert torchcompat.length(drafter.cache) == len(drafter._cached)


def test_q4_draft_is_accepted_more_than_an_unrelated_model(target, other_draft, q4_draft):
    prompt = PROMPTS[2]
    q4 = speculative_greedy(target, ModelDrafter(q4_draft), prompt, MAX_NEW, 3, set())
    other = speculative_greedy(target, ModelDrafter(other_draft), prompt, MAX_NEW, 3, set())
    assert q4.acceptance_rate > other.acceptance_rate
    assert q4.target_steps < other.target_steps


@pytest.mark.parametrize("gamma", GAMMAS)
def test_draft_equal_to_target_accepts_everything(target, references, gamma):
    for prompt, reference in zip(PROMPTS, references):
        result = speculative_greedy(target, ModelDrafter(target), prompt, MAX_NEW, gamma, set())
        assert result.tokens == reference
        assert result.acceptance_rate == 1.0
        assert result.step_tokens[:-1] == [gamma + 1] * (len(result.step_tokens) - 1)
        assert 1 <= result.step_tokens[-1] <= gamma + 1
        assert result.target_steps == math.ceil((MAX_NEW - 1) / (gamma + 1))
        assert result.tokens_per_step == pytest.approx((MAX_NEW - 1) / result.target_steps)


def test_prompt_lookup_accepts_the_continuation_it_has_seen(target):
    """Deterministic by construction: g is the target's greedy continuation
    of P, so the target continues P + g[:k] with g[k:]. Pick k so that the
    lookup, at the first speculative step (context P + g[:k+1]), proposes
    g[k+1] first: that draft must be accepted."""
    prompt = PROMPTS[1]
    g = greedy(target, prompt, 64, set()).tokens
    lookup = PromptLookupDrafter()
    gamma = 3
    k = next(
        k for k in range(len(g) - MAX_NEW)
        if lookup.propose(prompt + g[: k + 1], gamma)[:1] == [g[k + 1]]
    )
    result = speculative_greedy(target, lookup, prompt + g[:k], MAX_NEW, gamma, set())
    assert result.tokens == g[k : k + MAX_NEW]
    assert result.accepted > 0 and result.step_tokens[0] >= 2
    assert result.tokens_per_step > 1


def test_prompt_lookup_proposals():
    lookup = PromptLookupDrafter(max_ngram=3, min_ngram=1)
    # the longest n-gram wins: the trigram [1, 2, 3] occurs once, followed by 4, 5
    assert lookup.propose([1, 2, 3, 4, 5, 9, 2, 3, 7, 1, 2, 3], 2) == [4, 5]
    # the most recent earlier occurrence wins, proposals stop at the context's end
    assert lookup.propose([5, 1, 8, 5, 2, 5], 4) == [2, 5]
    assert lookup.propose([5, 1, 8, 5, 2, 5], 1) == [2]
    # the suffix itself is not an earlier occurrence
    assert lookup.propose([1, 2, 3], 3) == []
    assert lookup.propose([7], 3) == []
    assert lookup.propose([4, 4, 4, 4], 5) == [4]
    # min_ngram: a lone matching token is not enough
    assert PromptLookupDrafter(max_ngram=3, min_ngram=2).propose([1, 6, 2, 1], 2) == []
    assert PromptLookupDrafter(max_ngram=3, min_ngram=1).propose([1, 6, 2, 1], 2) == [6, 2]
    assert lookup.propose([1, 2, 1], 0) == []
    with pytest.raises(ValueError):
        PromptLookupDrafter(max_ngram=1, min_ngram=2)


# ------------------------------------------------------------------ stopping


def test_eos_stops_both_loops(target, q4_draft, references):
    reference = references[1]
    stop_at = 5
    eos = reference[stop_at]
    stop_at = reference.index(eos)  # its first occurrence
    expected = reference[: stop_at + 1]
    g = greedy(target, PROMPTS[1], MAX_NEW, {eos})
    assert g.tokens == expected and g.stopped == "eos"
    for drafter in (ModelDrafter(q4_draft), ModelDrafter(target), PromptLookupDrafter()):
        for gamma in GAMMAS:
            s = speculative_greedy(target, drafter, PROMPTS[1], MAX_NEW, gamma, {eos})
            assert s.tokens == expected and s.stopped == "eos"
            assert sum(s.step_tokens) == len(expected) - 1


def test_eos_as_first_token(target, references):
    eos = references[0][0]
    assert greedy(target, PROMPTS[0], MAX_NEW, {eos}).tokens == [eos]
    s = speculative_greedy(target, ModelDrafter(target), PROMPTS[0], MAX_NEW, 3, {eos})
    assert s.tokens == [eos] and s.target_steps == 0 and s.drafted == 0


@pytest.mark.parametrize("max_new", [0, 1, 2, 3, 7])
def test_max_new_tokens_is_never_exceeded(target, q4_draft, max_new):
    prompt = PROMPTS[2]
    reference = greedy(target, prompt, max_new, set())
    assert len(reference.tokens) == max_new
    for drafter in (ModelDrafter(target), ModelDrafter(q4_draft), PromptLookupDrafter()):
        result = speculative_greedy(target, drafter, prompt, max_new, 5, set())
        assert result.tokens == reference.tokens
        assert all(n <= 5 + 1 for n in result.step_tokens)
        # never drafts what could not be emitted: at most min(gamma, left - 1) a step
        emitted, bound = 1, 0
        for n in result.step_tokens:
            bound += min(5, max_new - emitted - 1)
            emitted += n
        assert result.drafted <= bound


def test_drafter_is_reused_across_prompts(target, references):
    """speculative_greedy resets the drafter: one ModelDrafter serves many decodes."""
    drafter = ModelDrafter(target)
    for prompt, reference in zip(PROMPTS, references):
        result = speculative_greedy(target, drafter, prompt, MAX_NEW, 3, set())
        assert result.tokens == reference and result.acceptance_rate == 1.0


# ------------------------------------------------------------------ cost


def test_decode_step_seconds_and_draft_cost_ratio(target, q4_draft):
    context = PROMPTS[3]
    assert decode_step_seconds(target, context, steps=4, warmup=1) > 0
    c = draft_cost_ratio(target, q4_draft, context, steps=4, warmup=1)
    # fake quantisation keeps dense float weights: about the target's cost
    # (loose bounds: the CI machine is shared)
    assert math.isfinite(c) and 0.1 < c < 10


def test_model_drafter_times_its_steps(target):
    drafter = ModelDrafter(target)
    speculative_greedy(target, drafter, PROMPTS[1], MAX_NEW, 3, set())
    assert drafter.step_seconds and all(s > 0 for s in drafter.step_seconds)
    assert drafter.seconds >= sum(drafter.step_seconds)


# ------------------------------------------------------------------ 4-bit draft


def _linears(model):
    return {name: m.weight for name, m in model.named_modules() if isinstance(m, torch.nn.Linear)}


def test_requantize_4bit(target, q4_draft):
    group = 32
    original = _linears(target)
    quantised = _linears(q4_draft)
    assert set(original) == set(quantised) and "lm_head" in quantised
    assert any(n.startswith("model.layers.") for n in quantised)
    for name, w in original.items():
        q = quantised[name]
        assert q.dtype == w.dtype and q.shape == w.shape
        assert not torch.equal(q, w), name  # the weights changed
        groups_w = w.detach().reshape(w.shape[0], -1, group)
        groups_q = q.detach().reshape(q.shape[0], -1, group)
        scale = groups_w.abs().amax(-1, keepdim=True) / LEVELS
        # within half a step of the original
        assert ((groups_q - groups_w).abs() <= scale / 2 * (1 + 1e-5) + 1e-8).all(), name
        # on the integer grid -7..7 of its group's scale, so at most 16 levels
        levels = groups_q / scale
        assert torch.allclose(levels, levels.round(), atol=1e-4)
        assert levels.round().abs().max() <= LEVELS
        ordered = groups_q.sort(-1).values
        distinct = (ordered.diff(dim=-1) != 0).sum(-1) + 1
        assert distinct.max() <= 16
    # the embeddings are not quantised
    assert torch.equal(target.get_input_embeddings().weight, q4_draft.get_input_embeddings().weight)


def test_requantize_4bit_leaves_the_original_untouched():
    model = tiny_llama(seed=3)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    draft = requantize_4bit(model, group_size=16)
    assert draft is not model
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not torch.equal(draft.lm_head.weight, model.lm_head.weight)


def test_fake_quantize_ragged_groups_and_zeros():
    w = torch.randn(3, 40)
    w[1] = 0.0
    q = fake_quantize(w, group_size=32)  # groups of 32 and 8 columns
    assert torch.equal(q[1], torch.zeros(40))
    for lo, hi in ((0, 32), (32, 40)):
        part_w, part_q = w[:, lo:hi], q[:, lo:hi]
        scale = part_w.abs().amax(-1, keepdim=True) / LEVELS
        assert ((part_q - part_w).abs() <= scale / 2 + 1e-6).all()
        # the absmax value itself is exact
        assert torch.allclose(part_q.abs().amax(-1), part_w.abs().amax(-1))
    bf16 = fake_quantize(w.bfloat16(), group_size=32)
    assert bf16.dtype == torch.bfloat16


def test_requantize_4bit_unties_a_tied_lm_head():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)
    model = LlamaForCausalLM(config).eval()
    assert model.lm_head.weight is model.get_input_embeddings().weight
    draft = requantize_4bit(model)
    assert draft.lm_head.weight is not draft.get_input_embeddings().weight
    assert torch.equal(draft.get_input_embeddings().weight, model.get_input_embeddings().weight)
    assert not torch.equal(draft.lm_head.weight, model.lm_head.weight)
    assert model.lm_head.weight is model.get_input_embeddings().weight  # original still tied
    prompt = [5, 9, 17, 3]
    assert speculative_greedy(model, ModelDrafter(draft), prompt, 12, 3, set()).tokens == \
        greedy(model, prompt, 12, set()).tokens
