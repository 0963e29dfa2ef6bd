"""The desk fills the templates of its prompts module: the ticket is the request's text, the product
a setting."""
from . import prompts
from .prompts import TaskPrompts

PRODUCT = "Acme Router"


def summary_request(ticket_text):
    return prompts.SUMMARY_TEMPLATE.format(entry=ticket_text)


def triage_request(user_message):
    return TaskPrompts.triage().format(entry=user_message)


def signature_request():
    return prompts.SIGNATURE_TEMPLATE.format(desk=PRODUCT)
