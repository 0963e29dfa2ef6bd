"""An orchestrator that gathers each task's tools into a set and hands them
on as a list: the order of a set of callables changes with every process."""


class Orchestrator:
    async def run_once(self, actor, assigned_tasks):
        tools: set = set()
        for task in assigned_tasks:
            tools.update(task.get_tools())
        agent = await actor.get_agent(tools=list(tools))
        return await agent.run()
