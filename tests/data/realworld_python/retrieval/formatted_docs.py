"""Retrieved documents formatted by a helper (a list filled in a loop and
joined) and passed to a chain by name: they enter the prompt at the input
that passes them, ahead of the fixed answer rules."""
from langchain_core.prompts import ChatPromptTemplate

QA_SYSTEM = """Answer from the documents below.

{context}

Rules: cite each document you use as [n]; say so when the documents do not answer the
question; never use knowledge from outside the documents; keep the answer under
150 words; answer in the language of the question; end with a list of the sources,
one per line, with the title and the date of each. When two documents disagree, say so
and give both readings with their sources instead of choosing one of them."""


def format_documents(documents):
    formatted = list()
    for doc in documents:
        formatted.append(f"Document start\n{doc.page_content}\nDocument end\n")
    return "\n\n".join(formatted), len(formatted)


def answer(llm, question, documents):
    formatted_docs, count = format_documents(documents)
    chain = ChatPromptTemplate.from_messages([("system", QA_SYSTEM), ("human", "{input}")]) | llm
    return chain.invoke({
        "context": formatted_docs,
        "input": question,
    })
