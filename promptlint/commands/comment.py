"""`promptlint comment github`: post a report as a sticky pull-request comment.

As Infracost does (`infracost comment github --behavior ...`): the body
starts with a hidden marker (`<!-- promptlint-report -->`); `update` edits
the latest comment carrying the marker (or posts one), `new` always posts,
`delete-and-new` deletes every marked comment and posts a fresh one,
`hide-and-new` hides them (GraphQL minimizeComment, "outdated") and posts a
fresh one. A body from `diff --min-change-*` that says the change is under
the thresholds posts nothing: the marked comments are deleted (update,
delete-and-new) or hidden (hide-and-new), so a pull request whose change
went away loses its stale comment. The
token comes from GITHUB_TOKEN only (never from an option, which would show
in the process list) and is never printed.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import click

from promptlint import secrets
from promptlint.github_api import DEFAULT_API_URL, GitHubClient, GitHubError, redact, validate_api_url
from promptlint.report.diff_report import BELOW_THRESHOLD
from promptlint.report.words import plural

EXIT_ERROR = 2
DEFAULT_MARKER = "<!-- promptlint-report -->"
GITHUB_BODY_LIMIT = 65536  # characters, GitHub's limit on an issue comment body
TRUNCATION_NOTE = ("\n\n---\n> **Note:** this report was cut to fit GitHub's 65,536-character "
                   "comment limit. Run `promptlint` locally or see the CI log for the full report.\n")
BEHAVIORS = ("update", "new", "delete-and-new", "hide-and-new")
_REPO_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
_MARKER_RE = re.compile(r"^<!--[^\n]*\S[^\n]*-->$")


def body_length(text: str) -> int:
    """Length as GitHub may count it: UTF-16 code units, never fewer than
    code points, so a body that fits here fits however it is counted."""
    return len(text.encode("utf-16-le")) // 2


def with_marker(body: str, marker: str) -> str:
    return body if body.startswith(marker) else f"{marker}\n{body}"


def fit_body(body: str, limit: int = GITHUB_BODY_LIMIT, note: str = TRUNCATION_NOTE) -> tuple[str, bool]:
    """`body` cut to `limit` characters with a visible note, if it is longer.
    The cut falls at a line end where one is near, and a code fence or
    <details> block left open by the cut is closed so the note renders."""
    if body_length(body) <= limit:
        return body, False
    budget = limit - body_length(note)
    while True:
        cut = body[:budget]
        while body_length(cut) > budget:  # astral characters count twice
            cut = cut[:len(cut) - (body_length(cut) - budget)]
        newline = cut.rfind("\n")
        if newline >= max(0, len(cut) - 2000):
            cut = cut[:newline]
        closers = ""
        if sum(1 for line in cut.splitlines() if re.match(r"^\s*(```|~~~)", line)) % 2:
            closers += "\n```"
        opened = len(re.findall(r"<details\b", cut, re.IGNORECASE)) - len(re.findall(r"</details\s*>", cut, re.IGNORECASE))
        closers += "\n</details>" * max(0, opened)
        text = cut + closers + note
        if body_length(text) <= limit:
            return text, True
        budget -= body_length(text) - limit


def _check_repo(ctx, param, value: str) -> tuple[str, str]:
    if not _REPO_RE.match(value or "") or value.split("/")[1] in (".", ".."):
        raise click.BadParameter("expected OWNER/NAME, e.g. octo-org/prompts")
    owner, name = value.split("/")
    return owner, name


def _check_marker(ctx, param, value: str) -> str:
    if not _MARKER_RE.match(value or ""):
        raise click.BadParameter("the marker must be a one-line HTML comment such as "
                                 f"{DEFAULT_MARKER!r}, so it stays hidden and matches only "
                                 "promptlint's comments")
    return value


def _check_api_url(ctx, param, value: str) -> str:
    try:
        return validate_api_url(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


class _Out:
    """Every line printed goes through here, with the token redacted."""

    def __init__(self, token: str | None):
        self.token = token

    def say(self, text: str, err: bool = False, nl: bool = True) -> None:
        click.echo(redact(text, self.token), err=err, nl=nl)

    def fail(self, text: str):
        self.say(f"error: {' '.join(str(text).split())}", err=True)
        sys.exit(EXIT_ERROR)


@click.group("comment")
def comment() -> None:
    """Post a promptlint report as a pull-request comment."""


@comment.command("github")
@click.option("--repo", required=True, metavar="OWNER/NAME", callback=_check_repo,
              help="Repository of the pull request, e.g. octo-org/prompts.")
@click.option("--pr", "pr", required=True, type=click.IntRange(min=1), metavar="N",
              help="Pull request number.")
@click.option("--body-file", required=True, metavar="FILE",
              type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Markdown body of the comment (- for stdin), e.g. from `promptlint diff`.")
@click.option("--behavior", type=click.Choice(BEHAVIORS), default="update", show_default=True,
              help="update: edit the latest marked comment, or post one; new: always post; "
                   "delete-and-new: delete every marked comment, then post; hide-and-new: hide every marked "
                   "comment as outdated, then post.")
@click.option("--dry-run", is_flag=True,
              help="Print the body and what would be done; send nothing (no token needed).")
@click.option("--api-url", default=DEFAULT_API_URL, show_default=True, callback=_check_api_url,
              help="GitHub API URL; for GitHub Enterprise Server https://HOST/api/v3.")
@click.option("--marker", default=DEFAULT_MARKER, show_default=True, callback=_check_marker,
              help="Hidden marker that identifies promptlint's comment.")
@click.option("--timeout", type=click.FloatRange(min=0.1, max=600), default=30.0, show_default=True,
              help="Seconds to wait for each request.")
def github(repo, pr, body_file, behavior, dry_run, api_url, marker, timeout):
    """Post or update the promptlint comment on a GitHub pull request.

    The token is read from GITHUB_TOKEN (it needs permission to write
    pull-request or issue comments). Rate limiting is retried for at most
    PROMPTLINT_MAX_RETRY_WAIT seconds in all (default 120).
    """
    owner, name = repo
    slug = f"{owner}/{name}#{pr}"
    out = _Out(None)
    try:
        secret = secrets.read(os.environ.get("GITHUB_TOKEN"), "GITHUB_TOKEN")
    except secrets.SecretError as exc:
        out.fail(str(exc))
    token = secret.reveal() if secret else None
    out = _Out(token)

    text = _read_body(body_file, out)
    if not text.strip():
        out.fail(f"the body file {body_file} is empty")
    quiet = BELOW_THRESHOLD in text
    if token and token in text:
        text = redact(text, token)
        out.say("warning: the body contained the GITHUB_TOKEN value; it was replaced with ***", err=True)
    body, cut = fit_body(with_marker(text, marker))
    if cut:
        out.say(f"warning: the body is {body_length(with_marker(text, marker)):,} characters, over "
                f"GitHub's {GITHUB_BODY_LIMIT:,} limit; it was cut to fit, with a note", err=True)

    if dry_run:
        out.say(body, nl=not body.endswith("\n"))
        plan = {
            "update": f"would update the latest comment marked {marker} on {slug}, or create one if there is none",
            "new": f"would create a new comment on {slug}",
            "delete-and-new": f"would delete every comment marked {marker} on {slug}, then create a new one",
            "hide-and-new": f"would hide every comment marked {marker} on {slug}, then create a new one",
        }[behavior]
        if quiet:
            plan = {"new": "would post nothing (the change is under the thresholds)",
                    "hide-and-new": f"would post nothing and hide every comment marked {marker} on {slug}"}.get(
                behavior, f"would post nothing and delete every comment marked {marker} on {slug}")
        out.say(f"Dry run, nothing sent: {plan} ({api_url}).", err=True)
        return

    if not token:
        out.fail("GITHUB_TOKEN is not set; export a token that can write pull-request comments "
                 "(in GitHub Actions: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}), or use --dry-run")
    max_wait = _env_float("PROMPTLINT_MAX_RETRY_WAIT", 120.0, out)
    try:
        client = GitHubClient(secret, api_url, timeout=timeout, max_total_wait=max_wait)
    except ValueError as exc:
        out.fail(f"GITHUB_TOKEN: {exc}")

    try:
        line = (_withdraw if quiet else _apply)(client, owner, name, pr, body, behavior, marker, slug)
    except GitHubError as exc:
        out.fail(_explain(exc, slug, api_url))
    out.say(line)


def _marked(client: GitHubClient, owner: str, name: str, pr: int, marker: str) -> list[dict]:
    return [c for c in client.list_issue_comments(owner, name, pr)
            if isinstance(c, dict) and marker in (c.get("body") or "")]


def _delete(client: GitHubClient, owner: str, name: str, comments: list[dict]) -> None:
    for c in comments:
        try:
            client.delete_issue_comment(owner, name, c["id"])
        except GitHubError as exc:
            if exc.status != 404:  # already gone is what we wanted
                raise


def _hide(client: GitHubClient, comments: list[dict]) -> int:
    """Hide each comment GitHub can address (by its node id); how many."""
    hidden = 0
    for c in comments:
        if c.get("node_id"):
            client.minimize_comment(str(c["node_id"]))
            hidden += 1
    return hidden


def _withdraw(client: GitHubClient, owner: str, name: str, pr: int, body: str, behavior: str,
              marker: str, slug: str) -> str:
    """A change under the thresholds: no comment, and none left from earlier pushes."""
    if behavior == "new":
        return f"No comment posted on {slug}: the change is under the thresholds."
    marked = _marked(client, owner, name, pr, marker)
    if behavior == "hide-and-new":
        hidden = _hide(client, marked)
        return (f"No comment posted on {slug}: the change is under the thresholds; hid "
                f"{plural(hidden, 'earlier comment')}.")
    _delete(client, owner, name, marked)
    return (f"No comment posted on {slug}: the change is under the thresholds; deleted "
            f"{plural(len(marked), 'earlier comment')}.")


def _apply(client: GitHubClient, owner: str, name: str, pr: int, body: str, behavior: str,
           marker: str, slug: str) -> str:
    if behavior == "new":
        made = client.create_issue_comment(owner, name, pr, body)
        return f"Created a new comment on {slug}: {_where(made)}"

    marked = _marked(client, owner, name, pr, marker)
    if behavior == "hide-and-new":
        hidden = _hide(client, marked)
        made = client.create_issue_comment(owner, name, pr, body)
        said = f"Hid {plural(hidden, 'old comment')} and created" if hidden else "Created"
        return f"{said} a new comment on {slug}: {_where(made)}"
    if behavior == "delete-and-new":
        _delete(client, owner, name, marked)
        made = client.create_issue_comment(owner, name, pr, body)
        gone = f"Deleted {plural(len(marked), 'old comment')} and created" \
            if marked else "Created"
        return f"{gone} a new comment on {slug}: {_where(made)}"

    # update
    if not marked:
        made = client.create_issue_comment(owner, name, pr, body)
        return f"Created a new comment on {slug} (no comment marked {marker} yet): {_where(made)}"
    latest = max(marked, key=lambda c: (str(c.get("created_at") or ""), int(c.get("id") or 0)))
    if _same(latest.get("body") or "", body):
        return f"Comment on {slug} is already up to date, not edited: {_where(latest)}"
    try:
        made = client.update_issue_comment(owner, name, latest["id"], body)
    except GitHubError as exc:
        if exc.status != 404:
            raise
        made = client.create_issue_comment(owner, name, pr, body)  # deleted meanwhile
        return f"Created a new comment on {slug} (the marked one was deleted meanwhile): {_where(made)}"
    return f"Updated the comment on {slug}: {_where(made)}"


def _same(a: str, b: str) -> bool:
    return a.replace("\r\n", "\n") == b.replace("\r\n", "\n")


def _where(comment) -> str:
    if isinstance(comment, dict):
        return str(comment.get("html_url") or f"comment id {comment.get('id')}")
    return "(no comment in GitHub's answer)"


def _explain(exc: GitHubError, slug: str, api_url: str) -> str:
    said = f" ({exc.message})" if exc.message else ""
    if exc.rate_limited or exc.status is None or (exc.status and exc.status >= 500):
        return str(exc)
    if exc.status == 401:
        return (f"GitHub rejected the token (401{': ' + exc.message if exc.message else ''}); "
                "check that GITHUB_TOKEN is valid, not expired, and meant for " + api_url)
    if exc.status == 403:
        return (f"GitHub refused {exc.method} {exc.path} (403){said}; the token needs permission "
                "to write pull-request comments (pull-requests: write or issues: write)")
    if exc.status == 404:
        return (f"GitHub answered 404 Not Found for {slug}{said}: the repository or pull request "
                "does not exist, or the token cannot see it")
    if exc.status == 422:
        return f"GitHub rejected the comment (422): {exc.message or 'validation failed'}"
    return str(exc)


def _read_body(path: Path, out: _Out) -> str:
    try:
        if str(path) == "-":
            with click.open_file("-", "rb") as stream:
                raw = stream.read()
        else:
            raw = path.read_bytes()
    except OSError as exc:
        out.fail(f"cannot read the body file {path}: {exc.strerror or exc}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        out.fail(f"the body file {path} is not UTF-8 text")


def _env_float(name: str, default: float, out: _Out) -> float:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number >= 0 or number == float("inf"):
        out.fail(f"{name} must be a number of seconds (0 or more), not {value!r}")
    return number
