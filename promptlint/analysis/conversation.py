"""Multi-turn reuse: a chat request re-sends the system prompt and the
conversation so far on every turn, and providers and engines reuse that
prefix within the session. The conversation is a scope of its own: the
history is per session, the current turn per request.

A prompt carries a conversation when it holds its history: a per-session
slot named for it (`{{ history }}`, `{% for m in messages %}`,
`{chat_history}`, dotprompt's `{{history}}`). A value that changes every
request placed ahead of it throws the whole conversation away on every turn:
besides the stable text after it, each turn re-prefills the history, which
grows with the session. Its expected size per request comes from the traffic
model (a named formula, with its inputs in the report):

    turns per session T = requests per day / (users x sessions per user per day)
    history tokens on turn k = (k - 1) x H   (H = traffic history-tokens-per-turn)
    mean history per request = H x (T - 1) / 2
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from promptlint.analysis.render import CONTAINERS, Render, varies_in
from promptlint.analysis.volatility import snake
from promptlint.ir import PromptTemplate, Scope, Slot, Volatility

HISTORY_NAME = re.compile(r"(^|_)(history|histories|conversation|conversations|transcript|dialog|dialogue|chat_log|"
                          r"chat_messages|past_messages|previous_messages|messages|turns)(_|$)")
FORMULA = "mean history per request = H x (T - 1) / 2, T = requests/day / (users x sessions/user/day)"


def is_history(slot: Slot) -> bool:
    """A slot that inserts the conversation so far."""
    if slot.kind in CONTAINERS or slot.volatility is not Volatility.SESSION:
        return False
    return names_history(slot.names) or "conversation history" in slot.reason


def names_history(names) -> bool:
    """Whether a value's names say it is the conversation so far: its root or
    its last attribute (`history[-1]`, `state.messages`)."""
    for name in names:
        parts = [p for p in re.split(r"[.\[\]]+", name or "") if p]
        if any(HISTORY_NAME.search(snake(part)) for part in parts[:1] + parts[-1:]):
            return True
    return False


def history_slot(template: PromptTemplate) -> Slot | None:
    """The first slot of the prompt that holds its conversation history."""
    return next((s for s in template.slots() if is_history(s)), None)


def start_of(render: Render, slot: Slot) -> int | None:
    """Where a slot's output starts in a render (None: it renders nothing)."""
    return next((p.start for p in render.pieces if any(s is slot for s in p.slots)), None)


def turns_per_session(traffic) -> float:
    sessions = traffic.users * traffic.sessions_per_user_per_day
    return traffic.requests_per_day / sessions if sessions else 1.0


def mean_history_tokens(traffic) -> float:
    """H x (T - 1) / 2: the history an average request of a session carries."""
    return traffic.history_tokens_per_turn * max(0.0, turns_per_session(traffic) - 1) / 2


@dataclass
class Conversation:
    history: Slot  # where the conversation so far is inserted
    breaker: Slot | None  # a per-request value ahead of it, if any
    turns: float  # T, requests per session
    tokens_per_turn: float  # H
    mean_history: float  # H x (T - 1) / 2
    stable_after: int  # stable tokens of the template between the breaker and the end (history excluded)

    @property
    def lost_per_turn(self) -> float:
        """Tokens each turn re-prefills because of the breaker: the stable
        text after it and the conversation so far (on average)."""
        return self.stable_after + self.mean_history if self.breaker is not None else 0.0


def conversation(template: PromptTemplate, reference: Render, tokenizer, traffic,
                 breaker: Slot | None = None) -> Conversation | None:
    """The conversation a prompt carries, and what a per-request value ahead
    of its history costs per turn. `breaker`: the slot to judge (default:
    the first slot that changes every request and sits ahead of the history)."""
    history = history_slot(template)
    if history is None:
        return None
    h_start = start_of(reference, history)
    if h_start is None:
        return None
    if breaker is None:
        for slot in template.slots():
            begin = start_of(reference, slot)
            if (slot.kind not in CONTAINERS and slot.volatility >= Volatility.REQUEST
                    and begin is not None and begin < h_start):
                breaker = slot
                break
    else:
        begin = start_of(reference, breaker)  # 0 when the prompt starts with it
        if begin is None or begin >= h_start or breaker.volatility < Volatility.REQUEST:
            breaker = None
    stable_after = 0
    if breaker is not None:
        after = max(p.end for p in reference.pieces if any(s is breaker for s in p.slots))
        vary = lambda s: Scope.SESSION.varies(s.volatility) or s is breaker or s is history  # noqa: E731
        text = "".join(reference.text[p.start:p.end] for p in reference.pieces
                       if p.start >= after and not any(varies_in(s, vary) for s in p.slots))
        stable_after = len(tokenizer.encode(text)) if text else 0
    return Conversation(history, breaker, turns_per_session(traffic), traffic.history_tokens_per_turn,
                        mean_history_tokens(traffic), stable_after)


__all__ = ["Conversation", "conversation", "history_slot", "is_history", "mean_history_tokens", "names_history",
           "turns_per_session", "FORMULA"]
