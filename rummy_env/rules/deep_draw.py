"""Deep draws (docs/rules/contract_rummy.md#deep-draws): ``draw discard N`` takes the N-th
card from the top of the discard pile and every card above it, and the N-th card must reach
the table this turn; offered only for depths whose card can."""

from __future__ import annotations

from typing import Sequence

from ..state import GameState, TableMeld
from ..melds import PRESENT, suit_rows
from .context import ContractComponent, RulesContext, is_down
from .draw import take_from_discard
from .lay_off import LayOffs
from .turn_search import TurnSearch


class DeepDraw(ContractComponent):
    """The deep draws a player may take now."""

    def __init__(self, ctx: RulesContext, search: TurnSearch, lay_offs: LayOffs) -> None:
        super().__init__(ctx)
        self.search = search
        self.lay_offs = lay_offs
        self._table_facts_cache: dict[int, tuple] = {}

    def legal(self, state: GameState) -> list[int]:
        """``draw discard N`` for each depth whose card can be put on the table this turn."""
        deepest = min(self.layout.max_deep_draw, len(state.discard))
        p = state.current
        spec = self.rules.rounds[state.round]
        down = is_down(state, p)
        naturals, wilds = self.ctx.split_wilds(state, state.hands[p])
        # melds of the contract's kinds, or any kind where more may follow going down
        could_make = (1, 1) if self.play.melds_after_down else spec.contract
        smallest: list[int] = []  # the shallowest depth that can make the contract, found lazily

        def contract_depth() -> int:
            # More cards never make a contract impossible: bisect for the shallowest depth.
            if not smallest:
                low, high = 2, deepest + 1
                while low < high:
                    mid = (low + high) // 2
                    counts, w = self._with_cards(naturals, wilds, state.discard[-mid:])
                    if self.solver.can_make_contract(counts, w, *spec.contract):
                        high = mid
                    else:
                        low = mid + 1
                smallest.append(low)
            return smallest[0]

        if not down:
            counts, w = self._with_cards(naturals, wilds, state.discard[-deepest:])
            if spec.down_means_out:
                # going down must then take every card of the hand
                if not self.solver.each_could_meld(counts, w, naturals, *spec.contract):
                    return []
            elif not self.solver.can_make_contract(counts, w, *spec.contract):
                return []  # not even every card down to the deepest makes the contract
        actions = []
        # a player down before this turn may swap wilds off the table to fill gaps
        may_swap = down or not self.play.swap_needs_earlier_down
        pool = _CardPool(self, naturals, wilds, state.table, state.table_stamp, may_swap)
        sets_wanted, runs_wanted = could_make
        for depth in range(1, deepest + 1):
            face = state.discard[-depth]
            pool.add(face)  # the pool: the hand and the cards down to this depth
            if depth < 2:
                continue
            if down:
                if not pool.could_lay_off(face):
                    continue
            else:
                if not pool.could_meld(face, sets_wanted, runs_wanted):
                    continue
                if not spec.down_means_out and depth < contract_depth():
                    continue
            after = self.search.scratch(state)
            after.discard = list(state.discard)
            after.discard_seats = list(state.discard_seats)  # taken with the cards: not the state's own
            after.discard_counts = bytearray(state.discard_counts)
            take_from_discard(after, depth)
            if self.search.finishable(after):
                actions.append(self.layout.deep_draw(depth))
        return actions

    def _with_cards(self, naturals: list[int], wilds: int, cards: Sequence[int]) -> tuple[list[int], int]:
        counts = list(naturals)
        for f in cards:
            if f == self._wild_card:
                wilds += 1
            else:
                counts[f] += 1
        return counts, wilds

    def table_facts(
        self, stamp: int, table: Sequence[TableMeld]
    ) -> tuple[frozenset[int], list[list[tuple[int, int]]], int]:
        """The faces that fit a set on the table, each suit's runs ``(low, high)``, and the
        wilds in runs; cached by the table's stamp (the table changes on few steps)."""
        hit = self._table_facts_cache.get(stamp)
        if hit is None:
            fits = frozenset(f for tm in table if tm.meld.kind == "set" for f in self.lay_offs.fitting_faces(tm.meld))
            runs: list[list[tuple[int, int]]] = [[] for _ in range(self.card_set.num_suits)]
            wilds = 0
            for tm in table:
                if tm.meld.kind == "run":
                    runs[tm.meld.suit].append((tm.meld.low, tm.meld.high))
                    wilds += tm.meld.wilds
            if len(self._table_facts_cache) > 256:
                self._table_facts_cache.clear()
            hit = self._table_facts_cache[stamp] = (fits, runs, wilds)
        return hit


class _CardPool:
    """A growing pool of cards (a hand plus the discards down to some depth) that answers
    in constant time fast necessary conditions for putting one of its cards on the table
    this turn: it is a wild; or a set or a run of the pool could hold it (going down); or
    it fits a set on the table, or the end of a run of its suit once the pool's cards and
    wilds (and, for a player who may swap, every wild in a run on the table) fill the gap
    to it (a lay-off after other lay-offs).

    Run positions held are kept per suit as an int with one byte per position (0 or 1),
    built from the hand's counts in C: a window's popcount counts the positions held.
    """

    def __init__(
        self, deep_draw: DeepDraw, naturals: list[int], wilds: int, table: Sequence[TableMeld], table_stamp: int,
        may_swap: bool,
    ) -> None:
        cs, mr = deep_draw.card_set, deep_draw.rules.melds
        R = self.R = deep_draw._R
        self.top, self.wild = deep_draw._top, deep_draw._wild_card
        self.set_min, self.run_min, self.distinct = mr.set_min, mr.run_min, mr.set_distinct_suits
        self.ace_high = self.top == R
        self.wilds = wilds
        rows = suit_rows(naturals, R, cs.num_suits)
        present = [row.translate(PRESENT) for row in rows]
        # per rank, the distinct suits (or the cards) held
        by_rank = present if self.distinct else rows
        self.same_rank = list(sum(int.from_bytes(row, "little") for row in by_rank).to_bytes(R, "little"))
        self.fits_a_set, self.runs, wilds_in_runs = deep_draw.table_facts(table_stamp, table)
        self.swappable = wilds_in_runs if may_swap else 0
        self.window = int.from_bytes(bytes([1] * self.run_min), "little")
        self.positions = [int.from_bytes(row, "little") for row in present]
        if self.ace_high:
            self.positions = [held | (held & 1) << (8 * R) for held in self.positions]

    def add(self, face: int) -> None:
        if face == self.wild:
            self.wilds += 1
            return
        rank, suit = face % self.R, face // self.R
        held = self.positions[suit]
        if not self.distinct or not held >> (8 * rank) & 1:
            self.same_rank[rank] += 1
        held |= 1 << (8 * rank)
        if rank == 0 and self.ace_high:
            held |= 1 << (8 * self.R)
        self.positions[suit] = held

    def _positions(self, face: int) -> tuple[int, ...]:
        rank = face % self.R
        return (0, self.R) if rank == 0 and self.ace_high else (rank,)

    def could_lay_off(self, face: int) -> bool:
        if face == self.wild or face in self.fits_a_set:
            return True
        held = self.positions[face // self.R]
        for low, high in self.runs[face // self.R]:
            for q in self._positions(face):
                if q > high:
                    first, last = high + 1, q - 1
                elif q < low:
                    first, last = q + 1, low - 1
                else:
                    continue
                gap = last - first + 1
                if gap <= 0:
                    return True
                have = (held >> (8 * first) & int.from_bytes(bytes([1] * gap), "little")).bit_count()
                if gap - have <= self.wilds + self.swappable:
                    return True
        return False

    def could_meld(self, face: int, sets: int, runs: int) -> bool:
        """Going down with a contract of ``sets`` sets and ``runs`` runs, then laying off."""
        if self.could_lay_off(face):
            return True
        rank, suit = face % self.R, face // self.R
        if sets and self.same_rank[rank] + self.wilds >= self.set_min:
            return True
        if runs:
            # a run through the face: then some shortest run window through it fills too
            run_min, held, window = self.run_min, self.positions[suit], self.window
            need = run_min - self.wilds
            for position in self._positions(face):
                for low in range(max(0, position - run_min + 1), min(position, self.top - run_min + 1) + 1):
                    if (held >> (8 * low) & window).bit_count() >= need:
                        return True
        return False
