from fastapi import Depends, FastAPI
from openai import OpenAI

app = FastAPI()
client = OpenAI()


def house_style():
    return "plain"


@app.post("/headline")
def headline(story: str, style: str = Depends(house_style)):
    system = (f"You write headlines in the {style} house style for a regional newspaper. "
              "Keep every headline under twelve words, use the present tense and active verbs, "
              "never use a question as a headline, never put a name in the headline unless the "
              "person is widely known, and avoid puns on tragedies. Respond with three options, "
              "one per line, best first, with no numbering and no quotation marks.")
    messages = [{"role": "system", "content": system}, {"role": "user", "content": story}]
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
