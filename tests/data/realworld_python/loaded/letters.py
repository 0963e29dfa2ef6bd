"""Cover letters: the template's fields bound up front (partial_variables)."""

from langchain_core.prompts import PromptTemplate

from .templates import COVER_LETTER_TEMPLATE


class CoverLetterWriter:
    def __init__(self, llm, resume: str) -> None:
        self.llm = llm
        self.resume = resume

    def write(self, job_title: str, job_description: str) -> str:
        prompt = PromptTemplate(
            template=COVER_LETTER_TEMPLATE,
            input_variables=[],
            partial_variables={
                "job_title": job_title,
                "resume": self.resume,
                "job_description": job_description,
            },
        )
        return (prompt | self.llm).invoke({}).content
