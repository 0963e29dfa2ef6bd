"""A Semantic Kernel prompt function written inline, in the kernel's own template syntax."""
from semantic_kernel import Kernel

kernel = Kernel()

summarize = kernel.add_function(
    plugin_name="writer",
    function_name="summarize",
    prompt="""Summarize the meeting notes for {{$audience}} in at most five bullet points.
Lead with decisions, then owners and due dates, then open questions. Quote numbers exactly, leave
out small talk and names of people who only attended, and write in plain English a newcomer can
follow. Mark anything that sounds like a risk with "Risk:" and never invent a due date.

{{$input}}""",
)
