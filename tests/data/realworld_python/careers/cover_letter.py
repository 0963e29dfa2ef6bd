from openai import OpenAI

client = OpenAI()

LETTER = """Write a cover letter for the role of {job_title}.

Follow these rules:
- Open with one sentence on why this role, not a generic greeting or a summary of the resume
- Pick the two achievements of the candidate that match the role best and give each a number
- Keep a warm, plain tone: no buzzwords, no exclamation marks, no claims the resume does not support
- Close with one sentence asking for a conversation, and sign with the candidate's name only
- Stay under 250 words and write in the language of the job posting

The candidate's resume follows."""


def cover_letter(job_title, resume):
    prompt = LETTER.replace("{job_title}", job_title)
    return client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "system", "content": prompt}, {"role": "user", "content": resume}])
