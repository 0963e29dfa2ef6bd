"""`promptlint verify --engine http` against a real local HTTP server: a stub
of an OpenAI-compatible serving engine on 127.0.0.1 (a thread of this
process) with a real prefix-cache simulation, so the prediction is checked
against something that is not the predictor.

The stub tokenizes by splitting the concatenated message contents on
whitespace (its /tokenize does the same, so prediction and server count the
same tokens). vLLM mode: a request's cached tokens are its longest common
prefix with any earlier request, at most all but one token, rounded down to
blocks of 16, reported in `usage.prompt_tokens_details.cached_tokens`.
llama.cpp mode: the common prefix with the previous request only, single
tokens, reported in `timings.cache_n`, with draft counts. Both serve
Prometheus metrics that count what they did.

Covered: agreement request by request with the engine, block size and
policy detected; the JSON and text reports and the metrics' change; a
missing cached field; failures that stop the run (a 500 on every attempt,
a timeout, a server that dies) with one error line, exit 2 and the results
so far; a 500 that succeeds on retry; the API key sent and never printed;
waves of --concurrency and the explanation of a same-wave hit; llama.cpp's
fields; origin checks and redirects not followed; read_usage on each
engine's documented fields. Backoff waits are patched away."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import invoke

from promptlint.verify import http_client
from promptlint.verify.http_client import HttpClient, ServerError
from promptlint.verify.http_engine import HttpEngine, read_usage, replay_http
from promptlint.verify.requests import Request

ROOT = Path(__file__).resolve().parent.parent
MODEL = "stub-model"
SECRET = "sk-secret-123"

# 40 words of system prompt: two full 16-token blocks and 8 tokens more
SYSTEM = ("You are Pine support assistant for Harbor and Pine Outfitters an outdoor gear shop "
          "answer questions about orders returns and warranties in under one hundred words never invent "
          "order details and offer human agents for refunds over two hundred dollars")
OTHER_SYSTEM = ("Translate the user's text into French keeping names and numbers unchanged and answering with "
                "the translation only")
QUESTIONS = ["Where is my tent order number 4411 today", "Can I return worn hiking boots",
             "How do I clean a down sleeping bag", "Is the stitching on backpacks under warranty"]
assert len(SYSTEM.split()) == 40


def words(messages: list[dict]) -> list[str]:
    return " ".join(m["content"] for m in messages).split()


def chat(question: str, system: str = SYSTEM, history: tuple[str, ...] = ()) -> list[dict]:
    messages = [{"role": "system", "content": system}]
    for i, turn in enumerate(history):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": turn})
    messages.append({"role": "user", "content": question})
    return messages


# ------------------------------------------------------------------ the stub server


class Stub:
    """An OpenAI-compatible engine with a prefix cache, in a thread.

    `rules` maps a marker word (found in a chat request's contents) to the
    actions of its successive attempts: an int status to answer with, a
    ("sleep", seconds) pause before answering, or None to answer normally;
    the last action repeats."""

    def __init__(self):
        self.kind = "vllm"  # or "llamacpp"
        self.owned_by: str | None = None  # default: the kind
        self.omit_cached = False  # vLLM without --enable-prompt-tokens-details
        self.rules: dict[str, list] = {}
        self.die_after: int | None = None  # shut down after this many completed chat requests
        self.reject_auth: tuple[str, ...] = ()  # paths answered 401 (echoing the Authorization header)
        self.echo_key = None  # a function of the Authorization header: /v1/models names the model by it
        self.lock = threading.Lock()
        self.vocab: dict[str, int] = {}
        self.history: list[list[int]] = []  # the prompts processed, in order
        self.log: list[tuple[str, str]] = []  # (method, path) of every request
        self.auth: list[str | None] = []  # the Authorization header of every request
        self.payloads: list[dict] = []  # chat request bodies, every attempt
        self.attempts: dict[str, int] = {}
        self.queries = self.hits = self.prompt_processed = self.predicted_tokens = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.handle_error = lambda request, address: None  # a client that timed out: no traceback
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.closed = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> Stub:
        self.thread.start()
        return self

    def stop(self) -> None:
        if not self.closed:
            self.closed = True
            self.server.shutdown()
            self.server.server_close()
        self.thread.join(timeout=5)

    def ids(self, tokens: list[str]) -> list[int]:
        with self.lock:
            return [self.vocab.setdefault(t, len(self.vocab) + 1) for t in tokens]

    def cached(self, ids: list[int]) -> int:
        """The prefix cache: what this engine reuses of `ids` (lock held)."""
        seen = self.history[-1:] if self.kind == "llamacpp" else self.history
        shared = 0
        for earlier in seen:
            n = 0
            while n < min(len(ids), len(earlier)) and ids[n] == earlier[n]:
                n += 1
            shared = max(shared, n)
        usable = min(shared, len(ids) - 1)
        block = 1 if self.kind == "llamacpp" else 16
        return usable // block * block

    def metrics(self) -> str:
        if self.kind == "llamacpp":
            return ("# TYPE llamacpp:prompt_tokens_total counter\n"
                    f"llamacpp:prompt_tokens_total {self.prompt_processed}\n"
                    "# TYPE llamacpp:tokens_predicted_total counter\n"
                    f"llamacpp:tokens_predicted_total {self.predicted_tokens}\n")
        return ("# HELP vllm:num_requests_running Number of requests running.\n"
                "# TYPE vllm:num_requests_running gauge\n"
                f'vllm:num_requests_running{{engine="0",model_name="{MODEL}"}} 0.0\n'
                "# TYPE vllm:prefix_cache_queries_total counter\n"
                f'vllm:prefix_cache_queries_total{{engine="0",model_name="{MODEL}"}} {float(self.queries)}\n'
                "# TYPE vllm:prefix_cache_hits_total counter\n"
                f'vllm:prefix_cache_hits_total{{engine="0",model_name="{MODEL}"}} {float(self.hits)}\n')

    def completion(self, body: dict) -> tuple[int, dict]:
        tokens = words(body["messages"])
        ids = self.ids(tokens)
        with self.lock:  # one request at a time, like an engine's scheduler step
            cached = self.cached(ids)
            self.history.append(ids)
            self.queries += len(ids)
            self.hits += cached
            self.prompt_processed += len(ids) - cached
            self.predicted_tokens += 1
            done = len(self.history)
        if self.die_after is not None and done >= self.die_after:
            self.closed = True  # no connection is accepted after this one
            self.server.shutdown()
            self.server.server_close()
        usage = {"prompt_tokens": len(ids), "completion_tokens": 1, "total_tokens": len(ids) + 1}
        answer = {"id": f"chatcmpl-{done}", "object": "chat.completion", "model": MODEL,
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                               "finish_reason": "length"}], "usage": usage}
        if self.kind == "llamacpp":
            answer["timings"] = {"cache_n": cached, "prompt_n": len(ids) - cached, "prompt_ms": 1.5,
                                 "predicted_n": 1, "predicted_ms": 2.0, "draft_n": 8, "draft_n_accepted": 6}
        else:
            usage["prompt_tokens_details"] = None if self.omit_cached else {"cached_tokens": cached}
        return 200, answer

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status: int, data, content_type: str = "application/json", headers=()):
                raw = (json.dumps(data) if content_type == "application/json" else data).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(raw)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def begin(self) -> bool:
                with stub.lock:
                    stub.log.append((self.command, self.path))
                    stub.auth.append(self.headers.get("Authorization"))
                if self.path in stub.reject_auth:
                    self.reply(401, {"error": f"invalid API key in header: {self.headers.get('Authorization')}"})
                    return False
                return True

            def do_GET(self):
                if not self.begin():
                    return
                if self.path == "/v1/models":
                    owner = stub.owned_by or stub.kind
                    name = MODEL if stub.echo_key is None else stub.echo_key(self.headers.get("Authorization") or "")
                    self.reply(200, {"object": "list", "data": [{"id": name, "object": "model", "owned_by": owner}]})
                elif self.path == "/metrics":
                    with stub.lock:
                        text = stub.metrics()
                    self.reply(200, text, "text/plain; version=0.0.4")
                elif self.path == "/v1/moved":
                    self.reply(302, "", "text/plain", [("Location", stub.base_url + "/models")])
                else:
                    self.reply(404, {"error": "not found"})

            def do_POST(self):
                if not self.begin():
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                if self.path == "/v1/chat/completions":
                    with stub.lock:
                        stub.payloads.append(body)
                    marker = next((m for m in stub.rules if m in words(body["messages"])), None)
                    if marker is not None:
                        with stub.lock:
                            attempt = stub.attempts.get(marker, 0)
                            stub.attempts[marker] = attempt + 1
                        actions = stub.rules[marker]
                        action = actions[min(attempt, len(actions) - 1)]
                        if isinstance(action, int):
                            self.reply(action, {"object": "error", "message": "internal error", "code": action})
                            return
                        if isinstance(action, tuple):
                            time.sleep(action[1])
                    self.reply(*stub.completion(body))
                elif self.path == "/tokenize" and stub.kind == "vllm":
                    text = words(body["messages"]) if "messages" in body else body.get("prompt", "").split()
                    ids = stub.ids(text)
                    self.reply(200, {"count": len(ids), "max_model_len": 4096, "tokens": ids})
                elif self.path == "/tokenize":  # llama.cpp: without "content", an empty list (not an error)
                    ids = stub.ids(body["content"].split()) if "content" in body else []
                    self.reply(200, {"tokens": ids})
                elif self.path == "/apply-template" and stub.kind == "llamacpp":
                    self.reply(200, {"prompt": " ".join(m["content"] for m in body["messages"])})
                else:
                    self.reply(404, {"error": "not found"})

        return Handler


@pytest.fixture
def stub():
    server = Stub().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def sleeps(monkeypatch):
    """Backoff waits recorded instead of slept."""
    waited: list[float] = []
    monkeypatch.setattr(http_client, "_sleep", waited.append)
    return waited


# ------------------------------------------------------------------ running the CLI


def write_requests(path: Path, conversations: list[list[dict]]) -> Path:
    path.write_text("".join(json.dumps({"messages": m}) + "\n" for m in conversations), encoding="utf-8")
    return path


def verify(stub: Stub, requests: Path, *args):
    return invoke(ROOT, "verify", "--engine", "http", "--base-url", stub.base_url, "--requests", str(requests), *args)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# a conversation growing turn by turn, a second user, and the first question again
STREAM = [
    chat(QUESTIONS[0]),  # 48 tokens, nothing cached
    chat(QUESTIONS[1]),  # shares the 40-token system prompt: 32 cached
    chat(QUESTIONS[2], history=(QUESTIONS[0], "It ships tomorrow")),  # request 1's 48 tokens, then more: 48
    chat(QUESTIONS[0]),  # request 1 again: all but its last token, rounded down: 32
    chat(QUESTIONS[3], system=OTHER_SYSTEM),  # another prompt entirely: 0
]
EXPECTED = [0, 32, 48, 32, 0]


def test_a_stream_agrees_request_by_request_with_the_json_report(stub, tmp_path):
    path = write_requests(tmp_path / "recorded.jsonl", STREAM)
    result = verify(stub, path, "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    report = json.loads(result.stdout)
    assert report["schema_version"] == "1.0"
    assert report["server"] == {"base_url": stub.base_url, "engine": "vllm", "model": MODEL, "block_size": 16,
                                "policy": "any", "tokenizer": "vllm"}
    [prompt] = report["prompts"]
    assert prompt["prompt"] == str(path) and prompt["location"] == f"{path}:1" and prompt["errors"] == []
    requests = prompt["requests"]
    assert [r["label"] for r in requests] == [f"{path}:{i}" for i in range(1, 6)]
    assert [r["measured_cached_tokens"] for r in requests] == EXPECTED
    for r, messages in zip(requests, STREAM):
        assert r["predicted_cached_tokens"] == r["measured_cached_tokens"], r
        assert r["agrees"] is True and r["explanation"] is None
        assert r["prompt_tokens"] == r["tokenized_tokens"] == len(words(messages))
        assert r["cached_field"] == "usage.prompt_tokens_details.cached_tokens"
        assert r["seconds"] > 0 and r["draft_tokens"] is None
    assert [r["shared_tokens"] for r in requests] == [0, 40, 48, 48, 0]
    queries = sum(len(words(m)) for m in STREAM)
    assert report["metrics"] == {"vllm:prefix_cache_hits_total": float(sum(EXPECTED)),
                                 "vllm:prefix_cache_queries_total": float(queries)}
    assert report["metrics_summary"] == {"vllm prefix cache hit rate": sum(EXPECTED) / queries}
    assert report["metrics_error"] is None and report["aborted"] is None
    # what the stub was sent: the served model, greedy, short, not streamed
    assert len(stub.payloads) == 5
    for payload, messages in zip(stub.payloads, STREAM):
        assert payload == {"model": MODEL, "max_tokens": 48, "temperature": 0, "stream": False, "messages": messages}
    assert stub.auth == [None] * len(stub.log)  # no key configured: no Authorization header


def test_the_text_report_of_the_same_stream(stub, tmp_path):
    path = write_requests(tmp_path / "recorded.jsonl", STREAM)
    result = verify(stub, path, "--format", "text", "--max-new-tokens", "4")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "5 requests; the server reported 112 of " in text and "predicted 112; 5/5 requests agree" in text
    assert "agree on 5/5 predicted requests" in text
    assert f"Server: {stub.base_url} (vllm), model {MODEL}; prediction in blocks of 16 tokens, reuse policy 'any', " \
           "tokens from vllm." in text
    assert "Metrics over the run: vllm:prefix_cache_hits_total 112, vllm:prefix_cache_queries_total" in text
    assert "vllm prefix cache hit rate: " in text
    assert "MISMATCH" not in text and "Run stopped early" not in text
    assert {p["max_tokens"] for p in stub.payloads} == {4}


def test_sequence_of_calls_is_discovery_metrics_then_tokenize_and_send_per_request(stub, tmp_path):
    result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:2]), "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert stub.log == [("GET", "/v1/models"), ("GET", "/metrics"),
                        ("POST", "/tokenize"), ("POST", "/v1/chat/completions"),
                        ("POST", "/tokenize"), ("POST", "/v1/chat/completions"), ("GET", "/metrics")]


def test_metrics_none_skips_the_scrapes(stub, tmp_path):
    result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:2]), "--metrics-url", "none",
                    "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["metrics"] == {} and report["metrics_error"] is None
    assert ("GET", "/metrics") not in stub.log


def test_cached_field_absent_is_counted_as_0_and_is_a_mismatch(stub, tmp_path):
    stub.omit_cached = True  # vLLM without --enable-prompt-tokens-details: "prompt_tokens_details": null
    result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:2]), "--format", "json")
    assert result.exit_code == 1, result.stderr  # the second request was predicted to hit
    [prompt] = json.loads(result.stdout)["prompts"]
    first, second = prompt["requests"]
    assert first["cached_field"] == second["cached_field"] == "absent (counted as 0)"
    assert first["measured_cached_tokens"] == second["measured_cached_tokens"] == 0
    assert first["agrees"] is True
    assert second["predicted_cached_tokens"] == 32 and second["agrees"] is False
    assert "prefix caching off" in second["explanation"]


# ------------------------------------------------------------------ failures that stop the run


def failing_stream(marker: str) -> list[list[dict]]:
    return [STREAM[0], STREAM[1], chat(f"{marker} {QUESTIONS[2]}"), STREAM[3]]


def assert_two_completed(report_text: str, path: Path):
    """The text report still lists requests 1 and 2 and says the run stopped."""
    table = [line.split()[0] for line in report_text.splitlines() if line.startswith(f"    {path}:")]
    assert table == [f"{path}:1", f"{path}:2"]
    assert "2 requests; the server reported 32 of " in report_text and "2/2 requests agree" in report_text
    assert "1 prompts, 2 requests completed" in report_text


def test_a_500_on_every_attempt_stops_the_run_with_one_error_line_and_exit_2(stub, tmp_path, sleeps):
    stub.rules["BOOM"] = [500]
    path = write_requests(tmp_path / "recorded.jsonl", failing_stream("BOOM"))
    result = verify(stub, path, "--format", "text")
    assert result.exit_code == 2
    [line] = lines(result.stderr)
    assert line.startswith(f"{path}:3:1: {path}:3: POST {stub.base_url}/chat/completions: HTTP 500: "), line
    assert line.endswith("(after 3 attempts)") and "internal error" in line
    assert stub.attempts["BOOM"] == 3 and sleeps == [0.5, 1.0]  # --retries 2, exponential backoff
    assert_two_completed(result.stdout, path)
    assert re.search(r"^Run stopped early: POST \S+/chat/completions: HTTP 500: .*\(after 3 attempts\)$",
                     result.stdout, re.MULTILINE)
    assert "Metrics over the run: vllm:prefix_cache_hits_total 32," in result.stdout  # metrics still read
    assert len(stub.history) == 2  # request 4 was never sent


def test_a_500_on_every_attempt_in_the_json_report(stub, tmp_path):
    stub.rules["BOOM"] = [500]
    path = write_requests(tmp_path / "recorded.jsonl", failing_stream("BOOM"))
    result = verify(stub, path, "--format", "json", "--retries", "0")
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    [prompt] = report["prompts"]
    assert [r["label"] for r in prompt["requests"]] == [f"{path}:1", f"{path}:2"]
    [error] = prompt["errors"]
    assert error.startswith(f"{path}:3:1: ") and "HTTP 500" in error and "attempts" not in error
    assert report["aborted"].startswith("POST ") and "HTTP 500" in report["aborted"]
    assert stub.attempts["BOOM"] == 1


def test_a_500_that_succeeds_on_retry_completes_the_run(stub, tmp_path, sleeps):
    stub.rules["FLAKY"] = [500, 503, None]
    path = write_requests(tmp_path / "recorded.jsonl", failing_stream("FLAKY"))
    result = verify(stub, path, "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    [prompt] = json.loads(result.stdout)["prompts"]
    assert len(prompt["requests"]) == 4 and all(r["agrees"] for r in prompt["requests"])
    assert stub.attempts["FLAKY"] == 3 and sleeps == [0.5, 1.0]


def test_a_timeout_is_a_clear_error_and_earlier_results_are_reported(stub, tmp_path):
    stub.rules["SLOW"] = [("sleep", 0.8)]
    path = write_requests(tmp_path / "recorded.jsonl", failing_stream("SLOW"))
    started = time.perf_counter()
    result = verify(stub, path, "--timeout", "0.5", "--retries", "1", "--format", "text")
    assert time.perf_counter() - started < 5
    assert result.exit_code == 2
    [line] = lines(result.stderr)
    assert line.startswith(f"{path}:3:1: {path}:3: POST ")
    assert line.endswith("no answer within 0.5 s (timeout) (after 2 attempts)"), line
    assert stub.attempts["SLOW"] == 2
    assert_two_completed(result.stdout, path)
    assert "Run stopped early: " in result.stdout and "(timeout)" in result.stdout


def test_a_server_that_dies_mid_run_is_a_clear_error_with_the_results_so_far(stub, tmp_path):
    stub.die_after = 2
    path = write_requests(tmp_path / "recorded.jsonl", STREAM)
    result = verify(stub, path, "--format", "text")
    assert result.exit_code == 2
    [line] = lines(result.stderr)
    assert line.startswith(f"{path}:3:1: {path}:3: POST {stub.base_url}/chat/completions: ")
    assert "(is the server running?)" in line and line.endswith("(after 3 attempts)")
    assert "refused" in line.lower()
    assert_two_completed(result.stdout, path)
    assert "Run stopped early: " in result.stdout and "is the server running?" in result.stdout


def test_a_server_that_is_not_there_at_all_is_one_error_line(tmp_path):
    server = Stub()
    url = server.base_url
    server.server.server_close()  # the port is free again: connections are refused
    path = write_requests(tmp_path / "r.jsonl", STREAM[:1])
    result = invoke(ROOT, "verify", "--engine", "http", "--base-url", url, "--requests", str(path))
    assert result.exit_code == 2
    [line] = lines(result.stderr)
    assert line.startswith(f"error: GET {url}/models: ") and "(is the server running?)" in line
    assert result.stdout == ""


# ------------------------------------------------------------------ the API key


def test_api_key_is_sent_as_a_bearer_token_and_never_printed(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("MYKEY", SECRET)
    result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:2]), "--api-key-env", "MYKEY",
                    "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert stub.auth and set(stub.auth) == {f"Bearer {SECRET}"}  # on every call: models, metrics, tokenize, chat
    assert {path for _, path in stub.log} == {"/v1/models", "/metrics", "/tokenize", "/v1/chat/completions"}
    assert SECRET not in result.stdout and SECRET not in result.stderr


@pytest.mark.parametrize("rejected", ["/v1/models", "/v1/chat/completions"])
def test_a_401_echoing_the_key_does_not_print_it(stub, tmp_path, monkeypatch, rejected):
    monkeypatch.setenv("MYKEY", SECRET)
    stub.reject_auth = (rejected,)
    path = write_requests(tmp_path / "r.jsonl", STREAM[:2])
    result = verify(stub, path, "--api-key-env", "MYKEY", "--format", "text")
    assert result.exit_code == 2
    assert SECRET not in result.stdout and SECRET not in result.stderr
    [line] = lines(result.stderr)
    assert "HTTP 401" in line and "Bearer ***" in line  # the echo is there, redacted
    assert "attempts" not in line  # a 401 is not retried
    if rejected == "/v1/models":
        assert line.startswith(f"error: GET {stub.base_url}/models: HTTP 401")
        assert result.stdout == ""
    else:
        assert line.startswith(f"{path}:1:1: ")
        assert "Run stopped early: " in result.stdout and "Bearer ***" in result.stdout


ECHOES = {
    "as sent": lambda auth: auth,
    "lower-cased": lambda auth: auth.lower(),
    "spaced": lambda auth: " ".join(auth),
    "reversed": lambda auth: auth[::-1],
    "upper-cased, dotted": lambda auth: ".".join(auth.upper()),
}


@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_a_server_echoing_the_key_in_any_form_never_gets_it_printed(stub, tmp_path, echo):
    """The hostile server of issue 14: it names its model after the key, in
    the forms a careless or hostile echo takes; neither stdout, stderr nor
    the report file hold the key in any of those forms (a real process, so
    the guard on the process's own streams is what is tested)."""
    import os
    import subprocess
    import sys

    stub.echo_key = ECHOES[echo]
    report = tmp_path / "report.json"
    env = dict(os.environ, MYKEY=f"  {SECRET}\n")  # as a secret store or `echo` leaves it
    proc = subprocess.run([sys.executable, "-m", "promptlint", "verify", "--engine", "http", "--base-url",
                           stub.base_url, "--requests", str(write_requests(tmp_path / "r.jsonl", STREAM[:2])),
                           "--api-key-env", "MYKEY", "--format", "json", "--output", str(report)],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    assert "Traceback" not in proc.stderr
    assert set(stub.auth) == {f"Bearer {SECRET}"}  # stripped of the whitespace around it
    texts = [proc.stdout, proc.stderr, report.read_text() if report.exists() else ""]
    for form in ECHOES.values():
        for text in texts:
            assert form(SECRET) not in text and form(SECRET).lower() not in text.lower()
    assert any("***" in t for t in texts)  # the echo is there, redacted


def test_the_key_is_not_sent_over_plain_http_to_another_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("MYKEY", SECRET)
    path = write_requests(tmp_path / "r.jsonl", STREAM[:1])
    result = invoke(ROOT, "verify", "--engine", "http", "--base-url", "http://192.0.2.1:8000/v1", "--requests",
                    str(path), "--api-key-env", "MYKEY")
    assert result.exit_code == 2
    assert lines(result.stderr) == ["error: --base-url http://192.0.2.1:8000/v1: the API key would travel in clear "
                                    "text over plain http to another machine; use https, or --allow-insecure-http "
                                    "if the network is yours"]


def test_a_key_with_whitespace_inside_is_refused_without_printing_it(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("MYKEY", "sk-abc def\x07")
    result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:1]), "--api-key-env", "MYKEY")
    assert result.exit_code == 2 and stub.log == []
    assert lines(result.stderr) == ["error: --api-key-env MYKEY: the value holds whitespace or control characters "
                                    "inside it (not printed); check how it was exported"]


def test_api_key_env_naming_an_unset_variable_exits_2(stub, tmp_path, monkeypatch):
    monkeypatch.delenv("UNSET_VAR", raising=False)
    result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:1]), "--api-key-env", "UNSET_VAR")
    assert result.exit_code == 2
    assert lines(result.stderr) == ["error: --api-key-env UNSET_VAR: the variable is not set"]
    assert result.stdout == "" and stub.log == []  # nothing was sent


def test_engine_http_without_base_url_exits_2(tmp_path):
    path = write_requests(tmp_path / "r.jsonl", STREAM[:1])
    result = invoke(ROOT, "verify", "--engine", "http", "--requests", str(path))
    assert result.exit_code == 2 and "--base-url" in result.stderr


# ------------------------------------------------------------------ concurrency


def test_concurrency_sends_waves_and_explains_a_same_wave_hit(stub, tmp_path):
    a = chat(QUESTIONS[0])
    stream = [a, a, chat(QUESTIONS[3], system=OTHER_SYSTEM),  # wave 1: two identical requests
              chat(QUESTIONS[1]), a, chat(QUESTIONS[2])]  # wave 2: predicted from wave 1
    path = write_requests(tmp_path / "recorded.jsonl", stream)
    result = verify(stub, path, "--concurrency", "3", "--format", "json")
    assert result.exit_code == 1, result.stderr  # the same-wave hit differs from the prediction
    [prompt] = json.loads(result.stdout)["prompts"]
    requests = prompt["requests"]
    assert [r["label"] for r in requests] == [f"{path}:{i}" for i in range(1, 7)]  # in order, all completed
    # the stub serves one at a time: whichever of the twins came second reused 32 tokens
    twins = requests[:2]
    assert sorted(r["measured_cached_tokens"] for r in twins) == [0, 32]
    assert [r["predicted_cached_tokens"] for r in twins] == [0, 0]  # nothing before wave 1
    [hit] = [r for r in twins if r["measured_cached_tokens"]]
    assert hit["agrees"] is False
    assert hit["explanation"] == ("it shares a longer prefix with a request sent in the same wave "
                                  "(lower --concurrency)")
    assert requests[2]["measured_cached_tokens"] == 0 and requests[2]["agrees"] is True
    for r in requests[3:]:  # wave 2 is predicted from wave 1, and the stub agrees
        assert r["agrees"] is True, r
    assert [r["measured_cached_tokens"] for r in requests[3:]] == [32, 32, 32]
    # tokens for the whole wave, then the wave's requests, then the next wave
    calls = [p for _, p in stub.log if p in ("/tokenize", "/v1/chat/completions")]
    assert calls == ["/tokenize"] * 3 + ["/v1/chat/completions"] * 3 + ["/tokenize"] * 3 + \
        ["/v1/chat/completions"] * 3


def test_concurrency_text_report_shows_the_explanation(stub, tmp_path):
    a = chat(QUESTIONS[0])
    path = write_requests(tmp_path / "recorded.jsonl", [a, a])
    result = verify(stub, path, "--concurrency", "2", "--format", "text")
    assert result.exit_code == 1
    assert "MISMATCH" in result.stdout
    assert re.search(rf"^  {re.escape(str(path))}:[12]: predicted 0, measured 32: it shares a longer prefix with a "
                     r"request sent in the same wave \(lower --concurrency\)$", result.stdout, re.MULTILINE)


# ------------------------------------------------------------------ llama.cpp


def test_llamacpp_fields_policy_previous_and_draft_acceptance(stub, tmp_path):
    stub.kind = "llamacpp"
    stream = [chat(QUESTIONS[0]), chat(QUESTIONS[1]), chat(QUESTIONS[0])]
    path = write_requests(tmp_path / "recorded.jsonl", stream)
    result = verify(stub, path, "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["server"] == {"base_url": stub.base_url, "engine": "llamacpp", "model": MODEL, "block_size": 1,
                                "policy": "previous", "tokenizer": "llamacpp"}
    [prompt] = report["prompts"]
    requests = prompt["requests"]
    # request 3 shares 48 tokens with request 1, but llama.cpp's slot last held request 2: 40
    assert [r["shared_tokens"] for r in requests] == [0, 40, 40]
    assert [r["measured_cached_tokens"] for r in requests] == [0, 40, 40]
    for r in requests:
        assert r["agrees"] is True and r["cached_field"] == "timings.cache_n"
        assert r["draft_tokens"] == 8 and r["draft_accepted"] == 6
    assert all(p["cache_prompt"] is True for p in stub.payloads)  # llama.cpp keeps the prompt in its slot
    assert report["metrics"] == {"llamacpp:prompt_tokens_total": float(48 + 6 + 8),
                                 "llamacpp:tokens_predicted_total": 3.0}
    assert report["metrics_summary"] == {}


def test_llamacpp_text_report_shows_draft_acceptance(stub, tmp_path):
    stub.kind = "llamacpp"
    path = write_requests(tmp_path / "recorded.jsonl", [chat(QUESTIONS[0]), chat(QUESTIONS[1]), chat(QUESTIONS[0])])
    result = verify(stub, path, "--format", "text")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "3 requests; the server reported 80 of 142 prompt tokens cached; predicted 80; 3/3 requests agree; " \
           "draft acceptance 18/24 (75%)" in text
    assert all(line.rstrip().endswith("6/8") for line in text.splitlines() if line.startswith(f"    {path}:"))
    assert "prediction in blocks of 1 tokens, reuse policy 'previous', tokens from llamacpp." in text


# ------------------------------------------------------------------ HttpEngine and HttpClient directly


def test_replay_http_with_request_objects(stub):
    requests = [Request("support", f"user 1 request {i + 1}", m, "prompts/support.md", 3)
                for i, m in enumerate(STREAM[:4])]
    engine = HttpEngine(HttpClient(stub.base_url, retries=0))
    run = replay_http(engine, [("support", "prompts/support.md:3", requests)])
    assert (run.engine, run.model, run.block_size, run.policy, run.tokenizer) == ("vllm", MODEL, 16, "any", "vllm")
    [replay] = run.prompts
    assert [r.measured for r in replay.requests] == EXPECTED[:4]
    assert [r.predicted for r in replay.requests] == EXPECTED[:4]
    assert replay.agreeing == replay.predicted_count == 4 and replay.errors == [] and run.aborted is None


def test_engine_found_from_metrics_when_owned_by_says_nothing(stub):
    stub.owned_by = "organization-owner"
    engine = HttpEngine(HttpClient(stub.base_url))
    engine.discover()
    assert (engine.model, engine.engine, engine.block_size) == (MODEL, "vllm", 16)


def test_an_explicit_server_kind_and_block_size_win(stub):
    engine = HttpEngine(HttpClient(stub.base_url), engine="sglang", model="given", block_size=4)
    engine.discover()
    assert (engine.model, engine.engine, engine.block_size) == ("given", "sglang", 4)
    assert stub.log == []  # nothing to discover


def test_a_url_on_another_origin_is_refused(stub):
    client = HttpClient(stub.base_url + "/")
    port = stub.server.server_address[1]
    assert client.base_url == stub.base_url
    assert client.url("models") == client.url("/models") == stub.base_url + "/models"
    assert client.url(f"http://127.0.0.1:{port}/metrics") == f"http://127.0.0.1:{port}/metrics"
    for other in (f"http://127.0.0.1:{port + 1}/metrics", f"https://127.0.0.1:{port}/metrics",
                  "http://evil.example/metrics", f"http://localhost:{port}/metrics"):
        with pytest.raises(ServerError, match="refused, not on the server's origin"):
            client.url(other)
        with pytest.raises(ServerError, match="refused"):
            client.get(other)
    assert stub.log == []
    with pytest.raises(ServerError, match="not an http"):
        HttpClient("ftp://127.0.0.1/v1")


def test_a_redirect_is_not_followed(stub):
    client = HttpClient(stub.base_url, retries=2)
    with pytest.raises(ServerError) as caught:
        client.get("moved")
    assert caught.value.status == 302 and not caught.value.retryable
    assert "HTTP 302" in str(caught.value)
    assert stub.log == [("GET", "/v1/moved")]  # once, and not to the Location


def test_client_retries_429_and_5xx_with_backoff_but_not_4xx(stub, sleeps):
    stub.rules["LIMIT"] = [429, 502, None]
    client = HttpClient(stub.base_url, retries=2, backoff=0.25)
    response = client.post("chat/completions", {"model": MODEL, "messages": chat("LIMIT please")})
    assert response.status == 200 and response.data["usage"]["prompt_tokens"] == 42
    assert sleeps == [0.25, 0.5]
    stub.rules["DENY"] = [404]
    with pytest.raises(ServerError, match="HTTP 404") as caught:
        client.post("chat/completions", {"model": MODEL, "messages": chat("DENY")})
    assert caught.value.status == 404 and stub.attempts["DENY"] == 1 and sleeps == [0.25, 0.5]


def test_client_redacts_the_key_from_its_errors(stub):
    stub.reject_auth = ("/v1/models",)
    client = HttpClient(stub.base_url, api_key=SECRET)
    with pytest.raises(ServerError) as caught:
        client.get("models")
    assert SECRET not in str(caught.value) and SECRET not in repr(vars(client))
    assert stub.auth == [f"Bearer {SECRET}"]


def test_client_reads_text_bodies_as_text(stub):
    response = HttpClient(stub.base_url).get(stub.base_url.removesuffix("/v1") + "/metrics")
    assert isinstance(response.data, str) and "vllm:prefix_cache_queries_total" in response.data


# ------------------------------------------------------------------ read_usage


@pytest.mark.parametrize("data, prompt, cached, where", [
    # vLLM (--enable-prompt-tokens-details), SGLang (--enable-cache-report), OpenAI
    ({"usage": {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 64}}},
     100, 64, "usage.prompt_tokens_details.cached_tokens"),
    # vLLM without the flag: null details; an OpenAI answer below the caching minimum: no details
    ({"usage": {"prompt_tokens": 100, "prompt_tokens_details": None}}, 100, 0, "absent (counted as 0)"),
    ({"usage": {"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": None}}}, 100, 0,
     "absent (counted as 0)"),
    ({"usage": {"prompt_tokens": 12}}, 12, 0, "absent (counted as 0)"),
    # llama.cpp chat completions: timings.cache_n beside usage
    ({"usage": {"prompt_tokens": 90}, "timings": {"cache_n": 80, "prompt_n": 10}}, 90, 80, "timings.cache_n"),
    # llama.cpp without usage: prompt = processed + cached
    ({"timings": {"cache_n": 30, "prompt_n": 12}}, 42, 30, "timings.cache_n"),
    # llama.cpp /completion: tokens_cached and tokens_evaluated
    ({"content": "ok", "tokens_cached": 57, "tokens_evaluated": 60, "tokens_predicted": 4}, 60, 57, "tokens_cached"),
    # SGLang's native answer: meta_info.cached_tokens
    ({"text": "ok", "meta_info": {"prompt_tokens": 70, "cached_tokens": 48, "completion_tokens": 3}}, None, 48,
     "meta_info.cached_tokens"),
    # nothing usable at all
    ({"usage": None, "timings": "n/a", "meta_info": []}, None, 0, "absent (counted as 0)"),
])
def test_read_usage_documented_fields(data, prompt, cached, where):
    measured = read_usage(data)
    assert (measured.cached_tokens, measured.cached_field) == (cached, where)
    if prompt is not None:
        assert measured.prompt_tokens == prompt


def test_read_usage_draft_and_completion_counts():
    measured = read_usage({"usage": {"prompt_tokens": 9, "completion_tokens": 16},
                           "timings": {"cache_n": 0, "prompt_n": 9, "draft_n": 12, "draft_n_accepted": 7}})
    assert (measured.draft_tokens, measured.draft_accepted, measured.completion_tokens) == (12, 7, 16)
    plain = read_usage({"usage": {"prompt_tokens": 9, "completion_tokens": 2}})
    assert (plain.draft_tokens, plain.draft_accepted, plain.completion_tokens) == (None, None, 2)


def test_llamacpp_timings_win_over_usage_details():
    measured = read_usage({"usage": {"prompt_tokens": 50, "prompt_tokens_details": {"cached_tokens": 16}},
                           "timings": {"cache_n": 49, "prompt_n": 1}})
    assert (measured.cached_tokens, measured.cached_field) == (49, "timings.cache_n")


def test_metrics_on_a_port_of_their_own_are_scraped_without_the_api_key(stub, tmp_path, monkeypatch):
    metrics = Stub().start()  # another origin: the user named it with --metrics-url
    try:
        monkeypatch.setenv("MYKEY", SECRET)
        result = verify(stub, write_requests(tmp_path / "r.jsonl", STREAM[:2]), "--api-key-env", "MYKEY",
                        "--metrics-url", metrics.base_url.removesuffix("/v1") + "/metrics", "--format", "json")
        assert result.exit_code == 0, result.stderr
        assert metrics.log == [("GET", "/metrics"), ("GET", "/metrics")]
        assert ("GET", "/metrics") not in stub.log
        assert metrics.auth in ([], [None, None])  # the key went only to the server it belongs to
    finally:
        metrics.stop()
