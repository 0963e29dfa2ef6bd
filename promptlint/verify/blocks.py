"""The bookkeeping of a paged prefix cache, without any tensors: blocks of
B tokens found by the chain of block hashes, evicted least-recently-used
leaf first. The built-in engine's cache (prefix_cache.PrefixCache) keeps KV
tensors on these blocks; the engine simulation (sim) keeps nothing else, so
both reuse exactly the same tokens for the same stream.

This is how vLLM's automatic prefix caching works: a block's key is the
hash of its parent block's key and its own token ids, so a block can only be
reused when every token before it is the same too; only full blocks are
cached, so a hit is always a multiple of B tokens. Blocks also keep their
token ids, and a lookup compares them, so a hash collision can never reuse
the wrong tokens. A block with a cached child is never evicted before the
child (eviction takes leaves), which keeps every cached chain reachable
from its root, as SGLang's radix tree does.
"""

from __future__ import annotations

import hashlib
import struct
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ROOT = b"promptlint-prefix-root"


def block_key(parent: bytes, tokens: tuple[int, ...]) -> bytes:
    """The block's hash: its parent's key and its token ids, 4 bytes each, little-endian."""
    data = parent + struct.pack(f"<{len(tokens)}I", *tokens)
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass
class Block:
    key: bytes
    parent: bytes
    tokens: tuple[int, ...]
    kv: Any = None  # the engine's per-layer (keys, values); None in a simulation
    children: int = 0  # cached blocks whose parent is this one


@dataclass
class CacheStats:
    queries: int = 0  # prompt tokens looked up (vLLM: prefix_cache_queries)
    hits: int = 0  # of which found in the cache (vLLM: prefix_cache_hits)
    stored_blocks: int = 0
    evicted_blocks: int = 0


@dataclass
class Match:
    blocks: list[Block]
    evicted_tokens: int  # tokens after the hit that had been cached once and were evicted

    @property
    def tokens(self) -> int:
        return sum(len(b.tokens) for b in self.blocks)


@dataclass
class BlockIndex:
    block_size: int = 16
    capacity_blocks: int = 4096
    stats: CacheStats = field(default_factory=CacheStats)

    def __post_init__(self):
        if self.block_size < 1:
            raise ValueError("block size must be at least 1 token")
        if self.capacity_blocks < 1:
            raise ValueError("cache capacity must be at least 1 block")
        self._blocks: OrderedDict[bytes, Block] = OrderedDict()  # LRU order: oldest first
        self._ever: set[bytes] = set()  # keys stored at some point (to explain misses)
        self._hashed: list[tuple[tuple[int, ...], bytes]] = []  # (block tokens, key) of the last chain

    def __len__(self) -> int:
        return len(self._blocks)

    def _chain(self, tokens: list[int], limit: int):
        """(start, key, parent, block tokens) of each full block within
        `limit` tokens. The blocks of the last sequence chained are kept with
        their keys, so a request looked up and then stored (or one that
        repeats the previous one's prefix) is hashed once."""
        B = self.block_size
        hashed = self._hashed
        parent = ROOT
        for index, start in enumerate(range(0, (limit // B) * B, B)):
            chunk = tuple(tokens[start:start + B])
            if index < len(hashed) and hashed[index][0] == chunk:  # every block before it matched too
                key = hashed[index][1]
            else:
                key = block_key(parent, chunk)
                del hashed[index:]
                hashed.append((chunk, key))
            yield start, key, parent, chunk
            parent = key

    def match(self, tokens: list[int], limit: int | None = None) -> Match:
        """The longest cached block-aligned prefix of `tokens`, at most
        `limit` tokens (the engine keeps at least one token to prefill)."""
        limit = len(tokens) if limit is None else min(limit, len(tokens))
        found: list[Block] = []
        evicted = 0
        missed = False
        for _, key, _, chunk in self._chain(tokens, limit):
            block = None if missed else self._blocks.get(key)
            if block is not None and block.tokens == chunk:
                found.append(block)
                continue
            missed = True
            if key not in self._ever:
                break
            evicted += len(chunk)
        for block in found:
            self._blocks.move_to_end(block.key)  # now the most recently used
        self.stats.queries += len(tokens)
        self.stats.hits += sum(len(b.tokens) for b in found)
        return Match(found, evicted)

    def insert(self, tokens: list[int], positions: int | None = None,
               payload: Callable[[int, tuple[int, ...]], Any] | None = None) -> int:
        """Store every full block of `tokens` within `positions` tokens (all
        by default) not cached yet; `payload(start, block tokens)` gives what
        the block carries (the engine's KV slice). Returns the blocks stored."""
        positions = len(tokens) if positions is None else positions
        stored = 0
        for start, key, parent, chunk in self._chain(tokens, min(len(tokens), positions)):
            if key in self._blocks:
                self._blocks.move_to_end(key)
                continue
            if len(self._blocks) >= self.capacity_blocks and not self._evict(protect=parent):
                break  # everything cached is an ancestor of this block: keep the chain
            self._blocks[key] = Block(key, parent, chunk, payload(start, chunk) if payload else None)
            self._ever.add(key)
            if parent in self._blocks:
                self._blocks[parent].children += 1
            stored += 1
        self.stats.stored_blocks += stored
        return stored

    def _evict(self, protect: bytes) -> bool:
        """Drop the least recently used leaf block that is not `protect`."""
        for key, block in self._blocks.items():
            if block.children == 0 and key != protect:
                del self._blocks[key]
                if block.parent in self._blocks:
                    self._blocks[block.parent].children -= 1
                self.stats.evicted_blocks += 1
                return True
        return False

    def clear(self) -> None:
        self._blocks.clear()
        self._ever.clear()
        self.stats = CacheStats()
