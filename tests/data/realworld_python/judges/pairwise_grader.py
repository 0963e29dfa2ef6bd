"""A grader's template filled from a sample's metadata, with fallbacks and a
choice of which answer goes first: each value is read, not computed, so it is
reported at the field it fills."""

GRADER_TEMPLATE = """Decide whether the [answer] to the [question] is right, judged only against the [reference].

[question]: {question}

[answer]: {answer}

[reference]: {reference}

Reply in exactly this format and say nothing else:
verdict: yes or no, whether the answer says what the reference says
reason: one sentence naming the fact the answer gets right or wrong
confidence: a whole number from 0 to 100 saying how sure you are of the verdict
Judge the content only: spelling, tone, length and formatting never change the verdict.
When the reference gives a range or several acceptable forms, any of them counts as right.
When the answer hedges between a right and a wrong claim, the verdict is no."""


def grading_request(sample, graded, reference_first: bool):
    meta = sample.metadata or {}
    prompt = GRADER_TEMPLATE.format(
        question=meta.get("question") or sample.input_text,
        answer=graded.prediction if reference_first else graded.reference,
        reference=(sample.metadata or {}).get("reference", ""),
    )
    return [{"role": "user", "content": prompt}]
