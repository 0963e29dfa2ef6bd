"""A project helper given the prompt by keyword: the user text as `msg=`
beside `system_message=` (the shape of AI-Scientist's get_response_from_llm)."""

from tools.llm import get_response_from_llm

SYSTEM = """You are a careful researcher collecting citations for a paper draft.
Only add papers you have found through the search tool, never from memory, and keep the list free of duplicates."""


def citation_round(client, model, paper_text: str, citations: str, history):
    round_template = """Current draft:
{paper_text}

Citations so far:
{citations}

Name the single most important citation still missing and the search query that finds it.
Answer with a short THOUGHT paragraph, then a JSON object with the keys "Description" and "Query".
The description says why the paper matters and where the draft should cite it.
If nothing is missing, write "No more citations needed" in the thought and return an empty JSON object.
Never propose a paper that is already in the list, even under a different title or with a different year."""
    return get_response_from_llm(
        msg=round_template.format(paper_text=paper_text, citations=citations),
        client=client,
        model=model,
        system_message=SYSTEM,
        msg_history=history,
    )
