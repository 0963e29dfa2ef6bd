"""Fill the benchmark templates with one item each (a module of helpers that
never call a model: the evaluation runner sends what they return)."""
from templates.multiple_choice import MULTIPLE_CHOICE


def choice_lines(choices):
    text = ""
    for i, choice in enumerate(choices):
        text += f"- ({chr(65 + i)}) {choice}\n"
    return text


def apply_mc_template(item):
    question, choices = item["question"], item["choices"]
    prompt_str = MULTIPLE_CHOICE[:]
    prompt_str = prompt_str.replace("{question}", question)
    prompt_str = prompt_str.replace("{choices}", choice_lines(choices))
    return prompt_str
