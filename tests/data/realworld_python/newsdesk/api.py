from fastapi import FastAPI

from .answer import answer

app = FastAPI()


@app.get("/ask")
def ask(question: str, stamp: str):
    return answer(question, "", stamp)
