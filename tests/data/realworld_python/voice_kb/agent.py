"""A voice agent's knowledge-base step: the conversation the caller hands in
keeps its first (system) message, the chunks retrieved for this turn go at
the end of it, and the rest of the conversation follows."""
from openai import AsyncOpenAI

client = AsyncOpenAI()


class KnowledgeAgent:
    def __init__(self, retriever, config):
        self.retriever = retriever
        self.config = config

    async def with_context(self, messages):
        chunks = await self.retriever.search(messages[-1]["content"])
        context = "\n\n".join(chunk.text for chunk in chunks)
        if messages and messages[0].get("role") == "system":
            system_prompt = messages[0]["content"]
            rest = messages[1:]
        else:
            system_prompt = self.config.get("prompt", "You are a helpful phone assistant.")
            rest = messages
        enhanced = f"""{system_prompt}

You have access to relevant information from the knowledge base:

{context}

Use this information naturally when it helps answer the caller."""
        return [{"role": "system", "content": enhanced}] + rest

    async def generate(self, message):
        final = await self.with_context(message)
        return await client.chat.completions.create(model="gpt-4o-mini", messages=final)
