"""A conversation object filled with add_system/add_user (an app's own
MessageThread): the issue text is added before the fixed API description."""
import re

from .data_structures import MessageThread

SYSTEM_PROMPT = "You are a software developer maintaining a large project. You fix issues by reading code first."


def prepare_issue_prompt(problem_stmt: str) -> str:
    cleaned = re.sub(r"<!--.*?-->", "", problem_stmt, flags=re.DOTALL)
    return "<issue>" + cleaned.strip() + "\n</issue>"


def first_round(issue_stmt: str, client):
    msg_thread = MessageThread()
    msg_thread.add_system(SYSTEM_PROMPT)
    msg_thread.add_user(prepare_issue_prompt(issue_stmt))
    msg_thread.add_user(
        "Based on the classes, methods and code statements in the issue, use these search APIs to get "
        "more context of the project:\n- search_class(class_name): a class in the codebase.\n"
        "- search_method(method_name): a method in the codebase.\n- search_code(code_str): a snippet.\n"
        "You must give the right number of arguments, you can call several APIs in one round, and you "
        "should explain in one sentence why each call helps before you make it."
    )
    return client.call(msg_thread.to_msg())
