"""A judge's user message: the example's values first, then short labels
and two screenshots. An image is not text: its JSON wrapper is no stable
text after the values, so nothing stable enough follows them (no finding)."""

import base64

from openai import OpenAI

client = OpenAI()
JUDGE_SYSTEM = "You grade generated web pages. Score each of media, contrast and relevance from 1 to 5 and explain briefly."


def data_url(path: str) -> str:
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode()


def judge(prompt: str, prediction: dict):
    user_message = f"{prompt}\n---\nname: {prediction['name']}\n"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": [
            {"type": "text", "text": user_message},
            {"type": "text", "text": "Screenshots of the light and dark desktop versions:"},
            {"type": "image_url", "image_url": {"url": data_url(prediction["desktop_img"])}},
            {"type": "image_url", "image_url": {"url": data_url(prediction["mobile_img"])}},
            {"type": "text", "text": "Please assess this prompt against the images and give your scores."},
        ]},
    ])
