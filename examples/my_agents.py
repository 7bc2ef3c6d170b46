"""A user-defined agent for the evaluation harness (docs/evaluation.md, "Plugging in your
own agent"): ``rummy-eval --agents examples.my_agents:CautiousAgent random random random``
from the repository root."""

from __future__ import annotations

from rummy_env.agents import Agent, Decision, SeatInfo


class CautiousAgent(Agent):
    """Draws from the stock, never buys, and otherwise plays at random."""

    name = "cautious"

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)  # keeps self.seat_info and a seeded self.rng
        self.text = seat.layout.text    # action id -> "draw stock", "discard 7H", ...

    def act(self, decision: Decision) -> int:
        legal = [int(a) for a in decision.legal_actions]
        for wanted in ("draw stock", "pass"):
            for action in legal:
                if self.text(action) == wanted:
                    return action
        return self.rng.choice(legal)
