from textwrap import dedent

from notes_mcp.server import mcp
from notes_mcp.tools import recent_activity


@mcp.prompt(name="recent_activity", description="What changed lately in one project of the notes")
async def recent_activity_prompt(project: str = "", timeframe: str = "7d") -> str:
    # the client passes the arguments on every prompts/get: the project named ahead of the guidance
    activity = await recent_activity(project=project, timeframe=timeframe)
    return dedent(f"""
        # Recent activity in {project}

        ## Next steps
        Based on this activity you can:
        1. Open an item with read_note("permalink") to see all of it.
        2. Search for related notes with search_notes("topic") to find connected knowledge.
        3. Build context with build_context("memory://path") to follow its relations.

        ## Capture
        When you notice patterns or decisions in this activity, offer to write them down as a new
        note with a short title, the facts as a list and links to the notes it came from.

        {activity}
        """)
