from openai import OpenAI

from pals.persona import pal_system_prompt

client = OpenAI()


def answer(student, history, text):
    prompt = pal_system_prompt(student.first_name, student.likes_music)
    messages = [{"role": "system", "content": prompt}]
    messages += [{"role": turn.role, "content": turn.text} for turn in history]
    messages.append({"role": "user", "content": text})
    return client.chat.completions.create(model="gpt-4.1-mini", messages=messages)
