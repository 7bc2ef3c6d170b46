"""The compiled core's tables, built from a game's rules (the engine layer: it reads
``GameRules``). So far one table (``compiled_table``, and
``table_arguments`` for the core's ``Batch`` of many) of a game without contract play, played
as ``rummy_env.engine.Engine`` plays it, step for step (docs/architecture.md#the-compiled-core)."""

from __future__ import annotations

from typing import Any

from . import _core
from .rules.spec import GameRules


def compiled_table(rules: GameRules) -> _core.Table:
    """The compiled core's ``Table`` for ``rules``: one table dealt and played as the Python
    engine plays it (``rummy_env.engine.Engine``), step for step. Games without contract
    play so far (Three-Thirteen); a contract game is a ``ValueError``."""
    return _core.Table(**table_arguments(rules))


def table_arguments(rules: GameRules) -> dict[str, Any]:
    """The rules as the core's ``Table`` and ``Batch`` take them (``ValueError`` for a
    contract game, which the core does not play yet)."""
    if rules.contract_play is not None:
        raise ValueError(f"the compiled table plays games without contract play so far, not {rules.game}")
    cs, melds = rules.deck.card_set, rules.melds
    return dict(
        num_players=rules.num_players, num_suits=cs.num_suits, num_ranks=cs.num_ranks,
        has_wild_card=cs.has_wild_card, cards=rules.deck.cards(), set_min=melds.set_min,
        set_max=-1 if melds.set_max is None else melds.set_max, set_distinct_suits=melds.set_distinct_suits,
        run_min=melds.run_min, ace_high=melds.ace_high, all_wild_melds=melds.all_wild_melds,
        rank_penalties=list(rules.rank_penalties), hand_sizes=[r.hand_size for r in rules.rounds],
        wild_ranks=[-1 if r.wild_rank is None else r.wild_rank for r in rules.rounds],
        max_turns_per_round=rules.max_turns_per_round)
