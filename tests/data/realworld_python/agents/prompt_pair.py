"""A builder that returns its two texts as a pair (`return sys_prompt,
query_text`), never called here: the system text, then the user's, whose
task opens ahead of the fixed answering rules."""


def generate_query_prompt(task: str, previous_actions: list[str]):
    sys_prompt = "You are a careful web-browsing assistant that completes tasks on real websites for the user."
    query_text = "You are asked to complete the following task: " + task + "\n\n"
    query_text += """Look at the screenshot and decide the next action.
First describe what the page shows, then name the element you will act on and why.
Only act on elements that are visible; never guess an element's position or label.
If the task is already done, answer DONE and explain what shows it.
If the page shows an error, describe it and choose an action that recovers from it.
Answer in this format:
ELEMENT: the element's visible text or label
ACTION: CLICK, TYPE or SELECT
VALUE: the text to type or the option to select, else None"""
    query_text += "\n\nPrevious actions:\n" + "\n".join(previous_actions)
    return sys_prompt, query_text


DEMO_PROMPT = """Choose the modules that solve the question, in the order they run.
Modules: Knowledge_Retrieval, Bing_Search, Text_Detector, Image_Captioner, Solution_Generator, Answer_Generator.
Question: Which of these states is farthest north?
Modules: ["Knowledge_Retrieval", "Solution_Generator", "Answer_Generator"]"""


def build_policy_prompt(question_text: str):
    """A pair that is not (system, user): the test part and the whole prompt it ends."""
    test_prompt = f"Question: {question_text}\n\nModules: "
    full_prompt = DEMO_PROMPT + "\n\n" + test_prompt
    return test_prompt, full_prompt
