from kotaemon.base import AIMessage, HumanMessage

INSTRUCTION = ("From the conversation above, write three to five short follow-up questions the user "
               "could ask next. Make each question specific to what was discussed, no longer than "
               "twelve words, and different from the questions already asked. Reply with JSON: "
               '{"questions": ["...", "..."]} and nothing else, in the language of the conversation.')


class SuggestFollowups:
    def run(self, chat_history):
        messages = []
        for human, ai in chat_history[-3:]:
            messages.append(HumanMessage(content=human))
            messages.append(AIMessage(content=ai))
        messages.append(HumanMessage(content=INSTRUCTION))
        return self.llm(messages)
