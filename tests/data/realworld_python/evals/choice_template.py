"""A QA protocol's templates, written with the project's own template class."""
from evals.templates import MessageTemplate

choice_with_review_template = MessageTemplate(
    template=[
        ("system", "You are a helpful assistant good at {knowledge_domain} knowledge."),
        ("user", """# Question
{content}

# Options
{options_str}

# Output format
Think step by step, then choose the single correct option from the options above. Reply in the
format below and add nothing else: a <thinking> element with your reasoning, then an <answer>
element holding a <mask> element with the chosen option's mask and an <option> element with the
text of that option. Only one mask is allowed. If the question cannot be answered from what you
know, choose the most likely option and say so in your reasoning. Never invent a new option."""),
    ],
    input_variables=["knowledge_domain", "content", "options_str"],
)
