"""
# Contract Rummy, quick (a variant)

| Creation           | `rummy_env.contract_rummy_quick_v0.env()` or `pettingzoo.make("aec", "rummy/contract_rummy_quick-v0")` |
|--------------------|------------------------------------------------------|
| Agents             | `['player_0', ..., 'player_{n-1}']`, n = 3..8 (default 4) |
| Actions, observations | as `contract_rummy_v0` with the same options |

Contract Rummy (`contract_rummy_v0`, docs/rules/contract_rummy.md) in four deals instead of
seven, for shorter episodes: deals 1, 2 and 3 of the full game, then its last deal.

| deal | cards | contract |
|---|---|---|
| 1 | 10 | 2 sets |
| 2 | 10 | 1 set + 1 run |
| 3 | 10 | 2 runs |
| 4 | 12 | 3 runs, using every card (down = out) |

Every rule, option, action and observation part is Contract Rummy's: this module is only a
preset (the deals) and its registration, and shows how a variant is added
(docs/architecture.md#adding-a-game).

## Version history

* v0: first release.
"""

from __future__ import annotations

from dataclasses import replace

from pettingzoo import AECEnv

from .env import RummyEnv, wrap
from .rules import DEFAULT_MAX_TURNS_PER_ROUND, GameRules, RoundSpec, contract_rummy
from .rules.presets import for_players

QUICK_DEALS = ((10, (2, 0)), (10, (1, 1)), (10, (0, 2)), (12, (0, 3)))
"""The variant's deals: cards each, and the contract as ``(sets, runs)``."""


@for_players(3, 8)
def contract_rummy_quick(
    num_players: int = 4,
    num_decks: int | None = None,
    num_jokers: int | None = None,
    max_deep_draw: int = 20,
    max_table_melds: int | None = None,
    max_turns_per_round: int = DEFAULT_MAX_TURNS_PER_ROUND,
) -> GameRules:
    """Contract Rummy's rules with ``QUICK_DEALS``; the last deal goes down with every card."""
    full = contract_rummy(num_players, num_decks, num_jokers, max_deep_draw, max_table_melds, max_turns_per_round)
    last = len(QUICK_DEALS) - 1
    rounds = tuple(RoundSpec(hand_size=size, contract=contract, down_means_out=(k == last))
                   for k, (size, contract) in enumerate(QUICK_DEALS))
    return replace(full, game="contract_rummy_quick", rounds=rounds)


class raw_env(RummyEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "contract_rummy_quick_v0", "is_parallelizable": False}
    rules_factory = staticmethod(contract_rummy_quick)


def env(**kwargs) -> AECEnv:
    return wrap(raw_env(**kwargs))
