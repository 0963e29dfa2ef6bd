"""Prompts of the graph pipeline, by name."""

PROMPTS = {}

PROMPTS["community_summary"] = """You write a report about one community of a knowledge graph.

# Data
{input_text}

# Report
Write a title naming the community's main entities, a summary of how they relate, an impact
rating from 0 to 10 with one sentence explaining it, and five findings, each with a short
headline and a paragraph grounded in the data above. Return JSON with the keys title, summary,
rating, rating_reason and findings. Do not invent entities that are not in the data.
"""

PROMPTS["keywords"] = """Extract the keywords of the text below as a JSON list, most important first.
Keep names as they are written, drop stop words and never return more than ten keywords.
Text: {text}
"""

PROMPTS["separator"] = "<SEP>"
