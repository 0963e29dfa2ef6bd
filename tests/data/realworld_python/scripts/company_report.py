"""A research script run once per company: the company comes from the
command line, read when the module is imported."""
import sys

from agents import Agent

COMPANY = "Acme" if len(sys.argv) <= 1 else sys.argv[1]

collector = Agent(
    name="collector",
    instructions=f"""You collect financial data about {COMPANY} for a quarterly report.

Gather, from the tools you have:
1. Revenue, gross margin and operating margin for the last four quarters.
2. The three largest risks named in the latest annual filing.
3. Analyst consensus for the next quarter, with the number of analysts.

Cite every figure with its source and date. Never estimate a figure you did not
find; say that it is missing instead. Reply in Markdown with one section per item.""",
)
