from datetime import UTC, datetime

SYSTEM_PROMPT = """You are a helpful research assistant.

System time: {system_time}"""


async def call_model(state, model):
    system_message = SYSTEM_PROMPT.format(system_time=datetime.now(tz=UTC).isoformat())
    return await model.ainvoke([{"role": "system", "content": system_message}, *state.messages])
