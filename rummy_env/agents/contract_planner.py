"""The contract games' hand planner, shared by their baseline agents
(``contract_heuristics``, ``contract_expert``) and, through ``advise()``, the training features.

``Planner`` is a partial-contract search over a hand's natural counts. It lists the ways of
choosing the contract's sets (a rank each) and runs (windows of ``run_min`` places) that
miss at most one card more than the best, with the wilds filling gaps. Its ``PlanReport``
gives the hand's **deficiency** (cards still missing for the contract), its **outs** (the
faces that would fill a gap), the **core** cards (in every best structure) and the **near**
ones (in a structure one card worse), and, for each card, the deficiency and outs without
it. Whether the contract can be made now is asked exactly of the shared ``ContractSolver``
(``tools``). ``Deck`` holds the static facts of a game's cards, ``TableMeld`` a meld on the
table reduced to what lay-offs need.
"""

from __future__ import annotations

from typing import Sequence

from ..backend import solver
from ..contract_solver import ContractSolver
from ..rules import GameRules
from ..rules.lay_off import LayOffFit

_STRUCTURE_CAP = 160  # most partial-contract structures kept per hand (the best come first)


def _first_cost(options: list) -> int:
    return options[0][0]


def set_bits(mask: int):
    """The set bits of ``mask`` as indices, low to high."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Deck:
    """The static facts of one game's cards that the heuristics use: faces, run positions,
    meld sizes, copies of each face, penalties."""

    def __init__(self, rules: GameRules) -> None:
        cs = rules.deck.card_set
        mr = rules.melds
        self.rules = rules
        self.card_set = cs
        self.ranks = cs.num_ranks
        self.suits = cs.num_suits
        self.naturals = cs.num_naturals
        self.wild = cs.wild_card if cs.has_wild_card else -1
        self.positions = self.ranks + (1 if mr.ace_high else 0)
        self.fit = LayOffFit(cs, mr)
        self.set_min, self.run_min = mr.set_min, mr.run_min
        self.set_max = mr.set_max
        self.distinct = mr.set_distinct_suits
        self.copies = rules.deck.face_counts()
        self.num_cards = sum(self.copies)
        play = rules.contract_play
        self.values = [rules.rank_penalties[f % self.ranks] for f in range(self.naturals)]
        if self.wild >= 0:
            self.values.append(play.wild_penalty)
        self.mean_value = sum(v * c for v, c in zip(self.values, self.copies)) / self.num_cards
        # run position p of suit s holds the face s * ranks + p % ranks (the ace twice)
        self.position_faces = [[s * self.ranks + p % self.ranks for p in range(self.positions)]
                               for s in range(self.suits)]


class PlanReport:
    """What the planner knows of one hand and contract: the least number of cards still
    missing (after wilds), and per card given up, how many then, and which faces would
    then fill a gap.

    A *structure* is one way to aim at the contract, ``(missing, critical, outs, used)``:
    the cards still missing (before wilds), the faces a copy of which cannot be given up
    without missing one more, the faces that would fill a gap, and every face it puts to
    use; the masks hold one bit per natural face."""

    __slots__ = ("structures", "least", "wilds", "deficiency", "outs", "core", "near")

    def __init__(self, structures: list[tuple[int, int, int, int]], wilds: int) -> None:
        least = min((s[0] for s in structures), default=99)
        self.structures = [s for s in structures if s[0] <= least + 1]
        self.least = least
        self.wilds = wilds
        self.deficiency = max(0, least - wilds)
        outs = core = near = 0
        for missing, _, s_outs, used in self.structures:
            near |= used
            if missing == least:
                outs |= s_outs
                core |= used
        self.outs = outs
        self.core = core
        self.near = near

    def best(self) -> list[tuple[int, int, int, int]]:
        """The structures missing the least."""
        return [s for s in self.structures if s[0] == self.least]

    def without(self, face: int, wild: int) -> tuple[int, int]:
        """``(deficiency, outs mask)`` of the hand less one card of ``face``."""
        if face == wild:
            return max(0, self.least - self.wilds + 1), self.outs
        bit = 1 << face
        best, outs = 99, 0
        for missing, critical, s_outs, _ in self.structures:
            if critical & bit:
                missing += 1
                s_outs |= bit
            if missing < best:
                best, outs = missing, s_outs
            elif missing == best:
                outs |= s_outs
        return max(0, best - self.wilds), outs


class Planner:
    """Partial-contract search over a hand's natural counts: every way of choosing the
    contract's runs (windows of ``run_min`` places, grouped by the cards they hold) and
    sets (ranks, a set's worth each) that misses at most one card more than the best, so
    that one search answers for every card the hand might give up. Memoised by hand."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self._memo: dict = {}
        self._groups_memo: dict = {}
        self._rank_memo: dict = {}

    def report(self, counts: tuple[int, ...], wilds: int, sets: int, runs: int, all_cards: bool) -> PlanReport:
        key = (counts, wilds, sets, runs, all_cards)
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) > 4096:
                self._memo.clear()
            if all_cards:
                structures = self._all_card_runs(counts, wilds, runs)
            else:
                structures = self._structures(counts, sets, runs)
            hit = self._memo[key] = PlanReport(structures, wilds)
        return hit

    # ------------------------------------------------------------------ runs
    def _suit_groups(self, suit: int, row: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
        """The run windows of one suit, grouped by the cards they hold: ``(missing, held
        mask, outs mask, used mask)`` (used: the held cards and the held ones joining on)."""
        key = (suit, row)
        hit = self._groups_memo.get(key)
        if hit is not None:
            return hit
        d = self.deck
        length, faces = d.run_min, d.position_faces[suit]
        held = [row[f - suit * d.ranks] > 0 for f in faces]
        groups: dict[int, list[int]] = {}
        for low in range(d.positions - length + 1):
            mask = outs = 0
            count = 0
            for p in range(low, low + length):
                if held[p]:
                    mask |= 1 << faces[p]
                    count += 1
                else:
                    outs |= 1 << faces[p]
            if not count:
                continue
            used = mask
            p = low + length
            while p < d.positions and held[p]:
                used |= 1 << faces[p]
                p += 1
            p = low - 1
            while p >= 0 and held[p]:
                used |= 1 << faces[p]
                p -= 1
            g = groups.get(mask)
            if g is None:
                groups[mask] = [length - count, mask, outs, used]
            else:
                g[2] |= outs
                g[3] |= used
        hit = self._groups_memo[key] = [tuple(g) for g in groups.values()]
        if len(self._groups_memo) > 8192:
            self._groups_memo.clear()
        return hit

    # ------------------------------------------------------------------ sets
    def _rank_options(self, rank: int, row: tuple[int, ...], most: int) -> list[tuple[int, int, int, int]]:
        """Per number of sets ``j`` = 1.. of one rank (``row``: its count per suit), the
        ``(cost, critical, outs, used)`` of making them."""
        key = (rank, row, most)
        hit = self._rank_memo.get(key)
        if hit is not None:
            return hit
        d = self.deck
        faces = [s * d.ranks + rank for s in range(d.suits)]
        held_mask = 0
        for f, c in zip(faces, row):
            if c:
                held_mask |= 1 << f
        options = []
        total = sum(row)
        for j in range(1, most + 1):
            if d.distinct:
                usable = sum(min(c, j) for c in row)
                if usable < j:
                    break
                room = d.set_max * j if d.set_max else usable
                cost = max(0, d.set_min * j - min(usable, room))
                critical = 0
                outs = 0
                for f, c in zip(faces, row):
                    if c and c <= j and usable <= d.set_min * j:
                        critical |= 1 << f
                    if c < j and cost:
                        outs |= 1 << f
            else:
                if total < j:
                    break
                cost = max(0, d.set_min * j - total)
                critical = held_mask if total <= d.set_min * j else 0
                outs = 0
                if cost:
                    for f in faces:
                        outs |= 1 << f
            options.append((cost, critical, outs, held_mask))
        hit = self._rank_memo[key] = options
        if len(self._rank_memo) > 8192:
            self._rank_memo.clear()
        return hit

    def _ranks_of(self, counts: Sequence[int], sets: int, only: Sequence[int] | None = None) -> list:
        """``(rank, options)`` of each rank held (or of the ranks ``only``)."""
        R = self.deck.ranks
        out = []
        for rank in range(R) if only is None else only:
            row = tuple(counts[rank::R])
            if any(row):
                options = self._rank_options(rank, row, sets)
                if options:
                    out.append((rank, options))
        return out

    # ------------------------------------------------------------------ search
    def _structures(self, counts: tuple[int, ...], sets: int, runs: int) -> list[tuple[int, int, int, int]]:
        d = self.deck
        R = d.ranks
        found: list[tuple[int, int, int, int]] = []
        best = [99]
        multi = 0
        for f, c in enumerate(counts):
            if c > 1:
                multi |= 1 << f
        full_ranks = self._ranks_of(counts, sets) if sets else []
        set_floor = 0
        if sets:
            incs = sorted(opts[j][0] - (opts[j - 1][0] if j else 0) for _, opts in full_ranks for j in range(len(opts)))
            if len(incs) < sets:
                return found
            set_floor = sum(incs[:sets])

        def set_search(ranks, i: int, left: int, cost: int, critical: int, outs: int, used: int) -> None:
            if not left:
                if cost < best[0]:
                    best[0] = cost
                found.append((cost, critical, outs, used))
                return
            if i == len(ranks) or len(found) >= _STRUCTURE_CAP or cost + left * ranks[i][0][0] > best[0] + 1:
                return
            options = ranks[i]
            for j in range(min(left, len(options)), 0, -1):
                c, cr, o, u = options[j - 1]
                if cost + c <= best[0] + 1:
                    set_search(ranks, i + 1, left - j, cost + c, critical | cr, outs | o, used | u)
            set_search(ranks, i + 1, left, cost, critical, outs, used)

        if not runs:
            set_search(sorted((o for _, o in full_ranks), key=_first_cost), 0, sets, 0, 0, 0, 0)
            return found

        groups = []
        for s in range(d.suits):
            row = counts[s * R:(s + 1) * R]
            if any(row):
                groups += self._suit_groups(s, row)
        groups.sort()

        def run_search(i: int, left: int, cost: int, held: int, outs: int, used: int) -> None:
            if not left:
                critical = held & ~multi
                if not sets:
                    if cost < best[0]:
                        best[0] = cost
                    found.append((cost, critical, outs, used))
                    return
                touched = {f % R for f in set_bits(held)}
                rest = list(counts)
                for f in set_bits(held):
                    rest[f] -= 1
                ranks = [o for r, o in full_ranks if r not in touched]
                ranks += [o for _, o in self._ranks_of(rest, sets, touched)]
                ranks.sort(key=_first_cost)
                set_search(ranks, 0, sets, cost, critical, outs, used)
                return
            for k in range(i, len(groups)):
                if len(found) >= _STRUCTURE_CAP:
                    return
                missing, mask, o, u = groups[k]
                if cost + left * missing + set_floor > best[0] + 1:
                    break
                if mask & held & ~multi:
                    continue
                run_search(k + 1, left - 1, cost + missing, held | mask, outs | o, used | u)

        run_search(0, runs, 0, 0, 0, 0)
        return found

    def _all_card_runs(self, counts: tuple[int, ...], wilds: int, runs: int) -> list[tuple[int, int, int, int]]:
        """Contract Rummy's deal 7: ``runs`` runs holding every card. Each run is a segment
        of a suit from one held card to another (padded to ``run_min`` and to the hand's
        size with gaps to fill); a structure misses the hand size less the cards covered."""
        d = self.deck
        total = sum(counts) + wilds
        segments = []  # (-covered, length, suit, low, high, held mask, outs mask)
        for s in range(d.suits):
            faces = d.position_faces[s]
            row = counts[s * d.ranks:(s + 1) * d.ranks]
            held = [p for p in range(d.positions) if row[faces[p] - s * d.ranks]]
            for a, low in enumerate(held):
                mask = 0
                for b in range(a, len(held)):
                    high = held[b]
                    if high - low + 1 > d.ranks:
                        break
                    mask |= 1 << faces[high]
                    outs = 0
                    for p in range(low, high + 1):
                        bit = 1 << faces[p]
                        if not mask & bit:
                            outs |= bit
                    if low > 0:
                        outs |= 1 << faces[low - 1]
                    if high < d.positions - 1:
                        outs |= 1 << faces[high + 1]
                    segments.append((-(b - a + 1), max(d.run_min, high - low + 1), s, low, high, mask, outs))
        segments.sort()
        found: list[tuple[int, int, int, int]] = []
        best = [99]
        multi = 0
        for f, c in enumerate(counts):
            if c > 1:
                multi |= 1 << f

        def search(i: int, left: int, covered: int, length: int, held: int, outs: int, spans) -> None:
            if len(found) >= _STRUCTURE_CAP:
                return
            if not left:
                cost = total - covered  # the wilds fill gaps: the report counts them
                if cost < best[0]:
                    best[0] = cost
                found.append((cost, held & ~multi, outs, held))
                return
            for k in range(i, len(segments)):
                neg, seg_len, s, low, high, mask, o = segments[k]
                if total - covered - left * (-neg) > best[0] + 1:
                    break
                if length + seg_len > total or mask & held & ~multi:
                    continue
                if any(t == s and low <= h + 1 and l <= high + 1 for t, l, h in spans):
                    continue
                search(k + 1, left - 1, covered - neg, length + seg_len, held | mask, outs | o,
                       spans + ((s, low, high),))

        search(0, runs, 0, 0, 0, 0, ())
        return found


class TableMeld:
    """A meld on the table, reduced to what lay-offs need, read from its observation slot
    (kind, count of each natural, the faces its wilds stand for, wilds in a set)."""

    __slots__ = ("kind", "rank", "suit", "low", "high", "size", "suits_held")

    def __init__(self, deck: Deck, is_set: bool, naturals: list[int], represents: list[int], set_wilds: int) -> None:
        R = deck.ranks
        self.kind = "set" if is_set else "run"
        self.size = len(naturals) + (set_wilds if is_set else len(represents))
        self.suits_held = {f // R for f in naturals}
        self.rank = naturals[0] % R if naturals else -1
        self.suit = naturals[0] // R if naturals else -1
        self.low = self.high = -1
        if not is_set:
            ranks = {f % R for f in naturals} | {f % R for f in represents}
            # an ace at the top of a run: the run reaches the king and not the two
            ace_high = deck.positions > R and 0 in ranks and R - 1 in ranks and 1 not in ranks
            places = [R if (r == 0 and ace_high) else r for r in ranks]
            self.low, self.high = min(places), max(places)

    def fits(self, deck: Deck, face: int) -> bool:
        """Whether one card of ``face`` may be laid off here: the engine's own rule."""
        is_set = self.kind == "set"
        return deck.fit.end(self.kind, self.size, self.rank if is_set else self.suit, self.low, self.high, face,
                            is_set and face // deck.ranks in self.suits_held) is not None

    def gap_to(self, deck: Deck, face: int) -> int:
        """How many cards of the run's suit must be laid off first for ``face`` to fit
        (0: it fits now; large: never)."""
        if self.kind != "run" or face == deck.wild or face // deck.ranks != self.suit:
            return 99
        rank = face % deck.ranks
        places = [rank] + ([deck.ranks] if rank == 0 and deck.positions > deck.ranks else [])
        best = 99
        for p in places:
            if p > self.high:
                best = min(best, p - self.high - 1)
            elif p < self.low:
                best = min(best, self.low - p - 1)
        return best

    def copy(self) -> "TableMeld":
        c = TableMeld.__new__(TableMeld)
        c.kind, c.rank, c.suit, c.low, c.high, c.size = self.kind, self.rank, self.suit, self.low, self.high, self.size
        c.suits_held = set(self.suits_held)
        return c

    def grow(self, deck: Deck, face: int) -> None:
        """This meld with ``face`` laid off (a wild or an end-fitting natural goes high when open)."""
        self.size += 1
        if self.kind == "set":
            if face != deck.wild:
                self.suits_held.add(face // deck.ranks)
            return
        rank = face % deck.ranks
        top = deck.positions - 1
        if face == deck.wild:
            if self.high < top:
                self.high += 1
            else:
                self.low -= 1
        elif self.high < top and (rank == self.high + 1 or (rank == 0 and self.high + 1 == deck.ranks)):
            self.high += 1
        else:
            self.low -= 1


_TOOLS: dict = {}


def tools(rules: GameRules) -> tuple[Deck, Planner, ContractSolver]:
    """The deck facts, planner and exact solver of one configuration, shared by every
    seat and game (all three are pure; their memos only save time)."""
    hit = _TOOLS.get(rules)
    if hit is None:
        deck = Deck(rules)
        if len(_TOOLS) > 16:
            _TOOLS.clear()
        hit = _TOOLS[rules] = (deck, Planner(deck), solver(rules.deck.card_set, rules.melds))
    return hit
