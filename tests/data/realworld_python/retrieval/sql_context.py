"""Retrieved schema and docs appended to the system message by helpers that
rebind their parameter (`initial_prompt += ...; return initial_prompt`)."""


class SqlPrompter:
    def add_section(self, initial_prompt, title, items, max_tokens=14000):
        if len(items) > 0:
            initial_prompt += f"\n==={title}\n"
            for item in items:
                if len(initial_prompt) + len(item) < max_tokens:
                    initial_prompt += f"{item}\n\n"
        return initial_prompt

    def get_sql_prompt(self, question, table_ddl, retrieved_docs):
        initial_prompt = "You are a SQL expert. Write one query that answers the question from the context. "
        initial_prompt = self.add_section(initial_prompt, "Tables", table_ddl)
        initial_prompt = self.add_section(initial_prompt, "Additional Context", retrieved_docs)
        initial_prompt += (
            "===Response Guidelines\n"
            "1. If the context is sufficient, write a valid SQL query without any explanation.\n"
            "2. If it is almost sufficient but needs a specific string of a column, write an intermediate query "
            "that lists the distinct values of that column, preceded by a comment saying intermediate_sql.\n"
            "3. If it is not sufficient, explain why the query cannot be written.\n"
        )
        message_log = [{"role": "system", "content": initial_prompt}]
        message_log.append({"role": "user", "content": question})
        return message_log
