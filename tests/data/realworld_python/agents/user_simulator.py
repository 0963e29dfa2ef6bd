"""A simulated user's system prompt: the task's instruction, chosen by a
conditional into a short labelled value, enters at the f-string field."""

from litellm import completion


def simulator_prompt(instruction: str | None) -> str:
    shown = ("\n\nInstruction: " + instruction + "\n") if instruction is not None else ""
    return f"""You play a customer talking to a support agent.{shown}
Rules:
- Write one short line at a time, as a person typing into a chat box would.
- Reveal what the instruction says only when the agent needs it for the current step.
- Never invent details the instruction does not give: say you do not know them instead.
- When the goal of the instruction is reached, reply with ###DONE### and nothing else.
- Use your own words; never repeat the instruction verbatim.
- Stay in character even when the agent makes mistakes or asks odd questions."""


def next_user_turn(instruction, history):
    return completion(model="gpt-4o", messages=[{"role": "system", "content": simulator_prompt(instruction)},
                                                *history])
