"""A reply hook that fills another module's template with the order it finds
in the chat: nothing here is named like a prompt builder, but what it returns
is that template filled."""
import re

from .prompts import order_template


def order_message(pattern, recipient, sender):
    full_order = recipient.chat_messages_for_summary(sender)[-1]["content"]
    match = re.search(rf"\[{pattern}\]\s*(.+?)(?=\n\[|$)", full_order, re.DOTALL)
    order = match.group(1).strip() if match else full_order
    return order_template.format(order=order)
