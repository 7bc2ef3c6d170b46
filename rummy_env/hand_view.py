"""A hand as people read it: grouped into the melds of a least-penalty arrangement (the
game's shared meld solver), each run from low to high with its wilds where they stand,
each set and the loose cards by suit and rank, the wild cards left over last.

``rummy-play``, ``rummy-serve``'s page and ``rummy-replay``'s pages show hands this way, the
live hand and, at a round's end, every hand as it was scored. The grouping is only how the
hand reads: in Three-Thirteen it is the arrangement that sets the penalty; in the contract
games a hand's penalty is every card's value whatever its melds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .actions import ActionKind
from .engine import Engine

if TYPE_CHECKING:
    from .env import RummyEnv


ARRANGED_AT_MOST = 32
"""Hands of more cards are shown sorted, not arranged: the solver's search grows steeply with
a hand's size (under a millisecond at 30 cards, 3.5 ms at 40, 83 s at 52 measured), and
only buying without end makes a hand that big."""


def arranged_hand(engine: Engine, hand: Sequence[int], round_index: int) -> dict[str, list]:
    """``{"melds": [[card text, ...], ...], "loose": [card text, ...]}`` for the counts per
    face ``hand`` in round ``round_index`` (whose wild rank, if any, makes wilds)."""
    ctx, rules = engine.ctx, engine.rules
    cards = ctx.card_set
    if sum(hand) > ARRANGED_AT_MOST:
        return {"melds": [], "loose": [cards.format(f) for f in sorted(
            (f for f, count in enumerate(hand) for _ in range(count)),
            key=lambda f: (f >= cards.num_naturals, cards.suit(f), cards.rank(f)))]}
    wild_faces = ctx.wild_faces_of_round(round_index)
    naturals = list(hand[:cards.num_naturals])
    wilds: list[int] = []
    for face in wild_faces:
        wilds += [face] * hand[face]
        if face < len(naturals):
            naturals[face] = 0
    wild_rank = rules.rounds[round_index].wild_rank
    wild_value = rules.rank_penalties[wild_rank] if wild_rank is not None else 0
    _, melds, unmatched, _ = ctx.solver.best_arrangement(naturals, len(wilds), ctx.natural_values, wild_value)

    def by_suit(face: int) -> tuple[int, int]:
        return cards.suit(face), cards.rank(face)

    groups = []
    for meld in melds:
        placed, wilds = wilds[:meld.wilds], wilds[meld.wilds:]
        if meld.kind == "run":
            natural_at = {cards.rank(f): f for f in meld.naturals}
            spare = list(placed)
            faces = [natural_at[p % cards.num_ranks] if p % cards.num_ranks in natural_at
                     else spare.pop() if spare else None for p in range(meld.low, meld.high + 1)]
            if None in faces or spare:  # not the run's span after all: its cards as a set shows them
                faces = sorted(meld.naturals, key=by_suit) + placed
        else:
            faces = sorted(meld.naturals, key=by_suit) + placed
        groups.append([cards.format(f) for f in faces])
    loose = sorted(unmatched, key=by_suit) + wilds
    return {"melds": groups, "loose": [cards.format(f) for f in loose]}


class HandNotes:
    """What a step shows of hands that the state after it no longer does: the cards each
    seat took into hand (a draw, a deep draw, a buy and its extra card; in Toonerville Rook
    a stock draw arrives once the buy question before it is answered, on another seat's
    step), and at a round's end every hand as it was scored, arranged. Call ``before`` ahead
    of each step and ``after`` once it is taken.

    A round's end deals the next round at once, so the scored hands are the hands before the
    step, the actor's less the card it discarded (or, going out by melding, none left).
    """

    def __init__(self, env: RummyEnv) -> None:
        self.env = env
        self._hands: list[bytes] = []
        self._round = 0
        self._rounds_scored = 0

    def before(self) -> None:
        state = self.env.game_state
        self._hands = [bytes(hand) for hand in state.hands]
        self._round, self._rounds_scored = state.round, len(state.round_penalties)

    def after(self, seat: int, action: int) -> tuple[list[list[str]], dict[str, Any] | None]:
        """``(per seat, the cards it took into hand; the round's end or None)`` for the step
        of ``seat``'s ``action``; the round's end is ``{"round": number from 1, "penalties":
        [...], "hands": [arranged_hand, ...]}``."""
        env, state = self.env, self.env.game_state
        cards = env.engine.card_set
        if len(state.round_penalties) == self._rounds_scored:
            return [[cards.format(f) for f, count in enumerate(hand) for _ in range(count - before[f])]
                    for hand, before in zip(state.hands, self._hands)], None
        hands = [list(hand) for hand in self._hands]
        kind, arg = env.layout.decode(action)
        if kind in (ActionKind.DISCARD, ActionKind.GO_OUT):
            hands[seat][arg] -= 1
        elif kind in (ActionKind.MELD_SET, ActionKind.MELD_RUN, ActionKind.LAY_OFF):
            hands[seat] = [0] * len(hands[seat])  # out by melding: nothing left
        return [[] for _ in hands], {"round": self._round + 1, "penalties": list(state.round_penalties[-1]),
                                     "hands": [arranged_hand(env.engine, hand, self._round) for hand in hands]}



def marked_drawn(marked: list[str], taken: list[str], seat: int, actor: int, current: int) -> list[str]:
    """The cards ``seat``'s hand shows as just drawn after ``actor``'s step, which gave the
    seat ``taken`` and left ``current``'s turn: what it took, else what it had marked, until
    a step of its own passes the turn on."""
    if taken:
        return taken
    return [] if actor == seat and current != seat else marked
