"""A browsing agent whose current page is an attribute navigate() assigns
again: the empty string __init__ gives it is not its value in the prompt."""
from openai import OpenAI

client = OpenAI()


class Navigator:
    def __init__(self):
        self.current_page = ""

    def navigate(self, link):
        self.current_page = link

    def next_step(self, page_text):
        prompt = f"""You are navigating the web.
Webpage ({self.current_page}) content:
{page_text}
Rules: choose one link from the page, never invent one. Prefer official sources over forums and blogs.
If the page asks for a login, go back and pick another link. When the page answers the question,
stop and write NOTES: followed by the facts you found, one per line, each with the link it came from."""
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": prompt}])
