"""Asks the model for catalogue queries through a Prompty file."""
import json

import prompty


def find_products(context: str) -> list:
    queries = prompty.execute(
        "products.prompty",
        inputs={"context": context},
    )
    return json.loads(queries)
