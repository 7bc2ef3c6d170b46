"""The games as environments: ``GAMES`` maps each game of the rules' registry
(``rummy_env.rules.games.GAME_RULES``, the one list of games) to its ``GameSpec``, which adds
the env module ``rummy_env.<name>_v0``. Everything above the rules that needs to know which
games exist reads this: PettingZoo registration, the command lines, evaluation, training,
benchmarks and tests (docs/architecture.md#adding-a-game)."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Callable, Mapping

from pettingzoo import AECEnv

from .env import RummyEnv
from .rules import GameRules
from .rules.games import GAME_RULES, Game


@dataclass(frozen=True)
class GameSpec:
    """What the rest of the project needs to know about one game."""

    game: Game
    """The game as the rules' registry has it: name, preset, description, env id."""
    module: ModuleType
    """The env module (``env()``, ``raw_env``, its docstring the env's spec)."""

    @property
    def name(self) -> str:
        """The registry key, the rules' ``game`` and the env's ``metadata["name"]`` without ``_v0``."""
        return self.game.name

    @property
    def player_counts(self) -> tuple[int, ...]:
        return self.game.player_counts

    @property
    def default_players(self) -> int:
        return self.game.default_players

    @property
    def description(self) -> str:
        return self.game.description

    @property
    def env_id(self) -> str:
        """The id for ``pettingzoo.make("aec", env_id)``."""
        return self.game.env_id

    @property
    def env(self) -> Callable[..., AECEnv]:
        """The env factory: the raw env in PettingZoo's standard wrappers."""
        return self.module.env

    def raw_env(self, **kwargs: Any) -> RummyEnv:
        """The env itself, without PettingZoo's wrappers: for the project's own loops, which
        step it correctly and read its rules and state."""
        return self.module.raw_env(**kwargs)

    @property
    def rules(self) -> Callable[..., GameRules]:
        """The rules preset: keyword options (``num_players`` and the game's own) to ``GameRules``."""
        return self.game.preset

    @property
    def defaults(self) -> Mapping[str, Any]:
        """The preset's keyword options and their defaults (``None``: chosen from the player count)."""
        return {name: p.default for name, p in inspect.signature(self.rules).parameters.items()}


GAMES: Mapping[str, GameSpec] = MappingProxyType(
    {name: GameSpec(game, importlib.import_module(game.env_module)) for name, game in GAME_RULES.items()})
"""Every game, by name, in the order the docs list them."""


def game_spec(name: str) -> GameSpec:
    """The spec of ``name``, or a ``ValueError`` that lists the games."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return spec
