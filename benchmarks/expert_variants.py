"""Changes to how ``expert`` decides, beyond its parameters, as agents to play against three
default ``expert``s with ``expert_knobs.py --agent expert_variants:NAME``. Each plays the
games its ``changes`` names with its change and every other game as ``expert``.

Three-Thirteen: ``expert`` with one part of its method replaced (``ExpertThreeThirteen``'s
docstring describes the method):

- ``ExactQ``: ``Q``, a kept hand's expected penalty after one more stock draw and the best
  discard, computed exactly by the meld solver over every unseen face, where ``expert``
  estimates it from the loose cards of one arrangement. About ten times slower a game.
- ``FreshQ``: ``expert``'s estimate of ``Q``, from this decision's unseen cards: ``expert``
  keeps a hand's ``Q`` for the rest of the round once asked.
- ``AllDiscards``: every legal discard is weighed, where ``expert`` weighs only the cards
  left unmatched by one least-penalty arrangement (``ClosingThreeThirteen`` without its
  bonus for going out).
- ``Closer``: ``rummy_env.agents.three_thirteen_closer.ClosingThreeThirteen``, the teacher
  of trial T21: ``AllDiscards`` with a kept hand's chance of going out on the next draw
  worth ``out_bonus`` (16) points a certain out.
- ``Threat1``, ``Threat3``: the weight of a kept hand's potential also falls with the cards
  the others took from the pile and still hold (0.1 or 0.3 per card, as one more turn per
  player counts ``potential_decay``): a table collecting cards is closer to going out.
- ``SizeDecay16``, ``SizeDecay30``: the weight falls with the turns per player relative to
  the round's hand size (``potential_decay`` = 1.6 or 3.0 / hand size; ``expert``'s 0.2
  is 1.6 / 8, the mean hand size), since a round of 13 cards lasts longer than one of 3.

Contract Rummy (and its quick variant; ``ExpertContract``'s docstring describes the method):

- ``PointsWhenFar2``, ``PointsWhenFar3``: in a deal where going down is going out (Contract
  Rummy's last), the hand plays for points (as ``expert`` does when it leads every other
  total) while it is 2 or 3 cards or more short of going out: a hand that far will rarely
  go out, and every other seat's going out scores it as it stands.
- ``LongUrgency``: the urgency that scales a kept penalty point keeps growing with the
  round's turns, where ``expert`` caps it at 2 (about 60 turns at 4 players): a Contract
  Rummy deal with 12 cards each leaves 4 in the stock, and many run past 100 turns and
  end dead, every hand scored as it stands (``round_endings.py``).
"""

from __future__ import annotations

from rummy_env.agents.base import Agent, Decision
from rummy_env.agents.contract_expert import ExpertContract
from rummy_env.agents.contract_situation import Situation
from rummy_env.agents.heuristic import ExpertAgent
from rummy_env.agents.three_thirteen_closer import ClosingThreeThirteen
from rummy_env.agents.three_thirteen_heuristics import Advice, ExpertThreeThirteen
from rummy_env.rules import GameRules


class _ExactQ(ExpertThreeThirteen):
    def advise(self, decision: Decision) -> Advice:
        self._exact_q: dict[bytes, float] = {}  # the unseen cards change with every decision
        return super().advise(decision)

    def _q(self, hand: list[int], unseen: tuple[list[int], list[int], int]) -> float:
        key = bytes(hand)
        hit = self._exact_q.get(key)
        if hit is None:
            counts, _, total = unseen
            if not total:
                return float(self._hands.pen(hand))
            expected = sum(copies * self._hands.after_draw(hand, face) for face, copies in enumerate(counts) if copies)
            hit = self._exact_q[key] = expected / total
        return hit


class _FreshQ(ExpertThreeThirteen):
    def advise(self, decision: Decision) -> Advice:
        self._q_cache = {}
        return super().advise(decision)


class _AllDiscards(ClosingThreeThirteen):
    out_bonus = 0.0


def _threat(per_card: float) -> type[ExpertThreeThirteen]:
    class _Threat(ExpertThreeThirteen):
        def advise(self, decision: Decision) -> Advice:
            seen = self._read(decision.observation)
            taken = sum(map(sum, seen.known))
            turns = seen.turns / self.seat_info.num_players
            decay = type(self).potential_decay * turns
            # beta = potential / (1 + decay + per_card * taken), through expert's own formula
            self.potential = type(self).potential * (1 + decay) / (1 + decay + per_card * taken)
            return super().advise(decision)
    return _Threat


def _size_decay(scale: float) -> type[ExpertThreeThirteen]:
    class _SizeDecay(ExpertThreeThirteen):
        def advise(self, decision: Decision) -> Advice:
            self._read(decision.observation)  # the round, hence the hand size
            self.potential_decay = scale / (self._round_key + 3)
            return super().advise(decision)
    return _SizeDecay


def _points_when_far(far: int) -> type[ExpertContract]:
    class _PointsWhenFar(ExpertContract):
        def plays_for_points(self, s: Situation) -> bool:
            return super().plays_for_points(s) or (s.all_cards and self.report(s).deficiency >= far)
    return _PointsWhenFar


class _LongUrgency(ExpertContract):
    def urgency(self, s: Situation) -> float:
        capped = super().urgency(s)
        return max(capped, 0.5 + s.turns / (10.0 * s.n))  # expert's growth with the turns, uncapped


def _playing(heuristic: type[Agent], name: str, changes: tuple[str, ...]) -> type[Agent]:
    """The agent that plays the games ``changes`` names with ``heuristic`` and every other
    game as ``expert``."""
    def chosen(self, rules: GameRules) -> type[Agent]:
        return heuristic if rules.game in changes else ExpertAgent.heuristic(self, rules)
    return type(name, (ExpertAgent,), {"heuristic": chosen, "changes": changes})


THREE_THIRTEEN = ("three_thirteen",)
ExactQ = _playing(_ExactQ, "ExactQ", THREE_THIRTEEN)
FreshQ = _playing(_FreshQ, "FreshQ", THREE_THIRTEEN)
AllDiscards = _playing(_AllDiscards, "AllDiscards", THREE_THIRTEEN)
Closer = _playing(ClosingThreeThirteen, "Closer", THREE_THIRTEEN)
Threat1 = _playing(_threat(0.1), "Threat1", THREE_THIRTEEN)
Threat3 = _playing(_threat(0.3), "Threat3", THREE_THIRTEEN)
SizeDecay16 = _playing(_size_decay(1.6), "SizeDecay16", THREE_THIRTEEN)
SizeDecay30 = _playing(_size_decay(3.0), "SizeDecay30", THREE_THIRTEEN)
CONTRACT_RUMMY = ("contract_rummy", "contract_rummy_quick")
PointsWhenFar2 = _playing(_points_when_far(2), "PointsWhenFar2", CONTRACT_RUMMY)
PointsWhenFar3 = _playing(_points_when_far(3), "PointsWhenFar3", CONTRACT_RUMMY)
LongUrgency = _playing(_LongUrgency, "LongUrgency", CONTRACT_RUMMY)

VARIANTS = (ExactQ, FreshQ, AllDiscards, Closer, Threat1, Threat3, SizeDecay16, SizeDecay30,
            PointsWhenFar2, PointsWhenFar3, LongUrgency)
