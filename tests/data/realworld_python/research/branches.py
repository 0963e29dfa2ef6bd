"""Branches and early returns: the most volatile arm is the one that counts."""
import time


def build_prompt(query: str, brief: bool) -> str:
    if brief:
        header = "Answer briefly."
    else:
        header = f"Request received at {time.time()}."
    if not query:
        return header
    return header + (
        " You are the support assistant of an online bookshop. Look orders up by their "
        "number only, never by the customer's name, and explain delivery delays with the "
        "carrier's own wording. Offer a refund only for damaged or missing books, and hand "
        "anything about payments to a human colleague. Quote prices with the currency the "
        "customer used, keep answers under a hundred words, and end every reply by asking "
        "whether there is anything else you can help with today."
    )
