"""Serving engines' prefix reuse without a model: what each engine would
read from its cache for a stream of token sequences, by its own rules.

- vLLM: full blocks of `block_size` tokens found by the block-hash chain, a
  capacity in blocks, least-recently-used leaf blocks evicted first
  (blocks.BlockIndex: the very bookkeeping the built-in engine runs, so the
  two agree token for token on the same stream).
- SGLang: RadixAttention's token-granularity radix tree with a capacity in
  tokens and least-recently-used leaves evicted (the same bookkeeping with
  one-token blocks: a chain of one-token blocks is a radix tree's path).
- llama.cpp's server: its slots, host prompt cache and `--cache-reuse`, as
  its flags set them (sim_llamacpp.py).

Every engine keeps at least one token of a prompt to prefill (it needs the
last position's logits), so a repeated prompt reuses all but its last token
(vLLM and SGLang: rounded down to their block). Sources: vLLM
`docs/design/prefix_caching.md` and `vllm/v1/core/kv_cache_utils.py`;
SGLang RadixAttention (LRU leaves, token granularity); llama.cpp server
`cache_prompt` (shared/reference/cache-rules.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from promptlint.verify.blocks import BlockIndex, CacheStats

ENGINES = ("vllm", "sglang", "llamacpp")


@dataclass
class Reuse:
    """One request's simulated reuse."""

    prompt_tokens: int
    cached_tokens: int
    evicted_tokens: int = 0  # tokens after the hit that were cached once and evicted since
    rule: str = ""  # the engine's rule that can make it reuse other than the longest shared prefix


class BlockEngine:
    """vLLM's rule: a block-hash chain with LRU leaf eviction."""

    name = "vllm"

    def __init__(self, block_size: int = 16, capacity_blocks: int = 4096) -> None:
        self.index = BlockIndex(block_size, capacity_blocks)

    def request(self, tokens: list[int], request=None) -> Reuse:
        match = self.index.match(tokens, limit=len(tokens) - 1)
        self.index.insert(tokens)
        return Reuse(len(tokens), match.tokens, match.evicted_tokens)


class RadixEngine(BlockEngine):
    """SGLang's rule: a token radix tree, a capacity in tokens, LRU leaves."""

    name = "sglang"

    def __init__(self, capacity_tokens: int = 65536) -> None:
        super().__init__(1, capacity_tokens)


_RULES = {
    "vllm": "vLLM's (blocks of {b} tokens found by their hash chain, {c:,} blocks, least recently used leaves evicted)",
    "sglang": "SGLang's (a token radix tree of {c:,} tokens, least recently used leaves evicted)",
    "llamacpp": "llama.cpp server's ({args})",
}


@dataclass
class _Tokens:
    """What the report says of the tokenizer (a simulated engine runs no model)."""

    name: str
    path: str
    device: str = "none (simulated)"
    dtype: str = "-"
    load_seconds: float = 0.0


class SimulatedEngine:
    """A simulated engine as the verify report describes one: its rules,
    the tokenizer the tokens came from, and its cache's counters."""

    def __init__(self, sim, tokenizer) -> None:
        self.sim = sim
        self.tokenizer = tokenizer
        self.cache = sim.index if isinstance(sim, BlockEngine) else sim
        self.loaded = _Tokens(tokenizer.name, str(tokenizer.path))
        self.rules = sim.name

    @property
    def granularity(self) -> str:
        """The rules as the report's footer states them (after the replay:
        some engines count what the stream did to them)."""
        args = self.sim.describe() if hasattr(self.sim, "describe") else ""
        return _RULES.get(self.sim.name, "{args}").format(b=self.cache.block_size, c=self.cache.capacity_blocks,
                                                          args=args)

    @property
    def block_size(self) -> int:
        return self.cache.block_size


def replay_sim(engine: SimulatedEngine, groups) -> list:
    """verify's replay with the simulated engine: each request tokenized with
    the engine's tokenizer and chat template, predicted (the same predictor as
    the real engines) and run through the rules; nothing is timed."""
    from promptlint.ir import SourceError
    from promptlint.verify.predict import Predictor
    from promptlint.verify.replay import PromptReplay, RequestResult, template_failed

    policy = "previous" if getattr(engine.sim, "one_previous_prompt", False) else "any"
    predictor = Predictor(engine.block_size, policy)
    results = []
    for prompt, location, requests in groups:
        result = PromptReplay(prompt, location)
        results.append(result)
        for request, tokens in _tokenized(engine.tokenizer, requests):
            if isinstance(tokens, Exception):  # a chat template that rejects these messages
                result.errors.append(template_failed(request, tokens))
                continue
            if not tokens:
                result.errors.append(SourceError(request.path, request.line, f"{request.label}: prompt is empty"))
                continue
            prediction = predictor.predict(tokens)
            predicted = prediction.cached_tokens
            if hasattr(engine.sim, "predicted"):  # a hosted model: the audit's own formula
                predicted = engine.sim.predicted(prediction.shared_tokens, tokens, request)
            reuse = engine.sim.request(tokens, request)
            measured = RequestResult(request.label, len(tokens), prediction.shared_tokens, predicted,
                                     reuse.cached_tokens, reuse.evicted_tokens, None, engine_rule=reuse.rule)
            result.requests.append(measured)
    return results


BATCH = 1024  # requests rendered, then encoded together (the tokenizer uses every core)


def _tokenized(tokenizer, requests):
    """(request, its token ids or the chat template's exception), in order;
    encoded in batches where the tokenizer can (a bounded number at a time)."""
    batch = getattr(tokenizer, "encode_batch", None)
    for start in range(0, len(requests), BATCH):
        chunk = requests[start:start + BATCH]
        texts: list = []
        for request in chunk:
            try:
                texts.append(tokenizer.chat_text(request.messages))
            except Exception as exc:  # noqa: BLE001 - reported per request by the caller
                texts.append(exc)
        good = [t for t in texts if isinstance(t, str)]
        encoded = iter(batch(good) if batch else [tokenizer.encode(t) for t in good])
        for request, text in zip(chunk, texts):
            yield request, text if isinstance(text, Exception) else next(encoded)


def engine(name: str, block_size: int | None = None, capacity: int | None = None, server_args: str = "",
           generated: int = 0, kv_bytes_per_token: int | None = None):
    """A simulated engine by name; `capacity` in blocks (vLLM) or tokens
    (SGLang); for llama.cpp, its server's flags (`server_args`), the tokens
    each answer leaves in its slot and the model's KV bytes a token (for
    --cache-ram's limit)."""
    if name == "vllm":
        return BlockEngine(block_size or 16, capacity or 4096)
    if name == "sglang":
        if block_size not in (None, 1):
            raise ValueError("SGLang's radix cache has token granularity: no --block-size")
        return RadixEngine(capacity or 65536)
    if name == "llamacpp":
        from promptlint.verify.sim_llamacpp import LlamaServer, parse_server_args

        return LlamaServer(parse_server_args(server_args), generated, kv_bytes_per_token)
    raise ValueError(f"unknown engine {name!r} (expected one of: {', '.join(ENGINES)})")
