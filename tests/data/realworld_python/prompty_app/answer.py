"""Answers through a Prompty file whose loop runs over the entries found for the question: the entries
enter the prompt at the argument that passes them (the template is another file)."""
import prompty

from catalogue import search


def answer(question: str) -> str:
    entries = search(question)
    return prompty.execute(
        "answer.prompty",
        inputs={"question": question, "documentation": entries},
    )
