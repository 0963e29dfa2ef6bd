"""Verify mode: replay prompts through an engine with prefix caching and
measure what it reuses, beside what the audit predicts.

Everything here imports torch and transformers (the `verify` extra), so
nothing in the lint path may import this package.
"""
