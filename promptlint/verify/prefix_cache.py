"""The built-in engine's prefix cache: the block bookkeeping of
blocks.BlockIndex (vLLM's block-hash chain, LRU leaf eviction), with each
block carrying its KV tensors, (1, heads, B, head_dim) per layer."""

from __future__ import annotations

import torch

from promptlint.verify.blocks import ROOT, Block, BlockIndex, CacheStats, Match, block_key
from promptlint.verify.torchcompat import KV

__all__ = ["ROOT", "Block", "CacheStats", "Match", "PrefixCache", "block_key"]


class PrefixCache(BlockIndex):
    def insert(self, tokens: list[int], kv: KV) -> int:  # type: ignore[override]
        """Store every full block of `tokens` not cached yet, slicing its KV
        from `kv` (per-layer tensors covering at least those positions).
        Returns the number of blocks stored."""
        positions = kv[0][0].shape[2] if kv else 0

        def payload(start: int, chunk: tuple[int, ...]) -> KV:
            return [(k[:, :, start:start + len(chunk)].clone(), v[:, :, start:start + len(chunk)].clone())
                    for k, v in kv]

        return super().insert(tokens, positions, payload)

    @staticmethod
    def gather(blocks: list[Block]) -> KV:
        """Per-layer KV of a chain of blocks, concatenated along positions."""
        if not blocks:
            return []
        layers = len(blocks[0].kv)
        return [(torch.cat([b.kv[i][0] for b in blocks], dim=2), torch.cat([b.kv[i][1] for b in blocks], dim=2))
                for i in range(layers)]
