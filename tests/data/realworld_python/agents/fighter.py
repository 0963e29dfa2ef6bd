"""A game-playing agent: its system prompt describes the state of the fight at every step."""
from openai import OpenAI

MOVES = {0: "No move", 1: "Move closer", 2: "Low punch", 3: "Fireball"}


class Fighter:
    def __init__(self, client: OpenAI):
        self.client = client
        self.observations = []
        self.reward = 0

    def observe(self, observation: dict, reward: float) -> None:
        self.observations.append(observation)
        self.reward = reward

    def context_prompt(self) -> str:
        distance = self.observations[-1]["distance"]
        position = ""
        if distance > 0.1:
            position += "You are far from the opponent. Move closer."
        else:
            position += "You are close to the opponent. Attack."
        last_move = MOVES[self.observations[-1]["last_action"]]
        return f"""{position}
Your last move was {last_move}. Your current score is {self.reward}."""

    def next_moves(self) -> str:
        system = f"""You are the best Street Fighter III player in the world.
{self.context_prompt()}
The moves you can use are: Move closer, Move away, Low punch, Medium punch, High kick, Fireball,
Megafireball and Super attack. Reply with a bullet list of moves, one per line, in the format
`- <name of the move>`, and nothing else. Example when the opponent is close: `- Low punch`
then `- High kick`. Example when the opponent is far: `- Fireball` then `- Move closer`."""
        reply = self.client.chat.completions.create(
            model="gpt-4.1-mini", messages=[{"role": "system", "content": system},
                                            {"role": "user", "content": "Your next moves are:"}])
        return reply.choices[0].message.content
