from desktop.config import vision_model
from desktop.llm import Message

INSTRUCTIONS = (
    "This image shows the current display of the computer. Reply in this format:\n"
    "The objective is: [the objective]\n"
    "On the screen I see: [everything that may matter for the objective: windows, icons, menus, apps]\n"
    "This means the objective is: [complete|not complete]\n"
    "(Only go on when the objective is not complete.)\n"
    "The next step is to [click|type|run the shell command] [the single next step] so that [what you expect].\n"
)


def describe_screen(screenshot_b64: str) -> str:
    # a vision model given messages: this step's screenshot goes ahead of the fixed instructions
    return vision_model.call([
        Message("You watch a computer screen for an agent that uses it.", role="system"),
        Message([f"data:image/png;base64,{screenshot_b64}", INSTRUCTIONS], role="user"),
    ])
