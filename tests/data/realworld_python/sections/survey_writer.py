"""A LangChain PromptTemplate made in the function and filled there, sent by a helper of the app."""
from langchain.prompts import PromptTemplate

from .llm import get_responses


def write_section(paper: dict, section: str) -> str:
    title = paper["title"]
    instruction = "Discuss the main related fields, the key works of each and how they compare."
    template = PromptTemplate(
        input_variables=["title", "instruction", "section"],
        template="Write the {section} section of the paper titled '{title}'.\n"
        "Follow these instructions:\n{instruction}\n"
        "Cite every claim with \\citep, never cite the same work twice in a paragraph, keep each paragraph "
        "under 150 words, use \\paragraph for each field rather than \\subsection, and make sure the result "
        "compiles with LaTeX without any package beyond amsmath, natbib and graphicx.",
    )
    prompts = template.format(title=title, instruction=instruction, section=section)
    return get_responses("You write academic papers in LaTeX.", prompts)
