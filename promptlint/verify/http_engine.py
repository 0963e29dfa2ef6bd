"""Replay request streams through a real serving engine over its
OpenAI-compatible API (vLLM, SGLang, llama.cpp's server) and read what it
reports it reused, beside the prediction for the engine's own tokens.

Per request the cached-token count comes from the first of these the
response has: llama.cpp's `timings.cache_n` (and `tokens_cached` on
/completion), `usage.prompt_tokens_details.cached_tokens` (vLLM with
--enable-prompt-tokens-details, SGLang with --enable-cache-report, OpenAI;
absent means 0), SGLang's `meta_info.cached_tokens`. Draft acceptance comes
from llama.cpp's `timings.draft_n`/`draft_n_accepted`, and for vLLM and
SGLang from their metrics (metrics.py).

Requests are sent in waves of `concurrency`: every request of a wave is
predicted from the waves before it, so concurrency changes no prediction
silently (a request that shares more with one sent beside it is explained).
A call that still fails after its retries (a server that died, a timeout, a
500) stops the run; what was gathered so far is reported with the error.
"""

from __future__ import annotations

import concurrent.futures
import time
from dataclasses import dataclass, field

from promptlint.ir import SourceError
from promptlint.verify.http_client import HttpClient, ServerError, origin
from promptlint.verify.metrics import Scrape, deltas, parse, summary
from promptlint.verify.predict import Predictor
from promptlint.verify.requests import Request

# block size and reuse policy per engine (see predict.py): vLLM's default
# block is 16 tokens; SGLang's radix cache and llama.cpp reuse single tokens;
# OpenAI's cache hits grow in 128-token increments (shared/reference/cache-rules.md)
DEFAULT_BLOCKS = {"vllm": 16, "sglang": 1, "llamacpp": 1, "openai": 128}
POLICY = {"vllm": "any", "sglang": "any", "llamacpp": "previous", "openai": "any"}


@dataclass
class Measured:
    prompt_tokens: int | None
    cached_tokens: int
    cached_field: str  # where the count came from
    draft_tokens: int | None = None
    draft_accepted: int | None = None
    completion_tokens: int | None = None


def read_usage(data: dict) -> Measured:
    """The cache and draft figures of one response, from whichever of the
    engines' documented fields it carries."""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    timings = data.get("timings") if isinstance(data.get("timings"), dict) else {}
    meta = data.get("meta_info") if isinstance(data.get("meta_info"), dict) else {}
    details = usage.get("prompt_tokens_details") if isinstance(usage.get("prompt_tokens_details"), dict) else {}
    prompt = usage.get("prompt_tokens")
    if prompt is None and "prompt_n" in timings:
        prompt = timings.get("prompt_n", 0) + timings.get("cache_n", 0)
    if prompt is None and "prompt_tokens" in meta:
        prompt = meta["prompt_tokens"]
    if prompt is None and "tokens_evaluated" in data:
        prompt = data["tokens_evaluated"]
    if "cache_n" in timings:
        cached, where = timings["cache_n"], "timings.cache_n"
    elif "cached_tokens" in details and details["cached_tokens"] is not None:
        cached, where = details["cached_tokens"], "usage.prompt_tokens_details.cached_tokens"
    elif "cached_tokens" in meta:
        cached, where = meta["cached_tokens"], "meta_info.cached_tokens"
    elif "tokens_cached" in data:
        cached, where = data["tokens_cached"], "tokens_cached"
    else:
        cached, where = 0, "absent (counted as 0)"
    return Measured(int(prompt) if prompt is not None else None, int(cached or 0), where,
                    timings.get("draft_n"), timings.get("draft_n_accepted"), usage.get("completion_tokens"))


@dataclass
class HttpRequestResult:
    label: str
    prompt_tokens: int | None  # the server's count
    tokenized: int | None  # our count of the same prompt (None: no tokenizer)
    shared_tokens: int | None
    predicted: int | None
    measured: int
    cached_field: str
    seconds: float
    draft_tokens: int | None = None
    draft_accepted: int | None = None
    concurrent_share: int = 0  # tokens shared with a request of the same wave

    @property
    def agrees(self) -> bool | None:
        return None if self.predicted is None else self.predicted == self.measured

    def explanation(self) -> str:
        if self.agrees is not False:
            return ""
        if self.tokenized is not None and self.prompt_tokens is not None and self.tokenized != self.prompt_tokens:
            return (f"the server counted {self.prompt_tokens:,} prompt tokens, the tokenizer {self.tokenized:,}: "
                    "prediction and server tokenize differently (pass --tokenizer with the served model's)")
        if self.measured > self.predicted and self.concurrent_share > self.predicted:
            return "it shares a longer prefix with a request sent in the same wave (lower --concurrency)"
        if self.measured < self.predicted:
            return ("the engine reused less than the token streams share: evicted, another tenant's traffic, "
                    "or prefix caching off (see the server flags in the README)")
        return "the engine reused more than this request shares with earlier ones (traffic from elsewhere?)"


@dataclass
class HttpReplay:
    prompt: str
    location: str
    requests: list[HttpRequestResult] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)

    @property
    def agreeing(self) -> int:
        return sum(1 for r in self.requests if r.agrees)

    @property
    def predicted_count(self) -> int:
        return sum(1 for r in self.requests if r.predicted is not None)


@dataclass
class HttpRun:
    base_url: str
    engine: str
    model: str
    block_size: int
    policy: str
    tokenizer: str  # where prediction tokens came from
    prompts: list[HttpReplay] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    metrics_summary: dict[str, float] = field(default_factory=dict)
    metrics_error: str | None = None
    aborted: str | None = None  # the error that stopped the run


def root_url(base_url: str) -> str:
    """The server's root: the base URL without a trailing /v1."""
    return base_url[:-3] if base_url.endswith("/v1") else base_url


MAX_SERVED_NAME = 128  # characters of a server-given model name kept (it is printed in the report)


def served_name(value) -> str:
    """A model name as the server gave it, sanitised before it is sent back
    or printed: a string, printable characters only, at most MAX_SERVED_NAME."""
    if not isinstance(value, str):
        return ""
    text = "".join(c for c in value if c.isprintable())
    return text[:MAX_SERVED_NAME]


class HttpEngine:
    def __init__(self, client: HttpClient, api: str = "chat", model: str | None = None, engine: str = "auto",
                 max_tokens: int = 16, concurrency: int = 1, block_size: int | None = None,
                 local_tokenizer=None, metrics_url: str | None = "", extra_body: dict | None = None):
        self.client = client
        self.api = api
        self.model = model
        self.engine = engine
        self.max_tokens = max_tokens
        self.concurrency = max(1, concurrency)
        self.block_size = block_size
        self.local = local_tokenizer  # a LoadedModel-like object: chat_text(), encode()
        root = root_url(client.base_url)
        self.metrics_url = (root + "/metrics") if metrics_url == "" else metrics_url
        self.root = root
        self.extra_body = extra_body or {}
        self.tokenizer_source = "none"

    # discovery -----------------------------------------------------------

    def discover(self) -> None:
        """The served model's name, and which engine this is (from the
        model list's owned_by and the metrics' names)."""
        kind = None
        if self.model is None or self.engine == "auto":
            listing = self.client.get("models").data
            models = listing.get("data", []) if isinstance(listing, dict) else []
            if self.model is None:
                if not models:
                    raise ServerError(f"GET {self.client.url('models')}: no model listed; pass --served-model")
                self.model = served_name(models[0].get("id"))
                if not self.model:
                    raise ServerError(f"GET {self.client.url('models')}: the first model has no usable id; "
                                      "pass --served-model")
            owner = str(models[0].get("owned_by", "")).lower() if models else ""
            kind = next((k for k in ("vllm", "sglang", "llamacpp") if k in owner.replace(".", "")), None)
        if self.engine == "auto":
            self.engine = kind or self._engine_from_metrics() or "openai"
        if self.block_size is None:
            self.block_size = DEFAULT_BLOCKS[self.engine]

    def _engine_from_metrics(self) -> str | None:
        scrape = self.scrape()
        if scrape is None:
            return None
        names = " ".join(scrape.values)
        for prefix, kind in (("vllm:", "vllm"), ("sglang:", "sglang"), ("llamacpp:", "llamacpp")):
            if prefix in names:
                return kind
        return None

    def scrape(self) -> Scrape | None:
        if not self.metrics_url:
            return None
        client = self.client
        if origin(self.metrics_url) != origin(client.base_url):
            # a metrics port of its own, named by the user: asked without the API key
            client = HttpClient(self.metrics_url, timeout=client.timeout, retries=0)
        try:
            data = client.get(self.metrics_url, retries=0).data
        except ServerError:
            return None
        return parse(data) if isinstance(data, str) else None

    # tokens --------------------------------------------------------------

    def tokens(self, messages: list[dict]) -> list[int] | None:
        """The prompt's tokens as the server counts them: a local tokenizer
        (--tokenizer), else the server's tokenize endpoint (vLLM: /tokenize
        with messages; llama.cpp: /apply-template then /tokenize)."""
        if self.local is not None:
            self.tokenizer_source = f"local: {self.local.path}"
            return self.local.encode(self.local.chat_text(messages))
        if self.tokenizer_source in ("none", "vllm"):
            try:
                data = self.client.post(self.root + "/tokenize", {"model": self.model, "messages": messages,
                                                                   "add_generation_prompt": True}, retries=0).data
                # llama.cpp's /tokenize answers a body without "content" with an empty list
                if isinstance(data, dict) and isinstance(data.get("tokens"), list) and data["tokens"]:
                    self.tokenizer_source = "vllm"
                    return data["tokens"]
            except ServerError:
                pass
        if self.tokenizer_source in ("none", "llamacpp"):
            try:
                text = self.client.post(self.root + "/apply-template", {"messages": messages}, retries=0).data
                if isinstance(text, dict) and isinstance(text.get("prompt"), str):
                    data = self.client.post(self.root + "/tokenize",
                                            {"content": text["prompt"], "add_special": True}, retries=0).data
                    if isinstance(data, dict) and isinstance(data.get("tokens"), list):
                        self.tokenizer_source = "llamacpp"
                        return [t if isinstance(t, int) else t.get("id") for t in data["tokens"]]
            except ServerError:
                pass
        if self.tokenizer_source == "none":  # no endpoint answered the first call: stop asking
            self.tokenizer_source = "unavailable"
        return None  # a later failure loses this request's prediction only

    # sending -------------------------------------------------------------

    def body(self, messages: list[dict]) -> tuple[str, dict]:
        payload = {"model": self.model, "max_tokens": self.max_tokens, "temperature": 0, "stream": False}
        if self.engine == "llamacpp":
            payload["cache_prompt"] = True
        payload.update(self.extra_body)
        if self.api == "completions":
            if self.local is None:
                raise ServerError("--api completions needs --tokenizer PATH with a chat template to render prompts")
            payload["prompt"] = self.local.chat_text(messages)
            return "completions", payload
        payload["messages"] = messages
        return "chat/completions", payload

    def send(self, request: Request) -> tuple[Measured, float]:
        path, payload = self.body(request.messages)
        started = time.perf_counter()
        response = self.client.post(path, payload)
        if not isinstance(response.data, dict):
            raise ServerError(f"POST {self.client.url(path)}: the answer is not a JSON object")
        if "error" in response.data and "usage" not in response.data:
            raise ServerError(f"POST {self.client.url(path)}: {str(response.data['error'])[:200]}")
        return read_usage(response.data), time.perf_counter() - started


def replay_http(engine: HttpEngine, groups: list[tuple[str, str, list[Request]]]) -> HttpRun:
    """Send every group's requests in order, in waves of engine.concurrency."""
    from promptlint.analysis.prefix import common_prefix

    engine.discover()
    run = HttpRun(engine.client.base_url, engine.engine, engine.model, engine.block_size, POLICY[engine.engine], "")
    predictor = Predictor(engine.block_size, run.policy)
    before = engine.scrape()
    if before is None and engine.metrics_url:
        run.metrics_error = f"no metrics at {engine.metrics_url}"
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=engine.concurrency)
    try:
        for prompt, location, requests in groups:
            replay = HttpReplay(prompt, location)
            run.prompts.append(replay)
            for start in range(0, len(requests), engine.concurrency):
                wave = requests[start:start + engine.concurrency]
                tokens = [engine.tokens(r.messages) for r in wave]
                predictions = [predictor.peek(t) if t is not None else None for t in tokens]
                futures = [pool.submit(engine.send, r) for r in wave]
                for index, (request, future) in enumerate(zip(wave, futures)):
                    try:
                        measured, seconds = future.result()
                    except ServerError as exc:
                        run.aborted = str(exc)
                        replay.errors.append(SourceError(request.path, request.line, f"{request.label}: {exc}"))
                        continue
                    p = predictions[index]
                    mine = tokens[index]
                    beside = max((common_prefix(mine, other) for j, other in enumerate(tokens)
                                  if j != index and other is not None), default=0) if mine is not None else 0
                    replay.requests.append(HttpRequestResult(
                        request.label, measured.prompt_tokens, len(mine) if mine is not None else None,
                        p.shared_tokens if p else None, p.cached_tokens if p else None, measured.cached_tokens,
                        measured.cached_field, seconds, measured.draft_tokens, measured.draft_accepted,
                        min(beside, len(mine) - 1) if mine else 0))
                for t in tokens:
                    if t is not None:
                        predictor.add(t)
                if run.aborted:
                    return _finish(engine, run, before)
    finally:
        pool.shutdown(wait=True)
    return _finish(engine, run, before)


def _finish(engine: HttpEngine, run: HttpRun, before: Scrape | None) -> HttpRun:
    run.tokenizer = engine.tokenizer_source
    after = engine.scrape() if not run.aborted or before is not None else None
    if after is not None:
        run.metrics = deltas(before, after)
        run.metrics_summary = summary(run.metrics)
    return run
