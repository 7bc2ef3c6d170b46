"""The rules: a game as data (``spec``: ``GameRules``, built by a preset in ``presets``) and
the rule components that the engine puts together from it, one module per concern:
``deal``, ``draw``, ``deep_draw``, ``buy``, ``melding`` (going down and contracts),
``lay_off``, ``swap``, ``discard``, ``contract_turn`` and ``show_hand`` (the turn after the
draw), ``turn_search`` (no dead ends), ``rounds`` and ``scoring`` (docs/architecture.md)."""

from .presets import (
    CONTRACT_RUMMY_DEALS,
    TOONERVILLE_ROOK_ROUNDS,
    contract_rummy,
    three_thirteen,
    toonerville_rook,
)
from .spec import DEFAULT_MAX_TURNS_PER_ROUND, ContractPlay, GameRules, RoundSpec

__all__ = ["CONTRACT_RUMMY_DEALS", "DEFAULT_MAX_TURNS_PER_ROUND", "TOONERVILLE_ROOK_ROUNDS", "ContractPlay",
           "GameRules", "RoundSpec", "contract_rummy", "three_thirteen", "toonerville_rook"]
