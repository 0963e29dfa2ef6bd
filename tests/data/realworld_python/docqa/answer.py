import time

from docqa.settings import BRIEF, RULES, SYSTEM, TEMPLATE


class HandbookQA:
    def fill(self, question, passages, template):
        text = "\n".join(p.text for p in passages)
        return template.replace("{{passages}}", text).replace("{{question}}", question)

    async def answer(self, question, passages, llm, extra):
        today = time.strftime("%Y-%m-%d")
        now = time.strftime("%H:%M:%S")
        if passages:
            if extra:
                template = BRIEF.replace("{{extra}}", extra)
            else:
                system = SYSTEM.replace("{{today}}", today).replace("{{now}}", now)
                template = TEMPLATE.replace("{{system}}", system).replace("{{rules}}", RULES)
        else:
            template = BRIEF.replace("{{extra}}", "")
        prompt = self.fill(question, passages, template)
        async for chunk in llm.stream_answer(prompt=prompt):
            prompt = chunk.prompt
            yield chunk
