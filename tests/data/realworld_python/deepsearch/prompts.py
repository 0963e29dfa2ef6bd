from pathlib import Path

import yaml


def get_prompt(name: str) -> dict:
    # the folder is named at run time: promptlint finds prompt/<name>.yaml by the name it is given
    folder = Path(__file__).parent / "prompt"
    return yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8"))
