"""Tests see the environment of a developer's terminal, not the CI that runs
them: inside GitHub Actions `--format auto` would switch to annotations and
append to the real step summary. The result cache is off (a test that
changes the code's behaviour would otherwise get an earlier run's result);
tests/test_result_cache.py turns it on in a folder of its own."""

import pytest


@pytest.fixture(autouse=True)
def _not_in_github_actions(monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("PROMPTLINT_NO_CACHE", "1")


@pytest.fixture(autouse=True)
def _no_secret_outlives_its_test():
    """A key registered by one test's run is not redacted from the next test's output."""
    yield
    from promptlint import secrets

    secrets.forget_all()
