"""A service that renders its prompt templates by a path relative to its
templates folder: the builder's values enter at the call that passes them."""


class PromptBuilder:
    def __init__(self, template_service):
        self.template_service = template_service

    def create_summary_in_details(self, user_query: str, history, max_words: int = 120):
        return self.template_service.create_prompt_template(
            "memory/summary.j2",
            query_str=user_query,
            history=history,
            max_words=max_words,
        )
