"""The contract games' baseline agents: ``greedy`` (``GreedyContract``) and ``expert``
(``ExpertContract``), one pair for every game with contracts (the rules object says which
rules apply: deep draws, buying, melds after going down, a going down with every card).

Besides the agents, ``Situation`` (one decision read from the observation), ``PlanReport``
(what the planner knows of a hand and its contract) and ``set_bits`` are public: the
trainer's ``contract_plan`` / ``contract_expert`` feature sets are built from them.

Both see only their seat's observation, mask and ``describe(agent)`` view. The mask is
exact, so they choose among legal actions only. Their view of a hand comes from
``_Planner``: a partial-contract search over the hand's natural counts that lists the ways
of choosing the contract's sets (a rank each) and runs (windows of ``run_min`` places) that
miss at most one card more than the best, with the wilds filling gaps. Its report gives
the hand's **deficiency** (cards still missing for the contract), its **outs** (the faces
that would fill a gap), the **core** cards (in every best structure) and the **near** ones
(in a structure one card worse), and, for each card, the deficiency and outs without it.
Whether the contract can be made now is asked exactly of the shared ``ContractSolver``.

The turn, for both (``_ContractAgent.play``): a swap when offered (the mask offers one only
when the wild can be played again this turn); then the going down once the mask offers its
melds, each time the meld that takes the most cards from the hand, then the most penalty
(``meld set 7 CDHS`` before ``meld set 7 CDH``); once down, further melds where the game
allows them (biggest first), then lay-offs (naturals before wilds, the highest penalty
first, a wild on a set rather than a run, where nobody can swap it back); then the discard.

greedy
------
What a decent casual player does:

- **Draw**: not down, it takes the top discard when the contract can then be made, or when
  the card completes a meld of the contract's kinds with the hand; a deep draw (Contract
  Rummy) when offered (the mask offers one only when its card can go down this turn).
  Down, it takes a deep draw whose cards all lay off, or a top discard that fits the table
  (or, in Toonerville Rook, makes a new meld). Otherwise the stock.
- **Buy** (Toonerville Rook): only when not down, the card completes a meld, and buying is
  cheap: fewer than two buys this round, a hand at most two cards over the deal, and early
  in the round (at most three turns per player). Otherwise ``pass``.
- **Discard**: not down, the card whose loss leaves the hand the least short of the
  contract, then the least used (not in a best structure, not one card from one), then
  never a wild, then the highest penalty. Down, a card with no hope of reaching the table
  first, never a wild, then the highest penalty.

expert
------
It counts cards and weighs speed against penalty:

- **Availability**: per face, the copies that can still reach the hand: those in the
  discard pile (weighted by how soon the pile comes back: more when the stock is small),
  those it saw in the pile that went back into the stock with a reshuffle, and those never
  seen (in the stock, or in other hands and out only if discarded). A hand's **outlook**
  is ``MISSING`` per missing card plus ``FEW_OUTS`` when its outs have few available copies.
- **Urgency**: grows with the turns of the round, and once an opponent is down, the more so
  the fewer cards that opponent holds; it scales the weight of penalty points kept.
- **Discard**: not down, the card with the least cost: the outlook without it, plus the
  value of structure cards it breaks (``USE``), less ``PEN`` x urgency x its penalty, plus
  ``DANGER`` x how much the next player wants it (it fits the table and that player is
  down; or it joins cards that player is known to hold). Down: the card with the least hope
  of reaching the table (runs it could grow into, with copies still live), then not one
  the next player wants, never a wild, then the highest penalty.
- **Draw**: not down, among the draws that make the contract now (the top discard, each
  deep draw), the one that leaves the least penalty after going down; else the top discard
  when it brings the hand a card nearer the contract, or makes it clearly quicker to
  complete (``TAKE_MARGIN``). Down, as ``greedy``, and it also trades a dead card in hand for
  a cheaper dead top discard when the stock is unlikely to bring a card that fits. With the
  stock empty and the pile down to one card, it ends the round by drawing when its hand
  scores well below the others' (``END_MARGIN``), and avoids it otherwise.
- **Playing for points**: when only the hand's points can still count, it takes a top
  discard below its highest card rather than draw blind, and sheds its highest card (a wild
  last); going down (out) is still taken when offered. That is on its last turn of the round
  (the turn cap comes before its next turn, or stock and pile are empty, so the next stock
  draw ends a dead round), and in the last deal while it leads every other total
  (``PROTECT_LEAD``): whoever goes out then gains this hand's points on it, so a low hand keeps
  the win.
- **Buy** (Toonerville Rook): only when not down and the card brings the hand a card nearer
  the contract by enough: the outlook gained must beat ``BUY_COST`` x urgency plus half a
  point per card the hand already holds over the deal (each buy adds a penalty card).

The constants are class attributes of ``ExpertContract``; ``docs/agents.md`` gives the
measured results.
"""

from __future__ import annotations

from typing import Sequence


from ..actions import ActionKind, SetAction
from ..backend import solver
from ..contract_solver import ContractSolver
from ..rules import GameRules
from ..rules.lay_off import LayOffFit
from ..observation_view import ObservationView
from .base import Agent, Decision, SeatInfo

_STRUCTURE_CAP = 160  # most partial-contract structures kept per hand (the best come first)


def _first_cost(options: list) -> int:
    return options[0][0]


def set_bits(mask: int):
    """The set bits of ``mask`` as indices, low to high."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Deck:
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


class _Planner:
    """Partial-contract search over a hand's natural counts: every way of choosing the
    contract's runs (windows of ``run_min`` places, grouped by the cards they hold) and
    sets (ranks, a set's worth each) that misses at most one card more than the best, so
    that one search answers for every card the hand might give up. Memoised by hand."""

    def __init__(self, deck: _Deck) -> None:
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


class _TableMeld:
    """A meld on the table, reduced to what lay-offs need, read from its observation slot
    (kind, count of each natural, the faces its wilds stand for, wilds in a set)."""

    __slots__ = ("kind", "rank", "suit", "low", "high", "size", "suits_held")

    def __init__(self, deck: _Deck, is_set: bool, naturals: list[int], represents: list[int], set_wilds: int) -> None:
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

    def fits(self, deck: _Deck, face: int) -> bool:
        """Whether one card of ``face`` may be laid off here: the engine's own rule."""
        is_set = self.kind == "set"
        return deck.fit.end(self.kind, self.size, self.rank if is_set else self.suit, self.low, self.high, face,
                            is_set and face // deck.ranks in self.suits_held) is not None

    def gap_to(self, deck: _Deck, face: int) -> int:
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


_TOOLS: dict = {}


def _tools(rules: GameRules) -> tuple[_Deck, _Planner, ContractSolver]:
    """The deck facts, planner and exact solver of one configuration, shared by every
    seat and game (all three are pure; their memos only save time)."""
    hit = _TOOLS.get(rules)
    if hit is None:
        deck = _Deck(rules)
        if len(_TOOLS) > 16:
            _TOOLS.clear()
        hit = _TOOLS[rules] = (deck, _Planner(deck), solver(rules.deck.card_set, rules.melds))
    return hit


class _Reader:
    """One configuration's observations, read through the seat's decoder, with the table's
    melds memoised (the table changes rarely)."""

    def __init__(self, seat: SeatInfo) -> None:
        self.decoder = seat.observation
        self.n = seat.num_players
        self.deep = "discard_order" in self.decoder.offsets
        self._tables: dict[bytes, list[_TableMeld]] = {}

    def table(self, deck: _Deck, view: ObservationView) -> list[_TableMeld]:
        """The melds on the table, in slot order."""
        key = view.part("table_slots").tobytes()
        hit = self._tables.get(key)
        if hit is None:
            hit = [_TableMeld(deck, slot.is_set, slot.naturals, slot.represents, slot.set_wilds)
                   for slot in view.table_slots()]
            if len(self._tables) > 256:
                self._tables.clear()
            self._tables[key] = hit
        return hit


class Situation:
    """One decision, read once from the observation: the legal actions by kind, the hand,
    the round and its contract, the table, the discard pile's top cards, and (on demand)
    how many cards of each face may still come. Seats are relative: 0 is this seat, 1 the
    player to its left (who draws next), and so on."""

    def __init__(self, agent: "_ContractAgent", decision: Decision) -> None:
        deck, reader = agent.deck, agent.reader
        self.deck = deck
        self.legal = decision.legal_actions.tolist()
        kinds = agent.layout.kinds
        self.by_kind: dict[ActionKind, list[int]] = {}
        for a in self.legal:
            self.by_kind.setdefault(kinds[a], []).append(a)
        view = self.view = reader.decoder.decode(decision.observation)
        self.hand = view.counts("hand")
        self.naturals = tuple(self.hand[:deck.naturals])
        self.wilds = self.hand[deck.wild] if deck.wild >= 0 else 0
        self.size = sum(self.hand)
        self.phase = view.phase
        self.n = reader.n
        self.round = view.index("round")
        self.spec = deck.rules.rounds[self.round]
        self.sets, self.runs = self.spec.contract
        self.all_cards = self.spec.down_means_out
        self.gone_down = view.flags("gone_down")
        self.down = self.gone_down[0]
        self.hand_sizes = view.hand_sizes
        self.turns = view.turns
        self.stock_size = view.stock_size
        self.pile_size = int(view.part("discard_pile").sum())
        self.top = view.face("discard_order" if reader.deep else "discard_top")
        self.table = reader.table(deck, view)
        self._live: list[int] | None = None
        self._elsewhere: list[int] | None = None
        self.availability: list[int] | None = None

    def pile_faces(self, depth: int) -> list[int]:
        """The top ``depth`` cards of the discard pile, as faces."""
        return self.view.discard_order(depth)

    @property
    def scores(self) -> list[int]:
        """Every seat's total before this deal, this seat first."""
        return self.view.scores

    def buy_offer(self) -> int:
        return self.view.face("buy_offer")

    def buys(self) -> int:
        """Cards this seat has bought this round."""
        return self.view.buys[0]

    @property
    def live(self) -> list[int]:
        """Per face, the copies that may still come to this hand: not in it, not on the
        table, not known to be held by another player, and not in the discard pile unless
        the stock is so small that the pile will soon be shuffled into it."""
        if self._live is None:
            view = self.view
            seen = view.part("table") + view.part("known_held").reshape(self.n - 1, -1).sum(axis=0)
            if self.stock_size > 3 * self.n:
                seen = seen + view.part("discard_pile")
            self._live = [max(0, c - h - int(k)) for c, h, k in zip(self.deck.copies, self.hand, seen.tolist())]
        return self._live

    @property
    def pile_counts(self) -> list[int]:
        """Per face, the cards of it in the discard pile."""
        return self.view.counts("discard_pile")

    @property
    def known_counts(self) -> list[int]:
        """Per face, the cards of it that other players are known to hold."""
        known = self.view.part("known_held").reshape(self.n - 1, -1).sum(axis=0)
        return [int(c) for c in known.tolist()]

    @property
    def held_elsewhere(self) -> list[int]:
        """Per face, the copies that may be in other players' hands (not in this hand,
        on the table or in the discard pile)."""
        if self._elsewhere is None:
            seen = (self.view.part("table") + self.view.part("discard_pile")).tolist()
            self._elsewhere = [max(0, c - h - int(k)) for c, h, k in zip(self.deck.copies, self.hand, seen)]
        return self._elsewhere

    @property
    def table_counts(self) -> list[int]:
        """Per face, the cards of it in the melds on the table."""
        return self.view.counts("table")

    def known_of(self, seat: int) -> list[int]:
        """Faces the (relative) seat is publicly known to hold (taken from the discard pile
        or bought)."""
        return self.view.known_of(seat)


class _ContractAgent(Agent):
    """What both baselines share: reading the decision, the exact going-down test, meld
    and lay-off bookkeeping, and the order of a turn's moves (swaps, then the going down
    or further melds, then lay-offs, then the discard). The subclasses choose the draw, the
    buy answer, the going-down melds and the discard."""

    name = "contract"

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self.deck, self.planner, self.solver = _tools(seat.rules)
        self.reader = _Reader(seat)
        self.layout = seat.layout
        self.melds_after_down = seat.rules.contract_play.melds_after_down

    def situation(self, decision: Decision) -> Situation:
        """The decision as this agent reads it (the training features read it too)."""
        return Situation(self, decision)

    def act(self, decision: Decision) -> int:
        s = self.situation(decision)
        self.remember(s)
        if s.phase == "buy":
            return self.buy_answer(s)
        if s.phase == "draw":
            return self.draw(s)
        return self.play(s)

    # ------------------------------------------------------------------ facts
    def report(self, s: Situation, extra: Sequence[int] = ()) -> PlanReport:
        """The planner's report on the hand (plus the ``extra`` faces)."""
        counts, wilds = self.with_cards(s, extra)
        return self.planner.report(counts, wilds, s.sets, s.runs, s.all_cards)

    def with_cards(self, s: Situation, extra: Sequence[int]) -> tuple[tuple[int, ...], int]:
        counts, wilds = list(s.naturals), s.wilds
        for f in extra:
            if f == self.deck.wild:
                wilds += 1
            else:
                counts[f] += 1
        return tuple(counts), wilds

    def can_go_down_with(self, s: Situation, extra: Sequence[int]) -> bool:
        """Exactly: whether the hand and the ``extra`` faces make the contract (deal 7:
        with every card)."""
        counts, wilds = self.with_cards(s, extra)
        if s.all_cards:
            return self.solver.can_partition(list(counts), wilds, s.sets, s.runs)
        return self.solver.can_make_contract(list(counts), wilds, s.sets, s.runs)

    def forms_meld(self, s: Situation, face: int, any_kind: bool = False) -> bool:
        """Whether ``face`` makes a complete meld with the hand's naturals (a set or run of
        the contract's kinds, or of any kind with ``any_kind``)."""
        d = self.deck
        if face == d.wild or face < 0:
            return False
        R = d.ranks
        counts = list(s.naturals)
        counts[face] += 1
        rank, suit = face % R, face // R
        if s.sets or any_kind:
            row = counts[rank::R]
            if (sum(1 for c in row if c) if d.distinct else sum(row)) >= d.set_min:
                return True
        if s.runs or any_kind:
            faces = d.position_faces[suit]
            held = [counts[f] > 0 for f in faces]
            for p in range(d.positions):
                if faces[p] != face:
                    continue
                for low in range(max(0, p - d.run_min + 1), min(p, d.positions - d.run_min) + 1):
                    if all(held[low:low + d.run_min]):
                        return True
        return False

    def fits_table(self, s: Situation, face: int) -> bool:
        return any(m.fits(self.deck, face) for m in s.table)

    def all_lay_off(self, s: Situation, faces: Sequence[int]) -> bool:
        """Whether every one of ``faces`` could be laid off on the table, one after the
        other (a run grows as its neighbours go on)."""
        todo = list(faces)
        melds = [_copy_meld(m) for m in s.table]
        progress = True
        while todo and progress:
            progress = False
            for f in list(todo):
                for m in melds:
                    if m.fits(self.deck, f):
                        _grow(self.deck, m, f)
                        todo.remove(f)
                        progress = True
                        break
        return not todo

    def meld_cards(self, s: Situation, action: int) -> list[int]:
        """The faces a meld action takes from the hand."""
        arg = self.layout.args[action]
        if isinstance(arg, SetAction):
            return list(arg.naturals) + [self.deck.wild] * arg.wilds
        R = self.deck.ranks
        out = []
        for q in range(arg.low, arg.high + 1):
            f = arg.suit * R + q % R
            out.append(f if s.hand[f] else self.deck.wild)
        return out

    def penalty(self, faces: Sequence[int]) -> int:
        return sum(self.deck.values[f] for f in faces)

    # ------------------------------------------------------------------ the turn
    def play(self, s: Situation) -> int:
        """After the draw: swaps, the going down (or, once down, further melds), lay-offs,
        then the discard."""
        k = s.by_kind
        melds = k.get(ActionKind.MELD_SET, []) + k.get(ActionKind.MELD_RUN, [])
        if s.phase == "going_down":
            return self.going_down_meld(s, melds)
        if ActionKind.SWAP in k and self.wants_swap(s):
            return k[ActionKind.SWAP][0]
        if melds and not s.down and self.wants_to_go_down(s, melds):
            return self.going_down_meld(s, melds)
        if melds and s.down:
            return max(melds, key=lambda a: (len(self.meld_cards(s, a)), self.penalty(self.meld_cards(s, a))))
        if ActionKind.LAY_OFF in k:
            return self.lay_off(s, k[ActionKind.LAY_OFF])
        if ActionKind.DISCARD in k:
            return self.layout.discard(self.discard(s, [self.layout.args[a] for a in k[ActionKind.DISCARD]]))
        return s.legal[0]

    def wants_swap(self, s: Situation) -> bool:
        """A swap puts a natural on the table and the wild must be played this turn (the
        mask offers it only then): one card fewer in hand."""
        return True

    def wants_to_go_down(self, s: Situation, melds: list[int]) -> bool:
        return True

    def going_down_meld(self, s: Situation, melds: list[int]) -> int:
        """The meld that takes the most cards from the hand, then the most penalty."""
        return max(melds, key=lambda a: (len(self.meld_cards(s, a)), self.penalty(self.meld_cards(s, a)), -a))

    def lay_off(self, s: Situation, actions: list[int]) -> int:
        """Naturals before wilds (a wild laid off first could close a run's end that a
        natural of the hand needs), the highest penalty first; a wild goes on a set where
        it can (there nobody can swap it back out)."""
        d, args = self.deck, self.layout.args

        def key(a: int):
            face, slot = args[a]
            return (face == d.wild, face == d.wild and s.table[slot].kind == "run", -d.values[face], a)

        return min(actions, key=key)

    # ------------------------------------------------------------------ policy hooks
    def remember(self, s: Situation) -> None:
        """Keep what this decision shows for later ones (nothing, by default)."""

    def draw(self, s: Situation) -> int:
        raise NotImplementedError

    def buy_answer(self, s: Situation) -> int:
        raise NotImplementedError

    def discard(self, s: Situation, faces: list[int]) -> int:
        raise NotImplementedError


def _copy_meld(m: _TableMeld) -> _TableMeld:
    c = _TableMeld.__new__(_TableMeld)
    c.kind, c.rank, c.suit, c.low, c.high, c.size = m.kind, m.rank, m.suit, m.low, m.high, m.size
    c.suits_held = set(m.suits_held)
    return c


def _grow(deck: _Deck, m: _TableMeld, face: int) -> None:
    """``m`` with ``face`` laid off (a wild or an end-fitting natural goes high when open)."""
    m.size += 1
    if m.kind == "set":
        if face != deck.wild:
            m.suits_held.add(face // deck.ranks)
        return
    rank = face % deck.ranks
    top = deck.positions - 1
    if face == deck.wild:
        if m.high < top:
            m.high += 1
        else:
            m.low -= 1
    elif m.high < top and (rank == m.high + 1 or (rank == 0 and m.high + 1 == deck.ranks)):
        m.high += 1
    else:
        m.low -= 1


class GreedyContract(_ContractAgent):
    """The ``greedy`` baseline: a decent casual player (see the module docstring)."""

    name = "greedy"

    def draw(self, s: Situation) -> int:
        k, args = s.by_kind, self.layout.args
        top_ok = ActionKind.DRAW_DISCARD in k
        deep = sorted(k.get(ActionKind.DEEP_DRAW, []))
        if s.down:
            for a in deep:
                if self.all_lay_off(s, s.pile_faces(args[a])):
                    return a
            if top_ok and (self.fits_table(s, s.top)
                           or (self.melds_after_down and self.forms_meld(s, s.top, any_kind=True))):
                return self.layout.DRAW_DISCARD
            return self.layout.DRAW_STOCK
        if top_ok and self.can_go_down_with(s, [s.top]):
            return self.layout.DRAW_DISCARD
        if deep:
            return deep[0]  # offered only when its card can go down this turn
        if top_ok and self.forms_meld(s, s.top):
            return self.layout.DRAW_DISCARD
        return self.layout.DRAW_STOCK

    def buy_answer(self, s: Situation) -> int:
        card = s.buy_offer()
        cheap = (s.buys() < 2 and s.size <= s.spec.hand_size + 2
                 and s.turns <= 3 * s.n)
        if not s.down and cheap and self.forms_meld(s, card):
            return self.layout.buy
        return self.layout.buy + 1

    def discard(self, s: Situation, faces: list[int]) -> int:
        d = self.deck
        if not s.down:
            rep = self.report(s)

            def key(f: int):
                lack, _ = rep.without(f, d.wild)
                bit = 0 if f == d.wild else 1 << f
                use = 2 if f == d.wild or rep.core & bit else 1 if rep.near & bit else 0
                return (lack, use, f == d.wild, -d.values[f], f)
        else:
            def key(f: int):
                hope = min((m.gap_to(d, f) for m in s.table), default=99) <= 1 or (
                    self.melds_after_down and self.has_partner(s, f))
                return (f == d.wild, hope, -d.values[f], f)
        return min(faces, key=key)

    def has_partner(self, s: Situation, face: int) -> bool:
        """Whether another card of the hand could share a meld with ``face``."""
        d = self.deck
        if face == d.wild:
            return True
        R = d.ranks
        rank, suit = face % R, face // R
        if sum(s.naturals[rank::R]) > 1:
            return True
        return any(s.naturals[suit * R + r] for r in range(max(0, rank - d.run_min + 1), min(R, rank + d.run_min))
                   if r != rank)


class ExpertContract(_ContractAgent):
    """The ``expert`` baseline: counts live outs, weighs penalty against speed, keeps
    away from feeding the next player, buys and deep-draws by value (see the module
    docstring)."""

    name = "expert"
    MISSING = 10.0
    """Cost of each card still missing for the contract."""
    FEW_OUTS = 4.0
    """Extra cost of a hand whose gaps have no live card to fill them (less with more)."""
    PLENTY = 6
    """Live outs beyond which more do not matter."""
    USE = 1.5
    """Cost of giving up a card of one of the best structures (twice that) or of one
    missing a card more (once)."""
    PEN = 0.06
    """Cost of a penalty point kept, at urgency 1."""
    DANGER = 1.5
    """Cost of handing the next player a card it wants."""
    SAFETY = 0.0
    """Weight of how likely any other hand can use a discard (unseen partners)."""
    TAKE_MARGIN = 1.0
    """How much better the hand must get to take a top discard that fills no gap."""
    OPPONENT_DISCARDS = 0.15
    """Chance that a card held by another player reaches the discard pile soon."""
    PILE_SMALL_STOCK = 0.8
    """Weight of a discard-pile card when the stock is small (the pile is shuffled back soon)."""
    PILE_BIG_STOCK = 0.1
    """Weight of a discard-pile card when the stock is big."""
    TRADE_GAIN = 3
    """Penalty points a dead top discard must save over the worst dead card in hand."""
    TRADE_CHANCE = 0.15
    """Chance of drawing a card that fits the table below which the trade is taken."""
    END_MARGIN = 10
    """Points below the others' mean hand at which ending the round now is welcome."""
    BUY_COST = 6.0
    """How much better the hand must get to buy (the card and the penalty card in hand)."""
    PROTECT_LEAD = 1
    """Lead over every other total, in the last deal, from which the hand plays to keep its
    points low rather than to go out (any lead: 15, 30 and 50 measured a little worse)."""

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self._round = -1
        self._piled: list[int] = []

    def remember(self, s: Situation) -> None:
        """Track, per face, the most copies seen at once in the discard pile this round:
        those that left it unseen went back into the stock with a reshuffle (or to a
        hand, drawn from it)."""
        pile = s.pile_counts
        if s.round != self._round:
            self._round, self._piled = s.round, list(pile)
        else:
            self._piled = [max(a, b) for a, b in zip(self._piled, pile)]
        s.availability = self.availability(s, self._piled)

    def read_afresh(self, s: Situation) -> None:
        """What ``remember`` does, without the memory of earlier decisions: the pile as it is
        now stands for the most copies seen in it (how the training features read ``expert``)."""
        s.availability = self.availability(s, s.pile_counts)

    def availability(self, s: Situation, piled: Sequence[int]) -> list[float]:
        """Per face, the expected copies that can still reach this hand: those shuffled
        back into the stock, those in the discard pile (which comes back when the stock
        runs out), and the never-seen ones, which are in the stock or in other hands (and
        then come out only if discarded). ``piled`` is, per face, the most copies seen at
        once in the pile this round (the pile as it is now, for a reader with no memory)."""
        d = self.deck
        pile, table, known = s.pile_counts, s.table_counts, s.known_counts
        recycled, hidden = [], []
        for f in range(len(s.hand)):
            out_of_play = s.hand[f] + table[f] + known[f]
            gone = max(0, min(piled[f], d.copies[f] - out_of_play) - pile[f])
            recycled.append(gone)
            hidden.append(max(0, d.copies[f] - out_of_play - pile[f] - gone))
        in_stock = s.stock_size
        back = sum(recycled)
        recycled_share = min(1.0, in_stock / back) if back else 1.0
        hidden_share = max(0, in_stock - back) / max(1, sum(hidden)) + self.OPPONENT_DISCARDS
        pile_share = self.PILE_SMALL_STOCK if s.stock_size <= 3 * s.n else self.PILE_BIG_STOCK
        return [recycled_share * g + min(1.0, hidden_share) * h + pile_share * p
                for g, h, p in zip(recycled, hidden, pile)]

    # ------------------------------------------------------------------ estimates
    def outlook(self, lack: int, outs: int, s: Situation) -> float:
        """Cost of a hand ``lack`` cards short of the contract whose gaps the faces
        ``outs`` fill: the missing cards, and fewer outs within reach costing more."""
        if lack <= 0:
            return 0.0
        avail = s.availability
        hits = sum(avail[f] for f in set_bits(outs))
        return lack * self.MISSING + self.FEW_OUTS * max(0.0, 1.0 - hits / self.PLENTY)

    def urgency(self, s: Situation) -> float:
        """How soon the round may end: higher once an opponent is down, the more so the
        fewer cards it holds."""
        u = min(2.0, 0.5 + s.turns / (10.0 * s.n))
        for seat in range(1, s.n):
            if s.gone_down[seat]:
                u = max(u, 1.0 + 2.0 / max(1, s.hand_sizes[seat]))
        return u

    def danger(self, s: Situation, face: int) -> float:
        """How much discarding ``face`` helps the next player: it fits the table and that
        player is down, or it joins cards that player is known to hold."""
        d = self.deck
        nxt = 1
        if s.gone_down[nxt]:
            if self.fits_table(s, face) or (self.melds_after_down and face == d.wild):
                return 1.0 + (1.0 if s.hand_sizes[nxt] <= 2 else 0.0)
            return 0.0
        if face == d.wild:
            return 1.0
        known = s.known_of(nxt)
        R = d.ranks
        rank, suit = face % R, face // R
        risk = 0.0
        if s.sets and any(known[rank::R][:d.suits]):
            risk += 0.7
        if s.runs and any(known[suit * R + r] for r in range(max(0, rank - 2), min(R, rank + 3)) if r != rank):
            risk += 0.7
        return risk + self.SAFETY * self.usefulness(s, face)

    def usefulness(self, s: Situation, face: int) -> float:
        """How likely another hand can use ``face``: for sets, other cards of its rank that
        are unseen (two make a set with it); for runs, pairs of unseen neighbours."""
        d = self.deck
        live = s.held_elsewhere
        R = d.ranks
        rank, suit = face % R, face // R
        score = 0.0
        if s.sets:
            others = sum(1 for t in range(d.suits) if (t != suit or not d.distinct) and live[t * R + rank])
            score += max(0, others - 1) / 2
        if s.runs:
            base = suit * R
            near = [bool(live[base + r]) if 0 <= r < R else False for r in range(rank - 2, rank + 3)]
            score += ((near[0] and near[1]) + (near[1] and near[3]) + (near[3] and near[4])) / 3
        return score

    def cost_of_discard(self, s: Situation, rep: PlanReport, face: int, urgency: float) -> float:
        lack, outs = rep.without(face, self.deck.wild)
        cost = self.outlook(lack, outs, s)
        if face == self.deck.wild or rep.core & (1 << face):
            cost += 2 * self.USE
        elif rep.near & (1 << face):
            cost += self.USE
        cost -= self.penalty_weight(s) * urgency * self.deck.values[face]
        return cost + self.DANGER * self.danger(s, face)

    def penalty_weight(self, s: Situation) -> float:
        """Cost of a penalty point kept, at urgency 1, for a hand not yet down."""
        return self.PEN

    def leftover(self, s: Situation, extra: Sequence[int]) -> int:
        """Penalty left in hand after going down with the hand and ``extra`` (the best of
        the planner's structures placed, and whatever then fits the table laid off)."""
        rep = self.report(s, extra)
        counts, wilds = self.with_cards(s, extra)
        d = self.deck
        total = sum(d.values[f] * c for f, c in enumerate(counts)) + wilds * (d.values[d.wild] if d.wild >= 0 else 0)
        best_used = 0
        for _, _, _, used in rep.best():
            best_used = max(best_used, sum(d.values[f] for f in set_bits(used)))
        rest = total - best_used - wilds * (d.values[d.wild] if d.wild >= 0 else 0)
        return rest

    # ------------------------------------------------------------------ decisions
    def draw(self, s: Situation) -> int:
        choice = self.draw_for_the_hand(s)
        top_ok = ActionKind.DRAW_DISCARD in s.by_kind
        if s.stock_size == 0 and s.pile_size <= 1:
            # a stock draw now ends the round as a dead round (docs/rules/README.md#empty-stock)
            if self.wants_round_over(s):
                return self.layout.DRAW_STOCK
            if choice == self.layout.DRAW_STOCK and top_ok:
                return self.layout.DRAW_DISCARD
        if choice == self.layout.DRAW_STOCK and top_ok and self.plays_for_points(s) and self.lowers_hand(s, s.top):
            return self.layout.DRAW_DISCARD  # a known card below the worst one in hand beats a gamble
        return choice

    def plays_for_points(self, s: Situation) -> bool:
        """Whether the hand should now only keep its points low: on its last turn of the
        round, or when protecting a lead in the last deal."""
        return self.last_turn(s) or self.protects_lead(s)

    def protects_lead(self, s: Situation) -> bool:
        """In the last deal, with a lead of ``PROTECT_LEAD`` or more over every other total:
        whoever goes out gains this hand's points on this seat, so a low hand keeps the
        win even when another player goes out (and going out still comes when offered)."""
        if s.round != self.deck.rules.num_rounds - 1:
            return False
        return min(s.scores[1:]) - s.scores[0] >= self.PROTECT_LEAD

    def last_turn(self, s: Situation) -> bool:
        """Whether the round ends before this seat's next turn: the turn cap comes first, or
        (after this draw) stock and pile are empty, so the next stock draw ends a dead round."""
        if s.phase != "draw" and s.stock_size + s.pile_size == 0:
            return True
        return s.turns + s.n >= self.reader.decoder.turn_scale

    def lowers_hand(self, s: Situation, face: int) -> bool:
        """Whether taking ``face`` and discarding the hand's highest natural scores less."""
        d = self.deck
        if face < 0 or face == d.wild:
            return False
        highest = max((d.values[f] for f in range(d.naturals) if s.hand[f]), default=0)
        return d.values[face] < highest

    def wants_round_over(self, s: Situation) -> bool:
        """Whether the hands as they stand score this seat well below the others (their
        unknown cards counted at the deck's mean penalty)."""
        mine = self.penalty([f for f, c in enumerate(s.hand) for _ in range(c)])
        others = sum(s.hand_sizes[1:]) * self.deck.mean_value / (s.n - 1)
        return mine + self.END_MARGIN < others

    def draw_for_the_hand(self, s: Situation) -> int:
        k, args = s.by_kind, self.layout.args
        top_ok = ActionKind.DRAW_DISCARD in k
        deep = sorted(k.get(ActionKind.DEEP_DRAW, []))
        if s.down:
            for a in deep:
                if self.all_lay_off(s, s.pile_faces(args[a])):
                    return a
            for a in deep:
                # the pile, cut down to one card, ends the round at the next stock draw
                if s.stock_size == 0 and s.pile_size - args[a] + 1 <= 1 and self.wants_round_over(s):
                    return a
            if top_ok and (self.fits_table(s, s.top)
                           or (self.melds_after_down and self.forms_meld(s, s.top, any_kind=True))
                           or self.trades_down(s)):
                return self.layout.DRAW_DISCARD
            return self.layout.DRAW_STOCK
        going_down = []
        if top_ok and self.can_go_down_with(s, [s.top]):
            going_down.append((self.leftover(s, [s.top]), 1, self.layout.DRAW_DISCARD))
        for a in deep:
            going_down.append((self.leftover(s, s.pile_faces(args[a])), args[a], a))
        if going_down:
            return min(going_down)[2]
        if top_ok and self.takes_top(s):
            return self.layout.DRAW_DISCARD
        return self.layout.DRAW_STOCK

    def trades_down(self, s: Situation) -> bool:
        """Once down, when the stock is unlikely to bring a card that fits the table: take
        a top discard that can never be played either but scores less than the worst
        such card in hand (discarded next), so the hand scores less if the round ends."""
        d = self.deck
        if s.top == d.wild or self.hope(s, s.top) > 0:
            return False
        dead = [d.values[f] for f in range(d.naturals) if s.hand[f] and self.hope(s, f) == 0]
        if not dead or d.values[s.top] + self.TRADE_GAIN > max(dead):
            return False
        live = s.live
        unseen = sum(live) or 1
        fitting = sum(live[f] for f in range(len(live)) if live[f] and self.fits_table(s, f))
        return fitting / unseen < self.TRADE_CHANCE

    def takes_top(self, s: Situation) -> bool:
        """Take the top discard when, with the best discard after it, the hand is a card
        nearer the contract, or clearly quicker to complete."""
        top, wild = s.top, self.deck.wild
        now = self.report(s)
        now_cost = self.outlook(now.deficiency, now.outs, s)
        after = self.report(s, [top])
        best = None
        for f in range(len(s.hand)):
            if not (s.hand[f] or f == top) or (f == top and not s.hand[f]):
                continue
            lack, outs = after.without(f, wild)
            cost = self.outlook(lack, outs, s)
            if best is None or (lack, cost) < best:
                best = (lack, cost)
        if best is None:
            return False
        lack, cost = best
        return lack < now.deficiency or cost + self.TAKE_MARGIN < now_cost

    def buy_answer(self, s: Situation) -> int:
        card = s.buy_offer()
        if not s.down:
            now = self.report(s)
            after = self.report(s, [card])
            if after.deficiency < now.deficiency:
                gain = self.outlook(now.deficiency, now.outs, s) - self.outlook(after.deficiency, after.outs, s)
                extra = max(0, s.size - s.spec.hand_size)
                if gain > self.BUY_COST * self.urgency(s) + 0.5 * extra:
                    return self.layout.buy
        return self.layout.buy + 1

    def discard(self, s: Situation, faces: list[int]) -> int:
        return self.discard_order(s, faces)[0]

    def discard_order(self, s: Situation, faces: list[int]) -> list[int]:
        """The faces it may discard, the one it discards first (the training features
        read the whole order)."""
        d = self.deck
        if self.plays_for_points(s):
            # shed the most points (a wild last: it may let the next player go down and play on)
            return sorted(faces, key=lambda f: (f == d.wild, -d.values[f], self.danger(s, f) > 0, f))
        if not s.down:
            rep = self.report(s)
            urgency = self.urgency(s)
            return sorted(faces, key=lambda f: (self.cost_of_discard(s, rep, f, urgency), f))
        return sorted(faces, key=lambda f: (self.hope(s, f), self.danger(s, f) > 0, f == d.wild, -d.values[f], f))

    def hope(self, s: Situation, face: int) -> int:
        """Once down: 2 if the card is one card away from fitting a run on the table (or
        has a partner in hand where new melds are allowed), 1 if further but still
        reachable, 0 if it can never be played."""
        d = self.deck
        if face == d.wild:
            return 2
        if self.melds_after_down and GreedyContract.has_partner(self, s, face):
            return 2
        table = s.table_counts
        best = 0
        R = d.ranks
        for m in s.table:
            gap = m.gap_to(d, face)
            if gap >= 99:
                continue
            rank = face % R
            step = 1 if (rank > m.high or (rank == 0 and m.high >= R - 1 and d.positions > R)) else -1
            start = m.high if step == 1 else m.low
            between = [m.suit * R + (start + step * i) % R for i in range(1, gap + 1)]
            if all(table[f] < d.copies[f] for f in between):
                best = max(best, 2 if gap <= 1 else 1)
        return best
