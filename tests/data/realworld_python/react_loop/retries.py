from openai import OpenAI

client = OpenAI()


def answer(question: str, retries: int = 3):
    prompt = (f"Question: {question}\n\n"
              "You are a careful analyst. Answer the question above using only the attached report. "
              "Cite the page for every figure you use, never round numbers, and say so when the report "
              "does not contain the answer. Respond in JSON with the keys answer, pages and confidence, "
              "where confidence is one of low, medium or high. Do not add any text outside the JSON object, "
              "and do not include markdown fences or comments in your response.")
    for _ in range(retries):
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
        if reply.choices:
            return reply
