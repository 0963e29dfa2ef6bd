"""promptlint: a prompt-layout linter and prompt-cache cost auditor."""

__version__ = "0.1.0"
