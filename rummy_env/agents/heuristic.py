"""The ``greedy`` and ``expert`` baselines: one agent class each, playing any of the three
games by handing each game to its own heuristic (Three-Thirteen's going out by a shown
hand is unlike the contract games' going down)."""

from __future__ import annotations

from .base import Agent, Decision, SeatInfo
from .contract_heuristics import ExpertContract, GreedyContract
from .three_thirteen_heuristics import ExpertThreeThirteen, GreedyThreeThirteen

_BY_GAME: dict[str, dict[str, type[Agent]]] = {
    "greedy": {"three_thirteen": GreedyThreeThirteen, "contract_rummy": GreedyContract,
               "toonerville_rook": GreedyContract},
    "expert": {"three_thirteen": ExpertThreeThirteen, "contract_rummy": ExpertContract,
               "toonerville_rook": ExpertContract},
}


class _ByGame(Agent):
    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self._policy = _BY_GAME[self.name][seat.game]()
        self._policy.start_game(seat, seed)

    def act(self, decision: Decision) -> int:
        return self._policy.act(decision)


class GreedyAgent(_ByGame):
    """A decent casual player (see ``docs/agents.md``)."""

    name = "greedy"


class ExpertAgent(_ByGame):
    """A stronger heuristic player (see ``docs/agents.md``)."""

    name = "expert"
