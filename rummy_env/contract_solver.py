"""Contract queries (Contract Rummy, Toonerville Rook): whether a hand can make a contract of
sets and runs, with a given card, with every card, or with each of some cards; exact, with
fast bounds first and memoised searches behind them."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement, compress
from typing import Sequence

import numpy as np

from .cards import CardSet
from .meld_solver import MeldSolver, _rows
from .melds import AT_LEAST, AT_MOST, FACE_BITS, MEMO_LIMIT, PRESENT, MeldRules, encode_counts, suit_rows


class ContractSolver(MeldSolver):
    """The meld solver with the contract queries of the contract games."""

    def __init__(self, card_set: CardSet, rules: MeldRules) -> None:
        super().__init__(card_set, rules)
        self._contract_memo: dict = {}
        self._partition_memo: dict = {}
        self._suit_runs_memo: dict = {}
        self._natural_runs_memo: dict[bytes, int] = {}
        self._sets_tables: dict[int, bytes] = {}

    def can_make_contract(self, counts: list[int], wilds: int, sets: int, runs: int) -> bool:
        """Whether some of the cards make ``sets`` sets and ``runs`` runs at once."""
        counts = list(counts)
        code = encode_counts(counts)
        hit = self._contract_memo.get((code, wilds, sets, runs))
        if hit is not None:  # one turn asks about one hand several times
            return hit
        if len(self._contract_memo) > MEMO_LIMIT:
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
                if len(memo) > MEMO_LIMIT:
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
        cap = AT_MOST[runs]
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
        if len(self._suit_runs_memo) > MEMO_LIMIT:
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

    def can_make_contract_many(self, counts: np.ndarray, wilds: Sequence[int], sets: int, runs: int) -> np.ndarray:
        """``can_make_contract`` of each hand of a batch (``counts`` ``[B, naturals]``,
        ``wilds`` ``[B]``): bool ``[B]``."""
        rows, wilds = _rows(counts, wilds, self.card_set.num_naturals)
        return np.array([self.can_make_contract(row, w, sets, runs) for row, w in zip(rows, wilds)],
                        dtype=np.bool_).reshape(len(rows))

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
                c -= 1 << (FACE_BITS * f)
            ok = self._contract(counts, c, i, wilds - used, sets - ds, runs - dr, left - len(faces))
            for f in faces:
                counts[f] += 1
            if ok:
                result = True
                break
        if not result:  # or the lowest natural stays out of the contract
            counts[i] -= 1
            result = self._contract(counts, code - (1 << (FACE_BITS * i)), i, wilds, sets, runs, left - 1)
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
        if len(self._partition_memo) > MEMO_LIMIT:
            self._partition_memo.clear()
        counts = list(counts)
        return self._partition(counts, encode_counts(counts), 0, wilds, sets, runs, 0)

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
                    c -= 1 << (FACE_BITS * f)
                ok = self._partition(counts, c, i, wilds - used, sets - ds, runs - dr, room + meld_room)
                for f in faces:
                    counts[f] += 1
                if ok:
                    result = True
                    break
        memo[key] = result
        return result
