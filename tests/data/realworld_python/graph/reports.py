from graph.prompts import PROMPTS


async def summarise(community, config):
    use_llm_func = config["best_model_func"]
    template = PROMPTS["community_summary"]
    tables = "\n".join(row["text"] for row in community["rows"])
    prompt = template.format(input_text=tables)
    return await use_llm_func(prompt)
