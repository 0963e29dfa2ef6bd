"""A chat whose system message joins the pages crawled this session."""
from openai import OpenAI

client = OpenAI()


def reply(session: dict, question: str) -> str:
    appendices = [
        f'<appendix ref="{ref}">\n{page["content"]}\n</appendix>'
        for ref, page in session["pages"].items()
    ]
    system = "\n\n".join(appendices) + (
        "\n\nYou are a research assistant. Answer only from the appendices above, cite each claim with "
        "the REF number in square brackets, say so plainly when the appendices do not answer the "
        "question, never cite a page that was not given, and end with a references section listing "
        "every URL you cited with its REF number, one per line, in the order first cited."
    )
    answer = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
    return answer.choices[0].message.content
