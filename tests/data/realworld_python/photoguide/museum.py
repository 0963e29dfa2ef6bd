from google import genai

from photoguide.settings import get_client

BRIEF = """You are a museum guide for children. The exhibit in the visitor's photo is: {exhibit}

Write a short tour of this exhibit. Cover:
1. What it is, in one sentence a ten-year-old understands
2. Where and when it was made, and by whom
3. Two surprising facts, each with the source you would cite
4. One question the child could ask the museum staff next
Use plain words, no more than 120 words in all, and never invent a date or a name you are not sure of."""


def name_exhibit(image: bytes) -> str:
    client = get_client()
    exhibit = "an exhibit"
    try:
        naming_response = client.models.generate_content(model="gemini-2.5-flash", contents=["Name it.", image])
        named = (naming_response.text or "").strip().strip('"').strip(".")
        if named:
            exhibit = named
    except genai.errors.APIError:
        pass
    return exhibit


def tour(exhibit: str) -> str:
    client = get_client()
    reply = client.models.generate_content(model="gemini-2.5-flash", contents=BRIEF.format(exhibit=exhibit))
    return reply.text


def guide(image: bytes) -> str:
    exhibit = name_exhibit(image)
    return tour(exhibit)
