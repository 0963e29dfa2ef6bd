"""A prompt constant filled inside a nested helper and sent through a call
we do not read (a structured-output runnable): the filled local `prompt` is
the prompt, its first value ahead of the fixed instructions."""
from langchain_openai import ChatOpenAI

reflection_prompt = """You help an AI agent improve by rewriting its system prompt.
This is its current prompt:
<current_prompt>
{current_prompt}
</current_prompt>

Here is what the user said about its last answer:
<feedback>
{feedback}
</feedback>

Return the whole updated prompt. Keep every instruction that still applies, remove the ones the feedback
contradicts, and add only what the feedback asks for. Do not add examples, do not change the agent's name,
and do not mention the feedback itself. If nothing needs to change, return update_prompt = False and an
empty new prompt."""


async def update_prompt(state, store):
    model = ChatOpenAI(model="o1")
    stored = await store.aget(("prompts",), state["prompt_key"])

    async def rewrite(current_prompt, feedback):
        prompt = reflection_prompt.format(current_prompt=current_prompt, feedback=feedback)
        return await model.with_structured_output(dict, method="json_schema").ainvoke(prompt)

    return await rewrite(stored.value["data"], state["feedback"])
