"""Contract-style rummy games as PettingZoo AEC environments (rules: docs/rules/README.md)."""

from pettingzoo import register

from . import contract_rummy_v0, three_thirteen_v0, toonerville_rook_v0
from .state import IllegalActionError
from .env import ActionMask
from .registry import GAMES, GameSpec, game_spec

__version__ = "0.1.0"

for _spec in GAMES.values():
    register("aec", _spec.env_id, entry_point=f"{_spec.module.__name__}:env")

__all__ = ["GAMES", "GameSpec", "game_spec", "contract_rummy_v0", "three_thirteen_v0", "toonerville_rook_v0", "ActionMask", "IllegalActionError", "__version__"]
