"""A pydantic-ai agent whose instructions are computed for each run: fixed
rules, then the chunks retrieved for the current query. pydantic-ai sends
the instructions first and the run's message history after them, so the
chunks throw the history's cache away on every turn. A plain
`@agent.system_prompt` runs only when a conversation starts (its text is
kept in the history), so a clock in it is fixed for the conversation."""
from dataclasses import dataclass, field
from datetime import datetime

from pydantic_ai import Agent, RunContext


@dataclass
class RagState:
    retrieved_chunks: list = field(default_factory=list)


rag_agent = Agent("openai:gpt-4o", deps_type=RagState)


@rag_agent.system_prompt
def house_rules() -> str:
    return ("You answer questions about the museum's collection. Be brief, cite the catalogue number of every "
            "object you mention, and say so plainly when the catalogue does not cover a question.")


@rag_agent.system_prompt
def session_start() -> str:
    return f"The conversation started at {datetime.now().isoformat()}. The visitor is on the museum's website."


@rag_agent.instructions
async def rag_instructions(ctx: RunContext[RagState]) -> str:
    text = ("You are a retrieval assistant for the museum's catalogue. Always search the knowledge base before "
            "you answer, base every answer on the retrieved chunks, and never invent an object or a date.\n\n"
            "RETRIEVED INFORMATION:\n")
    for chunk in ctx.deps.retrieved_chunks[:5]:
        text += f"- {chunk.title}: {chunk.content[:200]}\n"
    return text
