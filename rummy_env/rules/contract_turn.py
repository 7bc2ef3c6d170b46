"""A contract game's turn after the draw (``Phase.PLAY`` and ``Phase.GOING_DOWN``): going
down with the contract, melding after it where the game allows, laying off, swapping wilds,
and the discard that ends the turn or the last card that ends the round
(docs/rules/contract_rummy.md#going-out, docs/rules/toonerville_rook.md#going-out).

The mask offers a move only if the turn can still be finished after it
(docs/rules/README.md#no-dead-ends): quick verdicts where they are sure, else the
``TurnSearch``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import ActionKind
from ..melds import Meld
from ..state import GameState, Phase, RoundResult, TableMeld, new_table_stamp
from .context import ContractComponent, RulesContext, is_down
from .discard import discardable, put_on_discard
from .lay_off import LayOffs
from .melding import Melding
from .rounds import Rounds
from .swap import Swaps

if TYPE_CHECKING:
    from .turn_search import TurnSearch


class ContractTurn(ContractComponent):
    """The play phases of a contract game: their legal actions and their effects."""

    def __init__(self, ctx: RulesContext, rounds: Rounds, melding: Melding, lay_offs: LayOffs, swaps: Swaps) -> None:
        super().__init__(ctx)
        self.rounds = rounds
        self.melding = melding
        self.lay_offs = lay_offs
        self.swaps = swaps
        self.search: TurnSearch  # set by the TurnSearch built on this turn

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
        moves = self.play_moves(state)
        if not moves:
            return actions
        size, cards_used = state.hand_sizes[p], self.melding.cards_used
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
        self.play_move(state, kind, arg)
        if state.hand_sizes[state.current] == 0:
            state.went_out = state.current
            return self.rounds.end_round(state)
        return None

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
        if slot < len(state.table) and self.lay_offs.wild_on_others_meld(state, action) and self.lay_offs.no_spare_wild(state):
            return (f": {self.card_set.format(face)} was swapped before going down, so it goes into this turn's "
                    "going-down melds, not on another player's meld")
        return ""


def _replace_one(cards: tuple[int, ...], old: int, new: int) -> tuple[int, ...]:
    k = cards.index(old)
    return cards[:k] + (new,) + cards[k + 1:]
