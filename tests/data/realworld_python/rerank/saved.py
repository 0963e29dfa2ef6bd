DEFAULT_PROGRAM = {
    "system": ("You filter facts for a question. Keep only the facts that help answer it, in their "
               "original order, and return them as a JSON list of strings without any other text."),
    "demos": [
        {"question": "Who founded the company?", "facts": "[\"A founded it\", \"It sells tea\"]",
         "kept": "[\"A founded it\"]"},
    ],
}
