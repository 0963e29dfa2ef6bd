COVER_LETTER_TEMPLATE = """Write a cover letter for the position of {job_title}.

Follow these rules:
- One page, four short paragraphs, no bullet lists.
- Open with the specific reason the candidate wants this role.
- Match two or three achievements from the resume to the job description.
- Keep a confident, plain tone; no clichés such as "team player".
- Close with a call to action and the candidate's availability.

Resume:
{resume}

Job description:
{job_description}
"""
