"""Usage logs: what hosted providers actually cached, read from logged responses.

``parse`` reads a JSONL log of provider responses (OpenAI Chat Completions
and Responses, Anthropic Messages, Gemini generateContent), alone or paired
with their requests, into normalised ``UsageRecord``s; ``group`` sorts them
per prompt (an explicit route, or the prompt template a request matches);
``summary`` gives each group's real cached-token rate and the money lost
against what the audit predicts, priced from the provider table.

Plain Python: no torch, nothing from ``promptlint.verify``; usable without the
``verify`` extra.
"""
