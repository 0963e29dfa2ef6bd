"""Prompt constants named with the word first: the user's request opens the
template, ahead of the fixed generation rules."""

TEMPLATE_INIT_CODE_GENERATION = """
**Task**: Write a Python function `extract(html: str) -> dict` that uses BeautifulSoup to pull the data the user asks for out of the page.

**User's Request**:
{user_input}

Write the function so that it:
1. Finds the elements that hold the requested data, by their tags and attributes.
2. Returns a dictionary with the fields of the requested schema, each present even when empty.
3. Never raises on a missing element: use None for what the page does not have.

Comment the choices that depend on the page's structure. Use only BeautifulSoup and re.
Output ONLY the Python code of the function, without imports or any other text.
"""

TEMPLATE_DIR = "templates/codegen"
