from textwrap import dedent


class Briefs:
    def rewrite_section():
        return dedent("""
            The editor will rewrite the {section} of the article below.
            You MUST suggest a replacement for every paragraph of that section,
            and each replacement MUST stay close to the original in length.
            Do not change quotations, and do not change the names of
            people and places. Mark each replacement with the number of
            the paragraph it replaces and return the list numbered,
            one per line, with no commentary before or after the list.

            Article:
            {article}
            """)
