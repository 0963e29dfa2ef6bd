from testgen.plan_prompts import TEST_PLAN_PROMPT


class Planner:
    def __init__(self, provider):
        self.provider = provider

    def plan_all(self, parsed_items):
        plans = {}
        for item in parsed_items:
            plans[item["name"]] = self._plan(item, item["source"])
        return plans

    def _plan(self, item, source):
        prompt = TEST_PLAN_PROMPT.format(KIND=item["kind"], NAME=item["name"], SOURCE=source)
        return self.provider.complete_json(prompt)
