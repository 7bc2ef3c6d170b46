"""The meld engine shared by all games: validating melds and arranging hands into them.

Everything here works on *natural counts* (a list with one count per natural face of the
deck's ``CardSet``) plus a number of wild cards, since wilds are interchangeable. A run is
described by positions: position ``p`` of suit ``s`` is the face ``s * R + p % R`` (``R``
ranks); with ``ace_high`` the ace also sits at position ``R``, above the king.

The solver is an exact search: the lowest remaining natural must be unmatched or lie in a
set or a run, and every meld containing it is enumerated (a natural may be passed over in
favour of a wild when that frees it for another meld). Subproblems are memoised on the
remaining cards, so the repeated queries of one turn (``go out`` with each card) share work.
Wilds left over after the naturals are placed join melds that have room (sets without a
maximum, runs short of a full suit), or form a set of their own where the rules allow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, compress
from typing import Iterator, Literal, Sequence

from .cards import CardSet

UNLIMITED = 1 << 20  # room of a set with no maximum size
_BITS = 4  # bits per face in a memo key: counts of one face stay below 16 (<= 8 decks)
_MEMO_LIMIT = 1 << 18
# AT_LEAST[k]: a bytes.translate table marking the byte values >= k with 1, others 0
AT_LEAST = [bytes(int(v >= k) for v in range(256)) for k in range(256)]
PRESENT = AT_LEAST[1]  # ``counts.translate(PRESENT)``: 1 where a face is held
_AT_MOST = [bytes(min(v, k) for v in range(256)) for k in range(256)]  # translate tables capping at k


def suit_rows(counts: Sequence[int], num_ranks: int, num_suits: int) -> list[bytes]:
    """The counts as one ``bytes`` row per suit (counts stay below 256)."""
    data = bytes(counts)
    return [data[s * num_ranks:(s + 1) * num_ranks] for s in range(num_suits)]


@dataclass(frozen=True)
class MeldRules:
    """What makes a legal set or run in one game."""

    set_min: int = 3
    set_max: int | None = None
    set_distinct_suits: bool = False
    run_min: int = 3
    ace_high: bool = False
    all_wild_melds: bool = False

    def __post_init__(self) -> None:
        if self.set_min < 1 or self.run_min < 1:
            raise ValueError("meld minimum sizes must be positive")
        if self.set_max is not None and self.set_max < self.set_min:
            raise ValueError("set_max must be at least set_min")
        if self.all_wild_melds and self.set_max is not None:
            raise ValueError("all-wild melds are only supported with unlimited sets")


@dataclass(frozen=True)
class Meld:
    """One meld: its natural faces, how many wilds, and where a run lies.

    For a set, ``rank`` is the set's rank. For a run, ``suit`` and the positions
    ``low``..``high`` (inclusive) say which card every place stands for.
    """

    kind: Literal["set", "run"]
    naturals: tuple[int, ...]
    wilds: int
    rank: int = -1
    suit: int = -1
    low: int = -1
    high: int = -1

    @property
    def size(self) -> int:
        return len(self.naturals) + self.wilds

    def wild_positions(self, num_ranks: int) -> list[int]:
        """Run positions filled by wilds, low to high."""
        taken = {f % num_ranks for f in self.naturals}
        return [p for p in range(self.low, self.high + 1) if p % num_ranks not in taken]


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
        self._contract_memo: dict = {}
        self._partition_memo: dict = {}
        self._need_memo: dict = {}
        self._suit_runs_memo: dict = {}
        self._natural_runs_memo: dict[bytes, int] = {}
        self._sets_tables: dict[int, bytes] = {}
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
        if len(self._full_memo) > _MEMO_LIMIT:
            self._full_memo.clear()
        counts = list(counts)
        return self._full(counts, _encode(counts), 0, wilds, 0)

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
                    c -= 1 << (_BITS * f)
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
        codes = [_encode_cards(g) for g in groups]
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
                    need_left = self._group_need(code - (1 << (_BITS * f)), left, wilds - rest + 1)
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
        if len(self._need_memo) > _MEMO_LIMIT:
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
                c -= 1 << (_BITS * f)
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

    def best_arrangement(
        self, counts: list[int], wilds: int, values: Sequence[int], wild_value: int
    ) -> tuple[int, list[Meld], list[int], int]:
        """``(penalty, melds, unmatched naturals, unmatched wilds)`` of a least-penalty
        arrangement; the melds include the leftover wilds placed in them."""
        counts, values = list(counts), tuple(values)
        penalty = self._penalty_search(counts, wilds, values, wild_value)
        melds: list[Meld] = []
        unmatched: list[int] = []
        code, i, room = _encode(counts), 0, 0
        while True:
            while i < self._N and not counts[i]:
                i += 1
            if i == self._N:
                break
            # Follow the memoised search: take the first choice that keeps its value.
            value = self._pen(counts, code, i, wilds, room, values, wild_value)
            counts[i] -= 1
            if values[i] + self._pen(counts, code - (1 << (_BITS * i)), i, wilds, room, values, wild_value) == value:
                unmatched.append(i)
                code -= 1 << (_BITS * i)
                continue
            counts[i] += 1
            for faces, used, meld_room, place in self._meld_options(counts, i, wilds):
                c = code
                for f in faces:
                    counts[f] -= 1
                    c -= 1 << (_BITS * f)
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
        if len(self._pen_memo) > _MEMO_LIMIT:
            self._pen_memo.clear()
        return self._pen(counts, _encode(counts), 0, wilds, 0, values, wild_value)

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
            result = values[i] + self._pen(counts, code - (1 << (_BITS * i)), i, wilds, room, values, wild_value)
            counts[i] += 1
            for faces, used, meld_room, _ in self._meld_options(counts, i, wilds):
                if result == 0:
                    break
                c = code
                for f in faces:
                    counts[f] -= 1
                    c -= 1 << (_BITS * f)
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

    # ------------------------------------------------------------------ contracts
    def can_make_contract(self, counts: list[int], wilds: int, sets: int, runs: int) -> bool:
        """Whether some of the cards make ``sets`` sets and ``runs`` runs at once."""
        counts = list(counts)
        code = _encode(counts)
        hit = self._contract_memo.get((code, wilds, sets, runs))
        if hit is not None:  # one turn asks about one hand several times
            return hit
        if len(self._contract_memo) > _MEMO_LIMIT:
            self._contract_memo.clear()
        if self.rules.all_wild_melds:
            return self._contract(counts, code, 0, wilds, sets, runs, sum(counts))
        if not runs:
            result = self._most_sets(counts, wilds) >= sets
        elif self._runs_at_most(counts, wilds) < runs:
            result = False  # most hands that fail, fail here
        elif not sets:  # the greedy's runs when it finds them, else exact: the suits are independent
            result = self._natural_runs_then_sets(counts, wilds, 0, runs) or self._enough_runs(counts, wilds, runs)
        elif self._natural_runs_then_sets(counts, wilds, sets, runs):
            result = True
        elif not self._contract_within_bounds(counts, wilds, sets, runs) or not self._enough_runs(counts, wilds, runs):
            result = False
        else:
            return self._contract(counts, code, 0, wilds, sets, runs, sum(counts))
        self._contract_memo[(code, wilds, sets, runs)] = result
        return result

    def _runs_at_most(self, counts: Sequence[int], wilds: int) -> int:
        """An upper bound on the disjoint runs the cards make: each suit's most runs of
        naturals only (``_natural_runs``), plus one per wild (every other run holds a
        wild of its own)."""
        R, memo = self._R, self._natural_runs_memo
        total = wilds
        for row in suit_rows(counts, R, self._S):
            n = memo.get(row)
            if n is None:
                if len(memo) > _MEMO_LIMIT:
                    memo.clear()
                n = memo[row] = self._natural_runs(row)
            total += n
        return total

    def _natural_runs(self, row: bytes) -> int:
        """The most disjoint runs of naturals only in one suit's cards (``row``: the count
        per rank), exact: in a solution, a run whose start has a free card at every
        place of an earlier window can move there, so taking the lowest full window as
        often as it fits, then the next, is optimal (runs of ``run_min`` places suffice:
        longer ones only hold more cards). With the ace high too it is counted at both
        ends, which can only raise the bound."""
        length = self.rules.run_min
        places = bytearray(row + row[:1] if self.rules.ace_high else row)
        runs = 0
        for low in range(len(places) - length + 1):
            k = min(places[low:low + length])
            if k:
                runs += k
                for q in range(low, low + length):
                    places[q] -= k
        return runs

    def _natural_runs_then_sets(self, counts: Sequence[int], wilds: int, sets: int, runs: int) -> bool:
        """A quick sufficient test: the runs taken greedily as the lowest windows of
        ``run_min`` places in each suit, those of naturals only first, then those missing
        one natural (filled by a wild), two, ...; then the sets from what is left
        (exactly, with the wilds left). Big hands usually pass it, and the search is then
        not needed."""
        R, length = self._R, self.rules.run_min
        rows = [bytearray(row) for row in suit_rows(counts, R, self._S)]
        for missing in range(min(wilds, length - 1) + 1):
            for row in rows:
                low = 0
                while runs and missing <= wilds and low + length <= R:
                    window = row[low:low + length]
                    if length - window.count(0) == length - missing:
                        row[low:low + length] = bytes(c - 1 if c else 0 for c in window)
                        runs -= 1
                        wilds -= missing
                    else:
                        low += 1
            if not runs:
                break
        if runs:
            return False
        return not sets or self._most_sets(b"".join(rows), wilds) >= sets

    def _enough_runs(self, counts: Sequence[int], wilds: int, runs: int) -> bool:
        """Whether the cards make ``runs`` disjoint runs (every run with a natural): each
        suit's best for each number of wilds, shared out by a knapsack over the suits.
        ``runs`` runs never need more than ``runs`` cards of one face, so the counts are
        capped there first (the suits' answers then repeat far more often)."""
        cap = _AT_MOST[runs]
        best = [0] * (wilds + 1)  # best[w]: most runs with at most w wilds, suits so far
        for row in suit_rows(counts, self._R, self._S):
            if any(row):
                of_suit = self._runs_of_suit(row.translate(cap), wilds)
                best = [max(best[w - u] + of_suit[u] for u in range(w + 1)) for w in range(wilds + 1)]
        return best[wilds] >= runs

    def _runs_of_suit(self, row: bytes, wilds: int) -> tuple[int, ...]:
        """Per number of wilds 0..``wilds``, the most disjoint runs of one suit's cards
        (``row``: the count per rank), exact and memoised: the lowest card held is left
        out of the runs, or is the lowest natural of a smallest run (``run_min`` places,
        the others naturals held above it, or wilds)."""
        key = (row, wilds)
        hit = self._suit_runs_memo.get(key)
        if hit is not None:
            return hit
        R = self._R
        i = 0
        while i < R and not row[i]:
            i += 1
        if i == R:
            best = [0] * (wilds + 1)
        else:
            less = bytearray(row)
            less[i] -= 1
            best = list(self._runs_of_suit(bytes(less), wilds))
            for places, need in self._smallest_runs_from(row, i, wilds):
                rest = bytearray(less)
                for q in places:
                    rest[q % R] -= 1
                sub = self._runs_of_suit(bytes(rest), wilds - need)
                for w in range(need, wilds + 1):
                    if sub[w - need] + 1 > best[w]:
                        best[w] = sub[w - need] + 1
        if len(self._suit_runs_memo) > _MEMO_LIMIT:
            self._suit_runs_memo.clear()
        hit = self._suit_runs_memo[key] = tuple(best)
        return hit

    def _most_sets(self, counts: Sequence[int], wilds: int) -> int:
        """The most disjoint sets the cards make (every set with a natural), in closed form:
        ``j`` sets of one rank need ``set_min * j`` cards, at most ``j`` copies of a face
        when suits must differ, so ``set_min * j - usable`` wilds; a knapsack over ranks
        shares the wilds out."""
        R, S, r = self._R, self._S, self.rules
        if not r.set_distinct_suits or max(counts) <= 1:
            return self._most_sets_any_suits(counts, wilds)
        best = [0] * (wilds + 1)  # best[w]: most sets with at most w wilds, ranks so far
        for rank in range(R):
            copies = [counts[t * R + rank] for t in range(S)]
            held = sum(copies)
            if not held:
                continue
            costs = []  # costs[j - 1]: wilds for j sets of this rank
            for j in range(1, held + 1):
                usable = sum(min(c, j) for c in copies) if r.set_distinct_suits else held
                need = max(0, r.set_min * j - usable)
                if need > wilds:
                    break
                costs.append(need)
            if not costs:
                continue
            best = [max([best[w]] + [best[w - c] + j for j, c in enumerate(costs, 1) if c <= w])
                    for w in range(wilds + 1)]
        return best[wilds]

    def _most_sets_any_suits(self, counts: Sequence[int], wilds: int) -> int:
        """``_most_sets`` when every natural of a rank may share a set (suits need not
        differ, or no face is held twice). ``h`` naturals of a rank make ``h // set_min``
        sets; one more costs ``set_min - h % set_min`` wilds, each further one ``set_min``
        (while naturals last, one per set). The costs rise within a rank, so taking the
        cheapest first across ranks is optimal."""
        R, S, k = self._R, self._S, self.rules.set_min
        per_rank = sum(int.from_bytes(bytes(counts[s * R:(s + 1) * R]), "little") for s in range(S))
        sets = further = 0
        completing = [0] * k  # completing[c]: ranks whose next set costs c wilds (c < set_min)
        for h in per_rank.to_bytes(R, "little"):
            if h:
                sets += h // k
                if h % k:
                    completing[k - h % k] += 1
                further += h - (h + k - 1) // k
        for cost in range(1, k):
            if wilds < cost:
                break
            take = min(completing[cost], wilds // cost)
            sets += take
            wilds -= take * cost
        return sets + min(further, wilds // k)

    def can_make_contract_with(self, counts: Sequence[int], wilds: int, sets: int, runs: int, face: int) -> bool:
        """Whether the cards make ``sets`` sets and ``runs`` runs with the natural ``face``
        in one of them.

        Only the smallest melds holding the face are tried (``set_min`` cards, naturals
        before wilds; ``run_min`` positions, the held naturals and wilds for the rest): a
        bigger meld holding it contains one of them, and the rest of the contract can only
        be harder with fewer cards left (or a natural left instead of a wild)."""
        R, S, r = self._R, self._S, self.rules
        rank, suit = face % R, face // R
        work = list(counts)

        def rest_makes(naturals: Sequence[int], used: int, ds: int, dr: int) -> bool:
            for f in naturals:
                work[f] -= 1
            ok = self.can_make_contract(work, wilds - used, sets - ds, runs - dr)
            for f in naturals:
                work[f] += 1
            return ok

        if sets:
            others = [t * R + rank for t in range(S) if t != suit and counts[t * R + rank]]
            if r.set_distinct_suits:
                pool = others
            else:
                pool = [f for f in others for _ in range(counts[f])] + [face] * (counts[face] - 1)
            k = min(r.set_min - 1, len(pool))
            need = r.set_min - 1 - k
            if need <= wilds:
                for chosen in set(combinations(pool, k)):
                    if rest_makes((face,) + chosen, need, 1, 0):
                        return True
        if runs:
            base, top, length = suit * R, self._max_pos, r.run_min
            for position in ((0, R) if rank == 0 and top == R else (rank,)):
                for low in range(max(0, position - length + 1), min(position, top - length + 1) + 1):
                    if low == 0 and low + length - 1 >= R:
                        continue  # one ace per run
                    naturals = [base + q % R for q in range(low, low + length) if counts[base + q % R]]
                    need = length - len(naturals)
                    if need <= wilds and rest_makes(naturals, need, 0, 1):
                        return True
        return False

    def each_could_meld(self, counts: Sequence[int], wilds: int, must: Sequence[int], sets: int, runs: int) -> bool:
        """A cheap necessary condition for a contract of ``sets`` sets and ``runs`` runs,
        made from the cards ``counts``, holding every natural counted in ``must``: each such
        face has enough cards of its rank for a set, or of its suit around it for a run,
        counting every wild for each (byte-per-position ints, as in the bounds below)."""
        R, S, r = self._R, self._S, self.rules
        if r.all_wild_melds:
            return True
        rows = suit_rows(counts, R, S)
        present = [row.translate(PRESENT) for row in rows]
        if sets:
            by_rank = present if r.set_distinct_suits else rows
            of_rank = sum(int.from_bytes(row, "little") for row in by_rank).to_bytes(R, "little")
        covered = []  # per suit, the run positions some window of run_min could fill
        if runs:
            at_least = AT_LEAST[max(0, r.run_min - wilds)]
            for marks in present:
                # (windows running past the top only ever pass more faces: still necessary)
                good = int.from_bytes(self._window_sums(marks).translate(at_least), "little")
                cover = good
                for k in range(1, r.run_min):
                    cover |= good << (8 * k)
                covered.append(cover)
        for face in compress(range(len(must)), must):
            rank = face % R
            if sets and of_rank[rank] + wilds >= r.set_min:
                continue
            if runs:
                cover = covered[face // R]
                if cover >> (8 * rank) & 1 or (rank == 0 and r.ace_high and cover >> (8 * R) & 1):
                    continue
            return False
        return True

    def _contract_within_bounds(self, counts: Sequence[int], wilds: int, sets: int, runs: int) -> bool:
        """Cheap upper bounds on the sets and the runs the cards could make, each alone
        (most hands fail them, and the search need not start).

        Counts are handled as ints with one byte per rank (or run position): adding the
        suits' ints gives per-rank totals, and adding an int to itself shifted gives
        per-window totals, all without a Python loop over cards (no byte overflows: at
        most 4 suits of at most 8 copies, and windows of at most 14 positions)."""
        R, S, r = self._R, self._S, self.rules
        if r.all_wild_melds:
            return True  # melds of wilds alone: no natural bounds them
        rows = suit_rows(counts, R, S)
        present = [row.translate(PRESENT) for row in rows]
        if sets:
            held = sum(int.from_bytes(row, "little") for row in rows)
            kinds = sum(int.from_bytes(row, "little") for row in present) if r.set_distinct_suits else held
            # per rank with enough kinds for a set: at most min(h, (h + wilds) // set_min)
            # sets of its h cards; the ranks failing the kinds test are masked out bytewise
            enough = int.from_bytes(kinds.to_bytes(R, "little").translate(AT_LEAST[max(0, r.set_min - wilds)]), "little")
            most = int.from_bytes(held.to_bytes(R, "little").translate(self._sets_of_rank(wilds)), "little")
            if sum((most & enough * 0xFF).to_bytes(R, "little")) < sets:
                return False
        if runs:
            possible = 0
            need = r.run_min - wilds
            for row, marks in zip(rows, present):
                held_in_suit = sum(row)
                if not held_in_suit:
                    continue
                if max(self._window_sums(marks)) >= need:
                    possible += (held_in_suit + wilds) // r.run_min
            if possible < runs:
                return False
        return True

    def _window_sums(self, marks: bytes) -> bytes:
        """Per low run position of a suit, the positions held among the ``run_min`` from it
        (``marks``: 1 per rank held; the ace repeated above the top when it may be high)."""
        if self.rules.ace_high:
            marks += marks[:1]
        bits = int.from_bytes(marks, "little")
        window = bits
        for k in range(1, self.rules.run_min):
            window += bits >> (8 * k)
        return window.to_bytes(len(marks), "little")

    def _sets_of_rank(self, wilds: int) -> bytes:
        """A translate table: ``h`` cards of a rank and ``wilds`` wilds make at most
        ``min(h, (h + wilds) // set_min)`` sets."""
        table = self._sets_tables.get(wilds)
        if table is None:
            k = self.rules.set_min
            table = self._sets_tables[wilds] = bytes(min(h, (h + wilds) // k, 255) for h in range(256))
        return table

    def _contract(self, counts, code, start, wilds, sets, runs, left):
        # ``left``: naturals remaining; too few for the melds still wanted ends the branch.
        if not sets and not runs:
            return True
        r = self.rules
        if left + wilds < sets * r.set_min + runs * r.run_min:
            return False
        if not left:
            return r.all_wild_melds
        key = (code, wilds, sets, runs)
        memo = self._contract_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        i = start
        while not counts[i]:
            i += 1
        result = False
        # the melds holding the lowest natural first: feasible hands end fast
        for faces, used, ds, dr in self._smallest_options(counts, i, wilds, sets, runs):
            c = code
            for f in faces:
                counts[f] -= 1
                c -= 1 << (_BITS * f)
            ok = self._contract(counts, c, i, wilds - used, sets - ds, runs - dr, left - len(faces))
            for f in faces:
                counts[f] += 1
            if ok:
                result = True
                break
        if not result:  # or the lowest natural stays out of the contract
            counts[i] -= 1
            result = self._contract(counts, code - (1 << (_BITS * i)), i, wilds, sets, runs, left - 1)
            counts[i] += 1
        memo[key] = result
        return result

    def _smallest_options(self, counts, i, wilds, sets, runs):
        """The smallest melds (``set_min`` cards, or ``run_min`` places) holding the natural
        ``i``, the lowest one left, that a contract still wanting ``sets`` sets and ``runs``
        runs may take: ``(faces, wilds_used, sets, runs)``. A contract's bigger meld holds
        one of them (with a natural: every meld has one), the rest of its cards left out,
        so these decide whether a contract can be made, with far fewer branches."""
        R, r = self._R, self.rules
        rank, suit = i % R, i // R
        options = []
        if sets:
            k = r.set_min
            # the other naturals of the rank still available: higher suits, more copies of i
            faces = [i] if counts[i] > 1 and not r.set_distinct_suits else []
            faces += [t * R + rank for t in range(suit + 1, self._S) if counts[t * R + rank]]
            for m in range(min(k - 1, len(faces) * (1 if r.set_distinct_suits else k)) + 1):
                need = k - 1 - m
                if need > wilds:
                    continue
                picks = combinations(faces, m) if r.set_distinct_suits else combinations_with_replacement(faces, m)
                for pick in picks:
                    if all(counts[f] > (f == i) + pick.count(f) - 1 for f in pick):
                        options.append(((i,) + pick, need, 1, 0))
        if runs:
            base = suit * R
            for places, need in self._smallest_runs_from(counts[base:base + R], rank, wilds):
                options.append(((i,) + tuple(base + q % R for q in places), need, 0, 1))
        return options

    def _smallest_runs_from(self, row: Sequence[int], rank: int, wilds: int) -> list[tuple[tuple[int, ...], int]]:
        """The smallest runs (``run_min`` places) whose lowest natural is the card of
        ``rank`` of a suit holding ``row`` (the count per rank, none below ``rank``), at
        most ``wilds`` wilds: ``(places of the other naturals, wilds)``. Places below
        ``rank`` hold wilds only, which is as good as wilds above, so the run starts at
        ``rank`` unless the top is too near; an ace may also sit at the high end."""
        R, top, length = self._R, self._max_pos, self.rules.run_min
        windows = [(max(0, min(rank, top - length + 1)), rank)]
        if rank == 0 and top == R:
            windows.append((R - length + 1, R))
        runs = []
        for low, place in windows:
            if low + length - 1 > top:
                continue
            above = [q for q in range(low, low + length) if q != place and (q > place or place == R) and row[q % R]]
            for m in range(len(above) + 1):
                need = length - 1 - m
                if need <= wilds:
                    runs += [(pick, need) for pick in combinations(above, m)]
        return runs

    def _contract_options(self, counts, i, wilds, sets, runs):
        """The melds holding the natural ``i`` that a contract still wanting ``sets`` sets
        and ``runs`` runs may take, each with the sets and runs it counts for."""
        options = []
        if sets:
            options += [(o, 1, 0) for o in self._set_options(counts, i, wilds)]
        if runs:
            options += [(o, 0, 1) for o in self._run_options(counts, i, wilds)]
        return options

    def can_partition(self, counts: list[int], wilds: int, sets: int, runs: int) -> bool:
        """Whether *all* the cards (every natural and every wild) make exactly ``sets``
        sets and ``runs`` runs, each with at least one natural."""
        if len(self._partition_memo) > _MEMO_LIMIT:
            self._partition_memo.clear()
        counts = list(counts)
        return self._partition(counts, _encode(counts), 0, wilds, sets, runs, 0)

    def _partition(self, counts, code, start, wilds, sets, runs, room):
        key = (code, wilds, sets, runs, room if room < wilds else wilds)
        memo = self._partition_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        i, n = start, self._N
        while i < n and not counts[i]:
            i += 1
        if i == n:
            result = not sets and not runs and wilds <= room  # leftover wilds join melds with room
        else:
            result = False
            for (faces, used, meld_room, _), ds, dr in self._contract_options(counts, i, wilds, sets, runs):
                c = code
                for f in faces:
                    counts[f] -= 1
                    c -= 1 << (_BITS * f)
                ok = self._partition(counts, c, i, wilds - used, sets - ds, runs - dr, room + meld_room)
                for f in faces:
                    counts[f] += 1
                if ok:
                    result = True
                    break
        memo[key] = result
        return result


def _encode_cards(cards: Sequence[int]) -> int:
    code = 0
    for f in cards:
        code += 1 << (_BITS * f)
    return code


def _encode(counts: Sequence[int]) -> int:
    # one hex digit per face (counts stay below 16), built in C: the bytes' hex has "0k"
    # per face, and every second digit is k
    return int(bytes(counts[::-1]).hex()[1::2] or "0", 16)
