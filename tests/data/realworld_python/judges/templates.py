import textwrap


class JudgeTemplates:
    @staticmethod
    def route(assistant_reply, options):
        listed = "\n".join(f"{i}) {o}" for i, o in enumerate(options, start=1))
        return textwrap.dedent(f"""You route a simulated conversation. The assistant just said:
            <<<
            {assistant_reply}
            >>>
            Which option describes that reply best?
            {listed}
            Answer with the option's number only. Choose the closest option even when none fits
            exactly, never explain your choice, and never answer with text other than the number.
            Return JSON with the key "index" holding the number you chose.""")

    @staticmethod
    def diagnose(original_prompt, scores):
        return f"""You review a prompt that an optimiser is improving.
Prompt under review: '{original_prompt}'
Scores: {scores}
List the inputs with the lowest scores and say which instruction of the prompt caused each
failure, which instructions work and must stay, and what to add or remove next. Return JSON with
the keys failures, anchors and changes, each a list of short sentences, and nothing else.
Keep every sentence under twenty words and quote the instruction you mean word for word.
Do not rewrite the prompt yourself. You must return valid JSON only."""
