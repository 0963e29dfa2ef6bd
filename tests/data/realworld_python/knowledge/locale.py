"""Texts per interface language."""

SNIPPET = {"en": "## From {source}\n{content}", "de": "## Aus {source}\n{content}"}
WRAPPER = {"en": "# Knowledge\n\nAnswer from these excerpts:\n\n{knowledge}",
           "de": "# Wissen\n\nAntworte anhand dieser Auszüge:\n\n{knowledge}"}
