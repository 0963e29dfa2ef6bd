"""A graph node that writes its prompt into a local variable and hands it to
a helper of another module we cannot read: the variable is the prompt."""
from agents.structured import invoke_structured


def create_manager(llm):
    def manager_node(state) -> dict:
        instrument_context = state["instrument_context"]
        history = state["debate"]["history"]
        prompt = f"""As the portfolio manager, your role is to weigh this round of debate and give the trader one clear plan.

{instrument_context}

Rating scale (use exactly one): Buy, Overweight, Hold, Underweight, Sell. Commit to a stance whenever the
strongest arguments support one, and keep Hold for evidence that is balanced on both sides. Give the plan
as three parts: the recommendation, the reasons that decided it, and the steps the trader takes next.
Do not repeat the arguments of the debate; weigh them.

Debate history:
{history}"""
        plan = invoke_structured(llm, prompt, "Manager")
        return {"plan": plan}

    return manager_node
