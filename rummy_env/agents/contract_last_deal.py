"""``LastDealContract``: Contract Rummy's ``expert`` keeping its high cards in the last deal.

Not a baseline: a teacher (``docs/training.md``, trial C3), since it beats ``expert`` playing
against three of them. It is ``ExpertContract`` (whose module docstring gives the method)
with one part changed:

- **In the last deal, a discard's penalty counts the other way.** ``expert`` weighs a
  penalty point kept by ``PEN`` (0.06 at urgency 1), so among discards that cost the hand
  as much it sheds its highest cards. In the last deal a hand goes down only by going out
  with every card in three runs, and the others shed their high cards too: the cards that
  come round are mostly high ones, presumably why runs of them fill sooner (a reading, not
  measured). So there, until it plays for points (on its last turn, or protecting a lead,
  as ``expert``), this hand weighs a point kept by ``LAST_DEAL_PEN`` (-0.03): it sheds its
  lowest cards instead.

Played in the last deal alone against three ``expert``s (``benchmarks/one_deal.py``, 500
deals, each with it in every seat), it goes out in 0.290 of them against their 0.231 each,
for a hand 7.5 points higher on average. Over whole games against three ``expert``s that is a
higher win rate and a lower final score (0.297, and 4.6 points a game below theirs, over
2,000 games); against three ``greedy``s a higher win rate (0.308 over 1,000 games) but a final
score level with theirs (``docs/training.md``, "A teacher for Contract Rummy"). Its other
deals, and every other decision, are ``expert``'s; it costs the same time.
"""

from __future__ import annotations

from .contract_expert import ExpertContract
from .contract_situation import Situation


class LastDealContract(ExpertContract):
    """``expert``, shedding its lowest cards in the last deal (module docstring)."""

    name = "last_deal"

    LAST_DEAL_PEN = -0.03
    """Cost of a penalty point kept, at urgency 1, in the last deal (negative: a point kept is a gain)."""

    def penalty_weight(self, s: Situation) -> float:
        return self.LAST_DEAL_PEN if s.all_cards else self.PEN


class LastDealOddsContract(LastDealContract):
    """``last_deal``, shedding its lowest cards only while an out can still win the game and
    come in time.

    ``last_deal`` costs points where its hand does not go out: it keeps its high cards. Two
    cases where an out is unlikely, or would not win, go back to playing for points:

    - **Far behind**: entering the last deal ``HOPELESS`` (100) or more points above the best
      total, the seat rarely wins even by going out (the others hold about 80 points each
      then), so it weighs a kept point as ``expert`` does.
    - **Late and far from out**: from the round's ``LATE_TURNS``-th turn (40; about 10 of its
      own at 4 players, where most last deals end within 60 turns), a hand still ``FAR`` (3)
      or more cards short of going out plays for points, as ``expert`` does on its last turn.

    Against three ``greedy``s (1,000 games, seed 31) it wins 0.307 and scores 3.2 points a game
    below them, where ``last_deal`` wins 0.308 and scores level on the same deals; against
    three ``expert``s (1,000 games, seed 101) it wins 0.291 with a score 6.1 below theirs
    (``last_deal``: 0.302, 5.1). ``docs/training.md``, "A teacher for Contract Rummy".
    """

    name = "last_deal_odds"

    HOPELESS = 100
    """Points behind the best total, entering the last deal, from which it plays as ``expert``."""
    LATE_TURNS = 40
    """Turn of the round from which a hand ``FAR`` cards short of going out plays for points."""
    FAR = 3
    """Cards short of going out from which a late hand plays for points."""

    def penalty_weight(self, s: Situation) -> float:
        if s.all_cards and s.scores[0] - min(s.scores[1:]) >= self.HOPELESS:
            return self.PEN
        return super().penalty_weight(s)

    def plays_for_points(self, s: Situation) -> bool:
        late_and_far = s.all_cards and s.turns >= self.LATE_TURNS and self.report(s).deficiency >= self.FAR
        return super().plays_for_points(s) or late_and_far
