"""An agno agent told to add the current time to its context."""
from agno.agent import Agent
from agno.models.openai import OpenAIChat

RESEARCH_INSTRUCTION = "You are a financial research analyst. Answer from filings and market data only."

EXPECTED_OUTPUT = """A report in Markdown with these sections, in this order:
1. Summary: three sentences on the company's position and the answer to the question.
2. Evidence: every figure with its source filing, period and page, one bullet each.
3. Risks: the two or three risks that would change the answer, each with what to watch.
4. Open questions: what the filings do not say and which document would settle it.
Never give investment advice, never round figures, and quote amounts in the filing's currency."""

research_agent = Agent(
    model=OpenAIChat(id="gpt-4o"),
    instructions=[RESEARCH_INSTRUCTION],
    expected_output=EXPECTED_OUTPUT,
    add_datetime_to_context=True,
    markdown=True,
)
