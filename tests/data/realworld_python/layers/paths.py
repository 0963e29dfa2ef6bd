import os


def template_dir():
    return os.environ.get("LAYER_TEMPLATES", "templates")
