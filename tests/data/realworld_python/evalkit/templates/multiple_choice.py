# Multiple-choice question template: the question and choices are substituted first.
MULTIPLE_CHOICE = """
## Question:

{question}

## Choices:

{choices}

## Instruction

Please answer this question by first reasoning and then selecting the correct choice.
Present your reasoning and solution in the following JSON format, and show your choice
in the `answer` field with only the choice letter, for example `"answer": "C"`.
Do not add any text before or after the JSON object, and keep the reasoning under
two hundred words. If two choices look equally right, explain why you picked one.

```json
{"reasoning": "___", "answer": "___"}
```
"""
