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

Every rule, option, action and observation part is Contract Rummy's: the variant is a preset
(``rummy_env/rules/variants.py``: the deals) and its entry in the game registry
(``rummy_env/rules/games.py``); this module is only its env and this spec, and shows how a
variant is added (docs/architecture.md#adding-a-game).

## Version history

* v0: first release.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from .env import RummyEnv, wrap
from .rules.games import GAME_RULES


class raw_env(RummyEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "contract_rummy_quick_v0", "is_parallelizable": False}
    rules_factory = staticmethod(GAME_RULES["contract_rummy_quick"].preset)


def env(**kwargs) -> AECEnv:
    return wrap(raw_env(**kwargs))
