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

from .contract_heuristics import ExpertContract, Situation


class LastDealContract(ExpertContract):
    """``expert``, shedding its lowest cards in the last deal (module docstring)."""

    name = "last_deal"

    LAST_DEAL_PEN = -0.03
    """Cost of a penalty point kept, at urgency 1, in the last deal (negative: a point kept is a gain)."""

    def penalty_weight(self, s: Situation) -> float:
        return self.LAST_DEAL_PEN if s.all_cards else self.PEN
