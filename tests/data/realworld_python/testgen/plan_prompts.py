TEST_PLAN_PROMPT = """
Study the {KIND} named {NAME} and list the test scenarios that matter most:

1. BEHAVIOUR: what a caller of this code relies on, the edge cases of its inputs, and the error paths that must stay
covered; leave out trivial getters and setters.
2. PRIORITY: order the scenarios by the damage a regression would do and keep at most eight of them.
3. OUTPUT: answer in JSON, one key per scenario category, each holding a list of short scenario titles.

SOURCE:
{SOURCE}
"""
