# a Jinja template kept as a constant: what the knowledge-graph search found for the question
# opens it, ahead of the fixed task and rules
CLARIFYING_QUESTION_PROMPT = """\
The prerequisite questions and the knowledge found for the user's main question:

{{graph_knowledges}}

---------------------
Task:
Given the conversation between the user and the assistant, the user's follow-up question and the
knowledge above, decide whether the follow-up question is clear enough to answer. When it is not,
write one clarifying question that asks for exactly the missing detail, in the user's language.

Rules:
- Never answer the question itself here.
- Ask at most one question, under twenty words, without any preamble.
- When the question is clear, reply with the single word False and nothing else.

Follow-up question: {{question}}
"""
