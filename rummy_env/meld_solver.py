"""Arranging a hand into melds, for every game: whether the cards meld completely, which
card to go out with, and the least penalty over every arrangement.

The solver is an exact search: the lowest remaining natural must be unmatched or lie in a
set or a run, and every meld containing it is enumerated (a natural may be passed over in
favour of a wild when that frees it for another meld). Subproblems are memoised on the
remaining cards, so the repeated queries of one turn (``go out`` with each card) share work.
Wilds left over after the naturals are placed join melds that have room (sets without a
maximum, runs short of a full suit), or form a set of their own where the rules allow it.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from .cards import CardSet
from .melds import FACE_BITS, MEMO_LIMIT, UNLIMITED, Meld, MeldRules, encode_cards, encode_counts


class MeldSolver:
    """Exact meld queries for one deck and one set of meld rules."""

    def __init__(self, card_set: CardSet, rules: MeldRules) -> None:
        self.card_set = card_set
        self.rules = rules
        self._R = card_set.num_ranks
        self._S = card_set.num_suits
        self._N = card_set.num_naturals
        self._max_pos = self._R - 1 + (1 if rules.ace_high else 0)
        self._full_memo: dict = {}
        self._pen_memo: dict = {}
        self._need_memo: dict = {}
        self._lone_cost = min(rules.set_min, rules.run_min) - 1

    # ------------------------------------------------------------------ validation
    def set_is_valid(self, naturals: Sequence[int], wilds: int) -> bool:
        r = self.rules
        size = len(naturals) + wilds
        if size < r.set_min or (r.set_max is not None and size > r.set_max):
            return False
        if not naturals:
            return r.all_wild_melds
        rank = naturals[0] % self._R
        if any(f % self._R != rank for f in naturals):
            return False
        return not r.set_distinct_suits or len({f // self._R for f in naturals}) == len(naturals)

    def run_placements(self, naturals: Sequence[int], wilds: int) -> list[tuple[int, int]]:
        """Every ``(suit, low)`` at which the cards make a legal run (empty: not a run)."""
        size = len(naturals) + wilds
        if size < self.rules.run_min or size > self._R or not naturals:
            return []
        suit = naturals[0] // self._R
        if any(f // self._R != suit for f in naturals):
            return []
        ranks = [f % self._R for f in naturals]
        if len(set(ranks)) != len(ranks):
            return []
        placements = []
        for low in range(0, self._max_pos - size + 2):
            span = range(low, low + size)
            if all(r in span or (r == 0 and self._R in span) for r in ranks):
                if 0 in ranks and 0 in span and self._R in span:
                    continue
                placements.append((suit, low))
        return placements

    def is_valid(self, meld: Meld) -> bool:
        """Whether a fully placed meld is legal (wilds standing for the empty places)."""
        if meld.kind == "set":
            return self.set_is_valid(meld.naturals, meld.wilds) and (
                not meld.naturals or meld.rank == meld.naturals[0] % self._R
            )
        return (meld.suit, meld.low) in self.run_placements(meld.naturals, meld.wilds) and (
            meld.high - meld.low + 1 == meld.size
        )

    # ------------------------------------------------------------------ options
    def _meld_options(
        self, counts: list[int], i: int, wilds: int
    ) -> Iterator[tuple[tuple[int, ...], int, int, tuple]]:
        """Melds containing natural face ``i``, using only faces >= ``i`` for sets and
        suit ``i``'s remaining cards for runs: ``(faces, wilds_used, room, place)``, where
        ``place`` is ``(rank,)`` for a set and ``(suit, low, high)`` for a run."""
        yield from self._set_options(counts, i, wilds)
        yield from self._run_options(counts, i, wilds)

    def _set_options(self, counts, i, wilds):
        R, r = self._R, self.rules
        rank, suit = i % R, i // R
        distinct = r.set_distinct_suits
        # Per suit (from i's own suit up), how many copies of this rank may join.
        choices = [(i, range(1, 2 if distinct else counts[i] + 1))]
        for t in range(suit + 1, self._S):
            f = t * R + rank
            if counts[f]:
                choices.append((f, range(0, 2 if distinct else counts[f] + 1)))
        picks: list[tuple[int, ...]] = [()]
        for f, rng in choices:
            picks = [p + (f,) * k for p in picks for k in rng]
        for faces in picks:
            n = len(faces)
            need = r.set_min - n if n < r.set_min else 0
            if need > wilds or (r.set_max is not None and n + need > r.set_max):
                continue
            room = UNLIMITED if r.set_max is None else r.set_max - n - need
            yield faces, need, room, (rank,)

    def _run_options(self, counts, i, wilds):
        R, r = self._R, self.rules
        suit, p0 = i // R, i % R
        base = suit * R
        run_min = r.run_min
        # Upward from i: lower ranks of this suit are already placed, so places below i
        # hold wilds only; a wild there is equivalent to one above the top natural.
        stack = [(p0, (i,), 0)]
        while stack:
            q, faces, gaps = stack.pop()
            length = q - p0 + 1
            pad = run_min - length if length < run_min else 0
            if gaps + pad <= wilds and length + pad <= R and (self._max_pos - q) + p0 >= pad:
                high = min(self._max_pos, q + pad)
                yield faces, gaps + pad, R - length - pad, (suit, p0 - (pad - (high - q)), high)
            # Extend with the next natural above q, bridging a gap of wilds.
            for nq in range(q + 1, R):
                g = gaps + (nq - q - 1)
                if g > wilds or nq - p0 + 1 > R:
                    break
                if counts[base + nq]:
                    stack.append((nq, faces + (base + nq,), g))
        if p0 == 0 and r.ace_high:
            # The ace placed high: the run reaches down from position R.
            stack = [(R, (i,), 0)]
            while stack:
                q, faces, gaps = stack.pop()
                length = R - q + 1
                pad = run_min - length if length < run_min else 0
                if q < R and gaps + pad <= wilds and length + pad <= R and q - 1 >= pad:
                    yield faces, gaps + pad, R - length - pad, (suit, q - pad, R)
                for nq in range(q - 1, 0, -1):
                    g = gaps + (q - nq - 1)
                    if g > wilds:
                        break
                    if counts[base + nq]:
                        stack.append((nq, faces + (base + nq,), g))

    def _leftover_wilds_unplaced(self, wilds: int, room: int) -> int:
        """How many leftover wilds cannot be put in a meld."""
        if wilds <= room:
            return 0
        if self.rules.all_wild_melds and wilds >= self.rules.set_min:
            return 0
        return wilds - room

    # ------------------------------------------------------------------ full melding
    def can_meld_all(self, counts: list[int], wilds: int) -> bool:
        """Whether the naturals ``counts`` and ``wilds`` wilds can all be put in melds."""
        if len(self._full_memo) > MEMO_LIMIT:
            self._full_memo.clear()
        counts = list(counts)
        return self._full(counts, encode_counts(counts), 0, wilds, 0)

    def _full(self, counts, code, start, wilds, room):
        key = (code, wilds, room if room < wilds else wilds)
        memo = self._full_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        i, n = start, self._N
        while i < n and not counts[i]:
            i += 1
        if i == n:
            result = self._leftover_wilds_unplaced(wilds, room) == 0
        else:
            result = False
            for faces, used, meld_room, _ in self._meld_options(counts, i, wilds):
                c = code
                for f in faces:
                    counts[f] -= 1
                    c -= 1 << (FACE_BITS * f)
                ok = self._full(counts, c, i, wilds - used, room + meld_room)
                for f in faces:
                    counts[f] += 1
                if ok:
                    result = True
                    break
        memo[key] = result
        return result

    def meldable_without_one(self, counts: list[int], wilds: int) -> tuple[list[int], bool]:
        """Which single card may be left out so that all the rest melds: the natural faces,
        and whether leaving out one wild works.

        Naturals that could share a meld (same rank, or same suit within reach of the
        wilds) form groups, and no meld spans two groups; so the wilds needed to meld
        every natural is the sum over groups of each group's exact need, memoised by the
        group's cards. Leaving out a card changes only its own group, and groups mostly
        survive from one turn to the next, so a turn's queries are mostly memo hits.
        """
        groups = self._groups(counts, wilds)
        # Capped needs are lower bounds; one capped group makes every other's rest exceed wilds.
        codes = [encode_cards(g) for g in groups]
        needs = [self._group_need(c, g, wilds + self._lone_cost + 1) for c, g in zip(codes, groups)]
        total = sum(needs)
        faces: list[int] = []
        if total - self._lone_cost <= wilds:
            for group, code, need in zip(groups, codes, needs):
                rest = total - need
                if rest > wilds:
                    continue
                for f in dict.fromkeys(group):
                    left = [g for g in group if g != f] + [f] * (counts[f] - 1)
                    need_left = self._group_need(code - (1 << (FACE_BITS * f)), left, wilds - rest + 1)
                    if rest + need_left <= wilds and self._places_leftover(counts, f, wilds, wilds - rest - need_left):
                        faces.append(f)
        wild_ok = 0 < wilds and total <= wilds - 1 and self._places_leftover(counts, None, wilds - 1, wilds - 1 - total)
        return faces, wild_ok

    def _places_leftover(self, counts: list[int], left_out: int | None, wilds: int, leftover: int) -> bool:
        """Whether the hand (less ``left_out``) melds with ``wilds`` wilds, given that its
        naturals meld with ``leftover`` wilds to spare."""
        if leftover == 0 or (self.rules.all_wild_melds and leftover >= self.rules.set_min):
            return True
        if left_out is None:
            return self.can_meld_all(counts, wilds)
        work = list(counts)
        work[left_out] -= 1
        return self.can_meld_all(work, wilds)

    def _groups(self, counts: list[int], wilds: int) -> list[list[int]]:
        """The naturals (one entry per card) split into groups that no meld can span:
        cards of one suit whose ranks are within reach of the wilds chain into intervals,
        and cards of one rank join their intervals."""
        R, reach = self._R, 1 + wilds
        present = [f for f, k in enumerate(counts) if k]
        parent: list[int] = []
        label: list[int] = []
        prev = -R
        for f in present:  # faces ascend suit by suit, so neighbours are adjacent here
            if f - prev > reach or f // R != prev // R:
                parent.append(len(parent))
            label.append(len(parent) - 1)
            prev = f

        def root(k: int) -> int:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        def join(a: int, b: int) -> None:
            a, b = root(a), root(b)
            if a != b:
                parent[a] = b

        first_of_rank: dict[int, int] = {}
        for f, k in zip(present, label):
            rank = f % R
            if rank in first_of_rank:
                join(k, first_of_rank[rank])
            else:
                first_of_rank[rank] = k
        if self.rules.ace_high:  # an ace placed above the king reaches the suit's top card
            for j, f in enumerate(present):
                if f % R == 0:
                    top = max(g for g in present if g // R == f // R)
                    if top != f and R - top % R <= reach:
                        join(label[j], label[present.index(top)])
        groups: dict[int, list[int]] = {}
        for f, k in zip(present, label):
            groups.setdefault(root(k), []).extend([f] * counts[f])
        return list(groups.values())

    def _group_need(self, code: int, cards: list[int], cap: int) -> int:
        """Fewest wilds with which every one of ``cards`` (naturals; ``code`` encodes
        them) is in a meld, if that is below ``cap``; otherwise ``cap`` (at least that)."""
        if not code:
            return 0
        hit = self._need_memo.get(code)
        if hit is not None and (hit[1] or hit[0] >= cap):
            return min(hit[0], cap)
        if len(self._need_memo) > MEMO_LIMIT:
            self._need_memo.clear()
        counts = [0] * self._N
        for f in cards:
            counts[f] += 1
        return self._need(counts, code, min(cards), cap)

    def _need(self, counts, code, start, cap):
        # The memo holds (value, exact): an exact need, or a lower bound found under a cap.
        if not code:
            return 0
        hit = self._need_memo.get(code)
        if hit is not None and (hit[1] or hit[0] >= cap):
            return min(hit[0], cap)
        if cap <= 0:
            return 0
        i = start
        while not counts[i]:
            i += 1
        best = cap
        for faces, used, _, _ in self._meld_options(counts, i, cap - 1):
            if used >= best:
                continue
            c = code
            for f in faces:
                counts[f] -= 1
                c -= 1 << (FACE_BITS * f)
            sub = used + self._need(counts, c, i, best - used)
            for f in faces:
                counts[f] += 1
            if sub < best:
                best = sub
        self._need_memo[code] = (best, best < cap)
        return best

    # ------------------------------------------------------------------ least penalty
    def min_penalty(
        self, counts: list[int], wilds: int, values: Sequence[int], wild_value: int
    ) -> int:
        """The least total penalty of the unmatched cards over every arrangement."""
        return self._penalty_search(list(counts), wilds, tuple(values), wild_value)

    # ------------------------------------------------------------------ many hands at once
    def min_penalty_many(self, counts: np.ndarray, wilds: Sequence[int], values: Sequence[int],
                         wild_value: int) -> np.ndarray:
        """``min_penalty`` of each hand of a batch: ``counts`` ``[B, naturals]``, ``wilds``
        ``[B]``; int32 ``[B]`` (the compiled core answers in one call)."""
        rows, wilds = _rows(counts, wilds, self.card_set.num_naturals)
        return np.array([self.min_penalty(row, w, values, wild_value) for row, w in zip(rows, wilds)],
                        dtype=np.int32).reshape(len(rows))

    def can_meld_all_many(self, counts: np.ndarray, wilds: Sequence[int]) -> np.ndarray:
        """``can_meld_all`` of each hand of a batch: bool ``[B]``."""
        rows, wilds = _rows(counts, wilds, self.card_set.num_naturals)
        return np.array([self.can_meld_all(row, w) for row, w in zip(rows, wilds)], dtype=np.bool_).reshape(len(rows))

    def meldable_without_one_many(self, counts: np.ndarray, wilds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """``meldable_without_one`` of each hand of a batch: the natural faces that may be
        left out (bool ``[B, naturals]``) and whether a wild may (bool ``[B]``)."""
        rows, wilds = _rows(counts, wilds, self.card_set.num_naturals)
        faces = np.zeros((len(rows), self.card_set.num_naturals), dtype=np.bool_)
        wild_ok = np.zeros(len(rows), dtype=np.bool_)
        for i, (row, w) in enumerate(zip(rows, wilds)):
            found, wild_ok[i] = self.meldable_without_one(row, w)
            faces[i, found] = True
        return faces, wild_ok

    def best_arrangement(
        self, counts: list[int], wilds: int, values: Sequence[int], wild_value: int
    ) -> tuple[int, list[Meld], list[int], int]:
        """``(penalty, melds, unmatched naturals, unmatched wilds)`` of a least-penalty
        arrangement; the melds include the leftover wilds placed in them."""
        counts, values = list(counts), tuple(values)
        penalty = self._penalty_search(counts, wilds, values, wild_value)
        melds: list[Meld] = []
        unmatched: list[int] = []
        code, i, room = encode_counts(counts), 0, 0
        while True:
            while i < self._N and not counts[i]:
                i += 1
            if i == self._N:
                break
            # Follow the memoised search: take the first choice that keeps its value.
            value = self._pen(counts, code, i, wilds, room, values, wild_value)
            counts[i] -= 1
            if values[i] + self._pen(counts, code - (1 << (FACE_BITS * i)), i, wilds, room, values, wild_value) == value:
                unmatched.append(i)
                code -= 1 << (FACE_BITS * i)
                continue
            counts[i] += 1
            for faces, used, meld_room, place in self._meld_options(counts, i, wilds):
                c = code
                for f in faces:
                    counts[f] -= 1
                    c -= 1 << (FACE_BITS * f)
                if self._pen(counts, c, i, wilds - used, room + meld_room, values, wild_value) == value:
                    if len(place) == 1:
                        melds.append(Meld("set", faces, used, rank=place[0]))
                    else:
                        melds.append(Meld("run", faces, used, suit=place[0], low=place[1], high=place[2]))
                    code, wilds, room = c, wilds - used, room + meld_room
                    break
                for f in faces:
                    counts[f] += 1
            else:
                raise AssertionError("arrangement search lost its optimum")
        melds, left = self._place_leftover_wilds(melds, wilds)
        return penalty, melds, unmatched, left

    def _meld_room(self, m: Meld) -> int:
        if m.kind == "set":
            return UNLIMITED if self.rules.set_max is None else self.rules.set_max - m.size
        return self._R - m.size

    def _penalty_search(self, counts, wilds, values, wild_value):
        if len(self._pen_memo) > MEMO_LIMIT:
            self._pen_memo.clear()
        return self._pen(counts, encode_counts(counts), 0, wilds, 0, values, wild_value)

    def _pen(self, counts, code, start, wilds, room, values, wild_value):
        key = (code, wilds, room if room < wilds else wilds, values, wild_value)
        memo = self._pen_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        i, n = start, self._N
        while i < n and not counts[i]:
            i += 1
        if i == n:
            result = self._leftover_wilds_unplaced(wilds, room) * wild_value
        else:
            counts[i] -= 1
            result = values[i] + self._pen(counts, code - (1 << (FACE_BITS * i)), i, wilds, room, values, wild_value)
            counts[i] += 1
            for faces, used, meld_room, _ in self._meld_options(counts, i, wilds):
                if result == 0:
                    break
                c = code
                for f in faces:
                    counts[f] -= 1
                    c -= 1 << (FACE_BITS * f)
                sub = self._pen(counts, c, i, wilds - used, room + meld_room, values, wild_value)
                for f in faces:
                    counts[f] += 1
                if sub < result:
                    result = sub
        memo[key] = result
        return result

    def _place_leftover_wilds(self, melds: list[Meld], wilds: int) -> tuple[list[Meld], int]:
        """Put leftover wilds into melds with room (runs: high end first), else into a
        set of their own where allowed; returns the melds and the wilds left unmatched."""
        out = list(melds)
        for k, m in enumerate(out):
            if not wilds:
                break
            add = min(wilds, self._meld_room(m))
            if add <= 0:
                continue
            if m.kind == "set":
                out[k] = Meld("set", m.naturals, m.wilds + add, rank=m.rank)
            else:
                # Length stays <= R, so a run never holds the ace at both ends.
                high = min(self._max_pos, m.high + add)
                low = m.low - (add - (high - m.high))
                out[k] = Meld("run", m.naturals, m.wilds + add, suit=m.suit, low=low, high=high)
            wilds -= add
        if wilds and self.rules.all_wild_melds and wilds >= self.rules.set_min:
            out.append(Meld("set", (), wilds))
            wilds = 0
        return out, wilds


def batch_of_hands(counts: np.ndarray, wilds: Sequence[int], naturals: int) -> tuple[np.ndarray, np.ndarray]:
    """A batch of hands (``counts`` ``[B, naturals]``, ``wilds`` ``[B]``) as int32 arrays in C
    order, or a ``ValueError`` naming what does not fit (the ranges the compiled core takes)."""
    counts, wilds = np.asarray(counts), np.asarray(wilds)
    if counts.ndim != 2 or counts.shape[1] != naturals or counts.dtype.kind not in "iu":
        raise ValueError(f"counts must be an integer array of shape (hands, {naturals}), not {counts.dtype} {counts.shape}")
    if wilds.shape != (counts.shape[0],) or wilds.dtype.kind not in "iu":
        raise ValueError(f"wilds must be an integer array of shape ({counts.shape[0]},), not {wilds.dtype} {wilds.shape}")
    if counts.size and (counts.min() < 0 or counts.max() > 15) or wilds.size and (wilds.min() < 0 or wilds.max() > 255):
        raise ValueError("counts must be from 0 to 15 and wilds from 0 to 255")
    return np.ascontiguousarray(counts, dtype=np.int32), np.ascontiguousarray(wilds, dtype=np.int32)


def _rows(counts: np.ndarray, wilds: Sequence[int], naturals: int) -> tuple[list[list[int]], list[int]]:
    counts, wilds = batch_of_hands(counts, wilds, naturals)
    return counts.tolist(), wilds.tolist()
