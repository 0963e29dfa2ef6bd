"""A workflow step that sets the first message's text outright: the system
template with the user's portfolio serialised into its marker, ahead of the
fixed rules and of the conversation the state already holds."""

import json

from .prompts import SYSTEM_TEMPLATE


class PortfolioFlow:
    def start(self):
        self.state["messages"][0]["content"] = SYSTEM_TEMPLATE.replace(
            "{PORTFOLIO}", json.dumps(self.state["portfolio"])
        )
        return self.state
