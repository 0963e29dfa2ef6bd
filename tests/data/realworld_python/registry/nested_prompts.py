"""Prompts kept in one dict, grouped by stage, each read by key where it is
used (`prompt["execute"]["_USER_CODE_PROMPT"].format(...)`), and a table of
task templates named for what it maps."""

prompt = {
    "execute": {
        "_SYSTEM_CODE_PROMPT": """You are a careful coding assistant. You write one
        Python function that solves the task you are given, with type hints and a
        docstring, and nothing else.""",
        "_USER_CODE_PROMPT": """Task name: {task_name}
        Task description: {task_description}
        Notes on the task:
        1. The working directory is where every relative path in the task points.
        2. Reuse the results of the tasks this one depends on instead of recomputing them.
        3. Do not install packages and do not read files outside the working directory.
        Reply with one fenced Python block and no text outside it.""",
    },
}

dataset2prompt = {
    "qa": "Answer the question from the article.\n\nArticle: {context}\n\nAnswer the question as concisely as "
          "you can, using a single phrase or sentence. Do not explain the answer and do not repeat the "
          "question. If the article does not answer it, reply with the single word: unanswerable. Keep "
          "names, numbers and units exactly as the article writes them, and prefer the article's wording "
          "to your own.\n\nQuestion: {input}",
}
