"""A report script: the company comes from the command line, passed down two
functions to the builder of the task prompt. The parameter's name says a
setting; what its callers pass says what the user typed for this run."""
import argparse

from camel.societies import RolePlaying


def parse_arguments():
    parser = argparse.ArgumentParser(description="Stock analysis")
    parser.add_argument("--company", default="Google")
    return parser.parse_args()


def build_society(company_name: str) -> RolePlaying:
    task_prompt = f"""Task: write an investment analysis report for {company_name}.

Requirements:
1. Cover revenue, margins, cash flow and debt for the last eight quarters, with a table.
2. Name the three largest risks from the latest annual filing and what management says about each.
3. Compare valuation multiples with the three closest competitors and explain the gaps.
4. Finish with a one-paragraph recommendation and the confidence you have in it.
Cite every figure with its source and date, and never invent a number you did not find."""
    return RolePlaying(task_prompt=task_prompt)


def generate(company_name: str):
    return build_society(company_name=company_name).run()


if __name__ == "__main__":
    args = parse_arguments()
    generate(args.company)
