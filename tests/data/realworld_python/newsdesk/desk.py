import json

from crewai import Agent, Crew, Task

from .briefs import Briefs

editor = Agent(role="Editor", goal="Tighten articles", backstory="A careful copy editor.")


def rewrite(outline, article):
    for section in json.loads(outline):
        task = Task(description=Briefs.rewrite_section().format(section=section, article=article),
                    expected_output="A numbered list", agent=editor)
        Crew(agents=[editor], tasks=[task]).kickoff()
