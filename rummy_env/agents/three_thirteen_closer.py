"""``ClosingThreeThirteen``: Three-Thirteen's ``expert`` playing to end the round sooner.

Not a baseline: the teacher that the Three-Thirteen policy imitates
(``docs/training.md``, trial T21), since it beats ``expert`` playing against three of them.
It is ``ExpertThreeThirteen`` (whose docstring gives the method) with two parts changed:

- **Every legal discard is weighed**, where ``expert`` weighs only the cards left unmatched
  by one least-penalty arrangement (breaking a meld can keep a better hand).
- **Going out is worth more than its zero penalty.** When a player goes out, every other
  player has one last turn and keeps the penalty it holds; the sooner that comes, the less
  the others have lowered their hands. So a kept hand ``K`` also scores
  ``-out_bonus * P(K)``, ``P(K)`` the share of the unseen cards that, drawn from the stock,
  let it go out (1 if ``K`` already may). It enters through ``Q``: ``Q(K) - out_bonus *
  P(K) / beta``, so a discard's score ``S(K)`` falls by ``out_bonus * P(K)``, and a stock
  draw's (which weighs ``Q`` of the hand held by ``beta + stock_gain``) by a little more:
  that draw may go out at once. On the last turn (after another player went out) only the
  penalty counts, as for ``expert``.

``P(K)`` counts the unseen cards that could matter (a wild; a card that joins one of
``K``'s melds; one of a loose card's rank, or of its suit within two places), each checked
by the meld solver: exact for a hand without wilds; with a wild it misses the outs in which
the wild moves within a run (about 1.5% of estimates, each short by about 0.02). It is
taken as 0 when ``K`` has more than ``max_loose`` loose cards. A game takes about three
times ``expert``'s time.
"""

from __future__ import annotations

from .three_thirteen_heuristics import ExpertThreeThirteen, _Seen


class ClosingThreeThirteen(ExpertThreeThirteen):
    """``expert`` weighing every discard and playing to go out sooner (module docstring)."""

    name = "closer"

    out_bonus = 16.0
    """Points a certain out (next draw) is worth beyond its penalty of 0."""
    max_loose = 3
    """Kept hands with more loose cards than this are taken never to go out on one draw."""

    def _new_round_caches(self) -> None:
        super()._new_round_caches()
        self._p_out_cache: dict[bytes, float] = {}
        """Per kept hand this round: ``P`` (the unseen cards as when it was first asked)."""

    def _discard_candidates(self, hand: list[int], allowed: list[int],
                            arrangement: tuple) -> tuple[list[tuple[int, int]], bool]:
        hands = self._hands
        weighed = []
        # ties: a natural, then the highest value, then the highest face
        for f in sorted(allowed, key=lambda f: (not hands.is_wild[f], hands.face_value(f), f), reverse=True):
            hand[f] -= 1
            weighed.append((f, self._arrangement(hand)[0]))
            hand[f] += 1
        return weighed, False

    def _q(self, hand: list[int], unseen: tuple[list[int], list[int], int]) -> float:
        q = super()._q(hand, unseen)
        if not self.out_bonus or self._last_turn or self._beta <= 0:
            return q
        return q - self.out_bonus / self._beta * self._p_out(hand, unseen)

    def _unseen(self, seen: _Seen) -> tuple[list[int], list[int], int]:
        self._last_turn = seen.went_out  # read first at every decision, before any ``Q``
        return super()._unseen(seen)

    def _p_out(self, hand: list[int], unseen: tuple[list[int], list[int], int]) -> float:
        """The share of the unseen cards that, drawn, let a hand of ``hand`` go out."""
        key = bytes(hand)
        hit = self._p_out_cache.get(key)
        if hit is not None:
            return hit
        penalty, loose, absorb = self._arrangement(hand)[:3]
        counts, _, total = unseen
        if penalty == 0:
            hit = 1.0
        elif len(loose) > self.max_loose or not total:
            hit = 0.0
        else:
            hands, R = self._hands, self._R
            near = set()
            for f in loose:
                if not hands.is_wild[f]:
                    rank, suit_base = f % R, f - f % R
                    near.update(s * R + rank for s in range(self._S))
                    near.update(suit_base + q for q in range(max(0, rank - 2), min(R, rank + 3)))
            outs = 0
            for face, copies in enumerate(counts):
                if copies and (hands.is_wild[face] or absorb[face] or face in near) \
                        and hands.after_draw(hand, face) == 0:
                    outs += copies
            hit = outs / total
        self._p_out_cache[key] = hit
        return hit
