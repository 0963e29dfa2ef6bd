"""A group chat's templates: the leader's order opens the message a member gets."""

order_template = """Follow the leader's order and complete the following task: {order}.

Before you start, check which tools you have and use only those. Report every number you give
with its source and the date you read it. If the task cannot be completed with your tools, say
which part is missing instead of guessing. When you are done, reply with your result followed by
the single word TERMINATE on its own line, and do not add anything after it."""
