"""One judge prompt per concept, from templates imported with `*`, sent as a
batch by the project's own client (a helper we cannot read)."""
from .concept_templates import *


async def concept_genres(client, concepts):
    prompts = [T_DETERMINE_GENRE.format(CONCEPT=concept) for concept in concepts]
    responses = await client.batch_completions("concept_genre", prompts)
    return {concept: response.strip().lower() for concept, response in zip(concepts, responses)}
