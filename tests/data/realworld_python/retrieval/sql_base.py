"""A base class that builds its prompt as messages but leaves their shape to
the subclass for each model (vanna's VannaBase): system_message() and
user_message() are abstract, yet the list is the prompt."""
from abc import ABC, abstractmethod
from datetime import datetime

GUIDELINES = ("===Response Guidelines\n1. If the context is sufficient, write a valid SQL query without any "
              "explanation.\n2. If it is not, say which table or column is missing.\n3. Use the most relevant "
              "tables and never invent a column.\n4. Write SQL the configured dialect can run as it is.\n")


class SqlBase(ABC):
    @abstractmethod
    def system_message(self, message: str):
        pass

    @abstractmethod
    def user_message(self, message: str):
        pass

    def get_sql_prompt(self, question: str, ddl_list: list):
        initial_prompt = f"Local time {datetime.now():%H:%M:%S}. You are a SQL expert.\n" + GUIDELINES
        initial_prompt += "\n===Tables\n" + "\n\n".join(ddl_list)
        return [self.system_message(initial_prompt), self.user_message(question)]
