from openai import OpenAI

client = OpenAI()


def read_board(screenshot_path: str) -> str:
    text = client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "user", "content": f"Describe the board in {screenshot_path} as a table."}]).choices[0].message.content
    return "\nBoard:\n" + text.strip()


def next_move(screenshot_path: str) -> str:
    # what a helper returned, kept in a name and put in the f-string: it enters the prompt there
    table = read_board(screenshot_path)
    prompt = (
        f"Here is the current board:\n{table}\n\n"
        "Find the best next move.\n"
        "1. First priority: a move that makes a three-match.\n"
        "2. Second priority: a four-match or a special piece, when one is possible.\n"
        "3. When one move triggers several matches at once, prefer it to a single match.\n"
        "Answer with the move and one sentence of reasoning, in the form move: (A, B), thought: (why),\n"
        "where A and B are the ids of the two pieces to swap, read from the table's first column.\n"
    )
    return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": prompt}])
