class Prompt:
    EXAMPLES = "Example: 'Ada joined Acme in 2019' gives (Ada, works_at, Acme, valid_from=2019)."

    @staticmethod
    def temporal_system_query(obs_timestamp: str) -> str:
        return f"""Observation Time: {obs_timestamp}

You are a careful algorithm that extracts facts as a knowledge graph. Capture as much of the text as
you can without adding anything it does not say. Keep entity names consistent across facts, use the
most complete name of each entity, and give every relation a validity period when the text states one,
relative to the observation time above. Never output an entity without a relation to another one.
"""
