single = """Write a critique of the response to the user's query, then grade it from 1 to 10.

[Query]: {question}
[Response]: {answer_a}

Rate it as "Rating: [[5]]"."""

pairwise = """You are assessing two submitted responses to a user's query and judging which one is better.

[Query]: {question}
[Response 1]: {answer_a}
[Response 2]: {answer_b}

Here are the instructions to assess and compare the two responses:
1. Pinpoint the key factors that distinguish the two responses.
2. Compare them factor by factor, quoting each response where it matters.
3. Conclude with a final decision on which response is better, or whether they are tied. Begin that
   statement with "So, the final decision is Response 1 / Response 2 / Tie", and make sure it agrees
   with the comparison you wrote."""

protocols = {"pairwise": pairwise, "single": single}


def build_input(question, answer_a, answer_b=None, protocol="single"):
    return protocols[protocol].format(question=question, answer_a=answer_a, answer_b=answer_b)


if __name__ == "__main__":
    # a demo with literals: it does not stand for how the app fills the templates
    t = build_input("What is 2 + 2?", "4", "5", "pairwise")
    print(t)
