"""The contract games' baseline agents: ``greedy`` (``GreedyContract``, here) and ``expert``
(``ExpertContract``, ``contract_expert``), one pair for every game with contracts (the rules
object says which rules apply: deep draws, buying, melds after going down, a going down
with every card).

Both see only their seat's observation, mask and ``describe(agent)`` view. The mask is
exact, so they choose among legal actions only. A decision is read once into a
``Situation`` (``contract_situation``); the hand is judged by the partial-contract planner
(``contract_planner``: the hand's deficiency, outs, core and near cards).

``advise(decision)`` is each agent's documented reading of a decision, from the decision
alone: ``ContractAdvice`` here (the planner's view of the hand, of the card on offer and of
the table), ``ExpertAdvice`` for ``expert`` and its variants (what it weighs and would
choose). The trainer's ``contract_*`` feature sets read that and nothing else.


The turn, for both (``ContractAgent.play``): a swap when offered (the mask offers one only
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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..actions import ActionKind, SetAction
from .base import Agent, Decision, SeatInfo
from .contract_planner import PlanReport, set_bits, tools
from .contract_situation import Situation, TableReader


@dataclass
class ContractAdvice:
    """A contract-game decision as the baselines read it (``ContractAgent.advise``). Faces
    index the card set (the wild last, where there is one)."""

    deficiency: int
    """Cards still missing for the contract, after wilds (99: no structure left)."""
    outs: list[int]
    """The faces that would fill a gap of a best structure."""
    live: list[int]
    """Per face, the copies that may still come to this hand (``Situation.live``)."""
    penalty: int
    """The hand's points."""
    down: bool
    offer: int
    """The card on offer: at a buy question the card offered, else the top discard; -1 if none."""
    offer_deficiency: int
    """The deficiency with the offer added (``deficiency`` when there is none)."""
    offer_makes_contract: bool
    """Whether the hand and the offer make the contract (exactly: the solver)."""
    offer_completes_meld: bool
    """Whether the offer completes a meld of the contract's kinds with the hand's naturals."""
    offer_fits_table: bool
    deficiency_without: dict[int, int]
    """Per face held, the deficiency with one card of it given up."""
    core: list[int]
    """The faces in every best structure."""
    near: list[int]
    """The faces in a structure at most one card worse than the best."""
    fits_table: list[bool]
    """Per face, whether a card of it may be laid off on the table now."""


class ContractAgent(Agent):
    """What both baselines share: reading the decision, the exact going-down test, meld
    and lay-off bookkeeping, and the order of a turn's moves (swaps, then the going down
    or further melds, then lay-offs, then the discard). The subclasses choose the draw, the
    buy answer, the going-down melds and the discard."""

    name = "contract"

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self.deck, self.planner, self.solver = tools(seat.rules)
        self.reader = TableReader(seat)
        self.layout = seat.layout
        self.melds_after_down = seat.rules.contract_play.melds_after_down

    def situation(self, decision: Decision) -> Situation:
        """The decision as this agent reads it."""
        return Situation(self, decision)

    def advise(self, decision: Decision) -> ContractAdvice:
        """What this agent reads the decision by (``ContractAdvice``), from the decision alone."""
        s = self.situation(decision)
        return ContractAdvice(**self.plan_advice(s, self.report(s)))

    def plan_advice(self, s: Situation, report: PlanReport) -> dict:
        """``ContractAdvice``'s fields for the decision ``s`` and the planner's ``report`` on its hand."""
        faces = len(s.hand)
        offer = s.buy_offer() if s.phase == "buy" else s.top
        return dict(
            deficiency=report.deficiency, outs=list(set_bits(report.outs)), live=list(s.live),
            penalty=self.penalty([f for f in range(faces) for _ in range(s.hand[f])]), down=bool(s.down),
            offer=offer,
            offer_deficiency=self.report(s, [offer]).deficiency if offer >= 0 else report.deficiency,
            offer_makes_contract=offer >= 0 and self.can_go_down_with(s, [offer]),
            offer_completes_meld=offer >= 0 and self.forms_meld(s, offer),
            offer_fits_table=offer >= 0 and self.fits_table(s, offer),
            deficiency_without={f: report.without(f, self.deck.wild)[0] for f in range(faces) if s.hand[f]},
            core=list(set_bits(report.core)), near=list(set_bits(report.near)),
            fits_table=[bool(s.table) and self.fits_table(s, f) for f in range(faces)])

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
        melds = [m.copy() for m in s.table]
        progress = True
        while todo and progress:
            progress = False
            for f in list(todo):
                for m in melds:
                    if m.fits(self.deck, f):
                        m.grow(self.deck, f)
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

    def deep_draw_laid_off(self, s: Situation, deep: list[int]) -> int | None:
        """Once down: the first of the ``deep`` draws whose cards would all lay off, if any."""
        return next((a for a in deep if self.all_lay_off(s, s.pile_faces(self.layout.args[a]))), None)

    def top_plays_when_down(self, s: Situation) -> bool:
        """Once down: whether the top discard fits the table (or, where melds after going
        down are allowed, makes a new one with the hand)."""
        return self.fits_table(s, s.top) or (self.melds_after_down and self.forms_meld(s, s.top, any_kind=True))

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


class GreedyContract(ContractAgent):
    """The ``greedy`` baseline: a decent casual player (see the module docstring)."""

    name = "greedy"

    def draw(self, s: Situation) -> int:
        k = s.by_kind
        top_ok = ActionKind.DRAW_DISCARD in k
        deep = sorted(k.get(ActionKind.DEEP_DRAW, []))
        if s.down:
            laid = self.deep_draw_laid_off(s, deep)
            if laid is not None:
                return laid
            if top_ok and self.top_plays_when_down(s):
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
