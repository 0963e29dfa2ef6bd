"""A LangChain template made from the prompts module's text, run with the conversation's last turns."""
from langchain_core.prompts import PromptTemplate

from .prompts import ESCALATION_TEMPLATE


def needs_human(llm, conversation):
    chain = PromptTemplate.from_template(ESCALATION_TEMPLATE) | llm
    return chain.invoke({"excerpt": conversation[-4:]})
