"""A retrieval graph node: the documents the last message brought are
formatted into the system message, and the conversation follows it."""
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

RESPONSE_TEMPLATE = """{instructions}

Answer the member using only the context below. Quote the policy number of every rule you rely on,
say plainly when the context does not cover the question, and never guess an amount or a date.

{context}"""


def build_messages(messages, instructions: str):
    chat_history = []
    for m in messages:
        if isinstance(m, (AIMessage, HumanMessage)):
            chat_history.append(m)
    documents = messages[-1].content
    content = "\n".join(d["page_content"] for d in documents)
    return [
        SystemMessage(content=RESPONSE_TEMPLATE.format(instructions=instructions, context=content))
    ] + chat_history
