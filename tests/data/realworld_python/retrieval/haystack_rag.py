"""A Haystack RAG pipeline: the retrieved documents open the prompt the builder renders."""
from haystack import Pipeline
from haystack.components.builders import ChatPromptBuilder, PromptBuilder
from haystack.dataclasses import ChatMessage

template = """Documents:
{% for doc in documents %}
{{ doc.content }}
{% endfor %}

Answer the question using only the documents above. Quote the sentence that supports each claim,
say "I don't know" when the documents do not answer it, and never use outside knowledge. Keep the
answer under 150 words, in the language of the question, with no preamble and no closing remarks.

Question: {{ question }}
Answer:"""

rag = Pipeline()
rag.add_component("prompt_builder", PromptBuilder(template=template))

chat_template = [
    ChatMessage.from_system("""You help {{ user_name }} plan meals for the week. Suggest recipes that fit
the household's diet and budget, list the ingredients to buy grouped by shop aisle, reuse leftovers
across days, and keep every recipe under 45 minutes. Ask before suggesting anything with nuts, and
give quantities in metric units unless the user asks otherwise."""),
    ChatMessage.from_user("{{ request }}"),
]
planner = ChatPromptBuilder(template=chat_template)
