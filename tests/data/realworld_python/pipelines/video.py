"""A builder nobody in this file calls: the uploaded video goes first in the
user message, ahead of the fixed instructions."""


def build_video_prompt_messages(video_data_url: str, system_prompt: str) -> list:
    user_text = """
    You are given a video of a user working with a web app. Re-create the app so that the same interactions give the same results.

    - Watch the whole video and note every interaction and every change of the page.
    - Match the colours, the fonts, the sizes, the padding and the margins exactly.
    - Make the app work with JavaScript: the user must be able to do what the video shows.
    - Mock any data that would come from a backend.

    Return the whole app as one HTML file.
    """
    return [
        {"role": "system", "content": system_prompt},
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": video_data_url, "detail": "high"}},
                {"type": "text", "text": user_text},
            ],
        },
    ]
