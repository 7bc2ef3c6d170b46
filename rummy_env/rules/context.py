"""What every rule component reads: the game's rules and the facts derived from them
once (the card set, the action layout, the meld solver, the wild card)."""

from __future__ import annotations

from typing import Sequence

from ..actions import ActionLayout, run_positions
from ..backend import solver
from ..state import GameState
from .spec import GameRules


class RulesContext:
    """The derived facts of one ``GameRules``, shared by its components."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.card_set = cs = rules.deck.card_set
        self.layout = ActionLayout.of(rules)
        self.solver = solver(cs, rules.melds)
        self.num_players = rules.num_players
        self.natural_values = [rules.rank_penalties[cs.rank(f)] for f in range(cs.num_naturals)]
        """Penalty of each natural face."""
        self.wild_card = cs.wild_card if cs.has_wild_card else -1
        """The joker / Rook face, or -1 where wilds are a rank (Three-Thirteen)."""
        self.R = cs.num_ranks
        self.top = run_positions(cs, rules.melds.ace_high) - 1
        """The highest run position (``R`` where the ace also ends a run high)."""

    def wild_faces(self, state: GameState) -> list[int]:
        """Faces that are wild this round."""
        return self.wild_faces_of_round(state.round)

    def wild_faces_of_round(self, round_index: int) -> list[int]:
        """Faces that are wild in round ``round_index`` (from 0)."""
        if self.wild_card >= 0:
            return [self.wild_card]
        rank = self.rules.rounds[round_index].wild_rank
        if rank is None:
            return []
        cs = self.card_set
        return [cs.face(s, rank) for s in range(cs.num_suits)]

    def split_wilds(self, state: GameState, hand: Sequence[int]) -> tuple[list[int], int]:
        """The hand's natural counts (wild faces removed) and its number of wilds."""
        naturals = list(hand[: self.card_set.num_naturals])
        wilds = 0
        for f in self.wild_faces(state):
            wilds += hand[f]
            if f < len(naturals):
                naturals[f] = 0
        return naturals, wilds


class ContractComponent:
    """Base of the contract games' components: the facts each reads, kept as its own
    attributes (the hot paths read them many times per decision)."""

    def __init__(self, ctx: RulesContext) -> None:
        self.ctx = ctx
        self.rules = ctx.rules
        self.card_set = ctx.card_set
        self.layout = ctx.layout
        self.solver = ctx.solver
        self.play = ctx.rules.contract_play
        self._wild_card = ctx.wild_card
        self._R = ctx.R
        self._top = ctx.top


def is_down(state: GameState, seat: int) -> bool:
    """Whether ``seat`` has gone down this round."""
    return state.down_turn[seat] >= 0
