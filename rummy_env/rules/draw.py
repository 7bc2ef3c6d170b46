"""Drawing: the stock's top card, the discard pile's top card, or (with ``DeepDraw``) a
card deeper in the pile with every card above it (docs/rules/README.md#shared-procedure,
docs/rules/contract_rummy.md#deep-draws); with ``Buying``, a stock draw first asks the
other players whether they buy the top discard. ``StockDraw`` (the card off the stock) is a
component of its own, below both ``Drawing`` and ``Buying``, which each end with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import ActionKind, ActionLayout
from ..state import GameState, RoundResult
from .deal import Dealing
from .rounds import Rounds, start_turn

if TYPE_CHECKING:
    from .buy import Buying
    from .deep_draw import DeepDraw


class StockDraw:
    """The player to act takes the stock's top card (reshuffling the discard pile into an
    empty stock first; a dead round when even that leaves none)."""

    def __init__(self, dealing: Dealing, rounds: Rounds) -> None:
        self.dealing = dealing
        self.rounds = rounds

    def draw(self, state: GameState) -> RoundResult | None:
        if not state.stock:
            self.dealing.reshuffle(state)
            if not state.stock:
                return self.rounds.end_round(state)  # a dead round
        p, face = state.current, state.stock.pop()
        state.hands[p][face] += 1
        state.hand_sizes[p] += 1
        start_turn(state)
        return None


class Drawing:
    """The draw phase: its legal actions and their effects."""

    def __init__(self, stock: StockDraw, deep_draw: DeepDraw | None = None, buying: Buying | None = None) -> None:
        self.stock = stock
        self.deep_draw = deep_draw
        self.buying = buying

    def legal(self, state: GameState) -> list[int]:
        # Drawing from an empty stock is legal: it reshuffles, or ends a dead round.
        if not state.discard:
            return [ActionLayout.DRAW_STOCK]
        actions = [ActionLayout.DRAW_STOCK, ActionLayout.DRAW_DISCARD]
        if self.deep_draw is not None:
            actions += self.deep_draw.legal(state)
        return actions

    def apply(self, state: GameState, kind: ActionKind, depth: int | None) -> RoundResult | None:
        if kind == ActionKind.DRAW_STOCK:
            if self.buying is not None:
                return self.buying.ask_buyer(state, state.current)
            return self.stock.draw(state)
        take_from_discard(state, 1 if kind == ActionKind.DRAW_DISCARD else depth)
        return None


def take_from_discard(state: GameState, depth: int) -> None:
    """Take the ``depth``-th card from the top of the discard pile and every card above
    it; the top card alone falls under the discard rule, a deeper one must be put on the
    table this turn."""
    p = state.current
    taken = state.discard[-depth:]
    del state.discard[-depth:]
    del state.discard_seats[-depth:]
    for face in taken:
        state.discard_counts[face] -= 1
        state.hands[p][face] += 1
        state.known[p][face] += 1
    state.hand_sizes[p] += depth
    if depth == 1:
        state.taken_face = taken[0]
    else:
        state.must_place = taken[0]
    start_turn(state)
