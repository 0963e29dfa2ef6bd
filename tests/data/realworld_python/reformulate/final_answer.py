"""The final answer request: the transcript copied in (or, when that fails, added whole with +=), then the
question again ahead of fixed answer rules."""
from openai import OpenAI

client = OpenAI()
RULES = ("Output a FINAL ANSWER to the question with the template FINAL ANSWER: [ANSWER]. Use digits for numbers, "
         "no units unless asked, no articles in strings, a comma separated list for lists, and say 'Unable to "
         "determine' when the transcript does not settle it. Follow the formatting the question asks for.")


def reformulate(task: str, transcript: list) -> str:
    messages = [{"role": "system", "content": "You summarise a team's work."}]
    try:
        for message in transcript:
            messages.append({"role": "user", "content": message["content"]})
    except Exception:
        messages += [{"role": "assistant", "content": str(transcript)}]
    messages.append({"role": "user", "content": f"The question was:\n\n{task}\n\n{RULES}"})
    return client.chat.completions.create(model="gpt-4o", messages=messages)
