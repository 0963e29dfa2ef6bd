"""A hook that prepends the memories found for the latest message to the
conversation it is handed, formatted by a static helper called through
`self.` (which takes no `self`: its first argument is the memories)."""


class MemoryInjector:
    def __init__(self, store):
        self.store = store

    def inject(self, query):
        user_text = query.messages[-1]["content"]
        found = self.store.search(user_text, k=5)
        block = self._format_block(found)
        query.messages = [{"role": "system", "content": block}] + query.messages
        return query

    @staticmethod
    def _format_block(memories):
        lines = [
            "===== MEMORY CONTEXT =====",
            "The following are relevant memories from earlier conversations with this user. "
            "Use them to personalise your answer, but never quote them word for word.",
        ]
        for mem in memories:
            lines.append(f"- [{mem['timestamp']}] {mem['content']}")
        lines.append("===== END MEMORY CONTEXT =====")
        return "\n".join(lines)
