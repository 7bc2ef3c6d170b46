"""Contract-style rummy games as PettingZoo AEC environments (rules: docs/rules/README.md)."""

from pettingzoo import register

from . import contract_rummy_v0, three_thirteen_v0, toonerville_rook_v0
from .engine import IllegalActionError
from .env import ActionMask

__version__ = "0.1.0"

register("aec", "rummy/three_thirteen-v0", entry_point="rummy_env.three_thirteen_v0:env")
register("aec", "rummy/contract_rummy-v0", entry_point="rummy_env.contract_rummy_v0:env")
register("aec", "rummy/toonerville_rook-v0", entry_point="rummy_env.toonerville_rook_v0:env")

__all__ = ["contract_rummy_v0", "three_thirteen_v0", "toonerville_rook_v0", "ActionMask", "IllegalActionError", "__version__"]
