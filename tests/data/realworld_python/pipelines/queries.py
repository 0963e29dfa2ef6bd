"""A graph node: the configured system prompt, filled when the template is
invoked, then the conversation; the clock sits ahead of the whole history."""
from datetime import datetime, timezone

from langchain_core.prompts import ChatPromptTemplate
from langchain.chat_models import init_chat_model

from pipelines.configuration import Configuration


async def generate_query(state, *, config):
    configuration = Configuration.from_runnable_config(config)
    prompt = ChatPromptTemplate.from_messages(
        [("system", configuration.query_system_prompt), ("placeholder", "{messages}")]
    )
    model = init_chat_model(configuration.query_model)
    message_value = await prompt.ainvoke(
        {
            "messages": state.messages,
            "queries": "\n- ".join(state.queries),
            "system_time": datetime.now(tz=timezone.utc).isoformat(),
        },
        config,
    )
    return {"queries": [await model.ainvoke(message_value, config)]}
