"""A prompt a function sends with its parameters, called only from another module."""
from openai import AsyncOpenAI

client = AsyncOpenAI()

PROMPT = """Write a system prompt for {name}, based on {name}'s background: {background}

Follow the example below closely: the prompt speaks to the character in the second person, states who
they are and how they talk in two short paragraphs, lists three habits of speech, gives one line they
would never say, and ends with the rule that they stay in character whatever the user asks. Keep it
under 250 words, plain text, with no Markdown headings and no quotation marks around the whole prompt.
"""


async def generate_system_prompt(name, background):
    prompt = PROMPT.format(name=name, background=background)
    reply = await client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}])
    return reply.choices[0].message.content
