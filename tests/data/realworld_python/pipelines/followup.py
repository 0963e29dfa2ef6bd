"""The last turns of the chat (a sliding window) sent ahead of a fixed
instruction whose template is filled with .populate(): the window changes
every turn, so the instruction behind it is never reused."""
from kotaemon.base import AIMessage, HumanMessage
from kotaemon.llms import PromptTemplate


class SuggestFollowups:
    prompt_template = (
        "Based on the chat history above, your task is to write three to five short follow-up questions "
        "that guide the conversation further. Respond in JSON format with a 'questions' key holding a list "
        "of strings. Do not repeat a question the user already asked, keep each question under fifteen "
        "words, and answer using the language {lang}, the same as the question."
    )
    lang: str = "English"

    def run(self, chat_history):
        prompt = PromptTemplate(self.prompt_template).populate(lang=self.lang)
        messages = []
        for human, ai in chat_history[-3:]:
            messages.append(HumanMessage(content=human))
            messages.append(AIMessage(content=ai))
        messages.append(HumanMessage(content=prompt))
        return self.llm(messages)
