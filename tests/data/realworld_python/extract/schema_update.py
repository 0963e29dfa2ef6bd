"""An endpoint that asks a model to modify the schema the user sent."""
from fastapi import APIRouter
from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

router = APIRouter(prefix="/suggest")
model = ChatOpenAI(model="gpt-4.1-mini")

UPDATE_PROMPT = ChatPromptTemplate.from_messages(
    [
        (
            "system",
            "You are an expert ontologist helping a user define an information extractor. The existing "
            "extractor schema is:\n```\n{json_schema}\n```\nThe user will describe a modification to the "
            "schema, such as a new field or a changed field type. Give a new schema that makes the change. "
            "If the user asks for a completely new schema, ignore the existing one. The schema must describe "
            "one top-level object with a title and a description, and its properties are optional unless the "
            "user says otherwise.",
        ),
        ("human", "{input}"),
    ]
)
UPDATE_CHAIN = UPDATE_PROMPT | model


@router.post("")
async def suggest(request):
    return await UPDATE_CHAIN.ainvoke({"input": request.description, "json_schema": request.jsonSchema})
