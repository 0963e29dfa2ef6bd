"""A hook that prepends a message to the conversation it is handed: the
request's retrieved notes come first, ahead of the app's own system prompt
and the history."""


def inject_notes(query, retrieved_docs: list[str]):
    if not retrieved_docs:
        return query
    block = "Notes retrieved for this request:\n" + "\n".join(retrieved_docs)
    query.messages = [{"role": "system", "content": block}] + query.messages
    return query
