"""Contract-style rummy games as PettingZoo AEC environments (rules: docs/rules/README.md).

Every game is in ``GAMES`` (the registry), which also makes each env module an attribute of
this package (``rummy_env.three_thirteen_v0.env()``) and registers its PettingZoo id
(``pettingzoo.make("aec", "rummy/three_thirteen-v0")``)."""

from pettingzoo import register

from .env import ActionMask
from .registry import GAMES, GameSpec, game_spec
from .state import IllegalActionError

__version__ = "0.1.0"

for _spec in GAMES.values():
    register("aec", _spec.env_id, entry_point=f"{_spec.module.__name__}:env")

__all__ = ["GAMES", "ActionMask", "GameSpec", "IllegalActionError", "__version__", "game_spec",
           *(spec.module.__name__.rpartition(".")[2] for spec in GAMES.values())]
