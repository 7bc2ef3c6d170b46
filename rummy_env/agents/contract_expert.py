"""The contract games' ``expert`` baseline (``ExpertContract``): ``greedy``'s turn
(``contract_heuristics``) with every choice weighed. ``ExpertContract.advise`` gives what it
weighs and would choose at a decision (``ExpertAdvice``): the training features' reading of
it and of its variants (``contract_last_deal``).

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

from dataclasses import dataclass
from typing import Sequence

from ..actions import ActionKind
from .base import Decision, SeatInfo
from .contract_heuristics import ContractAdvice, ContractAgent, GreedyContract
from .contract_planner import PlanReport, set_bits
from .contract_situation import Situation


@dataclass
class ExpertAdvice(ContractAdvice):
    """``ContractAdvice`` and what ``expert`` weighs and would choose (``ExpertContract.advise``)."""

    urgency: float
    """How soon the round may end (0.5 to 3): the weight of a penalty point kept."""
    last_turn: bool
    """Whether the round ends before this seat's next turn."""
    protects_lead: bool
    """Whether it plays to keep a lead in the last deal."""
    wants_round_over: bool
    """Whether the hands as they stand score this seat well below the others."""
    outlook: float
    """The hand's cost of the cards still missing for the contract."""
    draw: int | None
    """At a draw, the draw action it takes."""
    buys: bool | None
    """At a buy question, whether it buys."""
    discard_order: list[int]
    """The faces it may discard, its discard first (empty where no discard is legal)."""
    danger: dict[int, float]
    """Per face held, how much discarding it helps the next player."""
    hope: dict[int, int]
    """Once down, per face held, its hope of reaching the table (0 to 2)."""


class ExpertContract(ContractAgent):
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


    def advise(self, decision: Decision) -> ExpertAdvice:
        """What this agent weighs and would choose at the decision (``ExpertAdvice``), read
        afresh: the pile as it is now stands for the most copies seen in it
        (``read_afresh``); its memory of the round is neither read nor changed."""
        s = self.situation(decision)
        self.read_afresh(s)
        report = self.report(s)
        discards = s.by_kind.get(ActionKind.DISCARD)
        held = [f for f in range(len(s.hand)) if s.hand[f]]
        return ExpertAdvice(
            **self.plan_advice(s, report),
            urgency=self.urgency(s), last_turn=self.last_turn(s), protects_lead=self.protects_lead(s),
            wants_round_over=self.wants_round_over(s), outlook=self.outlook(report.deficiency, report.outs, s),
            draw=self.draw(s) if s.phase == "draw" else None,
            buys=self.buy_answer(s) == self.layout.buy if s.phase == "buy" else None,
            discard_order=self.discard_order(s, [self.layout.args[a] for a in discards]) if discards else [],
            danger={f: self.danger(s, f) for f in held},
            hope={f: self.hope(s, f) for f in held} if s.down else {})

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
            laid = self.deep_draw_laid_off(s, deep)
            if laid is not None:
                return laid
            for a in deep:
                # the pile, cut down to one card, ends the round at the next stock draw
                if s.stock_size == 0 and s.pile_size - args[a] + 1 <= 1 and self.wants_round_over(s):
                    return a
            if top_ok and (self.top_plays_when_down(s) or self.trades_down(s)):
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
