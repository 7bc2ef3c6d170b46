"""The one list of games, at the rules layer: ``GAME_RULES`` maps each game's name to its
preset, its description and the id its env is registered under. Everything that needs to
know which games exist reads it, through ``rummy_env.registry.GAMES`` above the rules (which
adds each game's env module, ``rummy_env.<name>_v0``). Adding a game is adding one entry here
(docs/architecture.md#adding-a-game)."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from .presets import contract_rummy, three_thirteen, toonerville_rook
from .spec import GameRules
from .variants import contract_rummy_quick


@dataclass(frozen=True)
class Game:
    """One game as the rules know it."""

    name: str
    """The registry key, the rules' ``game``, and the env module's name without ``_v0``."""
    preset: Callable[..., GameRules]
    """Keyword options (``num_players`` and the game's own) to ``GameRules``."""
    description: str

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts the game allows (its preset's ``for_players``)."""
        return self.preset.player_counts

    @property
    def default_players(self) -> int:
        return self.preset().num_players

    @property
    def env_id(self) -> str:
        """The id for ``pettingzoo.make("aec", env_id)``."""
        return f"rummy/{self.name}-v0"

    @property
    def env_module(self) -> str:
        """The env module's dotted name (its docstring is the env's spec)."""
        return f"rummy_env.{self.name}_v0"


GAME_RULES: Mapping[str, Game] = MappingProxyType({game.name: game for game in (
    Game("three_thirteen", three_thirteen, "11 rounds of 3..13 cards, the rank equal to the hand size wild"),
    Game("contract_rummy", contract_rummy,
         "7 deals, each with a contract of sets and runs to go down with; jokers wild"),
    Game("toonerville_rook", toonerville_rook, "11 contract rounds with a Rook deck per player, buying out of turn"),
    Game("contract_rummy_quick", contract_rummy_quick,
         "a variant: Contract Rummy in 4 deals (2 sets; set + run; 2 runs; 3 runs, every card)"),
)})
"""Every game, by name, in the order the docs list them."""
