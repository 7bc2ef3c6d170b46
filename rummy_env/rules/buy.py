"""Buying out of turn: when the player to act draws from the stock, each other player in
turn may buy the top discard, taking a penalty card from the stock with it
(docs/rules/toonerville_rook.md#buying)."""

from __future__ import annotations

from ..state import GameState, Phase, RoundResult
from .context import RulesContext
from .deal import Dealing
from .draw import StockDraw


class Buying:
    """The buy question (``Phase.BUY``): its legal answers and their effects."""

    def __init__(self, ctx: RulesContext, dealing: Dealing, stock: StockDraw, max_buys_per_round: int | None) -> None:
        self.num_players = ctx.num_players
        self.answers = [ctx.layout.buy, ctx.layout.buy + 1]
        self.dealing = dealing
        self.stock = stock
        self.max_buys_per_round = max_buys_per_round

    def legal(self, state: GameState) -> list[int]:
        return list(self.answers)

    def ask_buyer(self, state: GameState, after: int) -> RoundResult | None:
        """The player to act chose the stock: ask the next player after seat ``after``
        who may buy the top discard, or, with none left, make the stock draw."""
        buyer = self.next_buyer(state, after)
        if buyer < 0:
            state.asked = -1
            return self.stock.draw(state)
        state.asked = buyer
        state.phase = Phase.BUY
        return None

    def next_buyer(self, state: GameState, after: int) -> int:
        """The first seat left of ``after`` (and before the player to act) that may buy the
        top discard, or -1 (docs/rules/toonerville_rook.md#who-is-asked: not its
        discarder, not past the buy limit, and only while there is a top discard and the
        stock, reshuffled if need be, can give the buyer's penalty card and the player's
        draw)."""
        if not state.discard or len(state.stock) + max(0, len(state.discard) - 2) < 2:
            return -1
        n, cap = self.num_players, self.max_buys_per_round
        discarder = state.discard_seats[-1]
        seat = (after + 1) % n
        while seat != state.current:
            if seat != discarder and (cap is None or state.buys[seat] < cap):
                return seat
            seat = (seat + 1) % n
        return -1

    def buy(self, state: GameState) -> RoundResult | None:
        """The asked seat takes the top discard (seen by all) and a penalty card from the
        stock (unseen); then the player to act draws from the stock."""
        buyer, face = state.asked, state.discard.pop()
        del state.discard_seats[-1]
        state.discard_counts[face] -= 1
        if not state.stock:
            self.dealing.reshuffle(state)  # the bought card has left the pile first
        penalty = state.stock.pop()
        hand = state.hands[buyer]
        hand[face] += 1
        hand[penalty] += 1
        state.known[buyer][face] += 1
        state.hand_sizes[buyer] += 2
        state.buys[buyer] += 1
        state.asked = -1
        return self.stock.draw(state)

    def apply(self, state: GameState, buys: bool) -> RoundResult | None:
        return self.buy(state) if buys else self.ask_buyer(state, state.asked)
