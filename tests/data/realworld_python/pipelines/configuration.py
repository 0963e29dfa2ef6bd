"""The graph's settings: each field's default is what a run gets unless its config says otherwise."""
from dataclasses import dataclass, field, fields

from langchain_core.runnables import RunnableConfig

from pipelines import prompts


@dataclass(kw_only=True)
class Configuration:
    query_model: str = field(default="openai/gpt-4.1-mini", metadata={"description": "the model"})
    query_system_prompt: str = field(
        default=prompts.QUERY_SYSTEM_PROMPT,
        metadata={"description": "the system prompt that writes search queries"},
    )

    @classmethod
    def from_runnable_config(cls, config: RunnableConfig | None = None) -> "Configuration":
        configurable = (config or {}).get("configurable") or {}
        names = {f.name for f in fields(cls) if f.init}
        return cls(**{k: v for k, v in configurable.items() if k in names})
