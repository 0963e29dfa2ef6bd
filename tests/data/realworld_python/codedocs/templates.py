"""A documentation generator's chat template (LlamaIndex), filled for one
code object at a time by the module that walks the repository."""

from llama_index.core import ChatPromptTemplate
from llama_index.core.llms import ChatMessage, MessageRole

writer_instruction = (
    "You write reference documentation for one object of a code base.\n\n"
    "The object's code:\n"
    "{code_content}\n\n"
    "Write the page in plain prose. Start with one sentence on what the object is for, then describe "
    "each parameter or attribute in a bulleted list (name, type, meaning), then explain the behaviour "
    "step by step, including the errors it raises and the values it returns. Do not use Markdown "
    "headings or horizontal rules. Do not guess: describe only what the code shows. Keep examples "
    "short and runnable, and mention related objects only by their names.\n"
)

message_templates = [
    ChatMessage(content=writer_instruction, role=MessageRole.SYSTEM),
    ChatMessage(content="Write the page now.", role=MessageRole.USER),
]

writer_template = ChatPromptTemplate(message_templates=message_templates)
