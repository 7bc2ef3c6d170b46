"""A contract game's turn after the draw (``Phase.PLAY`` and ``Phase.GOING_DOWN``): going
down with the contract, melding after it where the game allows, laying off, swapping wilds,
and the discard that ends the turn or the last card that ends the round
(docs/rules/contract_rummy.md#going-out, docs/rules/toonerville_rook.md#going-out).

The mask offers a move only if the turn can still be finished after it
(docs/rules/README.md#no-dead-ends): quick verdicts where they are sure, else the
``TurnSearch``. The moves themselves (which the rules allow, and their effects) are
``TurnMoves``, which the search reads too."""

from __future__ import annotations

from typing import Any

from ..actions import ActionKind
from ..state import GameState, Phase, RoundResult
from .context import ContractComponent, RulesContext, is_down
from .discard import discardable, put_on_discard
from .rounds import Rounds
from .turn_moves import TurnMoves
from .turn_search import TurnSearch


class ContractTurn(ContractComponent):
    """The play phases of a contract game: their legal actions and their effects."""

    def __init__(self, ctx: RulesContext, rounds: Rounds, moves: TurnMoves, search: TurnSearch) -> None:
        super().__init__(ctx)
        self.rounds = rounds
        self.moves = moves
        self.search = search

    def legal(self, state: GameState) -> list[int]:
        """The discards, melds, lay-offs and swaps allowed now, each leaving a way to finish
        the turn."""
        actions = []
        spec = self.rules.rounds[state.round]
        if state.phase == Phase.PLAY and state.must_place < 0 and state.wilds_owed == 0 and not (
            spec.down_means_out and is_down(state, state.current)
        ) and not (state.hand_sizes[state.current] == 1 and not self.search.may_discard_last(state)):
            start = self.layout.blocks["discard"].start
            actions = [start + f for f in discardable(state)]
        p = state.current
        # A player down with no obligation open finishes after a meld or a lay-off that
        # leaves 2+ cards (a discard is then legal) or none: no look-ahead needed.
        quick = state.phase == Phase.PLAY and is_down(state, p) and state.must_place < 0 \
            and state.wilds_owed == 0 and not spec.down_means_out
        moves = self.moves.play_moves(state)
        if not moves:
            return actions
        size, cards_used = state.hand_sizes[p], self.moves.melding.cards_used
        if quick:
            used = list(map(cards_used.__getitem__, moves))
            if min(used) and size - max(used) >= 2:
                return actions + moves  # no swap, and every move leaves 2+ cards
        going_down = None if quick else self.search.plain_going_down_left(state)
        verdicts = self.search.plain_meld_verdicts(state, going_down, moves) if going_down is not None else {}
        owing = state.wilds_owed > 0 and state.must_place < 0 and not spec.down_means_out \
            and self.rules.melds.set_max is None
        for action in moves:
            if owing and self.search.owed_wilds_placed(state, action):
                actions.append(action)
                continue
            if quick:
                used = cards_used[action]
                if (size - used >= 2 or size == used) if used else self.search.swap_then_lay_off(state, action):
                    actions.append(action)
                    continue
            elif going_down is not None:
                verdict = verdicts[action] if cards_used[action] else self.search.swap_then_go_down(state, action)
                if verdict is not None:
                    if verdict:
                        actions.append(action)
                    continue
            if self.search.finishable(self.search.after(state, action)):
                actions.append(action)
        return actions

    def apply(self, state: GameState, kind: ActionKind, arg: Any) -> RoundResult | None:
        """A discard, meld, lay-off or swap; an empty hand ends the round."""
        if kind == ActionKind.DISCARD:
            return self.discard(state, arg)
        self.moves.play_move(state, kind, arg)
        if state.hand_sizes[state.current] == 0:
            state.went_out = state.current
            return self.rounds.end_round(state)
        return None

    def discard(self, state: GameState, face: int) -> RoundResult | None:
        put_on_discard(state, face)
        if state.hand_sizes[state.current] == 0:
            state.went_out = state.current  # went out by discarding the last card
            return self.rounds.end_round(state)
        return self.rounds.end_turn(state)

    def refusal_reason(self, state: GameState, action: int) -> str:
        """Why an action the mask leaves out is illegal, for a rule the legal list alone
        does not make plain (else nothing)."""
        layout = self.layout
        if not 0 <= action < layout.size or layout.kinds[action] != ActionKind.LAY_OFF or state.phase != Phase.PLAY:
            return ""
        face, slot = layout.args[action]
        if slot < len(state.table) and self.moves.lay_offs.wild_on_others_meld(state, action) and self.moves.lay_offs.no_spare_wild(state):
            return (f": {self.card_set.format(face)} was swapped before going down, so it goes into this turn's "
                    "going-down melds, not on another player's meld")
        return ""
