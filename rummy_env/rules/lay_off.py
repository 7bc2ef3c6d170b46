"""Laying off: which cards fit which melds on the table, where a card goes on a run, and the
rule that a wild swapped before going down goes into this turn's going-down melds
(docs/rules/contract_rummy.md#lay-off-placement, docs/rules/toonerville_rook.md#wild-swaps)."""

from __future__ import annotations

import itertools
from typing import Sequence

from ..actions import run_positions
from ..cards import CardSet
from ..melds import Meld, MeldRules
from ..state import GameState, TableMeld
from .context import ContractComponent, RulesContext
from .melding import SEARCH_MEMO_LIMIT


class LayOffFit:
    """Where one card may be laid off on a meld: the rule itself, shared by the engine and by
    agents reading the table from their observation (docs/rules/contract_rummy.md#lay-off-placement,
    docs/rules/toonerville_rook.md#lay-off-placement)."""

    def __init__(self, card_set: CardSet, melds: MeldRules) -> None:
        self.R = card_set.num_ranks
        self.top = run_positions(card_set, melds.ace_high) - 1
        self.naturals = card_set.num_naturals
        self.wild = card_set.wild_card if card_set.has_wild_card else -1
        self.set_max = melds.set_max
        self.distinct = melds.set_distinct_suits

    def end(self, kind: str, size: int, rank_or_suit: int, low: int, high: int, face: int,
            holds_face: bool) -> str | None:
        """``"set"``, or a run's ``"high"`` or ``"low"`` end, where ``face`` goes on a meld of
        ``size`` cards (a set of ``rank_or_suit``'s rank, holding a natural of ``face`` or not;
        a run of that suit over positions ``low..high``), or ``None`` if it does not fit. A
        wild, or an ace that fits both ends, goes to the high end of a run when it is open."""
        R = self.R
        if kind == "set":
            if self.set_max is not None and size >= self.set_max:
                return None
            if face == self.wild:
                return "set"
            if face % R != rank_or_suit or face >= self.naturals or (self.distinct and holds_face):
                return None
            return "set"
        if size >= R:
            return None
        high_ok = high < self.top and not (high + 1 == R and low == 0)
        low_ok = low > 0 and not (low - 1 == 0 and high == R)
        if face == self.wild:
            return "high" if high_ok else "low" if low_ok else None
        if face >= self.naturals or face // R != rank_or_suit:
            return None
        rank = face % R
        if high_ok and (rank == high + 1 or (rank == 0 and high + 1 == R)):
            return "high"
        if low_ok and rank == low - 1:
            return "low"
        return None


class LayOffs(ContractComponent):
    """The lay-offs the table takes, cached by the table's stamp."""

    def __init__(self, ctx: RulesContext) -> None:
        super().__init__(ctx)
        self.fit = LayOffFit(ctx.card_set, ctx.rules.melds)
        self._fits_memo: dict[tuple, tuple[int, ...]] = {}
        self._lay_offs_cache: dict[int, tuple[list[int], list[int]]] = {}
        self._last_lay_offs: tuple[list[TableMeld], list[tuple[int, ...]]] = ([], [])

    def lay_off_moves(self, state: GameState, hand: Sequence[int]) -> list[int]:
        actions, faces = self._lay_offs_of_table(state)
        return list(itertools.compress(actions, map(hand.__getitem__, faces)))  # those of faces held, in C

    def _lay_offs_of_table(self, state: GameState) -> tuple[list[int], list[int]]:
        """Every lay-off the table takes, ascending, and the face of each; cached by the
        table's stamp (the table changes on few steps)."""
        hit = self._lay_offs_cache.get(state.table_stamp)
        if hit is None:
            # Most changes touch one slot: reuse the lay-offs of the melds (the same
            # objects) of the table last computed.
            start, F = self.layout.start("lay_off"), self.card_set.num_faces
            last_table, last_per_slot = self._last_lay_offs
            per_slot = []
            for slot, tm in enumerate(state.table):
                if slot < len(last_table) and last_table[slot] is tm:
                    per_slot.append(last_per_slot[slot])
                else:
                    per_slot.append(self.fitting_faces(tm.meld))
            self._last_lay_offs = (list(state.table), per_slot)
            actions = [start + slot * F + f for slot, faces in enumerate(per_slot) for f in faces]
            hit = (actions, [f for faces in per_slot for f in faces])
            if len(self._lay_offs_cache) > 256:
                self._lay_offs_cache.clear()
            self._lay_offs_cache[state.table_stamp] = hit
        return hit

    def fitting_faces(self, meld: Meld) -> tuple[int, ...]:
        """The faces that may be laid off on a meld, ascending, memoised on what decides
        them: a set's rank, and its size and naturals only where the rules look at them;
        a run's place."""
        mr = self.rules.melds
        if meld.kind == "set":
            key = ("set", meld.rank, -1 if mr.set_max is None else meld.size,
                   meld.naturals if mr.set_distinct_suits else ())
        else:
            key = ("run", meld.suit, meld.low, meld.high)
        fits = self._fits_memo.get(key)
        if fits is None:
            cs, R = self.card_set, self._R
            if meld.kind == "set":
                candidates = [cs.face(s, meld.rank) for s in range(cs.num_suits)]
            else:
                candidates = [cs.face(meld.suit, q % R) for q in (meld.low - 1, meld.high + 1) if 0 <= q <= self._top]
            if self._wild_card >= 0:
                candidates.append(self._wild_card)
            fits = tuple(sorted({f for f in candidates if self.lay_off_place(meld, f) is not None}))
            if len(self._fits_memo) > SEARCH_MEMO_LIMIT:
                self._fits_memo.clear()
            self._fits_memo[key] = fits
        return fits

    def lay_off_place(self, meld: Meld, face: int) -> Meld | None:
        """The meld with ``face`` added, or ``None`` if it does not fit (``LayOffFit``)."""
        end = self.fit.end(meld.kind, meld.size, meld.rank if meld.kind == "set" else meld.suit,
                           meld.low, meld.high, face, face in meld.naturals)
        if end is None:
            return None
        wild = face == self._wild_card
        naturals, wilds = (meld.naturals, meld.wilds + 1) if wild else (meld.naturals + (face,), meld.wilds)
        if end == "set":
            return Meld("set", naturals, wilds, rank=meld.rank)
        low, high = (meld.low, meld.high + 1) if end == "high" else (meld.low - 1, meld.high)
        return Meld("run", naturals, wilds, suit=meld.suit, low=low, high=high)

    def no_spare_wild(self, state: GameState) -> bool:
        """Whether every wild in the player's hand is owed to this turn's going-down melds."""
        return 0 < state.hands[state.current][self._wild_card] <= state.wilds_to_meld

    def wild_on_others_meld(self, state: GameState, action: int) -> bool:
        """Whether the lay-off ``action`` puts a wild on a meld another player laid."""
        face, slot = self.layout.args[action]
        return face == self._wild_card and state.table[slot].owner != state.current
