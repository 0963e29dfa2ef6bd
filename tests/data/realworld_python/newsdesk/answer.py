from langchain_core.prompts import PromptTemplate
from openai import OpenAI

from .prompts import NEWS_SYSTEM

client = OpenAI()


def answer(question, contexts, stamp):
    system = PromptTemplate(input_variables=["stamp"], template=NEWS_SYSTEM)
    messages = [
        {"role": "system", "content": system.format(stamp=stamp)},
        {"role": "user", "content": question + "\n\nContexts:\n" + contexts},
    ]
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
