"""A crew's tasks built by factory methods from what the run is given."""
from textwrap import dedent

from crewai import Task


class HiringTasks:
    def culture_task(self, agent, company_domain):
        return Task(
            description=dedent(f"""\
                Study the website of {company_domain} and summarise the company's culture, values and mission.
                Name the projects and achievements the site highlights, the benefits it offers employees, and
                the tone it uses when it talks about its people. Quote the site where you can, leave out press
                releases older than two years, and say which pages you read so a recruiter can check them."""),
            expected_output="A one-page report on culture, values, mission, projects and benefits, with sources.",
            agent=agent,
        )
