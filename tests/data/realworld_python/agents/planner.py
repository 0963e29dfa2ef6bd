"""Agent SDK shapes: instructions given to an agent, and the task a run is given."""
import datetime

from agents import Agent, Runner

PLANNER_RULES = (
    "You plan trips for a travel agency. Always offer a cheaper and a faster option, "
    "say which trains or flights need booking ahead, and list the documents travellers "
    "must carry. Keep the plan to one screen and use the traveller's own words for places. "
    "Mention visa rules only for the countries on the route, warn about night arrivals, "
    "and never recommend a connection shorter than forty minutes between two trains."
)


def make_planner():
    return Agent(
        name="planner",
        instructions=f"Today is {datetime.datetime.now():%Y-%m-%d %H:%M}. " + PLANNER_RULES,
    )


def plan(agent, request: str):
    return agent.run(request)
