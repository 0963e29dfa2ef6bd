def build_payload(model: str, images: list[str], message: str, system_prompt: str) -> dict:
    # a request written out here: inserting the system message first into its own list is
    # no conversation handed in, and what follows it is this request's, not a history
    payload = {"model": model, "messages": [{"role": "user", "content": []}]}
    if model.startswith("gpt-5"):
        payload = {k: v for k, v in payload.items() if k != "temperature"}
    for n, image in enumerate(images, 1):
        payload["messages"][0]["content"].append({"type": "text", "text": f"Image {n}:"})
        payload["messages"][0]["content"].append({"type": "image_url", "image_url": {"url": image}})
    payload["messages"][0]["content"].append({"type": "text", "text": message})
    payload["messages"].insert(0, {"role": "system", "content": system_prompt})
    return payload
