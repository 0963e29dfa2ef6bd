#!/usr/bin/env python
"""Which prompts' stable prefixes changed between two audit reports, and why.

    python bench/compare_audits.py BASE.json NEW.json [--tokenizer SPEC]

Both are `promptlint audit --format json` reports of the same tree (say, of
fixtures/ at an earlier commit and now). For every prompt whose total or
stable-prefix tokens differ, one line with both figures and the reason the
new report gives:

- `unknown`: the new report holds inputs with no evidence fixed, and its
  "if they changed per request" figure equals the base figure: the change
  is exactly the inputs it names;
- `evidence`: the first breaker changed (slot, class or reason, shown);
- `other`: neither (a tokenizer or rendering change: look closer).

Prints the lines and a count per reason; exits 0 (2 for unreadable input).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SCOPES = ("global", "user", "session")


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"error: {path}: {exc}") from None


def _breaker(prompt: dict) -> str:
    b = prompt.get("first_breaker")
    if not b:
        return "none"
    return f"{b['slot']} [{b['volatility']}]"


def compare(base: dict, new: dict, tokenizer: str) -> list[tuple[str, str]]:
    before = {(p["path"], p["name"]): p for p in base["prompts"]}
    rows = []
    for p in new["prompts"]:
        old = before.get((p["path"], p["name"]))
        if old is None or tokenizer not in p["tokenizers"] or tokenizer not in old["tokenizers"]:
            continue
        a, b = old["tokenizers"][tokenizer], p["tokenizers"][tokenizer]
        was = [a["stable_prefix_tokens"][s] for s in SCOPES]
        now = [b["stable_prefix_tokens"][s] for s in SCOPES]
        if was == now and a["total_tokens"] == b["total_tokens"]:
            continue
        bound = b.get("if_unknown_vary_stable_prefix_tokens")
        if bound and [bound[s] for s in SCOPES] == was:
            reason = f"unknown: {', '.join(p.get('unknown_inputs', []))} held fixed"
        elif _breaker(old) != _breaker(p):
            reason = f"evidence: first breaker {_breaker(old)} -> {_breaker(p)}"
        else:
            reason = "other"
        rows.append((f"{p['path']} {p['name']}: stable {was} -> {now}", reason))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--tokenizer", default="tiktoken:o200k_base")
    args = parser.parse_args(argv)
    rows = compare(_load(args.base), _load(args.new), args.tokenizer)
    counts: dict[str, int] = {}
    for line, reason in rows:
        print(f"{line}  [{reason}]")
        kind = reason.split(":", 1)[0]
        counts[kind] = counts.get(kind, 0) + 1
    print(f"{len(rows)} prompts changed: " + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
