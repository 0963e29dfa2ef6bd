"""A message helper with a branch on an optional argument (TaskWeaver's format_chat_message)."""


def format_chat_message(role, message, image_urls=None, name=None):
    if not image_urls:
        msg = {"role": role, "content": message}
    else:
        msg = {"role": role, "content": [{"type": "text", "text": message}]
               + [{"type": "image_url", "image_url": {"url": url}} for url in image_urls]}
    if name is not None:
        msg["name"] = name
    return msg
