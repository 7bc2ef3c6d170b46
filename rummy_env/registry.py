"""The one list of games: ``GAMES`` maps each game's name to its ``GameSpec``.

Everything that needs to know which games exist reads this: PettingZoo registration,
the command lines, evaluation, training, benchmarks and tests. Adding a game is adding
one entry here (see docs/architecture.md#adding-a-game)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Callable, Mapping

from pettingzoo import AECEnv

from . import contract_rummy_quick_v0, contract_rummy_v0, three_thirteen_v0, toonerville_rook_v0
from .rules import GameRules


@dataclass(frozen=True)
class GameSpec:
    """What the rest of the project needs to know about one game."""

    name: str
    """The registry key, the rules' ``game`` and the env's ``metadata["name"]`` without ``_v0``."""
    module: ModuleType
    """The env module (``env()``, ``raw_env``, its docstring the env's spec)."""
    player_counts: tuple[int, ...]
    """The player counts the game allows (its preset's ``player_counts``)."""
    default_players: int
    description: str

    @property
    def env_id(self) -> str:
        """The id for ``pettingzoo.make("aec", env_id)``."""
        return f"rummy/{self.name}-v0"

    @property
    def env(self) -> Callable[..., AECEnv]:
        """The env factory: the raw env in PettingZoo's standard wrappers."""
        return self.module.env

    @property
    def rules(self) -> Callable[..., GameRules]:
        """The rules preset: keyword options (``num_players`` and the game's own) to ``GameRules``."""
        return self.module.raw_env.rules_factory

    @property
    def defaults(self) -> Mapping[str, Any]:
        """The preset's keyword options and their defaults (``None``: chosen from the player count)."""
        return {name: p.default for name, p in inspect.signature(self.rules).parameters.items()}


def _spec(module: ModuleType, description: str) -> GameSpec:
    name = module.raw_env.metadata["name"].removesuffix("_v0")
    preset = module.raw_env.rules_factory
    return GameSpec(name, module, preset.player_counts, preset().num_players, description)


GAMES: Mapping[str, GameSpec] = MappingProxyType({spec.name: spec for spec in (
    _spec(three_thirteen_v0, "11 rounds of 3..13 cards, the rank equal to the hand size wild"),
    _spec(contract_rummy_v0, "7 deals, each with a contract of sets and runs to go down with; jokers wild"),
    _spec(toonerville_rook_v0, "11 contract rounds with a Rook deck per player, buying out of turn"),
    _spec(contract_rummy_quick_v0, "a variant: Contract Rummy in 4 deals (2 sets; set + run; 2 runs; 3 runs, every card)"),
)})
"""Every game, by name, in the order the docs list them."""


def game_spec(name: str) -> GameSpec:
    """The spec of ``name``, or a ``ValueError`` that lists the games."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return spec
