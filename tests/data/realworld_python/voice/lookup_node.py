"""A voice agent's model step that adds passages found for the latest
utterance to the first (system) message of the chat context on every turn."""

from openai import OpenAI


class LookupAgent:
    def __init__(self, index):
        self.index = index
        self.client = OpenAI()

    async def model_node(self, chat_ctx, tools):
        question = chat_ctx.items[-1].text_content
        passages = await self.index.retrieve(question)
        extra = "Passages that may help with the caller's question:"
        for passage in passages:
            body = passage.get_content()
            extra += f"\n\n{body}"
        first = chat_ctx.items[0]
        first.content.append(extra)
        return await self.respond(chat_ctx, tools)

    async def respond(self, chat_ctx, tools):
        return chat_ctx


def with_sources(messages, search, question):
    """The text-chat variant: found sources added to the system message's text."""
    sources = search(question)
    messages[0]["content"] += f"\n\nSources:\n{sources}"
    return messages
