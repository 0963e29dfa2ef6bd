"""Templates of a ticket desk, filled by the modules that use them (never here)."""
from textwrap import dedent

SUMMARY_TEMPLATE = """Ticket from the customer: {entry}

Summarise the ticket above for the support engineer on duty. Name the product, the version and the
operating system when the customer gives them, list every error message word for word, and say which
steps the customer already tried. Keep it under ten lines, write in plain sentences, and never guess
at a cause the ticket does not state. End with one line saying how urgent the ticket reads."""

SIGNATURE_TEMPLATE = """You write the closing lines of replies for {desk} support.

Thank the customer by first name only when the reply text uses it, offer the help centre link once,
and never promise a date for a fix. Keep the closing to two short sentences in the same language as
the reply, with no emoji and no marketing, and sign it with the team name, not a person's name."""


class TaskPrompts:
    def triage():
        return dedent("""
            Ticket to triage: {entry}

            Pick exactly one queue for the ticket above: billing, outage, bug, how-to or account. Answer
            with the queue name alone on the first line, then one sentence that quotes the part of the
            ticket that decided it. When two queues fit, prefer outage over bug and bug over how-to, and
            when none fits answer how-to. Never ask the customer a question in the answer.
        """)


ESCALATION_TEMPLATE = """Excerpt of the exchange: {excerpt}

Decide whether the exchange above needs a human. Escalate when the customer asks for one, mentions a
refund over the usual limit, reports data loss, or writes in anger twice in a row. Answer yes or no on
the first line and give the deciding sentence on the second line, quoted exactly, with nothing else."""
