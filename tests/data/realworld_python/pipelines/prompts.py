"""Default prompts of a retrieval graph."""

QUERY_SYSTEM_PROMPT = """Write search queries that find documents to answer the user's question. You wrote these before:
<previous_queries/>
{queries}
</previous_queries>

System time: {system_time}"""
