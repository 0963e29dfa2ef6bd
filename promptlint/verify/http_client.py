"""A small JSON-over-HTTP client for inference servers, on the standard
library.

Requests go only to the server the user named: a URL on another origin is
refused, and redirects are not followed. An API key (read from an
environment variable the user names) travels in the Authorization header
and is redacted from every message this module builds. Timeouts, dropped
connections, 429 and 5xx answers are retried with exponential backoff,
`retries` times; then the call fails with one clear line.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from promptlint import __version__
from promptlint.github_api import Secret, redact

USER_AGENT = f"promptlint/{__version__} verify"
_sleep = time.sleep  # the tests replace it to keep retries instant


class ServerError(Exception):
    """A call that failed for good (after retries); str() is one line."""

    def __init__(self, text: str, status: int | None = None, retryable: bool = False):
        super().__init__(text)
        self.status = status
        self.retryable = retryable


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(req.full_url, code, f"redirect to {newurl} not followed", headers, fp)


def origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def check_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ServerError(f"{url}: not an http(s) URL")
    return url.rstrip("/")


@dataclass
class Response:
    status: int
    data: Any  # parsed JSON, or the text for non-JSON bodies
    seconds: float


class HttpClient:
    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 120.0, retries: int = 2,
                 backoff: float = 0.5):
        self.base_url = check_url(base_url)
        self._key = (api_key if isinstance(api_key, Secret) else Secret(api_key)) if api_key else None
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._opener = urllib.request.build_opener(_NoRedirect)

    def url(self, path: str) -> str:
        """`path` under the base URL, or an absolute URL on the same origin."""
        if path.startswith(("http://", "https://")):
            if origin(path) != origin(self.base_url):
                raise ServerError(f"{path}: refused, not on the server's origin {self.base_url}")
            return path
        return self.base_url + "/" + path.lstrip("/")

    def _redact(self, text: str) -> str:
        return redact(text, self._key)

    def _once(self, method: str, url: str, payload: Any) -> Response:
        body = None if payload is None else json.dumps(payload).encode()
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json, text/plain"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self._key:
            headers["Authorization"] = f"Bearer {self._key.reveal()}"
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        started = time.perf_counter()
        try:
            with self._opener.open(request, timeout=self.timeout) as reply:
                raw = reply.read()
                status = reply.status
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:300] if exc.fp else ""
            retryable = exc.code == 429 or exc.code >= 500
            detail = exc.msg if 300 <= exc.code < 400 else " ".join(text.split())
            raise ServerError(self._redact(f"{method} {url}: HTTP {exc.code}" + (f": {detail}" if detail else "")),
                              exc.code, retryable) from None
        except (socket.timeout, TimeoutError):
            raise ServerError(f"{method} {url}: no answer within {self.timeout:g} s (timeout)", retryable=True) from None
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ServerError(self._redact(f"{method} {url}: {reason} (is the server running?)"),
                              retryable=True) from None
        seconds = time.perf_counter() - started
        text = raw.decode("utf-8", "replace")
        try:
            data = json.loads(text) if text.strip() else None
        except json.JSONDecodeError:
            data = text
        return Response(status, data, seconds)

    def request(self, method: str, path: str, payload: Any = None, retries: int | None = None) -> Response:
        url = self.url(path)
        attempts = 1 + (self.retries if retries is None else retries)
        for attempt in range(attempts):
            try:
                return self._once(method, url, payload)
            except ServerError as exc:
                if not exc.retryable or attempt == attempts - 1:
                    if attempts > 1 and exc.retryable:
                        raise ServerError(f"{exc} (after {attempts} attempts)", exc.status) from None
                    raise
                _sleep(self.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

    def get(self, path: str, retries: int | None = None) -> Response:
        return self.request("GET", path, None, retries)

    def post(self, path: str, payload: Any, retries: int | None = None) -> Response:
        return self.request("POST", path, payload, retries)
