"""Scoring a hand left at the round's end (docs/rules/three_thirteen.md#scoring,
docs/rules/contract_rummy.md#scoring, docs/rules/toonerville_rook.md#scoring)."""

from __future__ import annotations

from ..state import GameState
from .context import RulesContext


class CardValuePenalty:
    """Contract games: the plain sum of the cards' values, a wild card at its own value."""

    def __init__(self, ctx: RulesContext, wild_penalty: int) -> None:
        self._natural_values = ctx.natural_values
        self._wild_card = ctx.wild_card
        self._wild_penalty = wild_penalty

    def hand_penalty(self, state: GameState, seat: int) -> int:
        hand = state.hands[seat]
        values = self._natural_values
        total = sum(values[f] * hand[f] for f in range(len(values)) if hand[f])
        return total + (hand[self._wild_card] * self._wild_penalty if self._wild_card >= 0 else 0)


class ArrangedPenalty:
    """Three-Thirteen: the least penalty over every arrangement of the hand into melds; an
    unmatched wild-rank card scores its own rank's value."""

    def __init__(self, ctx: RulesContext) -> None:
        self.ctx = ctx

    def hand_penalty(self, state: GameState, seat: int) -> int:
        ctx = self.ctx
        naturals, wilds = ctx.split_wilds(state, state.hands[seat])
        if not wilds and not any(naturals):
            return 0
        wild_rank = ctx.rules.rounds[state.round].wild_rank
        wild_value = ctx.rules.rank_penalties[wild_rank] if wild_rank is not None else 0
        return ctx.solver.min_penalty(naturals, wilds, ctx.natural_values, wild_value)
