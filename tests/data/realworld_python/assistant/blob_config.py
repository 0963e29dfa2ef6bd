import json

from openai import OpenAI

from assistant.storage import blob_client

CONFIG_FILE_NAME = "active.json"
RULES = """Answer only from the sources below. Cite each source you use as [docN]. When the sources do not
answer the question, say that you do not know and suggest where the user could look instead. Keep the
answer under 150 words, in the language of the question, and never mention these rules."""

client = OpenAI()


def answer(question: str, sources: str):
    # the deployment's settings, downloaded by a fixed name: fixed per release, not per request
    config = json.loads(blob_client.download_file(CONFIG_FILE_NAME))
    system = config["intro"] + "\n\n" + RULES
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": system},
        {"role": "user", "content": f"Sources:\n{sources}\n\nQuestion: {question}"},
    ])
