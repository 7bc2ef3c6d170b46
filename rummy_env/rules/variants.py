"""Variants: presets built on a game's preset, replacing what differs. A variant is a preset
here, one entry in ``games.GAME_RULES`` and a thin env module for its docstring
(docs/architecture.md#adding-a-game)."""

from __future__ import annotations

from dataclasses import replace

from .presets import contract_rummy, for_players
from .spec import DEFAULT_MAX_TURNS_PER_ROUND, GameRules, RoundSpec

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
