"""A tool-calling loop that rewrites its system message on every pass, ahead of the run's messages."""
import litellm

SYSTEM = (
    "You are an assistant that solves tasks step by step with the functions you are given. Explain your "
    "reasoning, use a function only when it helps, never repeat a call with the same arguments, and give the "
    "final answer after 'Answer:'. Here are the calls you have made so far: {calls}"
)


def run(task: str, tools: list, execute) -> str:
    calls: list[str] = []
    messages = [{"role": "system", "content": SYSTEM.replace("{calls}", "None")}, {"role": "user", "content": task}]
    for _ in range(5):
        messages[0]["content"] = SYSTEM.replace("{calls}", "; ".join(calls) or "None")
        reply = litellm.completion(model="gpt-4o", messages=messages, tools=tools)["choices"][0]["message"]
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            result = execute(call)
            calls.append(f"{call['function']['name']} -> {result}")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return "Stopped after five passes."
