import uuid

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

EXAMPLES = [
    {"text": "Alice joined Acme in 2019 as an engineer.", "output": {"person": "Alice", "company": "Acme"}},
    {"text": "Bob left Initech in 2021 after ten years.", "output": {"person": "Bob", "company": "Initech"}},
]


def few_shot_messages():
    messages = []
    for example in EXAMPLES:
        call_id = uuid.uuid4().hex
        messages += [
            HumanMessage(content=example["text"]),
            AIMessage(content="", tool_calls=[{"name": "extract", "args": example["output"], "id": call_id}]),
            ToolMessage(content="You have correctly called this tool. Continue with the next text exactly as before, "
                                "keeping the same fields and leaving out anything the text does not state. Use the "
                                "names exactly as they are written, never guess a company from an email address, and "
                                "return an empty list when the text mentions no person at all. Dates stay as written, "
                                "without converting them to another calendar or format.",
                        tool_call_id=call_id),
        ]
    return messages
