"""CrewAI agents and tasks built by methods nobody here calls: the agent's
role, backstory and goal are its system prompt; a task's description is the
task message, the user's website first."""
from textwrap import dedent

from crewai import Agent, Task


class MarketingCrew:
    def analyst(self, tools):
        return Agent(
            role="Lead Market Analyst",
            goal="Deliver a sharp analysis of the product and of its competitors",
            backstory="An analyst at a digital marketing agency who reads a product page and sees the "
                      "audience, the promise and the gap a campaign can use.",
            tools=tools,
        )

    def product_analysis(self, agent, product_website):
        return Task(
            description=dedent(f"""\
                Analyse the product website: {product_website}.

                Find what makes the product stand out: its features, its benefits and the story the page
                tells. Your report names the key selling points, the audience they speak to, and two ways
                the product could be positioned better. Keep every claim tied to something the page says,
                quote the page where it helps, and end with the three points a campaign should lead with.
                """),
            agent=agent,
        )
