"""Text hygiene shared by the tokenizer backends."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """Replace lone surrogates with U+FFFD, one for one.

    Neither backend can encode them; replacing each code point by one keeps
    every character offset valid for the caller's original string.
    """
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)
