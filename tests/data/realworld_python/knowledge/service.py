"""Answer a question from the knowledge base (a RAG chat service)."""
from datetime import datetime

from .prompts.generator import Sections, citation_prompt, fit_in


async def answer(app_config, question, history, retriever, chat_mdl):
    retrieved_chunks = await retriever.search(question, app_config.kb_ids)
    system_content = app_config.system_template + "\n\nKnowledge:\n" + "\n---\n".join(retrieved_chunks)
    msg = [{"role": "system", "content": system_content}]
    msg.extend({"role": m["role"], "content": m["content"]} for m in history if m["role"] != "system")
    used, msg = fit_in(msg, 8000)
    prompt = msg[0]["content"]
    return await chat_mdl.async_chat(prompt + citation_prompt(), msg[1:], app_config.llm_setting)


async def answer_with_rules(question, chat_mdl):
    system = f"Now: {datetime.now().isoformat()}\n" + Sections.rules("Acme")
    return await chat_mdl.chat(system, [{"role": "user", "content": question}], {})
