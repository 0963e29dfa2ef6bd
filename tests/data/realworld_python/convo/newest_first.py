from datetime import datetime

from openai import OpenAI

client = OpenAI()

PERSONA = ("You are Quill, the support assistant of a bookshop. Answer questions about orders, opening hours "
           "and book availability, politely and in at most three sentences. Never promise delivery dates.")


def reply(history):
    # the conversation is gathered from the newest message back to the first, and reversed when sent
    messages = [dict(role="user", content=history)]
    messages.append(dict(role="system", content=PERSONA + f"\nCurrent time: {datetime.now()}"))
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages[::-1])
