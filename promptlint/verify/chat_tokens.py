"""A model's tokenizer and chat template without transformers (and so
without torch): the `tokenizers` library reads `tokenizer.json`, and the
chat template is rendered the way transformers renders it (its
`chat_template_utils`): Jinja's immutable sandbox with `trim_blocks` and
`lstrip_blocks`, loop controls, a `tojson` filter that keeps non-ASCII text,
`raise_exception` and `strftime_now`, and the special tokens of
`tokenizer_config.json` as variables. `verify --engine sim` tokenizes with
this: the simulation then starts in a fraction of a second instead of the
seconds importing torch takes. A template this cannot compile (one that
uses transformers' own `{% generation %}` tag) falls back to transformers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

_SPECIAL = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")


class NoLightTokenizer(Exception):
    """The folder lacks what this reader needs: transformers is used instead."""


@dataclass
class LightChatTokenizer:
    name: str
    path: Path
    tokenizer: object  # tokenizers.Tokenizer
    template: object  # a compiled Jinja template
    special: dict

    def encode(self, text: str) -> list[int]:
        """Token ids of an already chat-formatted prompt (no special tokens added)."""
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """encode of each text, the texts encoded side by side on all cores."""
        return [list(e.ids) for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]

    def chat_text(self, messages: list[dict]) -> str:
        return self.template.render(messages=messages, tools=None, documents=None, add_generation_prompt=True,
                                    **self.special)


def _token_text(value) -> str | None:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def _template_source(folder: Path, config: dict, given: str | None) -> str:
    if given:
        return given
    if (folder / "chat_template.jinja").is_file():
        return (folder / "chat_template.jinja").read_text(encoding="utf-8")
    template = config.get("chat_template")
    if isinstance(template, list):  # named templates: the default one
        template = next((t.get("template") for t in template if isinstance(t, dict) and t.get("name") == "default"),
                        None)
    if not isinstance(template, str) or not template:
        raise NoLightTokenizer("no chat template in the folder")
    return template


def _compile(source: str):
    import datetime

    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.datetime.now().strftime(fmt)
    try:
        return env.from_string(source)
    except jinja2.TemplateSyntaxError as exc:
        raise NoLightTokenizer(f"the chat template needs transformers: {exc}") from None


def load_light(name: str, folder: Path, chat_template: str | None = None) -> LightChatTokenizer:
    """The tokenizer of a model folder (or a tokenizer.json file, with its
    folder's tokenizer_config.json when there is one)."""
    file = folder if folder.is_file() else folder / "tokenizer.json"
    folder = file.parent
    if not file.is_file():
        raise NoLightTokenizer(f"no tokenizer.json in {folder}")
    config_file = folder / "tokenizer_config.json"
    config = json.loads(config_file.read_text(encoding="utf-8")) if config_file.is_file() else {}
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(file))
    special = {key: text for key in _SPECIAL if (text := _token_text(config.get(key))) is not None}
    return LightChatTokenizer(name, folder, tokenizer, _compile(_template_source(folder, config, chat_template)),
                              special)
