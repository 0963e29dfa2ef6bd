"""A web endpoint that runs a LangChain pipeline: the template's field is
filled from the request body when the pipeline is invoked."""
from fastapi import APIRouter
from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

router = APIRouter()
model = ChatOpenAI(model="gpt-4.1")

EDIT_PROMPT = ChatPromptTemplate.from_messages(
    [
        (
            "system",
            "You help a user change the schema of an information extractor. The current "
            "schema is:\n{current}\nThe user describes a change (a new field, another type, "
            "a renamed attribute). Return the whole new schema, keep every attribute the "
            "user did not mention, give each attribute a title and a description, keep the "
            "top level an object with a title and a description, and treat every property "
            "as optional unless the user says otherwise.",
        ),
        ("human", "{input}"),
    ]
)

EDIT_CHAIN = (EDIT_PROMPT | model.with_structured_output(schema=dict)).with_config({"run_name": "edit"})


@router.post("/edit")
async def edit(request):
    return await EDIT_CHAIN.ainvoke({"input": request.description, "current": request.body_text})
