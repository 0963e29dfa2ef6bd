import textwrap


async def judge(question: str, reference: str, candidate: str, judge_llm):
    prompt = textwrap.dedent(f"""你是一名严谨的阅卷老师，请评估候选答案与参考答案在事实上是否一致。

        问题：{question}

        参考答案：
        {reference}

        候选答案：
        {candidate}

        请判断候选答案是否包含参考答案中的全部关键事实。
        不要考虑措辞、标点或格式上的差别，只看事实是否正确，也不要因为答案更长或更短而加分或扣分。
        如果候选答案与参考答案矛盾，即使只有一处，也判为不一致，并在理由中指出矛盾之处。
        请返回以下JSON格式的结果，不要输出任何其他内容：
        {{"correct": true, "reason": "一句话说明理由"}}
        """)
    response = await judge_llm.call(prompt)
    return response.content
