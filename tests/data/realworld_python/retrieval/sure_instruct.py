"""Templates written into local variables named `*_INSTRUCT` in a method and
filled later: the retrieved references open the summarisation prompt."""

from openai import OpenAI

client = OpenAI()


class SummarisePipeline:
    def summarise(self, question: str, prediction: str, passages: list[str]) -> str:
        SUMMARY_INSTRUCT = (
            "Reference:\n{reference}\n"
            "Your job is to act as a professional writer. Write a good-quality passage that "
            "supports the given prediction about the question, using only the supporting passages.\n"
            "When you are done, write [DONE]. Do not start with a prefix such as 'Response:'.\n"
            "Keep to facts the passages state; never add outside knowledge or guesses.\n"
            "Question: {question}\n"
            "Prediction: {prediction}\n"
            "Passage:"
        )
        text = SUMMARY_INSTRUCT.format(reference="\n".join(passages), question=question, prediction=prediction)
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content
