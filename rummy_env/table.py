"""The compiled core's tables, built from a game's rules (the engine layer: it reads
``GameRules``). So far ``compiled_table``: one table of a game without contract play, played
as ``rummy_env.engine.Engine`` plays it, step for step (docs/architecture.md#the-compiled-core)."""

from __future__ import annotations

from . import _core
from .rules.spec import GameRules


def compiled_table(rules: GameRules) -> _core.Table:
    """The compiled core's ``Table`` for ``rules``: one table dealt and played as the Python
    engine plays it (``rummy_env.engine.Engine``), step for step. Games without contract
    play so far (Three-Thirteen); a contract game is a ``ValueError``."""
    if rules.contract_play is not None:
        raise ValueError(f"the compiled table plays games without contract play so far, not {rules.game}")
    cs, melds = rules.deck.card_set, rules.melds
    return _core.Table(
        rules.num_players, cs.num_suits, cs.num_ranks, cs.has_wild_card, rules.deck.cards(), melds.set_min,
        -1 if melds.set_max is None else melds.set_max, melds.set_distinct_suits, melds.run_min, melds.ace_high,
        melds.all_wild_melds, list(rules.rank_penalties), [r.hand_size for r in rules.rounds],
        [-1 if r.wild_rank is None else r.wild_rank for r in rules.rounds], rules.max_turns_per_round)
