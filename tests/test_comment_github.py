"""`promptlint comment github` end to end, against a fake GitHub REST API
served on 127.0.0.1 (http.server in a thread) that keeps the comments of a
pull request, paginates with Link headers, checks the token and can be told
to answer 401, 403 (rate limited or not), 404, 422, 429, 5xx, a redirect,
a slow answer, or a pagination link to another host.

Every run goes through `run()`, which asserts that the token never appears
in stdout, stderr or the exception of the run."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from promptlint import github_api
from promptlint.commands.comment import (
    DEFAULT_MARKER,
    GITHUB_BODY_LIMIT,
    TRUNCATION_NOTE,
    body_length,
    comment,
    fit_body,
)
from promptlint.github_api import GitHubClient, GitHubError, Secret, next_link

TOKEN = "ghp_T0pSecretTokenValue1234567890abcdXYZ"
OWNER, REPO, PR = "octo-org", "prompts", 7
MARKER = DEFAULT_MARKER
NOW = 1_700_000_000.0


class FakeGitHub:
    """Issue comments of one repository, with state, behind a real socket."""

    def __init__(self, token: str = TOKEN, prefix: str = "", prs=(PR,)):
        self.token = token
        self.prefix = prefix
        self.prs = set(prs)
        self.comments: dict[int, dict] = {}
        self.next_id = 1000
        self.requests: list[dict] = []
        self.faults: list[dict] = []
        self.next_link_base: str | None = None  # points pagination elsewhere
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.handle(self)

            do_POST = do_PATCH = do_DELETE = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None  # a client that timed out hung up
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}{prefix}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # -- set-up helpers ----------------------------------------------------

    def add(self, body: str, pr: int = PR) -> int:
        with self.lock:
            self.next_id += 1
            cid = self.next_id
            self.comments[cid] = {
                "id": cid, "issue": pr, "body": body, "user": {"login": "someone"},
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(NOW + cid)),
                "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{pr}#issuecomment-{cid}",
                "node_id": f"IC_kw{cid}", "minimized": None,
            }
            return cid

    def fail(self, status=None, *, method=None, path=None, headers=None, body=None, times=1, delay=0.0):
        self.faults.append({"status": status, "method": method, "path": path, "headers": headers or {},
                                "body": body, "times": times, "delay": delay})

    def calls(self, method=None):
        return [r for r in self.requests if method is None or r["method"] == method]

    def bodies(self, pr: int = PR) -> list[str]:
        return [c["body"] for c in sorted(self.comments.values(), key=lambda c: c["id"]) if c["issue"] == pr]

    # -- serving -----------------------------------------------------------

    def handle(self, h: BaseHTTPRequestHandler):
        parts = urllib.parse.urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        record = {"method": h.command, "path": parts.path, "query": dict(urllib.parse.parse_qsl(parts.query)),
                  "headers": {k.lower(): v for k, v in h.headers.items()}, "body": raw}
        with self.lock:
            self.requests.append(record)
            fault = next((f for f in self.faults if f["times"] > 0
                          and (f["method"] in (None, h.command))
                          and (f["path"] is None or f["path"] in parts.path)), None)
            if fault:
                fault["times"] -= 1
        if fault and fault["delay"]:
            time.sleep(fault["delay"])
        if fault and fault["status"]:
            return self.send(h, fault["status"], fault["body"], fault["headers"])
        if h.headers.get("Authorization") != f"Bearer {self.token}":
            # echoes what it was sent, to prove the client redacts it
            return self.send(h, 401, {"message": f"Bad credentials: {h.headers.get('Authorization')}",
                                      "documentation_url": "https://docs.github.com/rest"})
        path = parts.path[len(self.prefix):] if parts.path.startswith(self.prefix) else None
        if h.command == "POST" and parts.path == self.graphql_path:
            return self.graphql(h, json.loads(raw))
        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)/issues/(\d+)/comments", path or "")
        if m and (m.group(1), m.group(2)) == (OWNER, REPO) and int(m.group(3)) in self.prs:
            pr = int(m.group(3))
            if h.command == "GET":
                return self.list_page(h, pr, record["query"], parts.path)
            if h.command == "POST":
                return self.write(h, raw, None, pr)
        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)/issues/comments/(\d+)", path or "")
        if m and (m.group(1), m.group(2)) == (OWNER, REPO) and int(m.group(3)) in self.comments:
            cid = int(m.group(3))
            if h.command == "PATCH":
                return self.write(h, raw, cid, None)
            if h.command == "DELETE":
                with self.lock:
                    del self.comments[cid]
                return self.send(h, 204, None)
        self.send(h, 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})

    @property
    def graphql_path(self) -> str:
        """GitHub's: /graphql beside api.github.com; /api/graphql beside an Enterprise /api/v3."""
        return self.prefix[: -len("/v3")] + "/graphql" if self.prefix.endswith("/api/v3") else self.prefix + "/graphql"

    def graphql(self, h, request):
        """minimizeComment only, checked as GitHub checks it."""
        query, variables = request.get("query", ""), request.get("variables") or {}
        if "minimizeComment" not in query or variables.get("classifier") not in (
                "SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "DUPLICATE", "RESOLVED"):
            return self.send(h, 200, {"errors": [{"message": "unsupported query or classifier"}]})
        with self.lock:
            found = next((c for c in self.comments.values() if c["node_id"] == variables.get("id")), None)
            if found is None:
                return self.send(h, 200, {"data": {"minimizeComment": None}, "errors": [
                    {"type": "NOT_FOUND", "message": f"Could not resolve to a node with the global id of "
                                                     f"'{variables.get('id')}'"}]})
            found["minimized"] = variables["classifier"]
        self.send(h, 200, {"data": {"minimizeComment": {"minimizedComment": {"isMinimized": True}}}})

    def list_page(self, h, pr, query, path):
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        with self.lock:
            items = sorted((c for c in self.comments.values() if c["issue"] == pr), key=lambda c: c["id"])
        pages = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]
        base = self.next_link_base or f"http://127.0.0.1:{self.port}"
        links = []
        if page < pages:
            links.append(f'<{base}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{base}{path}?per_page={per_page}&page={pages}>; rel="last"')
        if page > 1:
            links.append(f'<{base}{path}?per_page={per_page}&page=1>; rel="first"')
        self.send(h, 200, [{k: v for k, v in c.items() if k not in ("issue", "minimized")} for c in chunk],
                  {"Link": ", ".join(links)} if links else {})

    def write(self, h, raw, cid, pr):
        body = json.loads(raw)["body"]
        if len(body) > GITHUB_BODY_LIMIT:
            return self.send(h, 422, {"message": "Validation Failed", "errors": [
                {"resource": "IssueComment", "code": "custom", "field": "body",
                 "message": "body is too long (maximum is 65536 characters)"}],
                "documentation_url": "https://docs.github.com/rest/issues/comments"})
        if cid is None:
            cid = self.add(body, pr)
            status = 201
        else:
            with self.lock:
                self.comments[cid]["body"] = body
            status = 200
        c = dict(self.comments[cid])
        c.pop("issue")
        c.pop("minimized")
        self.send(h, status, c)

    @staticmethod
    def send(h, status, payload, headers=None):
        data = b"" if payload is None else json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    """No real sleeping, a fixed clock, no proxies between us and 127.0.0.1."""
    slept: list[float] = []
    monkeypatch.setattr(github_api, "_sleep", slept.append)
    monkeypatch.setattr(github_api, "_now", lambda: NOW)
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("PROMPTLINT_MAX_RETRY_WAIT", raising=False)
    return slept


@pytest.fixture
def gh():
    fake = FakeGitHub()
    yield fake
    fake.close()


@pytest.fixture
def body_file(tmp_path):
    path = tmp_path / "report.md"
    path.write_text("## promptlint\n\nCache hit rate will rise from 12% to 87%.\n")
    return path


NEW_BODY = f"{MARKER}\n## promptlint\n\nCache hit rate will rise from 12% to 87%.\n"


def run(*args, token: str | None = TOKEN, env=None):
    environment = {"GITHUB_TOKEN": token, "PROMPTLINT_MAX_RETRY_WAIT": "30", **(env or {})}
    result = CliRunner().invoke(comment, ["github", *args], env=environment)
    for secret in {TOKEN, token} - {None, ""}:
        assert secret not in result.stdout
        assert secret not in result.stderr
        assert secret not in repr(result.exception)
        assert secret not in str(result.exception)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def post(gh, body_file, *extra, **kw):
    return run("--repo", f"{OWNER}/{REPO}", "--pr", str(PR), "--body-file", str(body_file),
               "--api-url", gh.url, *extra, **kw)


# -- behaviours --------------------------------------------------------------


def test_update_edits_the_marked_comment_not_an_unmarked_one(gh, body_file):
    plain = gh.add("LGTM, but what does promptlint-report say?")
    marked = gh.add(f"{MARKER}\nold report")
    after = gh.add("another review comment")
    result = post(gh, body_file, "--behavior", "update")
    assert result.exit_code == 0, result.output
    assert gh.comments[marked]["body"] == NEW_BODY
    assert gh.comments[plain]["body"] == "LGTM, but what does promptlint-report say?"
    assert gh.comments[after]["body"] == "another review comment"
    assert len(gh.comments) == 3
    assert [(r["method"], r["path"]) for r in gh.calls() if r["method"] != "GET"] == [
        ("PATCH", f"/repos/{OWNER}/{REPO}/issues/comments/{marked}")]
    assert result.stdout.strip().splitlines() == [
        (f"Updated the comment on {OWNER}/{REPO}#{PR}: "
        f"https://github.com/{OWNER}/{REPO}/pull/{PR}#issuecomment-{marked}")]


def test_update_is_the_default_and_edits_the_latest_marked_comment(gh, body_file):
    older = gh.add(f"{MARKER}\nreport one")
    latest = gh.add(f"{MARKER}\nreport two")
    result = post(gh, body_file)
    assert result.exit_code == 0, result.output
    assert gh.comments[older]["body"] == f"{MARKER}\nreport one"
    assert gh.comments[latest]["body"] == NEW_BODY


def test_update_creates_a_comment_when_none_is_marked(gh, body_file):
    gh.add("a human comment")
    result = post(gh, body_file, "--behavior", "update")
    assert result.exit_code == 0, result.output
    assert gh.bodies() == ["a human comment", NEW_BODY]
    assert result.stdout.startswith(f"Created a new comment on {OWNER}/{REPO}#{PR}")
    assert "#issuecomment-" in result.stdout


def test_update_skips_the_call_when_the_body_is_unchanged(gh, body_file):
    cid = gh.add(NEW_BODY)
    result = post(gh, body_file, "--behavior", "update")
    assert result.exit_code == 0, result.output
    assert [r["method"] for r in gh.calls()] == ["GET"]
    assert "already up to date" in result.stdout and f"#issuecomment-{cid}" in result.stdout


def test_marker_already_at_the_start_is_not_doubled(gh, tmp_path):
    path = tmp_path / "body.md"
    path.write_text(NEW_BODY)
    assert post(gh, path, "--behavior", "new").exit_code == 0
    assert gh.bodies() == [NEW_BODY]


def test_custom_marker(gh, body_file):
    default = gh.add(f"{MARKER}\nthe default report")
    other = gh.add("<!-- promptlint-report:staging -->\nstaging report")
    result = post(gh, body_file, "--marker", "<!-- promptlint-report:staging -->")
    assert result.exit_code == 0, result.output
    assert gh.comments[default]["body"] == f"{MARKER}\nthe default report"
    assert gh.comments[other]["body"].startswith("<!-- promptlint-report:staging -->\n## promptlint")


def test_new_always_posts(gh, body_file):
    old = gh.add(f"{MARKER}\nold report")
    result = post(gh, body_file, "--behavior", "new")
    assert result.exit_code == 0, result.output
    assert gh.bodies() == [f"{MARKER}\nold report", NEW_BODY]
    assert gh.comments[old]["body"] == f"{MARKER}\nold report"
    assert [r["method"] for r in gh.calls()] == ["POST"]
    assert result.stdout.startswith("Created a new comment")


def test_delete_and_new_removes_every_marked_comment_across_pages(gh, body_file):
    for i in range(250):
        if i in (3, 140, 230):
            gh.add(f"{MARKER}\nreport {i}")
        else:
            gh.add(f"comment {i}")
    result = post(gh, body_file, "--behavior", "delete-and-new")
    assert result.exit_code == 0, result.output
    bodies = gh.bodies()
    assert len(bodies) == 248
    assert [b for b in bodies if MARKER in b] == [NEW_BODY]
    assert bodies[-1] == NEW_BODY
    assert len(gh.calls("DELETE")) == 3 and len(gh.calls("POST")) == 1
    assert result.stdout.startswith("Deleted 3 old comments and created a new comment")
    assert len(result.stdout.strip().splitlines()) == 1


def test_delete_and_new_with_nothing_to_delete(gh, body_file):
    result = post(gh, body_file, "--behavior", "delete-and-new")
    assert result.exit_code == 0, result.output
    assert gh.bodies() == [NEW_BODY]
    assert not gh.calls("DELETE")


def test_pagination_finds_the_marker_on_page_3(gh, body_file):
    ids = [gh.add(f"comment {i}") for i in range(250)]
    marked = ids[230]
    gh.comments[marked]["body"] = f"{MARKER}\nold report"
    result = post(gh, body_file)
    assert result.exit_code == 0, result.output
    gets = gh.calls("GET")
    assert [r["query"].get("page", "1") for r in gets] == ["1", "2", "3"]
    assert all(r["query"]["per_page"] == "100" for r in gets)
    assert gh.comments[marked]["body"] == NEW_BODY
    assert len(gh.comments) == 250 and not gh.calls("POST")


def test_enterprise_api_url_with_a_path(body_file):
    fake = FakeGitHub(prefix="/api/v3")
    try:
        for i in range(120):
            fake.add(f"comment {i}")
        marked = fake.add(f"{MARKER}\nold")
        result = post(fake, body_file)
        assert result.exit_code == 0, result.output
        assert fake.comments[marked]["body"] == NEW_BODY
        assert all(r["path"].startswith("/api/v3/repos/") for r in fake.calls())
    finally:
        fake.close()


def test_request_headers(gh, body_file):
    assert post(gh, body_file).exit_code == 0
    for r in gh.calls():
        assert r["headers"]["authorization"] == f"Bearer {TOKEN}"
        assert r["headers"]["accept"] == "application/vnd.github+json"
        assert r["headers"]["x-github-api-version"] == "2022-11-28"
        assert r["headers"]["user-agent"].startswith("promptlint/")
    assert json.loads(gh.calls("POST")[0]["body"]) == {"body": NEW_BODY}


# -- the body ------------------------------------------------------------------


def test_a_body_over_the_limit_is_cut_with_a_note(gh, tmp_path):
    path = tmp_path / "big.md"
    path.write_text("## promptlint\n\n<details><summary>all findings</summary>\n\n```text\n"
                    + "".join(f"prompts/p{i}.j2:1:1: PL001 dynamic value before the stable prefix\n"
                              for i in range(2000)))
    result = post(gh, path, "--behavior", "new")
    assert result.exit_code == 0, result.output
    [body] = gh.bodies()
    assert len(body) <= GITHUB_BODY_LIMIT
    assert body.startswith(MARKER + "\n## promptlint")
    assert body.endswith(TRUNCATION_NOTE)
    assert body.count("```") % 2 == 0 and "</details>" in body  # the note renders outside them
    assert "over GitHub's 65,536 limit" in result.stderr


def test_fit_body_counts_astral_characters_twice():
    body, cut = fit_body("😀" * 40_000)  # 80,000 UTF-16 units
    assert cut and body_length(body) <= GITHUB_BODY_LIMIT and body.endswith(TRUNCATION_NOTE)
    assert fit_body("short") == ("short", False)
    exact = "x" * GITHUB_BODY_LIMIT
    assert fit_body(exact) == (exact, False)


def test_the_token_inside_the_body_is_never_posted(gh, tmp_path):
    path = tmp_path / "leaky.md"
    path.write_text(f"debug: token={TOKEN}\n")
    result = post(gh, path, "--behavior", "new")
    assert result.exit_code == 0, result.output
    assert gh.bodies() == [f"{MARKER}\ndebug: token=***\n"]
    assert "replaced with ***" in result.stderr


def test_body_from_stdin(gh):
    result = CliRunner().invoke(comment, ["github", "--repo", f"{OWNER}/{REPO}", "--pr", str(PR),
                                          "--body-file", "-", "--api-url", gh.url],
                                input="from stdin\n", env={"GITHUB_TOKEN": TOKEN})
    assert result.exit_code == 0, result.output
    assert gh.bodies() == [f"{MARKER}\nfrom stdin\n"]


def test_empty_or_unreadable_body(gh, tmp_path):
    empty = tmp_path / "empty.md"
    empty.write_text("  \n")
    result = post(gh, empty)
    assert result.exit_code == 2 and "is empty" in result.stderr
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"\xff\xfe\x00bad")
    result = post(gh, binary)
    assert result.exit_code == 2 and "not UTF-8" in result.stderr
    result = post(gh, tmp_path / "missing.md")
    assert result.exit_code == 2 and "cannot read the body file" in result.stderr
    assert not gh.calls()


# -- dry run and input checks -------------------------------------------------------


@pytest.mark.parametrize("behavior", ["update", "new", "delete-and-new"])
def test_dry_run_sends_nothing(gh, body_file, behavior):
    result = post(gh, body_file, "--behavior", behavior, "--dry-run", token=None)
    assert result.exit_code == 0, result.output
    assert result.stdout == NEW_BODY
    assert result.stderr.startswith("Dry run, nothing sent: would ")
    assert gh.calls() == []


def test_dry_run_needs_no_server_at_all(body_file, tmp_path):
    path = tmp_path / "leaky.md"
    path.write_text(f"token={TOKEN}\n")
    result = run("--repo", f"{OWNER}/{REPO}", "--pr", "1", "--body-file", str(path),
                 "--api-url", "https://ghe.invalid/api/v3", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{MARKER}\ntoken=***\n"
    assert "ghe.invalid" in result.stderr


def test_missing_token(gh, body_file):
    for token in (None, "", "   "):
        result = post(gh, body_file, token=token)
        assert result.exit_code == 2
        assert "GITHUB_TOKEN is not set" in result.stderr
    assert gh.calls() == []


def test_an_api_answering_with_the_token_as_the_comment_id_does_not_print_it(gh, body_file):
    """A hostile or broken API (issue 14): the created comment's id is the token itself."""
    gh.fail(201, method="POST", body={"id": TOKEN, "html_url": f"https://github.com/x/y/pull/1#{TOKEN[::-1]}"})
    result = post(gh, body_file, "--behavior", "new")
    assert "Traceback" not in result.output
    for form in (TOKEN, TOKEN.lower(), TOKEN[::-1], " ".join(TOKEN)):
        assert form not in result.output


def test_a_token_with_a_line_break_is_refused_without_echoing_it(gh, body_file):
    token = "ghp_first_half\nX-Injected: header"
    result = post(gh, body_file, token=token)
    assert result.exit_code == 2
    assert "GITHUB_TOKEN: the value holds whitespace or control characters inside it (not printed)" in result.stderr
    assert "ghp_first_half" not in result.output and gh.calls() == []


@pytest.mark.parametrize("args, message", [
    (["--repo", "octo-org"], "expected OWNER/NAME"),
    (["--repo", "octo-org/.."], "expected OWNER/NAME"),
    (["--pr", "0"], "--pr"),
    (["--api-url", "http://api.example.com"], "must use https"),
    (["--api-url", "ftp://api.example.com"], "must be an https:// URL"),
    (["--api-url", "https://user:pw@api.example.com"], "must not carry credentials"),
    (["--marker", "promptlint"], "one-line HTML comment"),
    (["--marker", "<!--  -->"], "one-line HTML comment"),
    (["--behavior", "hide"], "--behavior"),
])
def test_bad_arguments_exit_2(gh, body_file, args, message):
    base = {"--repo": f"{OWNER}/{REPO}", "--pr": str(PR), "--body-file": str(body_file), "--api-url": gh.url}
    base[args[0]] = args[1]
    result = run(*[x for kv in base.items() for x in kv])
    assert result.exit_code == 2
    assert message in result.stderr
    assert gh.calls() == []


# -- errors --------------------------------------------------------------------


def test_401_bad_credentials_is_one_line_and_redacted(gh, body_file):
    wrong = "ghp_WrongTokenValue000000000000000000000"
    result = post(gh, body_file, token=wrong)  # the fake echoes the token it was sent
    assert result.exit_code == 2
    assert result.stderr.startswith("error: GitHub rejected the token (401: Bad credentials: Bearer ***)")
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_404_repository_or_pr_not_found(gh, body_file):
    result = run("--repo", f"{OWNER}/missing", "--pr", str(PR), "--body-file", str(body_file),
                 "--api-url", gh.url)
    assert result.exit_code == 2
    assert result.stderr == (f"error: GitHub answered 404 Not Found for {OWNER}/missing#{PR} (Not Found): "
                             "the repository or pull request does not exist, or the token cannot see it\n")
    result = run("--repo", f"{OWNER}/{REPO}", "--pr", "999", "--body-file", str(body_file),
                 "--api-url", gh.url, "--behavior", "new")
    assert result.exit_code == 2 and "404 Not Found" in result.stderr


def test_422_shows_githubs_message(gh, body_file):
    gh.fail(422, method="POST", body={"message": "Validation Failed", "errors": [
        {"resource": "IssueComment", "code": "custom", "field": "body",
         "message": "body is too long (maximum is 65536 characters)"}]})
    result = post(gh, body_file, "--behavior", "new")
    assert result.exit_code == 2
    assert result.stderr == ("error: GitHub rejected the comment (422): Validation Failed: "
                             "body is too long (maximum is 65536 characters)\n")
    assert gh.bodies() == []


def test_403_rate_limit_waits_retry_after_then_succeeds(gh, body_file, quick):
    gh.fail(403, method="POST", times=2, headers={"Retry-After": "7", "X-RateLimit-Remaining": "12"},
            body={"message": "You have exceeded a secondary rate limit."})
    result = post(gh, body_file, "--behavior", "new")
    assert result.exit_code == 0, result.output
    assert quick == [7.0, 7.0]
    assert len(gh.calls("POST")) == 3 and gh.bodies() == [NEW_BODY]


def test_primary_rate_limit_waits_for_the_reset_time(gh, body_file, quick):
    gh.fail(403, method="GET", headers={"X-RateLimit-Remaining": "0",
                                        "X-RateLimit-Reset": str(int(NOW) + 5)},
            body={"message": "API rate limit exceeded for installation ID 1."})
    gh.fail(429, method="PATCH", body={"message": "too many requests"})  # no header: a minute
    gh.add(f"{MARKER}\nold")
    result = post(gh, body_file, env={"PROMPTLINT_MAX_RETRY_WAIT": "100"})
    assert result.exit_code == 0, result.output
    assert quick == [6.0, 60.0]
    assert gh.bodies() == [NEW_BODY]


def test_rate_limit_gives_up_after_three_retries(gh, body_file, quick):
    gh.fail(429, times=99, headers={"Retry-After": "1"}, body={"message": "slow down"})
    result = post(gh, body_file)
    assert result.exit_code == 2
    assert quick == [1.0, 1.0, 1.0] and len(gh.calls()) == 4
    assert "rate limit hit (HTTP 429: slow down); gave up after 3 retries" in result.stderr


def test_rate_limit_wait_over_the_cap_fails_without_sleeping(gh, body_file, quick):
    gh.fail(403, headers={"Retry-After": "3600"}, body={"message": "secondary rate limit"})
    result = post(gh, body_file, env={"PROMPTLINT_MAX_RETRY_WAIT": "30"})
    assert result.exit_code == 2
    assert quick == [] and len(gh.calls()) == 1
    assert "waiting 3600s more would exceed the retry wait limit of 30s" in result.stderr


def test_bad_retry_wait_setting(gh, body_file):
    result = post(gh, body_file, env={"PROMPTLINT_MAX_RETRY_WAIT": "soon"})
    assert result.exit_code == 2 and "PROMPTLINT_MAX_RETRY_WAIT must be a number" in result.stderr


def test_403_without_rate_limiting_is_not_retried(gh, body_file, quick):
    gh.fail(403, method="POST", body={"message": "Resource not accessible by integration"})
    result = post(gh, body_file, "--behavior", "new")
    assert result.exit_code == 2
    assert quick == [] and len(gh.calls()) == 1
    assert "(403) (Resource not accessible by integration); the token needs permission" in result.stderr


def test_500_is_retried_with_backoff(gh, body_file, quick):
    gh.fail(500, method="GET", times=2, body={"message": "Server Error"})
    result = post(gh, body_file)
    assert result.exit_code == 0, result.output
    assert quick == [1.0, 2.0] and gh.bodies() == [NEW_BODY]


def test_500_that_persists_fails_clearly(gh, body_file, quick):
    gh.fail(502, times=99, body={"message": "Server Error"})
    result = post(gh, body_file)
    assert result.exit_code == 2
    assert len(gh.calls()) == 3 and quick == [1.0, 2.0]
    assert "GitHub answered HTTP 502 to GET" in result.stderr and "after 3 attempts" in result.stderr


def test_network_error_is_clear(body_file, quick):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = run("--repo", f"{OWNER}/{REPO}", "--pr", str(PR), "--body-file", str(body_file),
                 "--api-url", f"http://127.0.0.1:{port}")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: cannot reach http://127.0.0.1:{port} (GET /repos/")
    assert quick == [1.0, 2.0]


def test_timeouts_on_every_request(gh, body_file):
    gh.fail(None, method="GET", times=3, delay=1.0)
    started = time.monotonic()
    result = post(gh, body_file, "--timeout", "0.2")
    assert result.exit_code == 2
    assert "no answer from" in result.stderr and "within 0.2s" in result.stderr
    assert time.monotonic() - started < 5
    gh.fail(None, method="POST", times=1, delay=1.0)
    result = post(gh, body_file, "--timeout", "0.2", "--behavior", "new")
    assert result.exit_code == 2 and "not retried, as the comment may have been created" in result.stderr
    assert len(gh.calls("POST")) == 1


def test_the_token_goes_nowhere_but_the_api_url(gh, body_file):
    elsewhere = FakeGitHub()
    try:
        for i in range(150):
            gh.add(f"comment {i}")
        gh.next_link_base = f"http://localhost:{elsewhere.port}"  # another origin
        result = post(gh, body_file)
        assert result.exit_code == 2 and "refused to follow a link" in result.stderr
        gh.next_link_base = None
        gh.fail(302, method="GET", headers={"Location": f"{elsewhere.url}/repos/{OWNER}/{REPO}/issues/{PR}/comments"})
        result = post(gh, body_file)
        assert result.exit_code == 2 and "refused a redirect" in result.stderr
        assert elsewhere.calls() == []
    finally:
        elsewhere.close()


# -- the client itself ----------------------------------------------------------


def test_client_and_errors_never_show_the_token():
    client = GitHubClient(TOKEN, "https://api.github.com")
    assert TOKEN not in repr(client) and TOKEN not in str(client)
    assert TOKEN not in repr(Secret(TOKEN)) and TOKEN not in str(Secret(TOKEN))
    assert TOKEN not in repr(vars(client))
    with pytest.raises(ValueError) as info:
        GitHubClient(TOKEN + "\n", "https://api.github.com")
    assert TOKEN not in str(info.value)
    err = client._fail(f"echo {TOKEN}\nsecond line", status=500)
    assert isinstance(err, GitHubError) and str(err) == "echo *** second line"


def test_next_link_parsing():
    header = ('<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2>; rel="next", '
              '<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=3>; rel="last"')
    assert next_link(header).endswith("page=2")
    assert next_link('<https://x/?page=1>; rel="prev", <https://x/?page=3>; rel="last"') is None
    assert next_link('<https://x/?page=4>; rel="next last"') == "https://x/?page=4"
    assert next_link(None) is None and next_link("") is None


def test_hide_and_new_hides_every_marked_comment_through_graphql_then_posts(gh, body_file):
    old = [gh.add(f"{MARKER}\nold {i}") for i in range(2)]
    other = gh.add("a human's comment")
    result = post(gh, body_file, "--behavior", "hide-and-new")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Hid 2 old comments and created a new comment on {OWNER}/{REPO}#{PR}:")
    assert [gh.comments[c]["minimized"] for c in old] == ["OUTDATED", "OUTDATED"]
    assert gh.comments[other]["minimized"] is None
    assert gh.bodies()[-1] == NEW_BODY and len(gh.bodies()) == 4
    graphql = [r for r in gh.calls("POST") if r["path"] == "/graphql"]
    assert len(graphql) == 2 and all(r["headers"]["authorization"] == f"Bearer {TOKEN}" for r in graphql)


def test_hide_and_new_on_enterprise_uses_its_graphql_endpoint(body_file):
    fake = FakeGitHub(prefix="/api/v3")
    try:
        fake.add(f"{MARKER}\nold")
        result = post(fake, body_file, "--behavior", "hide-and-new")
        assert result.exit_code == 0, result.output
        assert [r["path"] for r in fake.calls("POST")] == ["/api/graphql", "/api/v3/repos/octo-org/prompts/issues/7/comments"]
    finally:
        fake.close()


def test_a_graphql_error_is_one_clear_line(gh, body_file):
    gh.add(f"{MARKER}\nold")
    gh.fail(200, method="POST", path="/graphql", body={"data": None, "errors": [
        {"type": "NOT_FOUND", "message": "Could not resolve to a node with the global id of 'IC_kw1001'"}]})
    result = post(gh, body_file, "--behavior", "hide-and-new")
    assert result.exit_code == 2
    assert "GitHub GraphQL minimizeComment failed: Could not resolve to a node" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and len(gh.bodies()) == 1  # nothing posted


@pytest.mark.parametrize("behavior,left,said", [
    ("update", 0, "deleted 2 earlier comments"),
    ("delete-and-new", 0, "deleted 2 earlier comments"),
    ("hide-and-new", 2, "hid 2 earlier comments"),
    ("new", 2, "the change is under the thresholds."),
])
def test_a_body_under_the_thresholds_posts_nothing_and_withdraws_the_old_comment(gh, tmp_path, behavior, left,
                                                                                  said):
    for i in range(2):
        gh.add(f"{MARKER}\nold {i}")
    body = tmp_path / "quiet.md"
    body.write_text(f"{MARKER}\n<!-- promptlint: below-threshold -->\npromptlint: under the thresholds.\n")
    result = post(gh, body, "--behavior", behavior)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"No comment posted on {OWNER}/{REPO}#{PR}") and said in result.stdout
    assert len(gh.bodies()) == left and not gh.calls("PATCH")
    assert not [r for r in gh.calls("POST") if r["path"].endswith("/comments")]
