"""A voice pipeline's memory step: memories found for the caller's last
utterance go into the shared context right after the system prompt."""


class RecallStep:
    def __init__(self, store, preface="Things you remember about this caller:\n", position=1, as_system=True):
        self.store = store
        self.preface = preface
        self.position = position
        self.as_system = as_system

    async def recall(self, context, utterance: str):
        found = await self.store.search_memories(utterance)
        if not found:
            return
        note = self.preface
        for n, item in enumerate(found, 1):
            note += f"{n}. {item.get('text', '')}\n"
        message = {"role": "system", "content": note} if self.as_system else {"role": "user", "content": note}
        messages = context.get_messages()
        messages.insert(self.position, message)
        context.set_messages(messages)

    def close_with_reminder(self, context):
        # appended as the last message: nothing follows it, so nothing is lost
        messages = context.get_messages()
        messages.insert(len(messages), {"role": "system", "content": "Say goodbye politely."})
        context.set_messages(messages)

    def add_profile(self, context, caller_profile):
        # the same caller all session long: nothing is lost ahead of the session's history
        messages = context.get_messages()
        messages.insert(1, {"role": "system", "content": f"Caller profile: {caller_profile}"})
        context.set_messages(messages)

    def remind(self, context, reminder_text):
        # found by searching from the end: just before the caller's last turn, not ahead of the history
        messages = context.get_messages()
        last_turn = next(i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "user")
        messages.insert(last_turn, {"role": "system", "content": f"Reminder: {reminder_text}"})
        context.set_messages(messages)
