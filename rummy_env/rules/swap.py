"""Wild swaps: a natural from the hand takes the place of a wild in a run on the table, and
the wild comes back to the hand (docs/rules/contract_rummy.md#wild-swaps,
docs/rules/toonerville_rook.md#wild-swaps)."""

from __future__ import annotations

import itertools
from typing import Sequence

from ..state import GameState
from .context import ContractComponent, RulesContext


class Swaps(ContractComponent):
    """The swaps the table offers, cached by the table's stamp."""

    def __init__(self, ctx: RulesContext) -> None:
        super().__init__(ctx)
        self._swaps_cache: dict[int, tuple[list[int], list[int]]] = {}

    def swap_moves(self, state: GameState, hand: Sequence[int]) -> list[int]:
        actions, faces = self._swaps_of_table(state)
        return list(itertools.compress(actions, map(hand.__getitem__, faces)))  # those of faces held, in C

    def _swaps_of_table(self, state: GameState) -> tuple[list[int], list[int]]:
        """Every swap the table offers (a natural for a wild in a run), ascending, and the
        face each gives; cached by the table's stamp."""
        hit = self._swaps_cache.get(state.table_stamp)
        if hit is None:
            R, pairs = self._R, []
            for slot, tm in enumerate(state.table):
                meld = tm.meld
                if meld.kind == "run" and meld.wilds:
                    for q in meld.wild_positions(R):
                        f = meld.suit * R + q % R
                        pairs.append((self.layout.swap(f, slot), f))
            pairs.sort()
            hit = ([a for a, _ in pairs], [f for _, f in pairs])
            if len(self._swaps_cache) > 256:
                self._swaps_cache.clear()
            self._swaps_cache[state.table_stamp] = hit
        return hit

    def swap_faces(self, state: GameState) -> list[int]:
        """The naturals the player to act would give for every wild it could take off the
        table's runs by swaps at once: per face, the fewer of its cards in hand and of the
        wilds standing for it."""
        hand, R = state.hands[state.current], self._R
        wanted: dict[int, int] = {}
        for tm in state.table:
            if tm.meld.kind == "run" and tm.meld.wilds:
                for q in tm.meld.wild_positions(R):
                    f = tm.meld.suit * R + q % R
                    wanted[f] = wanted.get(f, 0) + 1
        return [f for f, k in wanted.items() for _ in range(min(k, hand[f]))]
