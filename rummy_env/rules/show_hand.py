"""Three-Thirteen's turn after the draw: discard, or go out by discarding while every other
card in hand melds, the melds then shown on the table (docs/rules/three_thirteen.md#going-out)."""

from __future__ import annotations

from typing import Sequence

from ..actions import ActionKind
from ..state import GameState, RoundResult, TableMeld, new_table_stamp
from .context import RulesContext
from .discard import discardable, put_on_discard
from .rounds import Rounds


class ShowHandTurn:
    """The play phase of a game without contracts: ``discard`` or ``go out``."""

    def __init__(self, ctx: RulesContext, rounds: Rounds) -> None:
        self.ctx = ctx
        self.layout = ctx.layout
        self.rounds = rounds

    def legal(self, state: GameState) -> list[int]:
        hand = state.hands[state.current]
        layout = self.layout
        actions = [layout.discard(f) for f in discardable(state)]
        if state.went_out < 0:
            blocked = state.taken_face if state.taken_face >= 0 and hand[state.taken_face] == 1 else -1
            actions += [layout.go_out(f) for f in self.go_out_faces(state, hand) if f != blocked]
        return actions

    def go_out_faces(self, state: GameState, hand: Sequence[int]) -> list[int]:
        """Faces whose discard leaves a hand that melds completely."""
        ctx = self.ctx
        naturals, wilds = ctx.split_wilds(state, hand)
        faces, wild_ok = ctx.solver.meldable_without_one(naturals, wilds)
        if wild_ok:
            faces += [f for f in ctx.wild_faces(state) if hand[f]]
        return sorted(faces)

    def refusal_reason(self, state: GameState, action: int) -> str:
        """Every illegal action here is plain from the legal list."""
        return ""

    def apply(self, state: GameState, kind: ActionKind, face: int) -> RoundResult | None:
        if kind == ActionKind.DISCARD:
            put_on_discard(state, face)
            return self.rounds.end_turn(state)
        return self.go_out(state, face)

    def go_out(self, state: GameState, face: int) -> RoundResult | None:
        ctx, p = self.ctx, state.current
        put_on_discard(state, face)
        hand = state.hands[p]
        naturals, wilds = ctx.split_wilds(state, hand)
        _, melds, _, _ = ctx.solver.best_arrangement(naturals, wilds, ctx.natural_values, 0)
        wild_cards = [f for f in ctx.wild_faces(state) for _ in range(hand[f])]
        for meld in melds:  # the arrangement is shown on the table
            cards = meld.naturals + tuple(wild_cards[: meld.wilds])
            del wild_cards[: meld.wilds]
            state.table.append(TableMeld(p, meld, cards))
        state.table_stamp = new_table_stamp()
        state.known[p] = bytearray(len(hand))
        state.hands[p] = bytearray(len(hand))
        state.hand_sizes[p] = 0
        state.went_out = p
        state.last_turns_left = ctx.num_players - 1
        return self.rounds.end_turn(state, going_out=True)
