"""llama.cpp's server, its prompt reuse without a model: slots, the host
prompt cache, and chunk reuse by KV shifting.

The rules are those of `tools/server/server-context.cpp` and
`server-task.cpp` in the llama.cpp that llama-cpp-python 0.3.36 vendors
(the server .ci/build-llama-server builds), for requests sent one at a
time:

- a request takes the idle slot whose prompt shares the largest fraction of
  the request's tokens (over `-sps`, default 0.1), else the least recently
  used slot;
- with the host prompt cache (`--cache-ram` MiB, default 8192; 0 turns it
  off), a slot taken by LRU, or one that would keep under half its tokens,
  first saves its prompt there and loads the cached prompt that keeps the
  most (at least a quarter of it); with `--cache-idle-slots` (the default)
  the other idle slots are saved too, and cleared when the KV cache is
  unified (`-kvu`, the default when `-np` is not given: 4 slots);
- the slot then reuses its common prefix with the request, plus, with
  `--cache-reuse N`, later chunks of at least N tokens shifted into place;
- the last token is always prefilled again (its logits are needed).

A slot keeps the tokens it generated after the prompt; their ids are not
known here, so they match nothing (`generated` per request).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from promptlint.analysis.prefix import common_prefix
from promptlint.report.words import plural
from promptlint.verify.blocks import CacheStats

NO_MATCH = -1  # a generated token: its id is unknown, so it matches no prompt token


@dataclass(frozen=True)
class ServerArgs:
    """The llama-server flags that decide reuse, with the server's defaults."""

    slots: int = 4  # -np (not given: auto, 4 slots and a unified KV cache)
    kv_unified: bool = True
    cache_ram_mib: int = 8192  # --cache-ram: 0 off, -1 no byte limit
    cache_idle_slots: bool = True
    slot_similarity: float = 0.1  # -sps: 0 turns the similarity choice off
    cache_reuse: int = 0  # --cache-reuse: least chunk shifted into place, 0 off
    ctx: int = 0  # -c: the prompt cache's token limit (0: the model's)

    def describe(self) -> str:
        parts = [plural(self.slots, "slot") + (", unified KV" if self.kv_unified else "")]
        parts.append(f"slot similarity {self.slot_similarity:g}" if self.slot_similarity else "slots by LRU only")
        if self.cache_ram_mib:
            limit = "no byte limit" if self.cache_ram_mib < 0 else f"{self.cache_ram_mib:,} MiB"
            parts.append(f"host prompt cache ({limit}" + (", idle slots saved" if self.cache_idle_slots else "") + ")")
        else:
            parts.append("no host prompt cache")
        if self.cache_reuse:
            parts.append(f"chunks of {self.cache_reuse}+ tokens shifted into place")
        return ", ".join(parts)


_INT_FLAGS = {"-np": "slots", "--parallel": "slots", "-cram": "cache_ram_mib", "--cache-ram": "cache_ram_mib",
              "--cache-reuse": "cache_reuse", "-c": "ctx", "--ctx-size": "ctx"}
_FLOAT_FLAGS = {"-sps": "slot_similarity", "--slot-prompt-similarity": "slot_similarity"}
_BOOL_FLAGS = {"-kvu": ("kv_unified", True), "--kv-unified": ("kv_unified", True),
               "-no-kvu": ("kv_unified", False), "--no-kv-unified": ("kv_unified", False),
               "--cache-idle-slots": ("cache_idle_slots", True), "--no-cache-idle-slots": ("cache_idle_slots", False)}


def parse_server_args(text: str) -> ServerArgs:
    """ServerArgs from a llama-server command line (as the user runs it);
    flags that do not change reuse (-m, --port, ...) are skipped with their
    values. ValueError names a flag whose value is missing or malformed."""
    words = shlex.split(text)
    values: dict = {}
    i = 0
    while i < len(words):
        word, inline = words[i], None
        if word.startswith("--") and "=" in word:
            word, inline = word.split("=", 1)
        if word in _BOOL_FLAGS:
            name, value = _BOOL_FLAGS[word]
            values[name] = value
            i += 1
            continue
        if word in _INT_FLAGS or word in _FLOAT_FLAGS:
            if inline is not None:
                raw = inline
            elif i + 1 < len(words):
                raw = words[i + 1]
                i += 1
            else:
                raise ValueError(f"{word} needs a value")
            kind = int if word in _INT_FLAGS else float
            try:
                value = kind(raw)
            except ValueError:
                raise ValueError(f"{word} {raw}: not {'an integer' if kind is int else 'a number'}") from None
            values[(_INT_FLAGS | _FLOAT_FLAGS)[word]] = value
            i += 1
            continue
        # another flag: skip it, and its value when one follows
        i += 2 if (inline is None and i + 1 < len(words) and not words[i + 1].startswith("-")) else 1
    if values.get("slots", 1) == 0:
        raise ValueError("-np 0: a server needs at least one slot")
    if values.get("cache_reuse", 0) < 0 or values.get("ctx", 0) < 0:
        raise ValueError("--cache-reuse and -c take a count of tokens, 0 or more")
    if values.get("slots", -1) > 0:
        values.setdefault("kv_unified", False)
    else:  # -np not given, or -1: auto, 4 slots on a unified KV cache
        values["slots"] = 4
        values.setdefault("kv_unified", True)
    return ServerArgs(**values)


_ONE_PROMPT = ("llama.cpp's server reuses one prompt: the slot's it picks (by similarity, else the least recently "
               "used), or one restored from its host cache when that slot would keep under half; not the longest "
               "prefix cached anywhere")


@dataclass
class _Slot:
    tokens: list = field(default_factory=list)
    last_used: int = -1


class LlamaServer:
    """llama.cpp's server reuse for requests sent one at a time.
    `kv_bytes_per_token` sizes the host prompt cache in tokens; unknown, its
    MiB limit is not applied."""

    name = "llamacpp"
    block_size = 1

    def __init__(self, args: ServerArgs = ServerArgs(), generated: int = 0,
                 kv_bytes_per_token: int | None = None) -> None:
        self.args = args
        self.generated = generated
        self.kv_bytes_per_token = kv_bytes_per_token
        self.slots = [_Slot() for _ in range(args.slots)]
        self.cache_on = args.cache_ram_mib != 0
        self.states: list[list] = []  # the host prompt cache, oldest first
        self.limit_tokens = self._limit()
        self.stats = CacheStats()
        self.clock = 0

    @property
    def capacity_blocks(self) -> int:
        return self.limit_tokens or 0

    @property
    def one_previous_prompt(self) -> bool:
        """One slot and no prompt cache: only the previous prompt is reused."""
        return self.args.slots == 1 and not self.cache_on

    def describe(self) -> str:
        limit = ""
        if self.cache_on and self.args.cache_ram_mib > 0:
            limit = (f"; prompt cache room {self.limit_tokens:,} tokens ({self.args.cache_ram_mib:,} MiB over "
                     f"{self.kv_bytes_per_token:,} bytes of F16 KV a token, from the model's config.json)"
                     if self.limit_tokens is not None
                     else "; the prompt cache's MiB limit not applied (no config.json gives the KV size a token)")
        elif self.cache_on and self.limit_tokens is not None:
            limit = f"; prompt cache room {self.limit_tokens:,} tokens (-c)"
        kept = (f"; each answer leaves {self.generated} tokens in its slot (--max-new-tokens less the last)"
                if self.generated else "")
        return self.args.describe() + limit + kept

    def _limit(self):
        """The host cache's room in tokens (None: no limit applied): its MiB
        over the KV bytes a token; with no byte limit, the context size."""
        if not self.cache_on:
            return None
        if self.args.cache_ram_mib < 0:
            return self.args.ctx or None
        if not self.kv_bytes_per_token:
            return None
        return self.args.cache_ram_mib * 2**20 // self.kv_bytes_per_token

    def request(self, tokens: list[int], request=None):
        from promptlint.verify.sim import Reuse

        self.clock += 1
        slot = self._choose(tokens)
        if self.cache_on and self.args.cache_idle_slots:
            for other in self.slots:
                if other is not slot:
                    self._save(other.tokens)
                    if self.args.kv_unified:
                        other.tokens = []
        prefix = common_prefix(slot.tokens, tokens)
        cached = self._shifted(slot.tokens, tokens, prefix) if self.args.cache_reuse > 0 else prefix
        cached = min(cached, max(0, len(tokens) - 1))
        if cached > prefix:
            rule = (f"{cached - prefix:,} tokens after the {prefix:,} of the common prefix were shifted into "
                    f"place (--cache-reuse {self.args.cache_reuse})")
        else:
            rule = "" if self.one_previous_prompt else _ONE_PROMPT
        slot.tokens = list(tokens) + [NO_MATCH] * self.generated
        slot.last_used = self.clock
        self.stats.queries += len(tokens)
        self.stats.hits += cached
        return Reuse(len(tokens), cached, rule=rule)

    def _choose(self, tokens):
        """get_available_slot: by similarity, else least recently used; then
        the prompt cache's save and load where the slot would lose its prompt."""
        chosen, update = None, False
        if self.args.slot_similarity:
            best = 0.0
            for slot in self.slots:
                if not slot.tokens:
                    continue
                similarity = common_prefix(slot.tokens, tokens) / len(tokens)
                if similarity > best and similarity > self.args.slot_similarity:
                    best, chosen = similarity, slot
            if chosen is not None and best * len(tokens) / len(chosen.tokens) < 0.5:
                update = True
        if chosen is None:
            for slot in self.slots:  # the last of the least recently used
                if chosen is None or slot.last_used <= chosen.last_used:
                    chosen = slot
            update = True
        if update and self.cache_on:
            self._save(chosen.tokens)
            chosen.tokens = self._load(chosen.tokens, tokens)
        return chosen

    def _save(self, prompt) -> None:
        """server_prompt_cache::alloc: kept unless a cached prompt already
        holds it; cached prompts it holds are dropped; oldest out first."""
        if not prompt:
            return
        if any(common_prefix(state, prompt) == len(prompt) for state in self.states):
            return
        if self.limit_tokens is not None and len(prompt) > self.limit_tokens:
            return
        self.states = [s for s in self.states if common_prefix(s, prompt) != len(s)]
        self.states.append(list(prompt))
        if self.limit_tokens is not None:
            held = sum(map(len, self.states))
            while self.states and held > self.limit_tokens:
                held -= len(self.states.pop(0))

    def _load(self, current, tokens):
        """server_prompt_cache::load: a cached prompt that keeps more of
        itself and covers more of the request than the slot's own, at
        least a quarter kept; taken out of the cache."""
        shared = common_prefix(current, tokens)
        keep_best = shared / len(current) if current else -1.0
        sim_best = shared / len(tokens)
        best = None
        for i, state in enumerate(self.states):
            shared = common_prefix(state, tokens)
            keep, sim = shared / len(state), shared / len(tokens)
            if keep < 0.25:
                continue
            if keep_best < keep and sim_best < sim:
                keep_best, sim_best, best = keep, sim, i
        if best is None:
            return current
        return self.states.pop(best)

    def _shifted(self, cache, tokens, n_past: int) -> int:
        """--cache-reuse: after the common prefix, chunks of the slot's
        tokens of at least N that continue the request are shifted into place."""
        head_c = head_p = n_past
        while head_c < len(cache) and head_p < len(tokens):
            n = 0
            while (head_c + n < len(cache) and head_p + n < len(tokens)
                   and cache[head_c + n] == tokens[head_p + n]):
                n += 1
            if n >= self.args.cache_reuse:
                n_past += n
                head_c += n
                head_p += n
            else:
                head_c += 1
        return n_past


def kv_bytes(config: dict) -> int | None:
    """F16 K and V rows of every layer for one token (llama.cpp's default
    KV type), from a Hugging Face config.json; None where it lacks the sizes."""
    try:
        layers = int(config["num_hidden_layers"])
        heads = int(config["num_attention_heads"])
        kv_heads = int(config.get("num_key_value_heads") or heads)
        head_dim = int(config.get("head_dim") or int(config["hidden_size"]) // heads)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    return 2 * layers * kv_heads * head_dim * 2
