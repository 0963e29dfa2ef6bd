T_DETERMINE_GENRE = """You are an expert annotator. Given the concept:

{CONCEPT}

Identify the single most likely genre of text in which this concept appears. Choose exactly one of:
text (prose, articles, stories, conversations), code (any programming language, configuration
files, shell sessions) or math (equations, proofs, worked calculations). If the concept could appear
in more than one genre, choose the one where it is most common. If it fits none of them, answer
none. Respond with the genre name only, in lowercase. Do not add punctuation or an explanation.
"""
