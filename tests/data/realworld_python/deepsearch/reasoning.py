import time

from deepsearch.llm import ask_llm
from deepsearch.prompts import get_prompt


async def judge(query: str, content: str):
    # the step's prompt comes from prompt/search.yaml by name; the time, to the second, fills
    # its context block, ahead of the fixed judging steps
    prompt = get_prompt("search")["judge_prompt"]
    filled = prompt.format(
        query=query,
        content=content,
        date=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime()),
    )
    return await ask_llm(messages=filled, model="gpt-4.1")
