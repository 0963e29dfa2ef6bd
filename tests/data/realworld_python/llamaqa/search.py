"""A LlamaIndex question-answer prompt kept on the object, retrieved context first."""
from llama_index import QuestionAnswerPrompt


class Search:
    def __init__(self, index):
        self.index = index
        self.qaprompt = QuestionAnswerPrompt(
            "You are answering a search query from the context below.\n"
            "---------------------\n"
            "{context_str}"
            "\n---------------------\n"
            "Never use prior knowledge, only the context. Say plainly when the context is not enough to answer, "
            "quote the page title of every source you use, keep the answer under 200 words, answer in the "
            "language of the query, and end with a list of the URLs you used. The search query was: {query_str}\n"
        )

    def search(self, query: str):
        engine = self.index.as_query_engine(text_qa_template=self.qaprompt)
        return engine.query(query)
