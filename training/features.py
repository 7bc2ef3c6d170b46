"""Optional extra inputs of the policy, computed from the seat's own observation and mask.

``features: none`` (the default) feeds the network the observation alone. A named feature
set appends numbers derived from what the seat sees, as hand-crafted inputs did for
TD-Gammon: they never use hidden information, and the checkpoint records which set it was
trained with, so that ``PolicyAgent`` computes the same at play time.

``three_thirteen_penalties`` (Three-Thirteen only; 54 numbers), from the exact least
penalty ``pen`` of the seat's hand ``H`` over every arrangement (the round's wild rank, the
game's values; ``rummy_env.melds`` via the baselines' ``HandPenalties``):

- per face ``f`` (52): ``(pen(H) - pen(H - f)) / 10`` if ``H`` holds ``f``, else 0: what
  discarding it saves;
- ``pen(H) / 100``;
- at a draw with a top discard ``t``: ``(pen(H) - min_d pen(H + t - d)) / 10``, what taking
  it and then the best allowed discard saves (else 0).

``three_thirteen_expert`` (Three-Thirteen only; ``three_thirteen_penalties`` then 108
numbers): what the ``expert`` baseline (``ExpertThreeThirteen.advise``) would weigh and
choose here, read afresh from this decision, for the network to follow, weigh or overrule:

- per face (52): its preference among the discards it weighs (1 for its discard, 1/2 for
  the next, and so on; at a discard or going out decided without scores, 1 for its card);
- per face (52): how much worse than its best each weighed discard scores (``S(H - d) +
  feed(d)`` less the best, / 10, at most 1);
- its ``beta`` (the weight of a kept hand's potential), whether another player went out
  (only the penalty counts), whether it takes the top discard, and at a draw it weighed,
  how much better taking scores than the stock (/ 10, within -1..1).

``three_thirteen_closer`` (Three-Thirteen only; the same 162 numbers): the same advice, from
``ClosingThreeThirteen`` (``rummy_env.agents.three_thirteen_closer``), the teacher that
beats ``expert``: it weighs every legal discard and values a kept hand's chance to go out.

``contract_plan`` (Contract Rummy and Toonerville Rook; 21 + 5 x faces numbers), from the
``greedy`` baseline's ``advise()`` (``rummy_env.agents.contract_heuristics``: the planner's view) and the mask:

- per action kind (11): whether the mask allows one (so the network sees, say, that the
  contract can be made now: it cannot read that off the mask, which only filters its logits);
- the hand's deficiency (cards still missing for the contract, at most 10) / 10, its outs
  (faces that would fill a gap) / 20 and their copies that may still come / 20, its
  penalty / 100, whether it is down;
- the card on offer (the top discard; at a buy question, the card offered): whether there
  is one, the change in deficiency were it added (-3..3, / 3), whether it makes the
  contract, completes a meld of the contract's kinds, fits a meld on the table;
- per face: what discarding it costs in deficiency (0..3, / 3, held faces only), whether it
  is in every best structure (core), in one at most a card worse (near), whether it fits a
  meld on the table, and the share of its copies that may still come to the hand.

``contract_expert`` (the same games; ``contract_plan`` then 10 + 3 x faces numbers): what the
``expert`` baseline would weigh and choose here (``ExpertContract.advise``), read afresh from this
decision (``expert`` also remembers the discard piles of the round; these use the pile as
it is now), for the network to follow, weigh or overrule:

- its urgency / 3, whether this is its last turn of the round, whether it protects a lead
  in the last deal, whether it wants the round over, the hand's outlook (its cost of the
  cards still missing) / 100;
- at a draw, which draw it makes (stock, top discard, deep draw; and the deep draw's
  depth / 20); at a buy question, whether it buys;
- per face: its preference among the discards the mask allows (1 for its discard, 1/2 for
  the next, and so on; 0 elsewhere), how much discarding the card helps the next player
  (its danger, / 2), and once down, its hope of reaching the table (/ 2), for held faces.

``contract_last_deal`` (the same games; the same numbers): the same advice, from
``LastDealContract`` (``rummy_env.agents.contract_last_deal``), the teacher that beats
``expert`` in Contract Rummy: it sheds its lowest cards in the last deal.

``contract_last_deal_odds`` (the same games; the same numbers): from ``LastDealOddsContract``,
``last_deal`` playing for points in the last deal where an out is unlikely or would not win.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.actions import ActionKind
from rummy_env.agents import Decision, SeatInfo
from rummy_env.agents.contract_expert import ExpertAdvice, ExpertContract
from rummy_env.agents.contract_heuristics import ContractAdvice, GreedyContract
from rummy_env.agents.contract_last_deal import LastDealContract, LastDealOddsContract
from rummy_env.agents.three_thirteen_closer import ClosingThreeThirteen
from rummy_env.agents.three_thirteen_heuristics import ExpertThreeThirteen
from rummy_env.rules import GameRules

from .model import FaceInputs


class Features:
    """No extra inputs."""

    name = "none"
    size = 0
    contract_games: bool | None = None
    """The kind of game the set is for: with contracts (True), without (False), or any (None)."""

    def __init__(self, seat: SeatInfo) -> None:
        problem = self.unfit_for(seat.rules)
        if problem:
            raise ValueError(problem)
        self.seat = seat

    @classmethod
    def unfit_for(cls, rules: GameRules) -> str | None:
        """Why the set cannot be computed for a game of these rules, or ``None`` if it can."""
        if cls.contract_games is None or (rules.contract_play is not None) == cls.contract_games:
            return None
        kind = "games with contracts" if cls.contract_games else "games without contracts"
        return f"features {cls.name!r} are for {kind}, not {rules.game}"

    @classmethod
    def size_for(cls, rules: GameRules) -> int:
        """How many numbers the set appends for a game of these rules."""
        return cls.size

    @classmethod
    def face_blocks(cls, rules: GameRules) -> list[int]:
        """Where the set's numbers about each face start (number ``start + f`` is about face
        ``f``), from the start of the set: the face head's channels (``face_inputs``)."""
        return []

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.zeros(0, np.float32)

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's input: the observation, then the features."""
        if not self.size:
            return observation  # no copy when there is nothing to add
        return np.concatenate([observation, self.compute(observation, mask)])


class ThreeThirteenPenalties(Features):
    """See the module docstring."""

    name = "three_thirteen_penalties"
    size = 54
    contract_games = False

    @classmethod
    def face_blocks(cls, rules: GameRules) -> list[int]:
        return [0]

    def __init__(self, seat: SeatInfo) -> None:
        super().__init__(seat)
        from rummy_env.agents.three_thirteen_heuristics import shared_solver

        self.solver = shared_solver(seat)
        self.faces = seat.rules.deck.card_set.num_naturals
        self.by_wild_rank: dict[int, object] = {}
        self.calls = 0

    def _penalties(self, wild_rank: int):
        from rummy_env.agents.three_thirteen_heuristics import HandPenalties

        self.calls += 1
        if self.calls % 20_000 == 0:  # fresh caches now and then bound their memory
            self.by_wild_rank.clear()
        hands = self.by_wild_rank.get(wild_rank)
        if hands is None:
            hands = self.by_wild_rank[wild_rank] = HandPenalties(self.solver, self.seat.rules.rank_penalties, wild_rank)
        return hands

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        view = self.seat.observation.decode(observation)
        hand = view.counts("hand")
        hands = self._penalties(view.index("wild_rank"))
        penalty, loose = hands.unmatched(hand)
        saving = [0.0] * self.faces
        for f in loose:
            saving[f] = hands.face_value(f)  # unmatched in a best arrangement: saves its value
        for f in range(self.faces):
            if hand[f] and f not in loose:
                hand[f] -= 1
                saving[f] = penalty - hands.pen(hand)
                hand[f] += 1
        out[:self.faces] = np.array(saving, np.float32) / 10
        out[self.faces] = penalty / 100
        t = view.face("discard_top")
        if mask[1] and t >= 0:  # a draw, with the top discard on offer
            hand[t] += 1
            allowed = [f for f in range(self.faces) if hand[f] and (f != t or hand[f] > 1)]
            best, _ = hands.removals(hand, allowed)
            out[self.faces + 1] = (penalty - best) / 10
        return out


class ThreeThirteenExpert(ThreeThirteenPenalties):
    """See the module docstring."""

    name = "three_thirteen_expert"
    size = 54 + 2 * 52 + 4

    @classmethod
    def face_blocks(cls, rules: GameRules) -> list[int]:
        return [0, ThreeThirteenPenalties.size, ThreeThirteenPenalties.size + 52]

    def __init__(self, seat: SeatInfo) -> None:
        super().__init__(seat)
        self.reader = self.advisor()  # reads a decision as the advisor does; never acts
        self.reader.start_game(seat, None)

    @staticmethod
    def advisor() -> ExpertThreeThirteen:
        """The agent whose advice the set passes."""
        return ExpertThreeThirteen()

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = super().compute(observation, mask)
        self.reader.forget_round()  # a function of this decision alone, whatever came before
        advice = self.reader.advise(Decision(observation, mask, dict))
        F, at = self.faces, ThreeThirteenPenalties.size
        if advice.discards:
            best = min(advice.discards.values())
            for rank, f in enumerate(sorted(advice.discards, key=advice.discards.get)):
                out[at + f] = 1 / (1 + rank)
                out[at + F + f] = min(advice.discards[f] - best, 10) / 10
        elif advice.action >= 2:  # a discard or going out, decided without scores
            out[at + (advice.action - 2) % F] = 1.0
        at += 2 * F
        out[at] = advice.beta
        out[at + 1] = advice.last_turn
        out[at + 2] = advice.action == 1
        if advice.take is not None:
            out[at + 3] = max(-10.0, min(10.0, advice.stock - advice.take)) / 10
        return out


class ThreeThirteenCloser(ThreeThirteenExpert):
    """See the module docstring."""

    name = "three_thirteen_closer"

    @staticmethod
    def advisor() -> ExpertThreeThirteen:
        return ClosingThreeThirteen()


class ContractPlan(Features):
    """See the module docstring."""

    name = "contract_plan"
    contract_games = True
    kinds = len(ActionKind)
    scalars = 10
    reader_class = GreedyContract

    @classmethod
    def size_for(cls, rules: GameRules) -> int:
        return cls.kinds + cls.scalars + 5 * rules.deck.card_set.num_faces

    @classmethod
    def face_blocks(cls, rules: GameRules) -> list[int]:
        faces = rules.deck.card_set.num_faces
        return [cls.kinds + cls.scalars + i * faces for i in range(5)]

    def __init__(self, seat: SeatInfo) -> None:
        super().__init__(seat)
        self.reader = self.reader_class()  # reads a decision as the baseline does; never acts
        self.reader.start_game(seat, None)
        self.layout = seat.layout
        self.faces = seat.rules.deck.card_set.num_faces
        self.size = self.size_for(seat.rules)
        kinds = self.layout.kinds
        starts = [a for a in range(len(kinds)) if a == 0 or kinds[a] != kinds[a - 1]]
        self.runs = [(kinds[a], a, b) for a, b in zip(starts, starts[1:] + [len(kinds)])]  # ids of one kind
        self.copies = np.array(seat.rules.deck.face_counts(), np.float32)

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        self.plan(out, observation, mask)
        return out

    def plan(self, out: np.ndarray, observation: np.ndarray, mask: np.ndarray) -> ContractAdvice:
        """Writes the ``contract_plan`` numbers into the start of ``out``; returns the
        baseline's advice they come from."""
        for kind, start, stop in self.runs:
            if mask[start:stop].any():
                out[kind] = 1.0
        advice = self.reader.advise(Decision(observation, mask, dict))
        F, at = self.faces, self.kinds
        deficiency = min(advice.deficiency, 10)  # the planner says 99 when no structure is left
        out[at] = deficiency / 10
        out[at + 1] = len(advice.outs) / 20
        out[at + 2] = sum(advice.live[f] for f in advice.outs) / 20
        out[at + 3] = advice.penalty / 100
        out[at + 4] = advice.down
        if advice.offer >= 0:
            out[at + 5] = 1.0
            gain = min(advice.offer_deficiency, 10) - deficiency
            out[at + 6] = max(-3, min(3, gain)) / 3
            out[at + 7] = advice.offer_makes_contract
            out[at + 8] = advice.offer_completes_meld
            out[at + 9] = advice.offer_fits_table
        at += self.scalars
        for f, without in advice.deficiency_without.items():
            out[at + f] = max(0, min(3, min(without, 10) - deficiency)) / 3
        out[[at + F + f for f in advice.core]] = 1.0
        out[[at + 2 * F + f for f in advice.near]] = 1.0
        out[at + 3 * F:at + 4 * F] = advice.fits_table
        out[at + 4 * F:at + 5 * F] = np.array(advice.live, np.float32) / self.copies
        return advice


class ContractExpert(ContractPlan):
    """See the module docstring."""

    name = "contract_expert"
    reader_class = ExpertContract
    expert_scalars = 10

    @classmethod
    def size_for(cls, rules: GameRules) -> int:
        return ContractPlan.size_for(rules) + cls.expert_scalars + 3 * rules.deck.card_set.num_faces

    @classmethod
    def face_blocks(cls, rules: GameRules) -> list[int]:
        faces, at = rules.deck.card_set.num_faces, ContractPlan.size_for(rules) + cls.expert_scalars
        return ContractPlan.face_blocks(rules) + [at + i * faces for i in range(3)]

    def __init__(self, seat: SeatInfo) -> None:
        super().__init__(seat)
        self.expert_at = ContractPlan.size_for(seat.rules)  # where these numbers start

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        advice: ExpertAdvice = self.plan(out, observation, mask)
        layout, F, at = self.layout, self.faces, self.expert_at
        out[at] = advice.urgency / 3
        out[at + 1] = advice.last_turn
        out[at + 2] = advice.protects_lead
        out[at + 3] = advice.wants_round_over
        out[at + 4] = min(advice.outlook, 100) / 100
        if advice.draw is not None:
            kind = layout.kinds[advice.draw]
            out[at + 5] = kind == ActionKind.DRAW_STOCK
            out[at + 6] = kind == ActionKind.DRAW_DISCARD
            if kind == ActionKind.DEEP_DRAW:
                out[at + 7] = 1.0
                out[at + 8] = layout.args[advice.draw] / 20
        out[at + 9] = bool(advice.buys)
        at += self.expert_scalars
        for rank, f in enumerate(advice.discard_order):
            out[at + f] = 1 / (1 + rank)
        for f, danger in advice.danger.items():
            out[at + F + f] = danger / 2
        for f, hope in advice.hope.items():
            out[at + 2 * F + f] = hope / 2
        return out


class ContractLastDeal(ContractExpert):
    """See the module docstring."""

    name = "contract_last_deal"
    reader_class = LastDealContract


class ContractLastDealOdds(ContractExpert):
    """See the module docstring."""

    name = "contract_last_deal_odds"
    reader_class = LastDealOddsContract


# the observation's parts about each face (one block of faces each; of the discard pile's
# order, the top card only): the face head's channels before the features'
FACE_PARTS = ("hand", "discard_top", "discard_order", "discard_pile", "known_held", "table", "taken_face",
              "must_place", "buy_offer")
FACE_ACTIONS = (ActionKind.DISCARD, ActionKind.GO_OUT, ActionKind.LAY_OFF, ActionKind.SWAP)


def face_inputs(env: Any, features: type[Features]) -> FaceInputs:
    """The face head's actions and channels for a raw env (``RummyEnv``) of a game and a
    feature set: per action about a face, the positions of that face's entry in each of
    the observation's ``FACE_PARTS`` (every other seat's ``known_held`` block) and in each of
    the features' ``face_blocks``, the features coming after the observation."""
    faces, offsets = env.observer.num_faces, env.observer.offsets
    starts: list[int] = []
    for name in FACE_PARTS:
        part = offsets.get(name)
        if part is None:
            continue
        blocks = (part.stop - part.start) // faces if name == "known_held" else 1
        starts += [part.start + i * faces for i in range(blocks)]
    starts += [env.observer.size + at for at in features.face_blocks(env.rules)]
    layout = env.layout
    kind_ids = {kind: i for i, kind in enumerate(FACE_ACTIONS)}
    actions = [a for a, kind in enumerate(layout.kinds) if kind in kind_ids]
    face_of = [layout.args[a] if isinstance(layout.args[a], int) else layout.args[a][0] for a in actions]
    return FaceInputs(actions=np.array(actions), kinds=np.array([kind_ids[layout.kinds[a]] for a in actions]),
                      index=np.array([[start + f for start in starts] for f in face_of]))


FEATURES: dict[str, type[Features]] = {cls.name: cls for cls in (Features, ThreeThirteenPenalties, ThreeThirteenExpert,
                                                                    ThreeThirteenCloser,
                                                                    ContractPlan, ContractExpert, ContractLastDeal,
                                                                    ContractLastDealOdds)}

