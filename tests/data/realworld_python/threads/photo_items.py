"""The uploaded photo, as a data URL made by a helper, opens the only user
message, ahead of the fixed listing instructions."""
import base64
import mimetypes


def data_url_from_image(file_path):
    mime_type, _ = mimetypes.guess_type(file_path)
    with open(file_path, "rb") as image_file:
        encoded = base64.b64encode(image_file.read()).decode("utf-8")
    return f"data:{mime_type};base64,{encoded}"


def list_items(client, file_path):
    data_url = data_url_from_image(file_path)
    message = {
        "role": "user",
        "content": [
            {"type": "image_url", "image_url": {"url": data_url}},
            {"type": "text", "text": "List the furniture and decor items you can see in this room. For each "
                                     "item give its name, its colour, its material and where it stands in the "
                                     "room, one item per line, as 'name | colour | material | position'. Do "
                                     "not guess items you cannot see, and do not describe the room itself."},
        ],
    }
    return client.chat.completions.create(model="gpt-4.1-mini", messages=[message])
