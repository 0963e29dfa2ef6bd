"""Tests see the environment of a developer's terminal, not the CI that runs
them: inside GitHub Actions `--format auto` would switch to annotations and
append to the real step summary."""

import pytest


@pytest.fixture(autouse=True)
def _not_in_github_actions(monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(autouse=True)
def _no_secret_outlives_its_test():
    """A key registered by one test's run is not redacted from the next test's output."""
    yield
    from promptlint import secrets

    secrets.forget_all()
