"""A grader template with <<markers>> replaced by str.replace: the
conversation, passed through by name, enters at its marker near the top."""

GRADER_TEMPLATE = """Your job is to look at a conversation and a rubric item, and score the last turn.

# Conversation
<<conversation>>

# Rubric item
<<rubric_item>>

# Instructions
Return a JSON object with "explanation" (a short string) and "criteria_met" (a boolean).
Judge only the last turn, and only against this rubric item. A partially met item is not met.
If the item is a negative one (something the response should not do), criteria_met is true
when the response does the bad thing. Do not add any text outside the JSON object."""


def grade(grader, conversation, rubric_item):
    convo_str = "\n\n".join(f"{m['role']}: {m['content']}" for m in conversation)
    prompt = GRADER_TEMPLATE.replace("<<conversation>>", convo_str).replace("<<rubric_item>>", str(rubric_item))
    return grader([{"role": "user", "content": prompt}])
