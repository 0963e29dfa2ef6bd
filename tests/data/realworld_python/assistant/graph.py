"""A LangGraph-style node: the system prompt's keyword value is a clock."""
from datetime import UTC, datetime

from langchain_openai import ChatOpenAI

SYSTEM_PROMPT = """You are a research assistant for a small newsroom.
System time: {system_time}
Check every claim against at least two independent sources before you repeat it, say
plainly when a source is a press release, and keep quotes word for word. Give the date of
every source you cite. If the sources disagree, set out both positions and do not pick one.
Finish with a short list of what is still unverified."""


def call_model(state):
    model = ChatOpenAI(model="gpt-4o-mini")
    system = SYSTEM_PROMPT.format(system_time=datetime.now(tz=UTC).isoformat())
    return model.invoke([{"role": "system", "content": system}, *state["messages"]])
