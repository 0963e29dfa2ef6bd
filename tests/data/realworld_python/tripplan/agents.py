from google.adk.agents import LlmAgent, SequentialAgent

from tripplan import prompts

drafter = LlmAgent(
    name="drafter",
    model="gemini-2.5-flash",
    instruction=prompts.DRAFT_INSTRUCTION,
    output_key="trip_outline",
)

editor = LlmAgent(
    name="editor",
    model="gemini-2.5-flash",
    instruction=prompts.POLISH_INSTRUCTION,
)

root_agent = SequentialAgent(name="trip", sub_agents=[drafter, editor])
