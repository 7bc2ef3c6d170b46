"""Three-Thirteen's baseline agents: ``greedy`` (``GreedyThreeThirteen``) and ``expert``
(``ExpertThreeThirteen``).

Both see only their seat's observation and mask. Hands are per-face counts; every
penalty is exact, from the shared ``MeldSolver`` of ``rummy_env.meld_solver`` (``min_penalty``,
``best_arrangement``) on the agent's own hand, with the round's wild rank and the game's
values (A 1, 2..10 face, J Q K 10; an unmatched wild its own rank's value). "Penalty" below
is always the least penalty of a hand over every arrangement into sets and runs.

Removing a card can lower a hand's penalty by at most that card's value, exactly when it is
unmatched in some least-penalty arrangement; so one arrangement gives the penalty after
discarding each of its unmatched cards, and only higher cards need a solver query to find
the best discard (``HandPenalties.removals``).

greedy
------
What a decent casual player does, one step at a time:

- **Draw**: takes the top discard if, with it, its best discard (any card but the one just
  taken, unless it holds two of that face) leaves a lower penalty than the hand has now:
  the card completes or extends a meld, or replaces a higher unmatched card. Otherwise it
  draws from the stock.
- **Go out** whenever it may, with a natural rather than a wild, then the highest value,
  then the highest face (``AC`` = 0 .. ``KS`` = 51).
- **Discard** the card whose removal leaves the lowest penalty; on a tie a natural rather
  than a wild (so it keeps its wilds unless letting one go is strictly better), then the
  highest value, then the highest face.

expert
------
Clearly stronger (measured in ``docs/agents_three_thirteen.md``): it values a hand by its
penalty and by what the next draw is likely to bring, counting the cards it has seen.

- **Unseen cards**: per face, the game's copies less those in its hand, in the discard
  pile (public), known to be held by another seat (taken from the pile) and shown on the
  table. The next stock card is taken to be uniform over these; dead cards lower a draw's
  value.
- **A kept hand** ``K`` (after a discard) has its penalty ``pen(K)`` and ``Q(K)``, the
  expected penalty after one more stock draw and the best discard, estimated from one
  least-penalty arrangement of ``K`` (its melds kept, and the wilds they can spare: beyond
  three cards in a set, at the ends of a run beyond three). For each unseen card ``c``:
  a natural that joins a meld (a set's rank, a run's next place or a place a wild holds),
  or a wild when there is a meld, lets the highest loose card go; a card (or a wild) that
  makes a meld with loose cards
  (they hold none among themselves, so it is the only new one: every loose card of its
  rank, or the longest run of its suit through it) leaves the rest loose less the highest
  (or 0 with a card to spare); any other card is kept only if lower than the highest loose
  card. Its score is ``S(K) = pen(K) - beta * (pen(K) - Q(K))`` with
  ``beta = potential / (1 + potential_decay * t)``, ``t`` the turns started this round per
  player: pairs and near runs with live cards are worth keeping, more so early in a round.
- **Discard**: among the cards unmatched in the hand's arrangement (every legal discard if
  none is), the one with the lowest ``S(hand - d) + feed(d)``. ``feed(d)`` is what the
  next player, who may take it, gains: ``feed_wild`` for a wild; else ``feed_rank`` per
  card of its rank and ``feed_suit`` per card of its suit at most two places away that the
  next player took from the pile and still holds.
- **Draw**: a stock draw is worth ``pen(H) - (beta + stock_gain) * (pen(H) - Q(H))`` (the
  draw's expected gain now, and the potential that stays); the top discard ``t`` is taken
  only if the best discard after taking it scores lower. It is not considered at all
  unless it could help: a wild, a card that joins a meld, one of a loose card's rank or
  of its suit within two places, or one lower than the highest loose card.
- **Go out** whenever it may (it scores 0), with the card that feeds the next player least
  (so a natural rather than a wild), then the highest value.
- **Last turn** (after another player went out): only the penalty counts. It takes the
  top discard if its best discard leaves less than ``Q`` of its hand (the stock's expected
  result), and discards as ``greedy`` does.

Decisions take about a millisecond or less on average (one ``best_arrangement`` per new
hand; the estimate of ``Q`` needs no solver query).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence


from ..backend import solver
from ..meld_solver import MeldSolver
from .base import Agent, Decision, SeatInfo

_DRAW_STOCK, _DRAW_DISCARD, _DISCARD, _GO_OUT = 0, 1, 2, 54
_INF = 1 << 30

_SOLVERS: dict = {}


def shared_solver(seat: SeatInfo) -> MeldSolver:
    """One solver per deck and meld rules, shared by every agent of the process (its memo
    only makes later queries faster; its answers never depend on it)."""
    rules = seat.rules
    key = (rules.deck.card_set, rules.melds)
    shared = _SOLVERS.get(key)
    if shared is None:
        shared = _SOLVERS[key] = solver(rules.deck.card_set, rules.melds)
    return shared


class HandPenalties:
    """Exact penalty queries on one seat's hands in one round, as per-face counts (wilds
    included), answered by the shared ``MeldSolver``, and cached by hand."""

    def __init__(self, solver: MeldSolver, rank_penalties: Sequence[int], wild_rank: int) -> None:
        cs = solver.card_set
        self.solver = solver
        self.R = cs.num_ranks
        self.N = cs.num_naturals
        self.values = tuple(rank_penalties[f % self.R] for f in range(self.N))
        self.wild_rank = wild_rank
        self.wild_faces = tuple(s * self.R + wild_rank for s in range(cs.num_suits))
        self.wild_value = rank_penalties[wild_rank]
        self.is_wild = [f % self.R == wild_rank for f in range(self.N)]
        self.value = [self.wild_value if w else v for w, v in zip(self.is_wild, self.values)]
        """Penalty of each face left unmatched."""
        self._pen: dict[bytes, int] = {}
        self._arr: dict[bytes, tuple[int, list[int]]] = {}  # (penalty, unmatched faces)

    def split(self, counts: Sequence[int]) -> tuple[list[int], int]:
        naturals = list(counts)
        wilds = 0
        for f in self.wild_faces:
            wilds += naturals[f]
            naturals[f] = 0
        return naturals, wilds

    def pen(self, counts: Sequence[int]) -> int:
        """The hand's least penalty over every arrangement."""
        key = bytes(counts)
        hit = self._pen.get(key)
        if hit is None:
            naturals, wilds = self.split(counts)
            hit = self._pen[key] = self.solver.min_penalty(naturals, wilds, self.values, self.wild_value)
        return hit

    def unmatched(self, counts: Sequence[int]) -> tuple[int, list[int]]:
        """``(penalty, the faces left unmatched by one least-penalty arrangement)``, a wild
        face for each unmatched wild."""
        key = bytes(counts)
        hit = self._arr.get(key)
        if hit is None:
            naturals, wilds = self.split(counts)
            penalty, _, loose, loose_wilds = self.solver.best_arrangement(
                naturals, wilds, self.values, self.wild_value)
            if loose_wilds:
                held = [f for f in self.wild_faces for _ in range(counts[f])]
                loose = loose + held[:loose_wilds]
            hit = self._arr[key] = (penalty, loose)
            self._pen.setdefault(key, penalty)
        return hit

    def removals(self, counts: list[int], allowed: Sequence[int]) -> tuple[int, dict[int, int]]:
        """The least penalty of the hand less one card of an ``allowed`` face, and the exact
        penalty after each removal that could reach it (every face achieving it included).

        Removing a card ``d`` can lower the penalty by at most its value (put it back
        unmatched), with equality exactly when it is unmatched in a least-penalty
        arrangement; so one arrangement gives the exact answer for its unmatched cards,
        and only the faces whose bound reaches the best so far need a solver query."""
        penalty, loose = self.unmatched(counts)
        allowed_set = set(allowed)
        exact: dict[int, int] = {}
        value = self.face_value
        for f in loose:
            if f in allowed_set:
                exact[f] = penalty - value(f)
        best = min(exact.values(), default=_INF)
        rest = sorted((f for f in allowed_set if f not in exact), key=value, reverse=True)
        for f in rest:
            if penalty - value(f) > best:
                break
            counts[f] -= 1
            p = self.pen(counts)
            counts[f] += 1
            exact[f] = p
            if p < best:
                best = p
        return best, exact

    def after_draw(self, counts: list[int], face: int) -> int:
        """The least penalty after drawing ``face`` and then discarding the best card."""
        counts[face] += 1
        best, _ = self.removals(counts, [f for f in range(self.N) if counts[f]])
        counts[face] -= 1
        return best

    def face_value(self, f: int) -> int:
        return self.value[f]


@dataclass
class _Seen:
    """What one decision shows (counts per face): the own hand, the pile and its top card
    (-1: none), per other seat (left first) the faces it took from the pile and still
    holds, the melds shown by a player who went out, and the round's progress."""

    hand: list[int]
    top: int
    pile: list[int]
    known: list[list[int]]
    table: list[int]
    went_out: bool
    turns: int
    """Turns started this round (all seats')."""


@dataclass
class Advice:
    """An ``expert`` decision and the scores behind it (lower is better)."""

    action: int
    beta: float
    """The weight of a kept hand's potential at this point of the round."""
    last_turn: bool
    """Another player went out: only the penalty counts."""
    take: float | None = None
    """At a draw it weighed: the score of taking the top discard (then the best discard)."""
    stock: float | None = None
    """... and of drawing from the stock."""
    discards: dict[int, float] = field(default_factory=dict)
    """At a discard it weighed: each candidate face's score ``S(hand - d) + feed(d)``."""


class _ThreeThirteenBase(Agent):
    """Reading the observation, and the rules' facts shared by both agents."""

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        if seat.rules.contract_play is not None:
            raise ValueError(f"{type(self).__name__} plays games without contracts, not {seat.game}")
        self._solver = shared_solver(seat)
        cs = seat.rules.deck.card_set
        self._N = cs.num_naturals
        self._R = cs.num_ranks
        self._S = cs.num_suits
        self._decks = seat.rules.deck.num_decks
        self._hands: HandPenalties | None = None
        self._round_key: int = -1

    def _read(self, obs) -> _Seen:
        view, N = self.seat_info.observation.decode(obs), self._N
        hand, pile, known_flat, table = view.counts_of("hand", "discard_pile", "known_held", "table")
        top = view.face("discard_top")
        known = [known_flat[k:k + N] for k in range(0, len(known_flat), N)]
        went_out = any(view.flags("gone_out"))
        wild_rank = view.index("wild_rank")
        round_index = view.index("round")
        turns = view.turns
        if self._hands is None or round_index != self._round_key:
            self._round_key = round_index
            self._hands = HandPenalties(self._solver, self.seat_info.rules.rank_penalties, wild_rank)
        return _Seen(hand, top, pile, known, table, went_out, turns)

    @staticmethod
    def _faces(legal, start: int, N: int) -> list[int]:
        return [int(a) - start for a in legal if start <= a < start + N]

    def _pick(self, faces: list[int]) -> int:
        """Among equally good faces: not a wild, then the highest value, then the highest face."""
        hands = self._hands
        return max(faces, key=lambda f: (not hands.is_wild[f], hands.face_value(f), f))

    def _least_penalty_discard(self, hand: list[int], allowed: list[int]) -> int:
        """The discard leaving the lowest penalty (ties: ``_pick``)."""
        best, exact = self._hands.removals(hand, allowed)
        return self._pick([f for f, p in exact.items() if p == best])


class GreedyThreeThirteen(_ThreeThirteenBase):
    """A decent casual player (see the module docstring)."""

    name = "greedy"

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        seen = self._read(decision.observation)
        hands = self._hands
        if legal[0] == _DRAW_STOCK:
            if len(legal) > 1 and seen.top >= 0:
                hand = seen.hand
                before = hands.pen(hand)
                t = seen.top
                hand[t] += 1
                allowed = [f for f in range(self._N) if hand[f] and (f != t or hand[f] > 1)]
                after, _ = hands.removals(hand, allowed)
                hand[t] -= 1
                if after < before:
                    return _DRAW_DISCARD
            return _DRAW_STOCK
        outs = self._faces(legal, _GO_OUT, self._N)
        if outs:
            return _GO_OUT + self._pick(outs)
        return _DISCARD + self._least_penalty_discard(seen.hand, self._faces(legal, _DISCARD, self._N))


class ExpertThreeThirteen(_ThreeThirteenBase):
    """A stronger heuristic player (see the module docstring)."""

    name = "expert"

    potential = 1.0
    """``beta``: the weight of a kept hand's expected improvement from one more draw."""
    potential_decay = 0.2
    """``beta`` falls as the round goes on: ``potential / (1 + potential_decay * t)``, with
    ``t`` the turns started this round per player."""
    stock_gain = 1.0
    """``gamma``: the share of that improvement a stock draw brings at once."""
    feed_wild = 2.0
    """Cost of discarding a wild (the next player may take it)."""
    feed_rank = 0.5
    """Cost per card of the same rank that the next player took from the pile and holds."""
    feed_suit = 0.25
    """Cost per card of the same suit, at most two places away, that it took and holds."""

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self._cache_round = -1
        self._arr: dict[bytes, tuple] = {}
        """Per hand this round: its arrangement (``_arrangement``)."""
        self._q_cache: dict[bytes, float] = {}
        """Per kept hand this round: ``Q`` (the unseen cards as when it was first asked)."""

    def act(self, decision: Decision) -> int:
        return self.advise(decision).action

    def forget_round(self) -> None:
        """Drops the round's caches (arrangements, and ``Q`` as first estimated), so that
        the next advice depends on its decision alone."""
        self._cache_round = -1

    def advise(self, decision: Decision) -> "Advice":
        """The decision, with the scores it was made on (``Advice``)."""
        legal = decision.legal_actions
        seen = self._read(decision.observation)
        hands = self._hands
        if self._round_key != self._cache_round:
            self._cache_round = self._round_key
            self._new_round_caches()
        unseen = self._unseen(seen)
        hand = seen.hand
        own_turns = seen.turns / self.seat_info.num_players
        self._beta = self.potential / (1.0 + self.potential_decay * own_turns)
        advice = Advice(_DRAW_STOCK, self._beta, seen.went_out)
        if legal[0] == _DRAW_STOCK:
            if len(legal) == 1 or seen.top < 0:
                return advice
            t = seen.top
            before = self._arrangement(hand)
            if not seen.went_out and not self._may_help(t, before):
                return advice
            hand[t] += 1
            self._added(hand, t, before)
            allowed = [f for f in range(self._N) if hand[f] and (f != t or hand[f] > 1)]
            if seen.went_out:
                after, _ = hands.removals(hand, allowed)
                hand[t] -= 1
                advice.take, advice.stock = after, self._q(hand, unseen)
            else:
                advice.take = self._best_discard(hand, allowed, unseen, seen)[0]
                hand[t] -= 1
                ph = before[0]
                qh = self._q(hand, unseen)
                advice.stock = ph - (self._beta + self.stock_gain) * (ph - qh)
            if advice.take < advice.stock:
                advice.action = _DRAW_DISCARD
            return advice
        outs = self._faces(legal, _GO_OUT, self._N)
        if outs:
            advice.action = _GO_OUT + min(outs, key=lambda f: (self._feed(f, seen), -hands.face_value(f), f))
            return advice
        allowed = self._faces(legal, _DISCARD, self._N)
        if seen.went_out:
            advice.action = _DISCARD + self._least_penalty_discard(hand, allowed)
        else:
            advice.action = _DISCARD + self._best_discard(hand, allowed, unseen, seen, advice.discards)[1]
        return advice

    def _new_round_caches(self) -> None:
        self._arr, self._q_cache = {}, {}

    def _may_help(self, t: int, arrangement: tuple) -> bool:
        """Whether the card ``t`` could be worth taking into a hand of this arrangement: a
        wild, a card that joins a meld, is near a loose card (its rank, or its suit within
        two places), or is lower than the highest loose card."""
        hands = self._hands
        penalty, loose, absorb = arrangement[:3]
        if hands.is_wild[t] or absorb[t] or not loose:
            return True
        R = self._R
        value = hands.value
        if value[t] < max(value[f] for f in loose):
            return True
        r, s = t % R, t // R
        return any(f % R == r or (f // R == s and abs(f % R - r) <= 2) for f in loose if not hands.is_wild[f])

    def _unseen(self, seen: _Seen) -> tuple[list[int], list[int], int]:
        """Per face, the cards not seen (not in hand, the pile, known to another seat, or
        shown); those of the naturals that are not wild counted by penalty value; and the
        total."""
        d = self._decks
        out = [d - h - p - t for h, p, t in zip(seen.hand, seen.pile, seen.table)]
        for k in seen.known:
            out = [u - x for u, x in zip(out, k)]
        out = [u if u > 0 else 0 for u in out]
        hands = self._hands
        by_value = [0] * (max(hands.values) + 1)
        for f, u in enumerate(out):
            if u and not hands.is_wild[f]:
                by_value[hands.values[f]] += u
        return out, by_value, sum(out)

    # ------------------------------------------------------------------ arrangements
    def _arrangement(self, hand: list[int]) -> tuple:
        """``(penalty, loose faces, absorbing faces, spare, melded)`` of one least-penalty
        arrangement: the faces left unmatched (a wild face per unmatched wild); a 0/1 row
        of the natural faces that would join one of its melds (a set's rank, a run's next
        place at either end or a place a wild holds); whether a meld has a card to spare
        (4 or more cards); whether it has any meld."""
        key = bytes(hand)
        hit = self._arr.get(key)
        if hit is None:
            hands = self._hands
            naturals, wilds = hands.split(hand)
            penalty, melds, loose, loose_wilds = hands.solver.best_arrangement(
                naturals, wilds, hands.values, hands.wild_value)
            if loose_wilds:
                held = [f for f in hands.wild_faces for _ in range(hand[f])]
                loose = loose + held[:loose_wilds]
            R = self._R
            absorb = bytearray(self._N)
            for m in melds:
                if m.kind == "set":
                    for s in range(self._S):
                        absorb[s * R + m.rank] = 1
                else:
                    base = m.suit * R
                    for q in (m.low - 1, m.high + 1):
                        if 0 <= q < R:
                            absorb[base + q] = 1
                    for q in m.wild_positions(R):
                        absorb[base + q % R] = 1
            spare = any(m.size >= 4 for m in melds)
            free = sum(self._spare_wilds(m) for m in melds)
            hit = self._arr[key] = (penalty, loose, absorb, spare, bool(melds), free)
        return hit

    def _spare_wilds(self, m) -> int:
        """Wilds that can leave the meld ``m`` with the rest still a meld: any beyond three
        cards in a set, those at the ends of a run beyond three."""
        if m.kind == "set":
            return max(0, min(m.wilds, m.size - 3))
        R = self._R
        held = {f % R for f in m.naturals}
        low, high, spare = m.low, m.high, 0
        while high - low + 1 > 3:
            if low % R not in held:
                low += 1
            elif high % R not in held:
                high -= 1
            else:
                break
            spare += 1
        return spare

    def _kept(self, hand: list[int], f: int, arrangement: tuple) -> None:
        """Records the arrangement of ``hand`` (already less ``f``) when ``f`` was loose in
        ``arrangement`` (that of the hand with it): the rest of it stays optimal."""
        penalty, loose, absorb, spare, melded, free = arrangement
        rest = list(loose)
        rest.remove(f)
        self._arr.setdefault(bytes(hand), (penalty - self._hands.face_value(f), rest, absorb, spare, melded, free))

    def _added(self, hand: list[int], f: int, arrangement: tuple) -> None:
        """Records the arrangement of ``hand`` (already with ``f``) from ``arrangement``
        (that of the hand without it) when ``f`` can be in no meld of it: ``f`` is loose in
        every arrangement."""
        hands = self._hands
        if hands.is_wild[f]:
            return
        R = self._R
        naturals, wilds = hands.split(hand)
        r, s = f % R, f // R
        if wilds >= 2 or sum(naturals[t * R + r] for t in range(self._S)) - 1 + wilds >= 2:
            return
        row = naturals[s * R:(s + 1) * R]
        near = [0 <= r + d < R and row[r + d] > 0 for d in (-2, -1, 1, 2)]
        if (wilds and any(near)) or (near[1] and (near[0] or near[2])) or (near[2] and near[3]):
            return
        penalty, loose, absorb, spare, melded, free = arrangement
        self._arr.setdefault(bytes(hand), (penalty + hands.face_value(f), loose + [f], absorb, spare, melded, free))

    # ------------------------------------------------------------------ choices
    def _best_discard(self, hand: list[int], allowed: list[int], unseen: list[int], seen: _Seen,
                      scores: dict[int, float] | None = None) -> tuple[float, int]:
        """The best discard's score and face; ``scores`` gets every candidate's score."""
        arrangement = self._arrangement(hand)
        candidates, inherited = self._discard_candidates(hand, allowed, arrangement)
        best = (float(_INF), -1)
        for f, p in candidates:
            hand[f] -= 1
            if inherited:
                self._kept(hand, f, arrangement)
            s = p - self._beta * (p - self._q(hand, unseen)) + self._feed(f, seen)
            hand[f] += 1
            if scores is not None:
                scores[f] = s
            if s < best[0]:
                best = (s, f)
        return best

    def _discard_candidates(self, hand: list[int], allowed: list[int],
                            arrangement: tuple) -> tuple[list[tuple[int, int]], bool]:
        """The discards weighed, each with the hand's penalty without it, in the order that
        wins ties (the lowest penalty, then the highest value, then the lowest face); and
        whether they are loose cards of ``arrangement``, the hand's (so the rest of it stays
        a least-penalty arrangement without each): its loose cards, or every legal discard
        if none of them is one."""
        penalty, loose = arrangement[0], arrangement[1]
        allowed_set = set(allowed)
        value = self._hands.face_value
        cands = {f: penalty - value(f) for f in loose if f in allowed_set}
        inherited = bool(cands)
        if not cands:
            for f in allowed:
                hand[f] -= 1
                cands[f] = self._arrangement(hand)[0]
                hand[f] += 1
        return sorted(cands.items(), key=lambda c: (c[1], -value(c[0]), c[0])), inherited

    def _q(self, hand: list[int], unseen: list[int]) -> float:
        """The expected least penalty after one more stock draw and the best discard,
        estimated on the loose cards of the hand's arrangement (its melds kept as they are):
        a drawn card that joins a meld lets the highest loose card go; one that makes a
        meld with loose cards (they hold none of their own, so it is the only one) leaves
        the rest loose, less the highest; any other card is kept only if it is lower than
        the highest loose card."""
        key = bytes(hand)
        hit = self._q_cache.get(key)
        if hit is not None:
            return hit
        base, loose, absorb_row, spare, melded, free = self._arrangement(hand)
        absorb = [f for f in range(self._N) if absorb_row[f]]
        if not loose:
            self._q_cache[key] = 0.0
            return 0.0
        hands = self._hands
        R, S = self._R, self._S
        is_wild, values = hands.is_wild, hands.value
        value = values.__getitem__
        nat = sorted((f for f in loose if not is_wild[f]), key=value, reverse=True)
        W = len(loose) - len(nat) + free  # loose wilds, and wilds a meld can spare
        top = max(value(f) for f in loose)
        nat_sum = sum(value(f) for f in nat)
        by_rank = [0] * R
        rows = [bytearray(R) for _ in range(S)]
        for f in nat:
            by_rank[f % R] += 1
            rows[f // R][f % R] += 1

        def left_over(used: list[int], size: int) -> int:
            """Penalty after a meld of ``size`` cards holding the loose naturals ``used``
            (and every loose wild), the highest card left discarded."""
            rest = nat_sum - sum(value(f) for f in used)
            spare_used = list(used)
            for f in nat:
                if f in spare_used:
                    spare_used.remove(f)
                else:
                    return rest - value(f)
            return 0 if size >= 4 or spare else _INF

        def run_used(s: int, r: int, wilds: int, extra: bool) -> tuple[list[int], int] | None:
            """The longest run of suit ``s`` through place ``r`` (held by the drawn card
            when ``extra``), bridging single gaps with ``wilds``: (loose faces used, size)."""
            row = rows[s]
            best = None
            for left_budget in range(wilds + 1):
                budgets = [left_budget, wilds - left_budget]
                lo = hi = r
                for step, side in ((-1, 0), (1, 1)):
                    q = r + step
                    while 0 <= q < R:
                        if row[q]:
                            if step < 0:
                                lo = q
                            else:
                                hi = q
                            q += step
                        elif budgets[side] and 0 <= q + step < R and row[q + step]:
                            budgets[side] -= 1
                            q += step
                        else:
                            break
                naturals = [s * R + q for q in range(lo, hi + 1) if row[q] and (q != r or not extra)]
                size = len(naturals) + (1 if extra else 0) + wilds
                if (extra or row[r]) and size >= 3 and size <= R:
                    if best is None or sum(map(value, naturals)) > sum(map(value, best[0])):
                        best = (naturals, size)
            return best

        unseen, by_value, total = unseen
        if not total:
            self._q_cache[key] = float(base)
            return float(base)
        # Every natural card: kept if lower than the highest loose card, else let go again.
        acc = 0.0
        for v, k in enumerate(by_value):
            if k:
                acc += k * (base - top + v if v < top else base)
        # The wilds, and the naturals that may do better: correct their share.
        special = set()
        for f in absorb:
            special.add(f)
        for r in range(R):
            if by_rank[r] and by_rank[r] + W >= 2 or (not by_rank[r] and W >= 2):
                special.update(t * R + r for t in range(S))
        for f in nat:
            s0, r0 = f - f % R, f % R
            special.update(s0 + q for q in range(max(0, r0 - 2), min(R, r0 + 3)))
        wild_v = None
        for c in hands.wild_faces:
            k = unseen[c]
            if not k:
                continue
            if wild_v is None:
                wild_v = base - top if melded else base
                for a in dict.fromkeys(nat):
                    ra = a % R
                    if by_rank[ra] + W + 1 >= 3:
                        u = left_over([t for t in nat if t % R == ra], by_rank[ra] + W + 1)
                        if u < wild_v:
                            wild_v = u
                    run = run_used(a // R, ra, W + 1, False)
                    if run is not None:
                        u = left_over(run[0], run[1])
                        if u < wild_v:
                            wild_v = u
            acc += k * wild_v
        for c in special:
            k = unseen[c]
            if not k or is_wild[c]:
                continue
            vc = values[c]
            generic = base - top + vc if vc < top else base
            v = generic
            if absorb_row[c] and base - top < v:
                v = base - top
            r = c % R
            if by_rank[r] + W >= 2:
                u = left_over([t for t in nat if t % R == r], by_rank[r] + W + 1)
                if u < v:
                    v = u
            row = rows[c // R]
            if W:
                near = any(row[max(0, r - 2):r + 3])
            else:
                near = ((r >= 1 and row[r - 1]) and ((r >= 2 and row[r - 2]) or (r + 1 < R and row[r + 1]))) \
                    or (r + 2 < R and row[r + 1] and row[r + 2])
            if near:
                run = run_used(c // R, r, W, True)
                if run is not None:
                    u = left_over(run[0], run[1])
                    if u < v:
                        v = u
            acc += k * (v - generic)
        q = acc / total
        self._q_cache[key] = q
        return q

    def _feed(self, f: int, seen: _Seen) -> float:
        """How much discarding ``f`` may help the next player (what it took from the pile)."""
        hands = self._hands
        if hands.is_wild[f]:
            return self.feed_wild
        nxt = seen.known[0] if seen.known else None
        if not nxt or not any(nxt):
            return 0.0
        R = self._R
        r, s = f % R, f // R
        risk = 0.0
        for g in range(self._N):
            if nxt[g] and not hands.is_wild[g]:
                if g % R == r:
                    risk += self.feed_rank
                elif g // R == s and abs(g % R - r) <= 2:
                    risk += self.feed_suit
        return risk
