"""An assistant step that adds what the search found for the question to
the system message of the conversation it is handed (the history follows)."""

import copy

from .locale import SNIPPET, WRAPPER

CONTENT = "content"


def add_knowledge(messages, search, lang="en"):
    messages = copy.deepcopy(messages)
    found = search(messages[-1][CONTENT])
    snippets = []
    for hit in found:
        snippets.append(SNIPPET[lang].format(source=hit["source"], content=hit["content"]))
    if snippets:
        messages[0][CONTENT] += "\n\n" + WRAPPER[lang].format(knowledge="\n\n".join(snippets))
    return messages
