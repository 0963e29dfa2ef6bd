REACT = """Task: {task}
Answer the task as well as you can. You can call the following APIs:
{api_list}
Use this format:
Thought: what you should do next and why
Action: the API to call, one of the APIs above
Action Input: the API's input as a JSON object
End Action
Call one API per step, never call the same API twice with the same input, and finish by calling
Finish with your final answer once you have what the task asks for."""
