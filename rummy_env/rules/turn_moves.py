"""The moves of a contract game's turn between the draw and the discard: which melds,
lay-offs and swaps the rules allow now, and their effects on the state. Both the turn
(``ContractTurn``, which offers only the moves that leave the turn finishable) and its
look-ahead (``TurnSearch``) read them."""

from __future__ import annotations

from typing import Any

from ..actions import ActionKind
from ..melds import Meld
from ..state import GameState, Phase, TableMeld, new_table_stamp
from .context import ContractComponent, RulesContext, is_down
from .lay_off import LayOffs
from .melding import Melding
from .swap import Swaps


class TurnMoves(ContractComponent):
    """The melds (``Melding``), lay-offs (``LayOffs``) and swaps (``Swaps``) of a turn."""

    def __init__(self, ctx: RulesContext, melding: Melding, lay_offs: LayOffs, swaps: Swaps) -> None:
        super().__init__(ctx)
        self.melding = melding
        self.lay_offs = lay_offs
        self.swaps = swaps

    def play_moves(self, state: GameState) -> list[int]:
        """The melds, lay-offs and swaps the rules allow now, ascending, before the check
        that the turn can still be finished after them."""
        p, play = state.current, self.play
        hand = state.hands[p]
        room = len(state.table) < play.max_table_melds
        if state.phase == Phase.GOING_DOWN:
            sets, runs = state.contract_left
            return self.melding.meld_moves(state, hand, sets > 0, runs > 0) if room else []
        spec = self.rules.rounds[state.round]
        if not is_down(state, p):
            moves = []
            if spec.contract is not None and len(state.table) + sum(spec.contract) <= play.max_table_melds:
                # A going down must be completed once started: none starts unless the hand
                # can make the whole contract (the solver's test is exact but for the rule
                # that keeps runs apart, which the search below then applies).
                naturals, wilds = self.ctx.split_wilds(state, hand)
                sets, runs = spec.contract
                check = self.solver.can_partition if spec.down_means_out else self.solver.can_make_contract
                if check(naturals, wilds, sets, runs):
                    moves = self.melding.meld_moves(state, hand, sets > 0, runs > 0)
            if not play.swap_needs_earlier_down and self.layout.blocks.get("swap"):
                # the wild taken must then go down in this turn's melds
                moves += self.swaps.swap_moves(state, hand)
            return moves
        if spec.down_means_out:
            return []  # going down had to use every card: nothing may follow it
        moves = []
        if play.melds_after_down and room:
            moves += self.melding.meld_moves(state, hand, True, True)
        lay_offs = self.lay_offs.lay_off_moves(state, hand)
        if self.lay_offs.no_spare_wild(state):  # none may go on another player's meld
            lay_offs = [a for a in lay_offs if not self.lay_offs.wild_on_others_meld(state, a)]
        moves += lay_offs
        if self.layout.blocks.get("swap") and (
            not play.swap_needs_earlier_down or state.down_turn[p] < state.turns
        ):
            moves += self.swaps.swap_moves(state, hand)
        return moves

    def play_move(self, state: GameState, kind: ActionKind, arg: Any) -> None:
        """A meld, lay-off or swap, without ending the round (the caller does that)."""
        p, wild = state.current, self._wild_card
        state.table_stamp = new_table_stamp()
        if kind == ActionKind.MELD_SET or kind == ActionKind.MELD_RUN:
            if kind == ActionKind.MELD_SET:
                meld = Meld("set", arg.naturals, arg.wilds, rank=arg.rank)
            else:
                meld = self.melding.run_from_hand(state.hands[p], arg)
            for f in meld.naturals:
                self._to_table(state, f)
            for _ in range(meld.wilds):
                self._to_table(state, wild)
            state.wilds_owed -= min(state.wilds_owed, meld.wilds)  # a swapped wild played again
            state.wilds_to_meld -= min(state.wilds_to_meld, meld.wilds)  # those owed to melds first
            state.table.append(TableMeld(p, meld, meld.naturals + (wild,) * meld.wilds))
            self.melding.count_contract_meld(state, meld.kind)
        elif kind == ActionKind.LAY_OFF:
            face, slot = arg
            tm = state.table[slot]
            # Each obligation takes its own card: a wild laid off while a swapped wild is
            # owed is that wild, not the deep-drawn one. On another player's meld it pays no
            # wild owed to this turn's going-down melds (the mask offers it only as a spare).
            own = tm.owner == p
            owed_wild = face == wild and state.wilds_owed > (0 if own else state.wilds_to_meld)
            self._to_table(state, face, placing=not owed_wild)
            state.table[slot] = TableMeld(tm.owner, self.lay_offs.lay_off_place(tm.meld, face), tm.cards + (face,))
            if owed_wild:
                state.wilds_owed -= 1
                if own and state.wilds_to_meld:
                    state.wilds_to_meld -= 1
        else:  # SWAP
            face, slot = arg
            tm = state.table[slot]
            self._to_table(state, face, placing=False)
            m = tm.meld
            state.table[slot] = TableMeld(
                tm.owner,
                Meld("run", m.naturals + (face,), m.wilds - 1, suit=m.suit, low=m.low, high=m.high),
                _replace_one(tm.cards, wild, face),
            )
            state.hands[p][wild] += 1
            state.hand_sizes[p] += 1
            state.known[p][wild] += 1  # everyone saw the wild taken back
            state.wilds_owed += 1
            if not is_down(state, p):
                state.wilds_to_meld += 1  # it must go into this turn's going-down melds

    def _to_table(self, state: GameState, face: int, placing: bool = True) -> None:
        """One card leaves the player's hand for the table; ``placing`` (a meld or a
        lay-off, not a swap) satisfies a deep draw's obligation."""
        p = state.current
        state.hands[p][face] -= 1
        state.hand_sizes[p] -= 1
        if state.known[p][face]:
            state.known[p][face] -= 1
        if face == state.taken_face:
            state.taken_face = -1  # a meld or lay-off uses the card just taken first
        if placing and face == state.must_place:
            state.must_place = -1


def _replace_one(cards: tuple[int, ...], old: int, new: int) -> tuple[int, ...]:
    k = cards.index(old)
    return cards[:k] + (new,) + cards[k + 1:]
