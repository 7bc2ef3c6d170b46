"""Going down and melding: the ``meld set`` / ``meld run`` actions a hand can make, the
contract counted down as its melds are laid, and the rule that keeps the runs of one
going down apart (docs/rules/contract_rummy.md#going-down, docs/rules/toonerville_rook.md#going-down)."""

from __future__ import annotations

import itertools
from typing import Any, Sequence

from ..actions import ActionKind, SetAction
from ..melds import AT_LEAST, PRESENT, Meld, suit_rows
from ..state import GameState, Phase
from .context import ContractComponent, RulesContext, is_down

SEARCH_MEMO_LIMIT = 1 << 16
"""Entries a memo holds before it is cleared (bounded memory over long runs)."""


class Melding(ContractComponent):
    """The meld actions of a contract game, indexed once for fast lookup."""

    def __init__(self, ctx: RulesContext) -> None:
        super().__init__(ctx)
        layout, cs = self.layout, self.card_set
        self._sets_by_rank: list[list[tuple[int, SetAction]]] = [[] for _ in range(cs.num_ranks)]
        self._run_ids: dict[tuple[int, int, int], int] = {}
        for action in range(layout.size):
            kind, arg = layout.kinds[action], layout.args[action]
            if kind == ActionKind.MELD_SET:
                self._sets_by_rank[arg.rank].append((action, arg))
            elif kind == ActionKind.MELD_RUN:
                self._run_ids[(arg.suit, arg.low, arg.high)] = action
        # With distinct suits a set action is available exactly when its suits are among
        # the suits held of its rank: index the actions by that set of suits (a bit mask).
        self._sets_by_mask: list[list[list[tuple[int, int]]]] | None = None
        # Else by the suits' counts of the rank, capped at the copies a set action names.
        self._sets_by_counts: dict[tuple[int, bytes, int], list[int]] = {}
        self._set_copies_cap = bytes(min(v, layout.set_copies) for v in range(256))
        if self.rules.melds.set_distinct_suits:
            R = self._R
            self._sets_by_mask = [
                [
                    [(a, act.wilds) for a, act in self._sets_by_rank[rank]
                     if all(mask >> (f // R) & 1 for f in act.naturals)]
                    for mask in range(1 << cs.num_suits)
                ]
                for rank in range(R)
            ]
        # cards each meld or lay-off takes from the hand (a swap: none, net)
        self.cards_used = [0] * layout.size
        for action in range(layout.size):
            kind, arg = layout.kinds[action], layout.args[action]
            if kind == ActionKind.MELD_SET:
                self.cards_used[action] = len(arg.naturals) + arg.wilds
            elif kind == ActionKind.MELD_RUN:
                self.cards_used[action] = arg.high - arg.low + 1
            elif kind == ActionKind.LAY_OFF:
                self.cards_used[action] = 1
        self._runs_by_marks: dict[tuple[int, bytes, int], list[int]] = {}
        self._run_patterns: dict[tuple[bytes, int], list[int]] = {}
        spans = sorted((low, high) for suit, low, high in self._run_ids if suit == 0)
        self._run_shifts = [self._run_ids[(suit, *spans[0])] - self._run_ids[(0, *spans[0])]
                            for suit in range(cs.num_suits)]
        # the shift is the same for every span of a suit
        assert all(self._run_ids[(suit, *span)] - self._run_ids[(0, *span)] == self._run_shifts[suit]
                   for suit in range(cs.num_suits) for span in spans)

    def meld_moves(self, state: GameState, hand: Sequence[int], sets: bool, runs: bool) -> list[int]:
        cs, R = self.card_set, self._R
        wilds = hand[self._wild_card] if self._wild_card >= 0 else 0
        moves = []
        if sets:
            by_mask, S = self._sets_by_mask, cs.num_suits
            if by_mask is not None:
                for rank in range(R):
                    mask = sum(1 << s for s in range(S) if hand[s * R + rank])
                    if mask:
                        moves += [a for a, w in by_mask[rank][mask] if w <= wilds]
            else:
                # only the ranks with enough cards for a set, found from per-rank totals
                per_rank = sum(int.from_bytes(row, "little") for row in suit_rows(hand, R, S)).to_bytes(R, "little")
                enough = max(1, self.rules.melds.set_min - wilds)
                for rank in itertools.compress(range(R), per_rank.translate(AT_LEAST[enough])):
                    moves += self._sets_held(rank, bytes(hand[rank:S * R:R]).translate(self._set_copies_cap), wilds)
        if runs:
            apart = self._runs_of_this_going_down(state) if self.play.contract_runs_apart else ()
            for suit in range(cs.num_suits):
                marks = bytes(hand[suit * R:(suit + 1) * R]).translate(PRESENT)
                if not any(marks):
                    continue
                found = self._runs_held(suit, marks, wilds)
                if apart:
                    args = self.layout.args
                    found = [a for a in found if not any(
                        s == suit and (args[a].low == h + 1 or args[a].high == lo - 1) for s, lo, h in apart)]
                moves += found
        moves.sort()
        return moves

    def _runs_held(self, suit: int, marks: bytes, wilds: int) -> list[int]:
        """The run actions of ``suit`` with a natural held (``marks``: 1 per rank held) and
        at most ``wilds`` missing places, memoised."""
        wilds = min(wilds, self._R)
        key = (suit, marks, wilds)
        hit = self._runs_by_marks.get(key)
        if hit is None:
            # every suit lists the same spans in the same order: find them for the first
            # suit (memoised by the marks alone) and shift the ids
            pattern = self._run_patterns.get((marks, wilds))
            if pattern is None:
                pattern = self._run_patterns[(marks, wilds)] = self._runs_of_first_suit(marks, wilds)
            if len(self._runs_by_marks) > SEARCH_MEMO_LIMIT:
                self._runs_by_marks.clear()
                self._run_patterns.clear()
            shift = self._run_shifts[suit]
            hit = self._runs_by_marks[key] = [a + shift for a in pattern]
        return hit

    def _runs_of_first_suit(self, marks: bytes, wilds: int) -> list[int]:
        """``_runs_held`` for the first suit, computed."""
        R, top = self._R, self._top
        have = [marks[q % R] for q in range(top + 1)]
        found = []
        for low in range(top + 1):
            missing, naturals = 0, 0
            for high in range(low, min(top, low + R - 1) + 1):
                if have[high] and not (high == R and low == 0):
                    naturals += 1
                else:
                    missing += 1
                if missing > wilds:
                    break
                action = self._run_ids.get((0, low, high))
                if action is not None and naturals:
                    found.append(action)
        return found

    def _sets_held(self, rank: int, held: bytes, wilds: int) -> list[int]:
        """The set actions of ``rank`` whose naturals are among ``held`` (per suit, the
        cards of the rank held) and with at most ``wilds`` wilds, memoised."""
        key = (rank, held, min(wilds, self.play.max_set_action_wilds))
        hit = self._sets_by_counts.get(key)
        if hit is None:
            # every rank lists the same sets of suits in the same order: find them for the
            # first rank (memoised too) and shift the ids
            first = self._sets_by_rank[0][0][0]
            shift = self._sets_by_rank[rank][0][0] - first
            pattern = self._sets_by_counts.get((0, held, key[2]))
            if pattern is None:
                R = self._R
                pattern = self._sets_by_counts[(0, held, key[2])] = [
                    a for a, act in self._sets_by_rank[0]
                    if act.wilds <= wilds and all(held[f // R] >= act.naturals.count(f) for f in act.naturals)
                ]
            hit = self._sets_by_counts[key] = [a + shift for a in pattern]
        return hit

    def _runs_of_this_going_down(self, state: GameState) -> list[tuple[int, int, int]]:
        """``(suit, low, high)`` of the runs already laid in the going down in progress."""
        if state.phase != Phase.GOING_DOWN:
            return []
        spec = self.rules.rounds[state.round]
        placed = sum(spec.contract) - sum(state.contract_left)
        return [(m.meld.suit, m.meld.low, m.meld.high) for m in state.table[len(state.table) - placed:]
                if m.meld.kind == "run"]

    def run_from_hand(self, hand: Sequence[int], act: Any) -> Meld:
        """A ``meld run`` uses the hand's naturals and fills the missing places with wilds."""
        R, base = self._R, act.suit * self._R
        naturals = tuple(base + q % R for q in range(act.low, act.high + 1) if hand[base + q % R])
        wilds = act.high - act.low + 1 - len(naturals)
        return Meld("run", naturals, wilds, suit=act.suit, low=act.low, high=act.high)

    def count_contract_meld(self, state: GameState, kind: str) -> None:
        p = state.current
        if is_down(state, p):
            return  # a further meld after going down
        if state.phase != Phase.GOING_DOWN:
            state.contract_left = self.rules.rounds[state.round].contract
            state.phase = Phase.GOING_DOWN
        sets, runs = state.contract_left
        state.contract_left = (sets - 1, runs) if kind == "set" else (sets, runs - 1)
        if state.contract_left == (0, 0):
            state.down_turn[p] = state.turns
            state.phase = Phase.PLAY
