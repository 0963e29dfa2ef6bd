def gen_prompt(question, results, limit=9000):
    contexts = [r.get("content") for r in results]
    if contexts:
        prompt = """You are a research assistant. You answer the user's question from the numbered search
results below and cite each one you use as [n] after the sentence that uses it.
Here are the search results:
"""
        n = 1
        for text in contexts:
            prompt = prompt + "\n[{}] ".format(n) + text
            n += 1
        if len(prompt) >= limit:
            prompt = prompt[0:limit]
        prompt = prompt + """
Above are the search results. Do not copy them word for word. Structure a long answer in short
paragraphs, cite every result you use with its number, and say so when the results do not hold
the answer instead of guessing. Never cite a result for a claim it does not make.
Question: """ + question
    else:
        prompt = question
    return prompt
