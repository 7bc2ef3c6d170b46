"""The ``greedy`` and ``expert`` baselines: one agent class each, playing any registered
game by handing it to the heuristic of its kind of play, read from its rules: going out
by a shown hand (Three-Thirteen) is unlike the contract games' going down."""

from __future__ import annotations

from ..rules import GameRules
from .base import Agent, Decision, SeatInfo
from .contract_expert import ExpertContract
from .contract_heuristics import GreedyContract
from .three_thirteen_heuristics import ExpertThreeThirteen, GreedyThreeThirteen

# per baseline: (the heuristic for a game without contracts, the one for contract games)
_BY_PLAY: dict[str, tuple[type[Agent], type[Agent]]] = {
    "greedy": (GreedyThreeThirteen, GreedyContract),
    "expert": (ExpertThreeThirteen, ExpertContract),
}


def heuristic_class(baseline: str, rules: GameRules) -> type[Agent]:
    """The heuristic that the baseline ``baseline`` (``greedy``, ``expert``) plays a game of
    ``rules`` with."""
    return _BY_PLAY[baseline][rules.contract_play is not None]


class _ByPlay(Agent):
    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self._policy = self.heuristic(seat.rules)()
        self._policy.start_game(seat, seed)

    def heuristic(self, rules: GameRules) -> type[Agent]:
        """The heuristic this agent plays a game of ``rules`` with."""
        return heuristic_class(self.name, rules)

    def act(self, decision: Decision) -> int:
        return self._policy.act(decision)


class GreedyAgent(_ByPlay):
    """A decent casual player (see ``docs/agents.md``)."""

    name = "greedy"


class ExpertAgent(_ByPlay):
    """A stronger heuristic player (see ``docs/agents.md``)."""

    name = "expert"
