"""The endpoint that creates a character passes what the user typed."""
from fastapi import APIRouter
from pydantic import BaseModel

from .generator import generate_system_prompt

router = APIRouter()


class CharacterRequest(BaseModel):
    name: str
    background: str


@router.post("/system_prompt")
async def system_prompt(request: CharacterRequest):
    name = request.name
    background = request.background
    return {"system_prompt": await generate_system_prompt(name, background)}
