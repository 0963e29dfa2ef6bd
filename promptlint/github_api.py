"""A small GitHub REST client on the standard library (urllib.request).

Only what `promptlint comment github` needs: list, create, update and delete
issue comments. Every request goes to the configured API URL and nowhere
else: pagination links and redirects that lead to another origin are
refused, so the token is never sent to another host.

The token is kept in a `Secret` whose str() and repr() are redacted, and
every message this module builds passes through `redact`, so the token
never shows in an error, a log line or a traceback's exception text.

Retries: rate limiting (403/429 with Retry-After, X-RateLimit-Remaining: 0
and X-RateLimit-Reset, or GitHub's secondary-limit message) waits as asked,
up to `max_retries` times; 5xx answers are retried `server_retries` times
with exponential backoff; timeouts and connection errors are retried the
same way except for POST (a create that timed out may have been made, and
repeating it would post a duplicate). All waits share one budget,
`max_total_wait` seconds for the client's life; a wait that would overrun
it fails at once with a clear message instead of sleeping.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from promptlint import __version__
from promptlint.secrets import REDACTED, Secret, redact  # noqa: F401 - re-exported for the commands

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
USER_AGENT = f"promptlint/{__version__} (+https://github.com/promptlint)"
MAX_PAGES = 1000  # 100,000 comments: a guard against a pagination loop

# indirections the tests replace to keep retries instant and the clock fixed
_sleep = time.sleep
_now = time.time


class GitHubError(Exception):
    """A request that failed for good. `status` is the HTTP status (None for
    a network error); `rate_limited` marks rate limiting; `message` is
    GitHub's own message where it sent one."""

    def __init__(self, text: str, *, status: int | None = None, message: str = "",
                 rate_limited: bool = False, method: str = "", path: str = ""):
        super().__init__(text)
        self.status = status
        self.message = message
        self.rate_limited = rate_limited
        self.method = method
        self.path = path


@dataclass
class Response:
    status: int
    headers: dict[str, str] = field(repr=False)
    data: Any = None


def validate_api_url(url: str) -> str:
    """The API base URL without a trailing slash; raises ValueError for
    anything but https (or http to this machine only, for local tests and
    tunnels: a token must not cross a network in clear text)."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError(f"--api-url must be an https:// URL, e.g. {DEFAULT_API_URL} "
                         "or https://HOST/api/v3 for GitHub Enterprise Server")
    if parts.username or parts.password:
        raise ValueError("--api-url must not carry credentials; the token comes from GITHUB_TOKEN")
    if parts.query or parts.fragment:
        raise ValueError("--api-url must not have a query or fragment")
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError("--api-url must use https (plain http is allowed only for localhost)")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme.lower(), f"{(parts.hostname or '').lower()}:{port}"


def next_link(link_header: str | None) -> str | None:
    """The rel="next" URL of an RFC 8288 Link header, or None."""
    if not link_header:
        return None
    for m in re.finditer(r"<([^>]*)>([^<]*)", link_header):
        for param in m.group(2).split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "rel" and "next" in value.strip().strip('",').lower().split():
                return m.group(1).strip()
    return None


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only within the API's origin (a renamed repository
    answers 301 to its new name); anywhere else would carry the token off."""

    def __init__(self, client: GitHubClient):
        super().__init__()
        self._client = client

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        newurl = urllib.parse.urljoin(req.full_url, newurl)
        if not self._client._same_site(newurl):
            raise GitHubError(f"refused a redirect from {self._client.api_url} to another host "
                              f"({urllib.parse.urlsplit(newurl).netloc}); the token is sent "
                              "to the --api-url only", status=code)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class GitHubClient:
    def __init__(self, token: str | Secret, api_url: str = DEFAULT_API_URL, *,
                 timeout: float = 30.0, max_retries: int = 3, server_retries: int = 2,
                 max_total_wait: float = 120.0, backoff: float = 1.0):
        self._token = token if isinstance(token, Secret) else Secret(token)
        value = self._token.reveal()
        if not value or any(not (0x21 <= ord(c) <= 0x7E) for c in value):
            # http.client would echo an invalid header value in its exception
            raise ValueError("the GitHub token is empty or contains spaces, line breaks "
                             "or non-ASCII characters")
        self.api_url = validate_api_url(api_url)
        self.timeout = timeout
        self.max_retries = max_retries
        self.server_retries = server_retries
        self.max_total_wait = max_total_wait
        self.backoff = backoff
        self.waited = 0.0  # seconds slept on retries so far
        self.graphql_url = graphql_url(self.api_url)
        self._opener = urllib.request.build_opener(_SameOriginRedirects(self))

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r}, token=***)"

    # -- plumbing --------------------------------------------------------

    def _same_site(self, url: str) -> bool:
        base = urllib.parse.urlsplit(self.api_url)
        target = urllib.parse.urlsplit(url)
        return _origin(url) == _origin(self.api_url) and (
            target.path == base.path or target.path.startswith(base.path.rstrip("/") + "/"))

    def _url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            if path_or_url != self.graphql_url and not self._same_site(path_or_url):
                raise GitHubError(f"refused to follow a link from {self.api_url} to another host "
                                  f"({urllib.parse.urlsplit(path_or_url).netloc}); the token is "
                                  "sent to the --api-url only")
            return path_or_url
        return self.api_url + path_or_url

    def _fail(self, text: str, **kw) -> GitHubError:
        return GitHubError(redact(text, self._token).replace("\n", " "), **kw)

    def _wait(self, seconds: float, why: str, method: str, path: str, status: int | None,
              rate_limited: bool = False) -> None:
        seconds = max(0.0, seconds)
        if self.waited + seconds > self.max_total_wait:
            raise self._fail(f"{why}; waiting {seconds:.0f}s more would exceed the retry wait "
                             f"limit of {self.max_total_wait:.0f}s (PROMPTLINT_MAX_RETRY_WAIT)",
                             status=status, rate_limited=rate_limited, method=method, path=path)
        self.waited += seconds
        _sleep(seconds)

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self._token.reveal()}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": USER_AGENT,
        }
        if has_body:
            headers["Content-Type"] = "application/json; charset=utf-8"
        return headers

    def _once(self, method: str, url: str, payload: Any) -> Response:
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method,
                                     headers=self._headers(data is not None))
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                raw = resp.read()
                status, headers = resp.status, dict(resp.headers.items())
        except urllib.error.HTTPError as exc:
            try:
                raw = exc.read()
            except (OSError, http.client.HTTPException):
                raw = b""
            status, headers = exc.code, dict(exc.headers.items()) if exc.headers else {}
            exc.close()
        return Response(status, headers, _json(raw))

    def request(self, method: str, path: str, payload: Any = None) -> Response:
        """One API call with retries; returns a 2xx Response or raises GitHubError."""
        url = self._url(path)
        where = urllib.parse.urlsplit(url).path
        rate_tries = server_tries = 0
        while True:
            try:
                resp = self._once(method, url, payload)
            except GitHubError as exc:
                raise self._fail(str(exc), status=exc.status, method=method, path=where) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
                reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                if isinstance(reason, (socket.timeout, TimeoutError)):
                    text = f"no answer from {self.api_url} within {self.timeout:g}s ({method} {where})"
                else:
                    text = f"cannot reach {self.api_url} ({method} {where}): {reason or type(reason).__name__}"
                if method == "POST" or server_tries >= self.server_retries:
                    if method == "POST":
                        text += "; not retried, as the comment may have been created"
                    raise self._fail(text, method=method, path=where) from None
                server_tries += 1
                self._wait(self.backoff * 2 ** (server_tries - 1), text, method, where, None)
                continue
            if 200 <= resp.status < 300:
                return resp
            message = _message(resp.data)
            wait = _rate_limit_wait(resp.status, resp.headers, message)
            if wait is not None:
                text = f"GitHub rate limit hit (HTTP {resp.status}{': ' + message if message else ''})"
                if rate_tries >= self.max_retries:
                    raise self._fail(f"{text}; gave up after {self.max_retries} retries",
                                     status=resp.status, message=redact(message, self._token),
                                     rate_limited=True, method=method, path=where)
                rate_tries += 1
                self._wait(wait, text, method, where, resp.status, rate_limited=True)
                continue
            if resp.status >= 500 and server_tries < self.server_retries:
                server_tries += 1
                after = _retry_after(resp.headers)
                self._wait(after if after is not None else self.backoff * 2 ** (server_tries - 1),
                           f"GitHub server error (HTTP {resp.status})", method, where, resp.status)
                continue
            tries = f" after {server_tries + 1} attempts" if resp.status >= 500 else ""
            raise self._fail(f"GitHub answered HTTP {resp.status} to {method} {where}{tries}"
                             f"{': ' + message if message else ''}",
                             status=resp.status, message=redact(message, self._token),
                             method=method, path=where)

    def paginate(self, path: str) -> Iterator[Any]:
        """Every item of a list endpoint, following Link rel="next"."""
        url: str | None = path
        for _ in range(MAX_PAGES):
            resp = self.request("GET", url)
            if not isinstance(resp.data, list):
                raise self._fail(f"GitHub answered GET {path} with something other than a list")
            yield from resp.data
            url = next_link(resp.headers.get("Link") or resp.headers.get("link"))
            if not url:
                return
        raise self._fail(f"GET {path}: more than {MAX_PAGES} pages; stopped")

    # -- issue comments --------------------------------------------------

    @staticmethod
    def _repo(owner: str, repo: str) -> str:
        q = urllib.parse.quote
        return f"/repos/{q(owner, safe='')}/{q(repo, safe='')}"

    def list_issue_comments(self, owner: str, repo: str, number: int) -> list[dict]:
        return list(self.paginate(f"{self._repo(owner, repo)}/issues/{int(number)}/comments?per_page=100"))

    def create_issue_comment(self, owner: str, repo: str, number: int, body: str) -> dict:
        return self.request("POST", f"{self._repo(owner, repo)}/issues/{int(number)}/comments",
                            {"body": body}).data

    def update_issue_comment(self, owner: str, repo: str, comment_id: int, body: str) -> dict:
        return self.request("PATCH", f"{self._repo(owner, repo)}/issues/comments/{int(comment_id)}",
                            {"body": body}).data

    def delete_issue_comment(self, owner: str, repo: str, comment_id: int) -> None:
        self.request("DELETE", f"{self._repo(owner, repo)}/issues/comments/{int(comment_id)}")

    def minimize_comment(self, node_id: str, classifier: str = "OUTDATED") -> None:
        """Hide a comment as GitHub's UI does ("Hide: outdated"), through
        GraphQL's minimizeComment (REST has no such call)."""
        query = ("mutation($id: ID!, $classifier: ReportedContentClassifiers!) { minimizeComment(input: "
                 "{subjectId: $id, classifier: $classifier}) { minimizedComment { isMinimized } } }")
        answer = self.request("POST", self.graphql_url,
                              {"query": query, "variables": {"id": node_id, "classifier": classifier}}).data
        errors = answer.get("errors") if isinstance(answer, dict) else None
        if errors or not isinstance(answer, dict) or not answer.get("data"):
            message = "; ".join(str(e.get("message", e)) for e in errors) if errors else "no data in the answer"
            raise self._fail(f"GitHub GraphQL minimizeComment failed: {message}", message=message)


def graphql_url(api_url: str) -> str:
    """GitHub's GraphQL endpoint beside a REST API URL: api.github.com/graphql;
    on GitHub Enterprise Server, HOST/api/v3 -> HOST/api/graphql."""
    base = api_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base[: -len("/v3")] + "/graphql"
    return base + "/graphql"


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return raw.decode("utf-8", "replace")[:500]


def _message(data: Any) -> str:
    """GitHub's error message with its validation details, on one line."""
    if isinstance(data, dict):
        text = str(data.get("message") or "")
        details = []
        for err in data.get("errors") or []:
            if isinstance(err, dict):
                detail = err.get("message") or " ".join(
                    str(err[k]) for k in ("resource", "field", "code") if err.get(k))
            else:
                detail = str(err)
            if detail:
                details.append(str(detail))
        if details:
            text = f"{text}: {'; '.join(details)}" if text else "; ".join(details)
        return " ".join(text.split())
    if isinstance(data, str):
        return " ".join(data.split())[:300]
    return ""


def _retry_after(headers: dict[str, str]) -> float | None:
    value = _header(headers, "Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - _now())
        except (TypeError, ValueError):
            return None


def _header(headers: dict[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value.strip()
    return None


def _rate_limit_wait(status: int, headers: dict[str, str], message: str) -> float | None:
    """Seconds to wait before retrying, if this answer is rate limiting
    (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api);
    None for anything else (a 403 for missing permission is not retried)."""
    if status not in (403, 429):
        return None
    after = _retry_after(headers)
    if after is not None:
        return after
    remaining, reset = _header(headers, "X-RateLimit-Remaining"), _header(headers, "X-RateLimit-Reset")
    if remaining == "0" and reset:
        try:
            return max(0.0, float(reset) - _now()) + 1.0
        except ValueError:
            pass
    if status == 429 or "rate limit" in message.lower():
        return 60.0  # GitHub: with no header, wait at least a minute
    return None
