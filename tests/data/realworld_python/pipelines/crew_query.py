"""CrewAI fills {query} in an agent's role, goal and backstory from
crew.kickoff(inputs=...): the question opens the agent's system prompt."""
from crewai import Agent, Crew, Task


def build_crew(search_tool):
    retriever = Agent(
        role="Retrieve the information that answers the user query: {query}",
        goal="Find the passages most relevant to the user query in the documents and on the web, "
             "preferring the documents, and report each passage with its source and date.",
        backstory="You are a meticulous analyst. You never answer from memory, you always search first, "
                  "and you say plainly when the sources do not contain the answer.",
        tools=[search_tool],
    )
    task = Task(description="Find what answers {query}.", expected_output="Passages with sources.",
                agent=retriever)
    return Crew(agents=[retriever], tasks=[task])
