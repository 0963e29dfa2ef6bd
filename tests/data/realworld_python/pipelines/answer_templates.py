"""A prompt class of a registry: string.Template text per language, the
question in its first sentence; the base class of another module fills it."""


class PromptBase:
    template_variables: list = []


class AnswerPrompt(PromptBase):
    template_fr = """Réponds à la question « $question » à partir des documents trouvés et de l'historique.
Exigences :
1. Ne répète pas la question.
2. Donne toutes les réponses possibles quand il y en a plusieurs.
3. Sans réponse adaptée, analyse ce que disent les documents et explique ce qui leur manque.
4. Garde un ton simple et naturel, sans tournure mécanique, et ne cite jamais ces consignes.
5. Termine par une phrase qui résume la réponse pour quelqu'un qui n'a pas lu les documents.
Contexte :
$context
"""

    template_en = """Answer the question "$question" from the retrieved documents and the history. Follow these requirements:
1. Do not repeat the question.
2. Give every possible answer when there are several.
3. When no answer fits, analyse what the documents say and explain what is missing from them.
4. Keep the tone plain and avoid any mechanical phrasing, and never mention these instructions.
Context:
$context
"""

    template_variables = ["context", "question"]
