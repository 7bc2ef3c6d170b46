"""The turn search (docs/rules/README.md#no-dead-ends): whether some sequence of the
player's own melds, lay-offs and swaps finishes the turn legally after a move, decided
exactly, with quick verdicts first where the meld solver alone is sure (a going down
without the rules it leaves to the search, a player down with no obligation open)."""

from __future__ import annotations

from typing import Any, Sequence

from ..actions import ActionKind, RunAction
from ..state import GameState, Phase, TableMeld
from .context import ContractComponent, RulesContext, is_down
from .melding import SEARCH_MEMO_LIMIT
from .turn_moves import TurnMoves


class TurnSearch(ContractComponent):
    """Look-ahead within one player's turn, memoised on everything it depends on."""

    def __init__(self, ctx: RulesContext, moves: TurnMoves) -> None:
        super().__init__(ctx)
        self.moves = moves
        self.melding = moves.melding
        self.lay_offs = moves.lay_offs
        self.swaps = moves.swaps
        self._search_memo: dict = {}
        mr = ctx.rules.melds
        # a set of set_min cards and a run of run_min places can each take one more card
        self._smallest_melds_take_a_wild = (mr.set_max is None or mr.set_max > mr.set_min) and mr.run_min < ctx.R

    def owed_wilds_placed(self, state: GameState, action: int) -> bool:
        """A quick sufficient test for a meld or lay-off by a player who owes wilds taken
        back by swaps, where sets have no maximum: after it (and, for a player not yet
        down, the rest of the contract in smallest melds, which the solver must find in
        the cards left), every wild still owed can be laid off on a set (the player's own
        for those owed to the going-down melds) and 2+ cards are left to discard one, or
        the hand is empty with nothing owed."""
        p, kind, arg = state.current, self.layout.kinds[action], self.layout.args[action]
        mr, wild, table = self.rules.melds, self._wild_card, state.table
        hand = state.hands[p]
        if kind == ActionKind.LAY_OFF:
            naturals, wilds, is_set = (() if arg[0] == wild else (arg[0],)), int(arg[0] == wild), False
        elif kind == ActionKind.MELD_SET:
            naturals, wilds, is_set = arg.naturals, arg.wilds, True
        elif kind == ActionKind.MELD_RUN:
            meld = self.melding.run_from_hand(hand, arg)
            naturals, wilds, is_set = meld.naturals, meld.wilds, False
        else:
            return False  # a swap owes one more: left to the search
        sets = runs = 0
        if not is_down(state, p):
            sets, runs = state.contract_left if state.phase == Phase.GOING_DOWN else self.rules.rounds[state.round].contract
            sets, runs = (sets - 1, runs) if is_set else (sets, runs - 1)
            if sets + runs and (len(table) + 1 + sets + runs > self.play.max_table_melds or not self._rest_makeable(
                    state, naturals, wilds, sets, runs)):
                return False
        owed, to_meld = max(0, state.wilds_owed - wilds), max(0, state.wilds_to_meld - wilds)
        if kind == ActionKind.LAY_OFF and wilds and table[arg[1]].owner != p:
            # not a wild owed to the going-down melds: one owed without that rule, or a spare
            owed, to_meld = state.wilds_owed - (state.wilds_owed > state.wilds_to_meld), state.wilds_to_meld
        left = state.hand_sizes[p] - len(naturals) - wilds - mr.set_min * sets - mr.run_min * runs
        if not owed:
            return left >= 2 or (left == 0 and not sets + runs)
        # those owed to the going-down melds need a set of the player's own
        has_set = is_set or sets > 0 or any(tm.meld.kind == "set" and (not to_meld or tm.owner == p) for tm in table)
        return has_set and left - owed >= 2

    def _rest_makeable(self, state: GameState, naturals: Sequence[int], wilds: int, sets: int, runs: int) -> bool:
        """Whether the player's cards but ``naturals`` and ``wilds`` make ``sets`` sets and
        ``runs`` runs."""
        counts, have = self.ctx.split_wilds(state, state.hands[state.current])
        for f in naturals:
            counts[f] -= 1
        return self.solver.can_make_contract(counts, have - wilds, sets, runs)

    def plain_going_down_left(self, state: GameState) -> tuple[int, int] | None:
        """The contract still to lay when the next meld starts or continues a going down
        that ``_plain_going_down`` will judge after it (no obligation open, none of the
        rules it leaves to the search), else ``None``."""
        p, spec = state.current, self.rules.rounds[state.round]
        if state.phase == Phase.GOING_DOWN:
            left = state.contract_left
        elif state.phase == Phase.PLAY and not is_down(state, p) and spec.contract is not None:
            left = spec.contract
        else:
            return None
        return None if state.must_place >= 0 or self._search_needed(state) else left

    def swap_then_go_down(self, state: GameState, action: int) -> bool | None:
        """The verdict on the swap ``action`` by a player not yet down, where quick tests
        decide it, else ``None``, for the search. ``False`` where the search's first test
        fails: the cards after it, with every wild further swaps could bring, cannot make
        the contract (or its melds find no slots). ``True`` where the hand after it (or
        after it and every further swap the player could then make) makes the contract
        with the smallest melds, the wilds taken then go on them (a smallest meld has room
        for one more card, and a set without a maximum for any number, so they may be laid
        off there, on the player's own melds of this going down, if no meld took them) and
        2+ cards are left to discard one."""
        p, spec, mr = state.current, self.rules.rounds[state.round], self.rules.melds
        if state.phase != Phase.PLAY:
            return None
        sets, runs = spec.contract
        if len(state.table) + sets + runs > self.play.max_table_melds:
            return False
        face, _ = self.layout.args[action]
        counts, wilds = self.ctx.split_wilds(state, state.hands[p])
        counts[face] -= 1
        spare = state.hand_sizes[p] - mr.set_min * sets - mr.run_min * runs
        sure = spare - 1 >= 2 and self._smallest_melds_take_a_wild
        if sure and self.solver.can_make_contract(counts, wilds + 1, sets, runs):
            return True
        more = self.swaps.swap_faces(self.after(state, action))
        if not self.solver.can_make_contract(counts, wilds + 1 + len(more), sets, runs):
            return False
        if not sure or not more or not sets or mr.set_max is not None or spare - 1 - len(more) < 2:
            return None  # room for several wilds taken is only sure on a set without a maximum
        for f in more:
            counts[f] -= 1
        return True if self.solver.can_make_contract(counts, wilds + 1 + len(more), sets, runs) else None

    def plain_meld_verdicts(
        self, state: GameState, left: tuple[int, int], moves: list[int]
    ) -> dict[int, bool | None]:
        """Per going-down meld among ``moves``: ``finishable`` after it where
        ``_plain_going_down`` decides it (the solver on the cards left), computed without
        building the state after it; ``None`` where the search must decide (the meld
        completes the going down, or leaves a case the plain rule excludes).

        Biggest melds first: a meld whose cards are among those of a meld already found
        to leave a contract that can be made leaves one too (more cards never hurt)."""
        p, layout = state.current, self.layout
        hand = state.hands[p]
        melds = []
        for action in moves:
            kind, arg = layout.kinds[action], layout.args[action]
            if kind == ActionKind.MELD_SET:
                melds.append((-self.melding.cards_used[action], action, arg.naturals, arg.wilds, ("set", arg.rank), arg))
            elif kind == ActionKind.MELD_RUN:
                meld = self.melding.run_from_hand(hand, arg)
                melds.append((-self.melding.cards_used[action], action, meld.naturals, meld.wilds, ("run", arg.suit), arg))
        melds.sort()
        counts, have = self.ctx.split_wilds(state, hand)
        t, verdicts = state.taken_face, {}
        kept: dict[tuple[str, int], list[tuple[tuple[int, ...], int, Any]]] = {}  # melds found to leave enough
        for _, action, naturals, wilds, group, arg in melds:
            sets, runs = (left[0] - 1, left[1]) if group[0] == "set" else (left[0], left[1] - 1)
            taken_blocked = t >= 0 and t not in naturals and hand[t] == 1
            size = state.hand_sizes[p] - len(naturals) - wilds
            if not sets + runs or not self._going_down_ends(state, size, taken_blocked, sets, runs):
                verdicts[action] = None
            elif len(state.table) + 1 + sets + runs > self.play.max_table_melds:
                verdicts[action] = False
            elif any(_within(naturals, wilds, arg, other) for other in kept.get(group, ())):
                verdicts[action] = True
            else:
                for f in naturals:
                    counts[f] -= 1
                ok = verdicts[action] = self.solver.can_make_contract(counts, have - wilds, sets, runs)
                for f in naturals:
                    counts[f] += 1
                if ok:
                    kept.setdefault(group, []).append((naturals, wilds, arg))
        return verdicts

    def swap_then_lay_off(self, state: GameState, action: int) -> bool:
        """Whether, after the swap ``action`` by a player down with no obligation open, the
        wild taken can be laid off on another meld leaving 2+ cards (then discard one)."""
        _, slot = self.layout.args[action]
        wild = self._wild_card
        return state.hand_sizes[state.current] >= 3 and any(
            k != slot and wild in self.lay_offs.fitting_faces(tm.meld) for k, tm in enumerate(state.table))

    def scratch(self, state: GameState) -> GameState:
        """A copy for looking ahead within the current player's turn: it copies what the
        turn's own moves change (the player's hand, the table, the obligations)."""
        s = GameState.__new__(GameState)  # a shallow copy, cheaper than copy.copy
        s.__dict__.update(state.__dict__)
        p = state.current
        s.hands = list(state.hands)
        s.hands[p] = bytearray(state.hands[p])
        s.known = list(state.known)
        s.known[p] = bytearray(state.known[p])
        s.hand_sizes = list(state.hand_sizes)
        s.table = list(state.table)
        s.down_turn = list(state.down_turn)
        s.legal_cache = None
        return s

    def after(self, state: GameState, action: int) -> GameState:
        after = self.scratch(state)
        kind, arg = self.layout.kinds[action], self.layout.args[action]
        self.moves.play_move(after, kind, arg)
        return after

    def _turn_done(self, state: GameState) -> bool:
        """Whether the player to act can end the turn now: every obligation met, and the
        hand empty (gone out) or holding a card the discard rule lets go."""
        if state.phase != Phase.PLAY or state.must_place >= 0 or state.wilds_owed:
            return False
        p = state.current
        size = state.hand_sizes[p]
        if size == 0:
            return True
        spec = self.rules.rounds[state.round]
        if spec.down_means_out and is_down(state, p):
            return False  # going down had to use every card
        if size >= 2:
            return True
        # One card left: the discard rule forbids it if it is the card just taken.
        return self.may_discard_last(state) and (state.taken_face < 0 or state.hands[p][state.taken_face] == 0)

    def may_discard_last(self, state: GameState) -> bool:
        """Whether the player to act may go out by discarding their last card: only once
        down, and not where the round must end by melding (docs/rules/contract_rummy.md#going-out, docs/rules/toonerville_rook.md#round-11)."""
        return is_down(state, state.current) and not self.rules.rounds[state.round].out_by_melding

    def finishable(self, state: GameState) -> bool:
        """Whether some sequence of the player's own moves finishes the turn legally
        (docs/rules/README.md#no-dead-ends): an exact search over the turn's melds, lay-offs and
        swaps, memoised on everything they depend on."""
        if self._turn_done(state):
            return True
        p = state.current
        if self._plain_going_down(state):
            return self._obligations_possible(state)
        key = (
            state.round, state.phase, bytes(state.hands[p]), tuple(tm.meld for tm in state.table),
            state.down_turn[p] < 0, state.down_turn[p] == state.turns, state.contract_left,
            state.must_place, state.wilds_owed, state.taken_face, state.wilds_to_meld,
            tuple(tm.owner == p for tm in state.table) if state.wilds_to_meld else (),
        )
        memo = self._search_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        if len(memo) > SEARCH_MEMO_LIMIT:
            memo.clear()
        result = self._obligations_possible(state) and any(
            self.finishable(self.after(state, a)) for a in self._search_order(state, self.moves.play_moves(state))
        )
        memo[key] = result
        return result

    def _plain_going_down(self, state: GameState) -> bool:
        """A going down, in progress or forced by a deep draw, that the meld solver decides
        exactly (``_obligations_possible``), with no search: at most one run in the
        contract (so the rule keeping runs apart cannot bite), slots for the rest, no wild
        owed, not deal 7's every-card rule (``_search_needed``), a sure way to end the turn
        after it (``_going_down_ends``), and a deep-drawn natural, if any, with no meld on
        the table of its rank or suit (so it can only reach the table in one of the
        contract's melds)."""
        p = state.current
        if state.phase == Phase.GOING_DOWN:
            sets, runs = state.contract_left
        elif state.phase == Phase.PLAY and state.must_place >= 0 and not is_down(state, p):
            sets, runs = self.rules.rounds[state.round].contract
        else:
            return False
        if self._search_needed(state):
            return False
        if len(state.table) + sets + runs > self.play.max_table_melds:
            return False
        must = state.must_place
        if must >= 0:
            if must == self._wild_card:
                return False
            if self._table_has_meld_for(state.table, must):
                return False
        taken_blocked = state.taken_face >= 0 and state.hands[p][state.taken_face] == 1
        return self._going_down_ends(state, state.hand_sizes[p], taken_blocked, sets, runs)

    def _search_needed(self, state: GameState) -> bool:
        """Whether a going down this turn involves rules the meld solver leaves to the turn
        search: a wild owed, deal 7's every-card rule, or runs of one suit kept apart."""
        spec = self.rules.rounds[state.round]
        return bool(state.wilds_owed) or spec.down_means_out or (
            spec.contract[1] > 1 and self.play.contract_runs_apart)

    def _going_down_ends(self, state: GameState, size: int, taken_blocked: bool, sets: int, runs: int) -> bool:
        """Whether a hand of ``size`` cards that lays ``sets`` sets and ``runs`` runs more
        surely ends the turn then, if it can lay them at all: the smallest melds (any
        contract that can be made can use them) leave 2+ cards, one of them discardable,
        or none (gone out); or one card, which may be discarded (not round 11's rule, not
        the card just taken, which the melds may not have used)."""
        mr = self.rules.melds
        spare = size - mr.set_min * sets - mr.run_min * runs
        return spare >= 2 or spare == 0 or not (self.rules.rounds[state.round].out_by_melding or taken_blocked)

    def _search_order(self, state: GameState, moves: list[int]) -> list[int]:
        """Moves that play the card that must be placed first: they finish most searches."""
        must = state.must_place
        if must < 0:
            return moves
        return sorted(moves, key=lambda a: not self._move_plays(a, must))

    def _move_plays(self, action: int, face: int) -> bool:
        kind, arg = self.layout.kinds[action], self.layout.args[action]
        if kind == ActionKind.MELD_SET:
            return face in arg.naturals or (face == self._wild_card and arg.wilds > 0)
        if kind == ActionKind.MELD_RUN:
            R = self._R
            return face // R == arg.suit and any(q % R == face % R for q in range(arg.low, arg.high + 1))
        return kind == ActionKind.LAY_OFF and arg[0] == face

    def _obligations_possible(self, state: GameState) -> bool:
        """Fast necessary conditions for finishing the turn, checked before searching.

        A going down in progress, or one that a deep draw forces, must be completable with
        the hand's cards; and a deep-drawn card must be able to join one of its melds or be
        laid off afterwards on a meld on the table of its rank (a set) or suit (a run). A
        player already down can only lay off a deep-drawn card on a meld it fits, or at the
        end of a run of its suit after other lay-offs. (The meld solver ignores only the
        rule that keeps runs of one suit apart, so it never rejects a possible plan.)
        """
        p = state.current
        must = state.must_place
        down = is_down(state, p)
        if must >= 0 and down and state.phase == Phase.PLAY:
            return self._placeable_when_down(state, must)
        spec = self.rules.rounds[state.round]
        if state.phase == Phase.GOING_DOWN:
            sets, runs = state.contract_left
        elif (must >= 0 or state.wilds_owed) and not down:
            sets, runs = spec.contract  # a swapped wild must go down with the contract
        else:
            return True
        if len(state.table) + sets + runs > self.play.max_table_melds:
            return False  # no slots left for the rest of the going down
        naturals, wilds = self.ctx.split_wilds(state, state.hands[p])
        if state.wilds_owed and not down and state.phase == Phase.PLAY:
            wilds += self._swaps_possible(state)  # further swaps may bring the wilds it needs
        if spec.down_means_out:  # every card goes down, the deep-drawn one with them
            return self.solver.can_partition(naturals, wilds, sets, runs)
        if must < 0 or must == self._wild_card or self._table_has_meld_for(state.table, must):
            return self.solver.can_make_contract(naturals, wilds, sets, runs)
        # the card can only reach the table in one of the contract's melds
        return self.solver.can_make_contract_with(naturals, wilds, sets, runs, must)

    def _swaps_possible(self, state: GameState) -> int:
        """How many more wilds the player to act could take off the table's runs by swaps."""
        return len(self.swaps.swap_faces(state))

    def _table_has_meld_for(self, table: Sequence[TableMeld], face: int) -> bool:
        """Whether a meld on the table has the natural ``face``'s rank (a set) or suit (a
        run), so that it might take the face as a lay-off."""
        rank, suit = face % self._R, face // self._R
        return any((tm.meld.kind == "set" and tm.meld.rank == rank) or (tm.meld.kind == "run" and tm.meld.suit == suit)
                   for tm in table)

    def _placeable_when_down(self, state: GameState, must: int) -> bool:
        """Whether a player already down could lay off the card ``must`` this turn, at best:
        it fits a meld now, or it is a natural beyond the end of a run of its suit, the run
        would then hold at most ``R`` cards (one ace), and the hand could fill every place
        between, with its naturals of those places and its wilds, counting every wild that
        swaps could take off the table's runs (a swap does not place ``must``, so a swap
        giving it needs a second copy). Checked at every step of the search: without these
        counts, proving that a card cannot be placed meant trying every order of the other
        lay-offs (minutes with the twenty cards of a deep draw)."""
        table = state.table
        if any(must in self.lay_offs.fitting_faces(tm.meld) for tm in table):
            return True
        if self.play.melds_after_down:
            return True  # a new meld could take it: left to the search
        if must == self._wild_card:
            return False  # other lay-offs only fill sets and lengthen runs: no room made
        hand, R = state.hands[state.current], self._R
        suit, rank = must // R, must % R
        swaps = self.swaps.swap_faces(state)
        wilds = (hand[self._wild_card] if self._wild_card >= 0 else 0) + len(swaps)
        if swaps.count(must) == hand[must]:
            wilds -= 1
        places = (rank, self._top) if rank == 0 and self._top == R else (rank,)
        for tm in table:
            meld = tm.meld
            if meld.kind != "run" or meld.suit != suit:
                continue
            for q in places:
                if meld.low <= q <= meld.high or max(meld.high, q) - min(meld.low, q) + 1 > R:
                    continue  # a place inside the run, or beyond a run's longest (one ace)
                gap = range(meld.high + 1, q) if q > meld.high else range(q + 1, meld.low)
                missing = sum(not hand[suit * R + g % R] for g in gap)
                if q < meld.low and missing:
                    # A wild goes on a run's low end only once its high end is closed
                    # (LayOffFit.end): every place above the run, up to the top, is filled
                    # first. Without this, a card that cannot go below a run open above was
                    # proven unplaceable by trying every order of the other lay-offs.
                    if self._top - q + 1 > R:
                        continue
                    missing += sum(not hand[suit * R + g % R] for g in range(meld.high + 1, self._top + 1))
                if missing <= wilds:
                    return True
        return False


def _within(naturals: tuple[int, ...], wilds: int, arg: Any, other: tuple[tuple[int, ...], int, Any]) -> bool:
    """Whether a meld's cards (``naturals``, ``wilds``, from the action ``arg``) are among
    those of ``other``, a meld of the same rank (sets) or suit (runs): a set's multiset
    of naturals and its wilds; a run's span (a run takes the hand's natural wherever it
    holds one, so a shorter span takes fewer of both)."""
    other_naturals, other_wilds, other_arg = other
    if isinstance(arg, RunAction):
        return other_arg.low <= arg.low and arg.high <= other_arg.high
    return wilds <= other_wilds and all(naturals.count(f) <= other_naturals.count(f) for f in set(naturals))
