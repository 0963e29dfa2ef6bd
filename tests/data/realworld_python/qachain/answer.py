from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

from qachain.shared.constants import CHAT_SYSTEM_TEMPLATE


def get_rag_chain(llm, system_template=CHAT_SYSTEM_TEMPLATE):
    prompt = ChatPromptTemplate.from_messages(
        [("system", system_template), MessagesPlaceholder(variable_name="messages"), ("human", "{input}")]
    )
    return prompt | llm
