"""A dialog whose system prompt each app configures (text we cannot read),
filled with the retrieved knowledge through **kwargs."""
from .prompts.generator import citation_prompt, fit_in


async def chat(dialog, question, history, retriever, chat_mdl, **kwargs):
    chunks = await retriever.search(question, dialog.kb_ids)
    kwargs["knowledge"] = "\n------\n".join(chunks)
    system_content = dialog.prompt_config["system"].format(**kwargs)
    msg = [{"role": "system", "content": system_content}]
    msg.extend({"role": m["role"], "content": m["content"]} for m in history if m["role"] != "system")
    used, msg = fit_in(msg, 8000)
    prompt = msg[0]["content"]
    return await chat_mdl.async_chat(prompt + citation_prompt(), msg[1:], dialog.llm_setting)
