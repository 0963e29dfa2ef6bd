"""An agent whose prompt files are loaded by name, by a loader of the
package (it builds the path at run time) and by a prompt engine we cannot
read: promptlint finds the file by the name it is given."""
from datetime import datetime

from langchain.prompts import SystemMessagePromptTemplate

from app import database, llm_handler, prompt_engine
from app.files import load_text
from .prompts import load_prompt

PACKAGE = "/srv/agent"
BASE_SKILLS = ["exploreUntil", "mineBlock", "craftItem"]


class ActionAgent:
    def render_system_message(self, task):
        system_template = load_prompt("action_template")
        primitives = [load_text(f"{PACKAGE}/primitives/{name}.js") for name in BASE_SKILLS]
        programs = "\n\n".join(primitives + self.skills.retrieve_skills(query=task))
        system_message_prompt = SystemMessagePromptTemplate.from_template(system_template)
        return system_message_prompt.format(programs=programs)


async def summarize_failure(run):
    blocks = await database.get_run_blocks(run.run_id)
    prompt = prompt_engine.load_prompt(
        template="summary",
        block_cnt=len(blocks),
        navigation_goal=run.prompt,
        history=[f"{i + 1}. {b.description}" for i, b in enumerate(blocks)],
        local_datetime=datetime.now().isoformat(),
    )
    return await llm_handler(run)(prompt=prompt, prompt_name="summary")
