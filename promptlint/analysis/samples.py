"""Sample values for slots, so a template can be rendered without user data.

Differential tokenization renders a prompt twice: variant 0 everywhere, and
variant 1 for the slots that vary at a scope. The values are realistic for
the slot's kind (a timestamp looks like a timestamp, so the tokens it shares
with the next request's timestamp are shared here too) and deterministic, so
every run and every test sees the same renders. Known samples from front
matter or config come first.
"""

from __future__ import annotations

import re

from promptlint.ir import Slot

_KINDS: list[tuple[re.Pattern, list[str]]] = [
    (re.compile(r"uuid|nonce|salt|random|(^|_)(request|req|trace|span|correlation|call|run|event|msg|message)_?id$"),
     ["3f9c2a1e-7b4d-4e2a-9c1f-0a8b6d5e4f21", "b71e0d94-25c3-4f8a-8e6b-93d2c7a1f054",
      "5ad0e3c7-98b1-4c6f-a2d4-7e1b0f9c3a68", "e2c4b6a8-0d1f-4e3a-b5c7-9f8e7d6c5b4a"]),
    (re.compile(r"(^|_)(date_?time|timestamp|time|ts|now|clock)$|^now|_at$|current_time"),
     ["2026-11-29T11:03:51Z", "2026-11-29T14:27:08Z", "2026-11-29T16:45:33Z", "2026-11-29T18:02:17Z"]),
    (re.compile(r"date|day|today"),
     ["2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02"]),
    (re.compile(r"(^|_)(session|thread|chat|conversation)_?id$|(^|_)id$"),
     ["sess_8f2k1m9q", "sess_4xv7n2pd", "sess_k3j9w0cz", "sess_q5t8r1yb"]),
    (re.compile(r"history|conversation|transcript|dialog|messages"),
     ["user: My order #4417 has not arrived yet.\nassistant: I'm sorry to hear that. Let me check the tracking for order #4417.",
      "user: Can I change the shipping address on my subscription?\nassistant: Yes, you can update it under Account > Shipping.",
      "user: The app logs me out every few minutes.\nassistant: Let's clear the session cache and sign in again.",
      "user: Do you ship to Norway?\nassistant: We ship to Norway with a 5-7 day delivery window."]),
    (re.compile(r"memory|memories|notes|scratchpad|summary|plan|state"),
     ["Prefers short answers. Uses the Pro plan since March. Last issue: billing address change.",
      "Works in logistics; asked about API rate limits twice; timezone Europe/Berlin.",
      "New customer; interested in the annual plan; asked for invoices in PDF.",
      "Reported a bug in CSV export; on Windows 11; wants email follow-up."]),
    (re.compile(r"(first|last|full|display|preferred|user|customer|client|member|caller|patient|student)_?name$|^name$|^username$"),
     ["Alice Johnson", "Rahul Mehta", "Sofia Rossi", "Kenji Tanaka"]),
    (re.compile(r"email"), ["alice.johnson@example.com", "rahul.mehta@example.org",
                            "sofia.rossi@example.net", "kenji.tanaka@example.com"]),
    (re.compile(r"tier|plan|subscription|level"), ["Gold", "Free", "Business", "Starter"]),
    (re.compile(r"locale|lang|language"), ["en-US", "de-DE", "fr-FR", "ja-JP"]),
    (re.compile(r"question|query|input|ask|utterance|request|message|msg|prompt"),
     ["How do I reset my password if I no longer have access to my email?",
      "Can I get a refund for an annual plan I bought last week?",
      "Why does the export to CSV drop the last column?",
      "What is the difference between the Pro and Business plans?"]),
    (re.compile(r"doc|context|chunk|passage|snippet|result|retrieved|source|article|page|content|text|body"),
     ["Refunds: annual plans can be refunded in full within 14 days of purchase. After 14 days, "
      "a prorated refund is issued for unused full months.",
      "Password reset: if you cannot access your email, contact support with your account ID and "
      "the last four digits of the card on file to verify ownership.",
      "CSV export: exports include every visible column; hidden columns are skipped. Use 'Show all "
      "columns' before exporting to include them.",
      "Plans: Business adds SSO, audit logs and a 99.9% uptime SLA to everything in Pro."]),
    (re.compile(r"remaining|left|count|counter|budget|turn|step|number|num"), ["4096", "3712", "2950", "1288"]),
    (re.compile(r"version|release|build"), ["3.14.2", "3.15.0", "3.15.1", "4.0.0"]),
]
_WORDS = ["Northwind", "Quartz", "Meridian", "Cobalt", "Juniper", "Halcyon", "Saffron", "Tundra"]


def _key(slot: Slot) -> str:
    if slot.names:
        return slot.names[0].replace(".", "_").lower()
    return re.sub(r"[^a-z0-9_]+", "_", slot.label.lower())


def generated(key: str, index: int) -> str:
    """The index-th generated sample for an input name."""
    for pattern, values in _KINDS:
        if pattern.search(key):
            return values[index % len(values)]
    return _WORDS[index % len(_WORDS)]


def sample_value(slot: Slot, variant: int, item: int = 0) -> str:
    """Text a slot renders to in a given variant (0 or 1) and loop item.

    Variants differ from each other for every slot; items of a loop differ
    from each other so a reordering shows up in the render."""
    index = variant * 2 + item  # variants and items never collide for item < 2
    if slot.samples:
        if index < len(slot.samples):
            return slot.samples[index]
        fallback = generated(_key(slot), index)
        if fallback in slot.samples:
            fallback = generated(_key(slot), index + 1)
        return fallback
    return generated(_key(slot), index)
