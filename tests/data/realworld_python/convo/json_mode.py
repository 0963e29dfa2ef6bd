"""A library that puts its JSON-mode instructions first in the messages it
is handed (`kwargs["messages"].insert(0, ...)`): a pydantic model's schema
serialises its fields in declaration order, the same every time (no
finding); the request's clock there is a breaker."""

import json
from datetime import datetime


def add_json_instructions(response_model, kwargs: dict) -> dict:
    message = f"""As an expert at structured output, reply with a JSON object that matches this JSON schema:

{json.dumps(response_model.model_json_schema(), indent=2)}

Return an instance of the schema, never the schema itself, and no prose around it."""
    kwargs["messages"].insert(0, {"role": "system", "content": message})
    return kwargs


def add_clock(kwargs: dict) -> dict:
    kwargs["messages"].insert(0, {"role": "system", "content": f"It is now {datetime.now().isoformat()}."})
    return kwargs
