"""Contextual retrieval: a chunk's surrounding window and the chunk itself come
before the fixed summarisation request, put together from prompt constants in
a local variable and sent through the app's own client."""

SYSTEM_PROMPT = "You are an expert at placing a document's sections in their local context."

WINDOW_TEMPLATE = """<window>
{window_text}
</window>"""

CHUNK_TEMPLATE = """<chunk>
{chunk_text}
</chunk>

Using only the window above, write two to four sentences that place this chunk in its
surroundings: its topic, how it relates to the text before and after it, and the names
it refers to. Reply with those sentences only, without a preamble or a heading."""


class Enricher:
    def summary(self, window_text, chunk_text):
        body = f"{WINDOW_TEMPLATE.format(window_text=window_text)}\n\n{CHUNK_TEMPLATE.format(chunk_text=chunk_text)}"
        full_prompt = f"{SYSTEM_PROMPT}\n\n{body}"
        return self.client.generate(self.model, full_prompt)
