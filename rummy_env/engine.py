"""The rules engine: one engine for every game, reading a ``GameRules``.

It knows nothing of PettingZoo. A game is a mutable ``GameState``; the engine lists the
legal actions of the player to act and applies one, per phase (``Phase``), following the
shared procedure of docs/rules/README.md#shared-procedure: dealer choice and rotation, the one-at-a-time deal, turns,
stock exhaustion and dead rounds, the turn cap, round scoring and game end.

Seats are 0..n-1 and play moves left, from seat ``i`` to ``(i + 1) % n``.
"""

from __future__ import annotations

import copy
import itertools
import operator
import random
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Mapping, Sequence

from .actions import ActionKind, ActionLayout, RunAction, SetAction, run_positions
from .melds import AT_LEAST, PRESENT, Meld, MeldSolver, suit_rows
from .rules import GameRules

_SEARCH_MEMO_LIMIT = 1 << 16
SCENARIO_OPTIONS = ("deck", "dealer", "round", "scores")
"""The options of ``new_game`` (and so of the env's ``reset``) that set up an exact scenario."""
_TABLE_STAMPS = itertools.count(1)


class Phase(IntEnum):
    DRAW = 0
    PLAY = 1
    """After drawing: meld, lay off, swap, discard (Three-Thirteen: discard or go out)."""
    GOING_DOWN = 2
    """A going down has started: only the contract's remaining melds are offered."""
    BUY = 3
    """The player to act chose the stock: another player (``asked``) may buy the top discard."""
    GAME_OVER = 4


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table: who laid it, and the physical cards in it (wilds included)."""

    owner: int
    meld: Meld
    cards: tuple[int, ...]


@dataclass
class RoundResult:
    """How a round ended: each seat's penalty, and whether the game is over."""

    penalties: list[int]
    game_over: bool


@dataclass
class GameState:
    round: int
    """0-based index into ``rules.rounds``."""
    dealer: int
    current: int
    phase: Phase
    hands: list[bytearray]
    """Per seat, the count of each face held (bytearrays: the observer copies them into
    numpy without a per-element conversion)."""
    hand_sizes: list[int]
    stock: list[int]
    """Face-down cards; the next card to draw is the last one."""
    discard: list[int]
    """Bottom to top."""
    discard_counts: bytearray
    """Count of each face in ``discard``, kept alongside it for the observer's hot path."""
    discard_seats: list[int]
    """Per card of ``discard``, the seat that discarded it (-1: the upcard)."""
    known: list[bytearray]
    """Per seat, faces it is publicly known to hold (taken from the discard pile, or a
    wild taken back by a swap, and not yet played)."""
    table: list[TableMeld]
    """Melds in slot order (placed this round)."""
    scores: list[int]
    table_stamp: int = 0
    """Changes whenever ``table`` does (unique across states): the observer caches by it."""
    round_penalties: list[list[int]] = field(default_factory=list)
    taken_face: int = -1
    """Face taken from the top of the discard pile this turn and not yet played, or -1."""
    went_out: int = -1
    """Seat that went out this round, or -1."""
    last_turns_left: int = 0
    turns: int = 0
    """Turns started this round."""
    down_turn: list[int] = field(default_factory=list)
    """Per seat, the turn (``turns`` count) in which it went down this round, or -1."""
    contract_left: tuple[int, int] = (0, 0)
    """``(sets, runs)`` still to lay in the going down in progress."""
    must_place: int = -1
    """Face of a deep-drawn card that must reach the table this turn, or -1."""
    wilds_owed: int = 0
    """Wilds taken back by swaps this turn and not yet played again."""
    wilds_to_meld: int = 0
    """Of ``wilds_owed``, those taken by swaps while the player was not down: they go into
    this turn's going-down melds (a new meld, or a lay-off on one the player laid this
    turn), never on another player's meld."""
    asked: int = -1
    """Seat being asked the buy question (``Phase.BUY``), or -1."""
    buys: list[int] = field(default_factory=list)
    """Per seat, the cards it bought this round."""
    rng: random.Random = field(default_factory=random.Random)
    legal_cache: list[int] | None = field(default=None, repr=False)

    def clone(self) -> "GameState":
        state = copy.copy(self)
        state.hands = [bytearray(h) for h in self.hands]
        state.hand_sizes = list(self.hand_sizes)
        state.stock = list(self.stock)
        state.discard = list(self.discard)
        state.discard_counts = bytearray(self.discard_counts)
        state.discard_seats = list(self.discard_seats)
        state.known = [bytearray(k) for k in self.known]
        state.table = list(self.table)
        state.scores = list(self.scores)
        state.round_penalties = [list(p) for p in self.round_penalties]
        state.down_turn = list(self.down_turn)
        state.buys = list(self.buys)
        state.rng = random.Random.__new__(random.Random)  # unseeded: no OS entropy read
        state.rng.setstate(self.rng.getstate())
        state.legal_cache = None if self.legal_cache is None else list(self.legal_cache)
        return state


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state."""


class Engine:
    """Runs games of one ``GameRules``."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.card_set = cs = rules.deck.card_set
        self.layout = ActionLayout(rules)
        self.solver = MeldSolver(cs, rules.melds)
        self.num_players = rules.num_players
        self.play = rules.contract_play
        self._all_cards = rules.deck.cards()
        self._face_totals = rules.deck.face_counts()
        self._natural_values = [rules.rank_penalties[cs.rank(f)] for f in range(cs.num_naturals)]
        self._wild_card = cs.wild_card if cs.has_wild_card else -1
        self._R = cs.num_ranks
        self._top = run_positions(cs, rules.melds.ace_high) - 1  # highest run position
        mr = rules.melds
        # a set of set_min cards and a run of run_min places can each take one more card
        self._smallest_melds_take_a_wild = (mr.set_max is None or mr.set_max > mr.set_min) and mr.run_min < cs.num_ranks
        self._search_memo: dict = {}
        if self.play is not None:
            self._index_meld_actions()

    def _index_meld_actions(self) -> None:
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
        self._cards_used = [0] * layout.size
        for action in range(layout.size):
            kind, arg = layout.kinds[action], layout.args[action]
            if kind == ActionKind.MELD_SET:
                self._cards_used[action] = len(arg.naturals) + arg.wilds
            elif kind == ActionKind.MELD_RUN:
                self._cards_used[action] = arg.high - arg.low + 1
            elif kind == ActionKind.LAY_OFF:
                self._cards_used[action] = 1
        self._runs_by_marks: dict[tuple[int, bytes, int], list[int]] = {}
        self._run_patterns: dict[tuple[bytes, int], list[int]] = {}
        spans = sorted((low, high) for suit, low, high in self._run_ids if suit == 0)
        self._run_shifts = [self._run_ids[(suit, *spans[0])] - self._run_ids[(0, *spans[0])]
                            for suit in range(cs.num_suits)]
        # the shift is the same for every span of a suit
        assert all(self._run_ids[(suit, *span)] - self._run_ids[(0, *span)] == self._run_shifts[suit]
                   for suit in range(cs.num_suits) for span in spans)
        self._fits_memo: dict[tuple, tuple[int, ...]] = {}
        self._table_facts_cache: dict[int, tuple] = {}
        self._lay_offs_cache: dict[int, tuple[list[int], list[int]]] = {}
        self._swaps_cache: dict[int, tuple[list[int], list[int]]] = {}
        self._last_lay_offs: tuple[list[TableMeld], list[tuple[int, ...]]] = ([], [])

    # ------------------------------------------------------------------ set-up
    def new_game(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> GameState:
        """A new game, dealt; ``options`` are the scenario options of docs/rules/README.md#scenario-set-up."""
        options = dict(options or {})
        unknown = set(options) - set(SCENARIO_OPTIONS)
        if unknown:
            raise ValueError(f"unknown scenario option(s) {sorted(unknown)}; known: {', '.join(SCENARIO_OPTIONS)}")
        n = self.num_players
        rng = random.Random(self.check_seed(seed))
        round_index = self._option_round(options.get("round", 1)) - 1
        dealer = rng.randrange(n)
        if "dealer" in options:
            dealer = self._option_seat("dealer", options["dealer"])
        scores = self._option_scores(options.get("scores"))
        deck = self._option_deck(options["deck"]) if "deck" in options else None
        state = GameState(
            round=round_index, dealer=dealer, current=0, phase=Phase.DRAW,
            hands=[], hand_sizes=[], stock=[], discard=[], discard_counts=bytearray(), discard_seats=[], known=[],
            table=[],
            scores=scores, rng=rng,
        )
        self._deal(state, deck)
        return state

    @staticmethod
    def check_seed(seed: Any) -> int | None:
        """The seed as an int (any integer type, numpy's included), or a ``ValueError``."""
        if seed is None:
            return None
        try:
            if isinstance(seed, bool):
                raise TypeError
            return operator.index(seed)  # any integer, numpy's included
        except TypeError:
            raise ValueError(f"seed must be an integer or None, not {seed!r}") from None

    def _option_round(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= self.rules.num_rounds:
            raise ValueError(f"option 'round' must be an integer from 1 to {self.rules.num_rounds}, not {value!r}")
        return value

    def _option_seat(self, name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.num_players:
            raise ValueError(f"option {name!r} must be a seat from 0 to {self.num_players - 1}, not {value!r}")
        return value

    def _option_scores(self, value: Any) -> list[int]:
        if value is None:
            return [0] * self.num_players
        if (
            not isinstance(value, (list, tuple))
            or len(value) != self.num_players
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= self.rules.max_score
                   for v in value)
        ):
            raise ValueError(f"option 'scores' must be {self.num_players} integers from 0 to "
                             f"{self.rules.max_score}, one per seat, not {value!r}")
        return list(value)

    def _option_deck(self, value: Any) -> list[int]:
        if not isinstance(value, (list, tuple)):
            raise ValueError("option 'deck' must be a list of card strings")
        faces = [self.card_set.parse(text) for text in value]
        if sorted(faces) != sorted(self._all_cards):
            have = [0] * self.card_set.num_faces
            for f in faces:
                have[f] += 1
            diff = [
                f"{self.card_set.format(f)} x{have[f]} (expected {want})"
                for f, want in enumerate(self._face_totals) if have[f] != want
            ]
            raise ValueError(
                f"option 'deck' must hold exactly the game's {len(self._all_cards)} cards; "
                f"got {len(faces)}, differing at: {', '.join(diff[:8])}"
            )
        return faces

    def _deal(self, state: GameState, deck: list[int] | None = None) -> None:
        """Shuffle (unless the order is given) and deal the state's round."""
        n, spec = self.num_players, self.rules.rounds[state.round]
        if deck is None:
            deck = list(self._all_cards)
            state.rng.shuffle(deck)
        faces = self.card_set.num_faces
        state.hands = [bytearray(faces) for _ in range(n)]
        state.known = [bytearray(faces) for _ in range(n)]
        dealt = n * spec.hand_size
        for k in range(dealt):  # one at a time, from the dealer's left
            state.hands[(state.dealer + 1 + k) % n][deck[k]] += 1
        state.hand_sizes = [spec.hand_size] * n
        state.discard = [deck[dealt]]
        state.discard_counts = bytearray(faces)
        state.discard_counts[deck[dealt]] = 1
        state.discard_seats = [-1]
        state.stock = deck[:dealt:-1]  # reversed: the next card to draw is last
        state.table = []
        state.table_stamp = next(_TABLE_STAMPS)
        state.taken_face = -1
        state.went_out = -1
        state.last_turns_left = 0
        state.turns = 0
        state.down_turn = [-1] * n
        state.contract_left = (0, 0)
        state.must_place = -1
        state.wilds_owed = 0
        state.wilds_to_meld = 0
        state.asked = -1
        state.buys = [0] * n
        state.current = (state.dealer + 1) % n
        state.phase = Phase.DRAW
        state.legal_cache = None

    # ------------------------------------------------------------------ queries
    def wild_faces(self, state: GameState) -> list[int]:
        """Faces that are wild this round."""
        if self._wild_card >= 0:
            return [self._wild_card]
        rank = self.rules.rounds[state.round].wild_rank
        if rank is None:
            return []
        cs = self.card_set
        return [cs.face(s, rank) for s in range(cs.num_suits)]

    def split_wilds(self, state: GameState, hand: Sequence[int]) -> tuple[list[int], int]:
        """The hand's natural counts (wild faces removed) and its number of wilds."""
        naturals = list(hand[: self.card_set.num_naturals])
        wilds = 0
        for f in self.wild_faces(state):
            wilds += hand[f]
            if f < len(naturals):
                naturals[f] = 0
        return naturals, wilds

    @staticmethod
    def to_act(state: GameState) -> int:
        """The seat to act: the player whose turn it is, or the one asked to buy."""
        return state.asked if state.phase == Phase.BUY else state.current

    def legal_actions(self, state: GameState) -> list[int]:
        """Legal action ids of the player to act, ascending (cached until the next move)."""
        if state.legal_cache is None:
            if state.phase == Phase.DRAW:
                state.legal_cache = self._draw_legal(state)
            elif state.phase == Phase.BUY:
                state.legal_cache = [self.layout.buy, self.layout.buy + 1]
            elif state.phase == Phase.GAME_OVER:
                state.legal_cache = []
            elif self.play is None:
                state.legal_cache = self._go_out_style_legal(state)
            else:
                state.legal_cache = self._play_legal(state)
        return state.legal_cache

    def is_down(self, state: GameState, seat: int) -> bool:
        return state.down_turn[seat] >= 0

    def _draw_legal(self, state: GameState) -> list[int]:
        # Drawing from an empty stock is legal: it reshuffles, or ends a dead round.
        if not state.discard:
            return [ActionLayout.DRAW_STOCK]
        actions = [ActionLayout.DRAW_STOCK, ActionLayout.DRAW_DISCARD]
        if self.layout.max_deep_draw >= 2:
            actions += self._deep_draw_legal(state)
        return actions

    # ------------------------------------------------------------------ Three-Thirteen's play
    def _go_out_style_legal(self, state: GameState) -> list[int]:
        hand = state.hands[state.current]
        faces = self._discardable(state)
        layout = self.layout
        actions = [layout.discard(f) for f in faces]
        if state.went_out < 0:
            blocked = state.taken_face if state.taken_face >= 0 and hand[state.taken_face] == 1 else -1
            actions += [layout.go_out(f) for f in self._go_out_faces(state, hand) if f != blocked]
        return actions

    def _go_out_faces(self, state: GameState, hand: Sequence[int]) -> list[int]:
        """Faces whose discard leaves a hand that melds completely."""
        naturals, wilds = self.split_wilds(state, hand)
        faces, wild_ok = self.solver.meldable_without_one(naturals, wilds)
        if wild_ok:
            faces += [f for f in self.wild_faces(state) if hand[f]]
        return sorted(faces)

    def _discardable(self, state: GameState) -> list[int]:
        """Faces the player to act may discard now (obligations aside): the discard rule."""
        hand = state.hands[state.current]
        faces = list(itertools.compress(range(len(hand)), hand))  # the faces held, in C
        t = state.taken_face
        if t >= 0 and hand[t] == 1:
            faces.remove(t)
        return faces

    # ------------------------------------------------------------------ contract games' play

    def _play_legal(self, state: GameState) -> list[int]:
        actions = []
        spec = self.rules.rounds[state.round]
        if state.phase == Phase.PLAY and state.must_place < 0 and state.wilds_owed == 0 and not (
            spec.down_means_out and self.is_down(state, state.current)
        ) and not (state.hand_sizes[state.current] == 1 and not self._may_discard_last(state)):
            start = self.layout.blocks["discard"].start
            actions = [start + f for f in self._discardable(state)]
        p = state.current
        # A player down with no obligation open finishes after a meld or a lay-off that
        # leaves 2+ cards (a discard is then legal) or none: no look-ahead needed.
        quick = state.phase == Phase.PLAY and self.is_down(state, p) and state.must_place < 0 \
            and state.wilds_owed == 0 and not spec.down_means_out
        moves = self._play_moves(state)
        if not moves:
            return actions
        size, cards_used = state.hand_sizes[p], self._cards_used
        if quick:
            used = list(map(cards_used.__getitem__, moves))
            if min(used) and size - max(used) >= 2:
                return actions + moves  # no swap, and every move leaves 2+ cards
        going_down = None if quick else self._plain_going_down_left(state)
        verdicts = self._plain_meld_verdicts(state, going_down, moves) if going_down is not None else {}
        owing = state.wilds_owed > 0 and state.must_place < 0 and not spec.down_means_out \
            and self.rules.melds.set_max is None
        for action in moves:
            if owing and self._owed_wilds_placed(state, action):
                actions.append(action)
                continue
            if quick:
                used = cards_used[action]
                if (size - used >= 2 or size == used) if used else self._swap_then_lay_off(state, action):
                    actions.append(action)
                    continue
            elif going_down is not None:
                verdict = verdicts[action] if cards_used[action] else self._swap_then_go_down(state, action)
                if verdict is not None:
                    if verdict:
                        actions.append(action)
                    continue
            if self._finishable(self._after(state, action)):
                actions.append(action)
        return actions

    def _owed_wilds_placed(self, state: GameState, action: int) -> bool:
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
            meld = self._run_from_hand(hand, arg)
            naturals, wilds, is_set = meld.naturals, meld.wilds, False
        else:
            return False  # a swap owes one more: left to the search
        sets = runs = 0
        if not self.is_down(state, p):
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
        counts, have = self.split_wilds(state, state.hands[state.current])
        for f in naturals:
            counts[f] -= 1
        return self.solver.can_make_contract(counts, have - wilds, sets, runs)

    def _plain_going_down_left(self, state: GameState) -> tuple[int, int] | None:
        """The contract still to lay when the next meld starts or continues a going down
        that ``_plain_going_down`` will judge after it (no obligation open, none of the
        rules it leaves to the search), else ``None``."""
        p, spec = state.current, self.rules.rounds[state.round]
        if state.phase == Phase.GOING_DOWN:
            left = state.contract_left
        elif state.phase == Phase.PLAY and not self.is_down(state, p) and spec.contract is not None:
            left = spec.contract
        else:
            return None
        return None if state.must_place >= 0 or self._search_needed(state) else left

    def _swap_then_go_down(self, state: GameState, action: int) -> bool | None:
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
        counts, wilds = self.split_wilds(state, state.hands[p])
        counts[face] -= 1
        spare = state.hand_sizes[p] - mr.set_min * sets - mr.run_min * runs
        sure = spare - 1 >= 2 and self._smallest_melds_take_a_wild
        if sure and self.solver.can_make_contract(counts, wilds + 1, sets, runs):
            return True
        more = self._swap_faces(self._after(state, action))
        if not self.solver.can_make_contract(counts, wilds + 1 + len(more), sets, runs):
            return False
        if not sure or not more or not sets or mr.set_max is not None or spare - 1 - len(more) < 2:
            return None  # room for several wilds taken is only sure on a set without a maximum
        for f in more:
            counts[f] -= 1
        return True if self.solver.can_make_contract(counts, wilds + 1 + len(more), sets, runs) else None

    def _plain_meld_verdicts(
        self, state: GameState, left: tuple[int, int], moves: list[int]
    ) -> dict[int, bool | None]:
        """Per going-down meld among ``moves``: ``_finishable`` after it where
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
                melds.append((-self._cards_used[action], action, arg.naturals, arg.wilds, ("set", arg.rank), arg))
            elif kind == ActionKind.MELD_RUN:
                meld = self._run_from_hand(hand, arg)
                melds.append((-self._cards_used[action], action, meld.naturals, meld.wilds, ("run", arg.suit), arg))
        melds.sort()
        counts, have = self.split_wilds(state, hand)
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

    def _swap_then_lay_off(self, state: GameState, action: int) -> bool:
        """Whether, after the swap ``action`` by a player down with no obligation open, the
        wild taken can be laid off on another meld leaving 2+ cards (then discard one)."""
        _, slot = self.layout.args[action]
        wild = self._wild_card
        return state.hand_sizes[state.current] >= 3 and any(
            k != slot and wild in self._fitting_faces(tm.meld) for k, tm in enumerate(state.table))

    def _play_moves(self, state: GameState) -> list[int]:
        """The melds, lay-offs and swaps the rules allow now, ascending, before the check
        that the turn can still be finished after them."""
        p, play = state.current, self.play
        hand = state.hands[p]
        room = len(state.table) < play.max_table_melds
        if state.phase == Phase.GOING_DOWN:
            sets, runs = state.contract_left
            return self._meld_moves(state, hand, sets > 0, runs > 0) if room else []
        spec = self.rules.rounds[state.round]
        if not self.is_down(state, p):
            moves = []
            if spec.contract is not None and len(state.table) + sum(spec.contract) <= play.max_table_melds:
                # A going down must be completed once started: none starts unless the hand
                # can make the whole contract (the solver's test is exact but for the rule
                # that keeps runs apart, which the search below then applies).
                naturals, wilds = self.split_wilds(state, hand)
                sets, runs = spec.contract
                check = self.solver.can_partition if spec.down_means_out else self.solver.can_make_contract
                if check(naturals, wilds, sets, runs):
                    moves = self._meld_moves(state, hand, sets > 0, runs > 0)
            if not play.swap_needs_earlier_down and self.layout.blocks.get("swap"):
                # the wild taken must then go down in this turn's melds
                moves += self._swap_moves(state, hand)
            return moves
        if spec.down_means_out:
            return []  # going down had to use every card: nothing may follow it
        moves = []
        if play.melds_after_down and room:
            moves += self._meld_moves(state, hand, True, True)
        lay_offs = self._lay_off_moves(state, hand)
        if self._no_spare_wild(state):  # none may go on another player's meld
            lay_offs = [a for a in lay_offs if not self._wild_on_others_meld(state, a)]
        moves += lay_offs
        if self.layout.blocks.get("swap") and (
            not play.swap_needs_earlier_down or state.down_turn[p] < state.turns
        ):
            moves += self._swap_moves(state, hand)
        return moves

    def _no_spare_wild(self, state: GameState) -> bool:
        """Whether every wild in the player's hand is owed to this turn's going-down melds."""
        return 0 < state.hands[state.current][self._wild_card] <= state.wilds_to_meld

    def _wild_on_others_meld(self, state: GameState, action: int) -> bool:
        """Whether the lay-off ``action`` puts a wild on a meld another player laid."""
        face, slot = self.layout.args[action]
        return face == self._wild_card and state.table[slot].owner != state.current

    def _meld_moves(self, state: GameState, hand: Sequence[int], sets: bool, runs: bool) -> list[int]:
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
            if len(self._runs_by_marks) > _SEARCH_MEMO_LIMIT:
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

    def _lay_off_moves(self, state: GameState, hand: Sequence[int]) -> list[int]:
        actions, faces = self._lay_offs_of_table(state)
        return list(itertools.compress(actions, map(hand.__getitem__, faces)))  # those of faces held, in C

    def _lay_offs_of_table(self, state: GameState) -> tuple[list[int], list[int]]:
        """Every lay-off the table takes, ascending, and the face of each; cached by the
        table's stamp (the table changes on few steps)."""
        hit = self._lay_offs_cache.get(state.table_stamp)
        if hit is None:
            # Most changes touch one slot: reuse the lay-offs of the melds (the same
            # objects) of the table last computed.
            start, F = self.layout.start("lay_off"), self.card_set.num_faces
            last_table, last_per_slot = self._last_lay_offs
            per_slot = []
            for slot, tm in enumerate(state.table):
                if slot < len(last_table) and last_table[slot] is tm:
                    per_slot.append(last_per_slot[slot])
                else:
                    per_slot.append(self._fitting_faces(tm.meld))
            self._last_lay_offs = (list(state.table), per_slot)
            actions = [start + slot * F + f for slot, faces in enumerate(per_slot) for f in faces]
            hit = (actions, [f for faces in per_slot for f in faces])
            if len(self._lay_offs_cache) > 256:
                self._lay_offs_cache.clear()
            self._lay_offs_cache[state.table_stamp] = hit
        return hit

    def _fitting_faces(self, meld: Meld) -> tuple[int, ...]:
        """The faces that may be laid off on a meld, ascending, memoised on what decides
        them: a set's rank, and its size and naturals only where the rules look at them;
        a run's place."""
        mr = self.rules.melds
        if meld.kind == "set":
            key = ("set", meld.rank, -1 if mr.set_max is None else meld.size,
                   meld.naturals if mr.set_distinct_suits else ())
        else:
            key = ("run", meld.suit, meld.low, meld.high)
        fits = self._fits_memo.get(key)
        if fits is None:
            cs, R = self.card_set, self._R
            if meld.kind == "set":
                candidates = [cs.face(s, meld.rank) for s in range(cs.num_suits)]
            else:
                candidates = [cs.face(meld.suit, q % R) for q in (meld.low - 1, meld.high + 1) if 0 <= q <= self._top]
            if self._wild_card >= 0:
                candidates.append(self._wild_card)
            fits = tuple(sorted({f for f in candidates if self._lay_off_place(meld, f) is not None}))
            if len(self._fits_memo) > _SEARCH_MEMO_LIMIT:
                self._fits_memo.clear()
            self._fits_memo[key] = fits
        return fits

    def _lay_off_place(self, meld: Meld, face: int) -> Meld | None:
        """The meld with ``face`` added, or ``None`` if it does not fit (docs/rules/contract_rummy.md#lay-off-placement, docs/rules/toonerville_rook.md#lay-off-placement: a wild,
        or an ace fitting both ends, goes to the high end of a run when it is open)."""
        mr, R = self.rules.melds, self._R
        size = meld.size
        if meld.kind == "set":
            if mr.set_max is not None and size >= mr.set_max:
                return None
            if face == self._wild_card:
                return Meld("set", meld.naturals, meld.wilds + 1, rank=meld.rank)
            if face % R != meld.rank or face >= self.card_set.num_naturals:
                return None
            if mr.set_distinct_suits and any(f == face for f in meld.naturals):
                return None
            return Meld("set", meld.naturals + (face,), meld.wilds, rank=meld.rank)
        if size >= R:
            return None
        low, high = meld.low, meld.high
        high_ok = high < self._top and not (high + 1 == R and low == 0)
        low_ok = low > 0 and not (low - 1 == 0 and high == R)
        if face == self._wild_card:
            if high_ok:
                return Meld("run", meld.naturals, meld.wilds + 1, suit=meld.suit, low=low, high=high + 1)
            if low_ok:
                return Meld("run", meld.naturals, meld.wilds + 1, suit=meld.suit, low=low - 1, high=high)
            return None
        if face >= self.card_set.num_naturals or face // R != meld.suit:
            return None
        rank = face % R
        if high_ok and (rank == high + 1 or (rank == 0 and high + 1 == R)):
            return Meld("run", meld.naturals + (face,), meld.wilds, suit=meld.suit, low=low, high=high + 1)
        if low_ok and rank == low - 1:
            return Meld("run", meld.naturals + (face,), meld.wilds, suit=meld.suit, low=low - 1, high=high)
        return None

    def _swap_moves(self, state: GameState, hand: Sequence[int]) -> list[int]:
        actions, faces = self._swaps_of_table(state)
        return list(itertools.compress(actions, map(hand.__getitem__, faces)))  # those of faces held, in C

    def _swaps_of_table(self, state: GameState) -> tuple[list[int], list[int]]:
        """Every swap the table offers (a natural for a wild in a run), ascending, and the
        face each gives; cached by the table's stamp."""
        hit = self._swaps_cache.get(state.table_stamp)
        if hit is None:
            R, pairs = self._R, []
            for slot, tm in enumerate(state.table):
                meld = tm.meld
                if meld.kind == "run" and meld.wilds:
                    for q in meld.wild_positions(R):
                        f = meld.suit * R + q % R
                        pairs.append((self.layout.swap(f, slot), f))
            pairs.sort()
            hit = ([a for a, _ in pairs], [f for _, f in pairs])
            if len(self._swaps_cache) > 256:
                self._swaps_cache.clear()
            self._swaps_cache[state.table_stamp] = hit
        return hit

    def _deep_draw_legal(self, state: GameState) -> list[int]:
        """``draw discard N`` for each depth whose card can be put on the table this turn."""
        deepest = min(self.layout.max_deep_draw, len(state.discard))
        p = state.current
        spec = self.rules.rounds[state.round]
        down = self.is_down(state, p)
        naturals, wilds = self.split_wilds(state, state.hands[p])
        # melds of the contract's kinds, or any kind where more may follow going down
        could_make = (1, 1) if self.play.melds_after_down else spec.contract
        smallest: list[int] = []  # the shallowest depth that can make the contract, found lazily

        def contract_depth() -> int:
            # More cards never make a contract impossible: bisect for the shallowest depth.
            if not smallest:
                low, high = 2, deepest + 1
                while low < high:
                    mid = (low + high) // 2
                    counts, w = self._with_cards(naturals, wilds, state.discard[-mid:])
                    if self.solver.can_make_contract(counts, w, *spec.contract):
                        high = mid
                    else:
                        low = mid + 1
                smallest.append(low)
            return smallest[0]

        if not down:
            counts, w = self._with_cards(naturals, wilds, state.discard[-deepest:])
            if spec.down_means_out:
                # going down must then take every card of the hand
                if not self.solver.each_could_meld(counts, w, naturals, *spec.contract):
                    return []
            elif not self.solver.can_make_contract(counts, w, *spec.contract):
                return []  # not even every card down to the deepest makes the contract
        actions = []
        # a player down before this turn may swap wilds off the table to fill gaps
        may_swap = down or not self.play.swap_needs_earlier_down
        pool = _CardPool(self, naturals, wilds, state.table, state.table_stamp, may_swap)
        sets_wanted, runs_wanted = could_make
        for depth in range(1, deepest + 1):
            face = state.discard[-depth]
            pool.add(face)  # the pool: the hand and the cards down to this depth
            if depth < 2:
                continue
            if down:
                if not pool.could_lay_off(face):
                    continue
            else:
                if not pool.could_meld(face, sets_wanted, runs_wanted):
                    continue
                if not spec.down_means_out and depth < contract_depth():
                    continue
            after = self._scratch(state)
            after.discard = list(state.discard)
            after.discard_counts = bytearray(state.discard_counts)
            self._take_from_discard(after, depth)
            if self._finishable(after):
                actions.append(self.layout.deep_draw(depth))
        return actions

    def _with_cards(self, naturals: list[int], wilds: int, cards: Sequence[int]) -> tuple[list[int], int]:
        counts = list(naturals)
        for f in cards:
            if f == self._wild_card:
                wilds += 1
            else:
                counts[f] += 1
        return counts, wilds

    # ------------------------------------------------------------------ the turn search
    def _scratch(self, state: GameState) -> GameState:
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

    def _after(self, state: GameState, action: int) -> GameState:
        after = self._scratch(state)
        kind, arg = self.layout.kinds[action], self.layout.args[action]
        self._play_move(after, kind, arg)
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
        if spec.down_means_out and self.is_down(state, p):
            return False  # going down had to use every card
        if size >= 2:
            return True
        # One card left: the discard rule forbids it if it is the card just taken.
        return self._may_discard_last(state) and (state.taken_face < 0 or state.hands[p][state.taken_face] == 0)

    def _may_discard_last(self, state: GameState) -> bool:
        """Whether the player to act may go out by discarding their last card: only once
        down, and not where the round must end by melding (docs/rules/contract_rummy.md#going-out, docs/rules/toonerville_rook.md#round-11)."""
        return self.is_down(state, state.current) and not self.rules.rounds[state.round].out_by_melding

    def _finishable(self, state: GameState) -> bool:
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
        if len(memo) > _SEARCH_MEMO_LIMIT:
            memo.clear()
        result = self._obligations_possible(state) and any(
            self._finishable(self._after(state, a)) for a in self._search_order(state, self._play_moves(state))
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
        elif state.phase == Phase.PLAY and state.must_place >= 0 and not self.is_down(state, p):
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
        down = self.is_down(state, p)
        if must >= 0 and down and state.phase == Phase.PLAY:
            return must in self._placeable_when_down(state.table)
        spec = self.rules.rounds[state.round]
        if state.phase == Phase.GOING_DOWN:
            sets, runs = state.contract_left
        elif (must >= 0 or state.wilds_owed) and not down:
            sets, runs = spec.contract  # a swapped wild must go down with the contract
        else:
            return True
        if len(state.table) + sets + runs > self.play.max_table_melds:
            return False  # no slots left for the rest of the going down
        naturals, wilds = self.split_wilds(state, state.hands[p])
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
        return len(self._swap_faces(state))

    def _swap_faces(self, state: GameState) -> list[int]:
        """The naturals the player to act would give for every wild it could take off the
        table's runs by swaps at once: per face, the fewer of its cards in hand and of the
        wilds standing for it."""
        hand, R = state.hands[state.current], self._R
        wanted: dict[int, int] = {}
        for tm in state.table:
            if tm.meld.kind == "run" and tm.meld.wilds:
                for q in tm.meld.wild_positions(R):
                    f = tm.meld.suit * R + q % R
                    wanted[f] = wanted.get(f, 0) + 1
        return [f for f, k in wanted.items() for _ in range(min(k, hand[f]))]

    def _table_has_meld_for(self, table: Sequence[TableMeld], face: int) -> bool:
        """Whether a meld on the table has the natural ``face``'s rank (a set) or suit (a
        run), so that it might take the face as a lay-off."""
        rank, suit = face % self._R, face // self._R
        return any((tm.meld.kind == "set" and tm.meld.rank == rank) or (tm.meld.kind == "run" and tm.meld.suit == suit)
                   for tm in table)

    def _table_facts(
        self, stamp: int, table: Sequence[TableMeld]
    ) -> tuple[frozenset[int], list[list[tuple[int, int]]], int]:
        """The faces that fit a set on the table, each suit's runs ``(low, high)``, and the
        wilds in runs; cached by the table's stamp (the table changes on few steps)."""
        hit = self._table_facts_cache.get(stamp)
        if hit is None:
            fits = frozenset(f for tm in table if tm.meld.kind == "set" for f in self._fitting_faces(tm.meld))
            runs: list[list[tuple[int, int]]] = [[] for _ in range(self.card_set.num_suits)]
            wilds = 0
            for tm in table:
                if tm.meld.kind == "run":
                    runs[tm.meld.suit].append((tm.meld.low, tm.meld.high))
                    wilds += tm.meld.wilds
            if len(self._table_facts_cache) > 256:
                self._table_facts_cache.clear()
            hit = self._table_facts_cache[stamp] = (fits, runs, wilds)
        return hit

    def _placeable_when_down(self, table: Sequence[TableMeld]) -> set[int]:
        """Faces a player already down could lay off this turn, at best: those that fit a
        meld now, and every natural of a suit with a run (reachable after other lay-offs)."""
        R = self._R
        faces: set[int] = set()
        for tm in table:
            faces.update(self._fitting_faces(tm.meld))
            if tm.meld.kind == "run":
                faces.update(range(tm.meld.suit * R, tm.meld.suit * R + R))
        return faces

    # ------------------------------------------------------------------ moves
    def apply(self, state: GameState, action: int, actor: str | None = None) -> RoundResult | None:
        """Apply the acting player's action; returns the result if a round ended.

        Raises ``IllegalActionError`` naming the action and the player (``actor``, or the
        seat) and leaves the state unchanged when the action is not legal.
        """
        if state.phase == Phase.GAME_OVER:
            raise IllegalActionError("the game is over: no action can be taken")
        if action not in self.legal_actions(state):
            who = actor if actor is not None else f"seat {self.to_act(state)}"
            text = self.layout.text(action) if 0 <= action < self.layout.size else "outside the action space"
            legal = ", ".join(self.layout.text(a) for a in self.legal_actions(state))
            reason = self._refusal_reason(state, action)
            raise IllegalActionError(f"illegal action {action} ({text}) for {who}{reason}; legal now: {legal}")
        state.legal_cache = None
        kind, arg = self.layout.kinds[action], self.layout.args[action]
        if kind == ActionKind.DRAW_STOCK:
            return self._ask_buyer(state, state.current)
        if kind == ActionKind.BUY:
            return self._apply_buy(state)
        if kind == ActionKind.PASS:
            return self._ask_buyer(state, state.asked)
        if kind == ActionKind.DRAW_DISCARD:
            self._take_from_discard(state, 1)
            return None
        if kind == ActionKind.DEEP_DRAW:
            self._take_from_discard(state, arg)
            return None
        if kind == ActionKind.DISCARD:
            return self._apply_discard(state, arg)
        if kind == ActionKind.GO_OUT:
            return self._apply_go_out(state, arg)
        self._play_move(state, kind, arg)
        if state.hand_sizes[state.current] == 0:
            state.went_out = state.current
            return self._end_round(state)
        return None

    def _refusal_reason(self, state: GameState, action: int) -> str:
        """Why an action the mask leaves out is illegal, for a rule the legal list alone
        does not make plain (else nothing)."""
        layout = self.layout
        if not 0 <= action < layout.size or layout.kinds[action] != ActionKind.LAY_OFF or state.phase != Phase.PLAY:
            return ""
        face, slot = layout.args[action]
        if slot < len(state.table) and self._wild_on_others_meld(state, action) and self._no_spare_wild(state):
            return (f": {self.card_set.format(face)} was swapped before going down, so it goes into this turn's "
                    "going-down melds, not on another player's meld")
        return ""

    def _start_turn(self, state: GameState) -> None:
        state.turns += 1
        state.phase = Phase.PLAY

    def _ask_buyer(self, state: GameState, after: int) -> RoundResult | None:
        """The player to act chose the stock: ask the next player after seat ``after``
        who may buy the top discard, or, with none left, make the stock draw."""
        buyer = self._next_buyer(state, after) if self.play is not None and self.play.buying else -1
        if buyer < 0:
            state.asked = -1
            return self._apply_draw_stock(state)
        state.asked = buyer
        state.phase = Phase.BUY
        return None

    def _next_buyer(self, state: GameState, after: int) -> int:
        """The first seat left of ``after`` (and before the player to act) that may buy the
        top discard, or -1 (docs/rules/toonerville_rook.md#who-is-asked: not its
        discarder, not past the buy limit, and only while there is a top discard and the
        stock, reshuffled if need be, can give the buyer's penalty card and the player's
        draw)."""
        if not state.discard or len(state.stock) + max(0, len(state.discard) - 2) < 2:
            return -1
        n, cap = self.num_players, self.play.max_buys_per_round
        discarder = state.discard_seats[-1]
        seat = (after + 1) % n
        while seat != state.current:
            if seat != discarder and (cap is None or state.buys[seat] < cap):
                return seat
            seat = (seat + 1) % n
        return -1

    def _apply_buy(self, state: GameState) -> RoundResult | None:
        """The asked seat takes the top discard (seen by all) and a penalty card from the
        stock (unseen); then the player to act draws from the stock."""
        buyer, face = state.asked, state.discard.pop()
        del state.discard_seats[-1]
        state.discard_counts[face] -= 1
        if not state.stock:
            self._reshuffle(state)  # the bought card has left the pile first
        penalty = state.stock.pop()
        hand = state.hands[buyer]
        hand[face] += 1
        hand[penalty] += 1
        state.known[buyer][face] += 1
        state.hand_sizes[buyer] += 2
        state.buys[buyer] += 1
        state.asked = -1
        return self._apply_draw_stock(state)

    def _reshuffle(self, state: GameState) -> None:
        """docs/rules/README.md#empty-stock: the discard pile but its top card becomes the stock."""
        state.stock = state.discard[:-1]
        del state.discard[:-1]
        del state.discard_seats[:-1]
        state.discard_counts = bytearray(self.card_set.num_faces)
        if state.discard:
            state.discard_counts[state.discard[0]] = 1
        state.rng.shuffle(state.stock)

    def _apply_draw_stock(self, state: GameState) -> RoundResult | None:
        if not state.stock:
            self._reshuffle(state)
            if not state.stock:
                return self._end_round(state)  # a dead round
        p, face = state.current, state.stock.pop()
        state.hands[p][face] += 1
        state.hand_sizes[p] += 1
        self._start_turn(state)
        return None

    def _take_from_discard(self, state: GameState, depth: int) -> None:
        """Take the ``depth``-th card from the top of the discard pile and every card
        above it; the top card alone falls under the discard rule, a deeper one must be
        put on the table this turn."""
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
        self._start_turn(state)

    def _put_on_discard(self, state: GameState, face: int) -> None:
        p = state.current
        state.hands[p][face] -= 1
        state.hand_sizes[p] -= 1
        if state.known[p][face]:
            state.known[p][face] -= 1
        state.discard.append(face)
        state.discard_seats.append(p)
        state.discard_counts[face] += 1
        state.taken_face = -1

    def _apply_discard(self, state: GameState, face: int) -> RoundResult | None:
        self._put_on_discard(state, face)
        if self.play is not None and state.hand_sizes[state.current] == 0:
            state.went_out = state.current  # went out by discarding the last card
            return self._end_round(state)
        return self._end_turn(state)

    def _apply_go_out(self, state: GameState, face: int) -> RoundResult | None:
        p = state.current
        self._put_on_discard(state, face)
        hand = state.hands[p]
        naturals, wilds = self.split_wilds(state, hand)
        _, melds, _, _ = self.solver.best_arrangement(naturals, wilds, self._natural_values, 0)
        wild_cards = [f for f in self.wild_faces(state) for _ in range(hand[f])]
        for meld in melds:  # the arrangement is shown on the table
            cards = meld.naturals + tuple(wild_cards[: meld.wilds])
            del wild_cards[: meld.wilds]
            state.table.append(TableMeld(p, meld, cards))
        state.table_stamp = next(_TABLE_STAMPS)
        state.known[p] = bytearray(len(hand))
        state.hands[p] = bytearray(len(hand))
        state.hand_sizes[p] = 0
        state.went_out = p
        state.last_turns_left = self.num_players - 1
        return self._end_turn(state, going_out=True)

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

    def _play_move(self, state: GameState, kind: ActionKind, arg: Any) -> None:
        """A meld, lay-off or swap, without ending the round (the caller does that)."""
        p, wild = state.current, self._wild_card
        state.table_stamp = next(_TABLE_STAMPS)
        if kind == ActionKind.MELD_SET or kind == ActionKind.MELD_RUN:
            if kind == ActionKind.MELD_SET:
                meld = Meld("set", arg.naturals, arg.wilds, rank=arg.rank)
            else:
                meld = self._run_from_hand(state.hands[p], arg)
            for f in meld.naturals:
                self._to_table(state, f)
            for _ in range(meld.wilds):
                self._to_table(state, wild)
            state.wilds_owed -= min(state.wilds_owed, meld.wilds)  # a swapped wild played again
            state.wilds_to_meld -= min(state.wilds_to_meld, meld.wilds)  # those owed to melds first
            state.table.append(TableMeld(p, meld, meld.naturals + (wild,) * meld.wilds))
            self._count_contract_meld(state, meld.kind)
        elif kind == ActionKind.LAY_OFF:
            face, slot = arg
            tm = state.table[slot]
            # Each obligation takes its own card: a wild laid off while a swapped wild is
            # owed is that wild, not the deep-drawn one. On another player's meld it pays no
            # wild owed to this turn's going-down melds (the mask offers it only as a spare).
            own = tm.owner == p
            owed_wild = face == wild and state.wilds_owed > (0 if own else state.wilds_to_meld)
            self._to_table(state, face, placing=not owed_wild)
            state.table[slot] = TableMeld(tm.owner, self._lay_off_place(tm.meld, face), tm.cards + (face,))
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
            if not self.is_down(state, p):
                state.wilds_to_meld += 1  # it must go into this turn's going-down melds

    def _run_from_hand(self, hand: Sequence[int], act: Any) -> Meld:
        """A ``meld run`` uses the hand's naturals and fills the missing places with wilds."""
        R, base = self._R, act.suit * self._R
        naturals = tuple(base + q % R for q in range(act.low, act.high + 1) if hand[base + q % R])
        wilds = act.high - act.low + 1 - len(naturals)
        return Meld("run", naturals, wilds, suit=act.suit, low=act.low, high=act.high)

    def _count_contract_meld(self, state: GameState, kind: str) -> None:
        p = state.current
        if self.is_down(state, p):
            return  # a further meld after going down
        if state.phase != Phase.GOING_DOWN:
            state.contract_left = self.rules.rounds[state.round].contract
            state.phase = Phase.GOING_DOWN
        sets, runs = state.contract_left
        state.contract_left = (sets - 1, runs) if kind == "set" else (sets, runs - 1)
        if state.contract_left == (0, 0):
            state.down_turn[p] = state.turns
            state.phase = Phase.PLAY

    def _end_turn(self, state: GameState, going_out: bool = False) -> RoundResult | None:
        if state.went_out >= 0 and not going_out:
            state.last_turns_left -= 1
            if state.last_turns_left == 0:
                return self._end_round(state)
        if state.turns >= self.rules.max_turns_per_round:
            return self._end_round(state)  # dead round at the cap: docs/rules/README.md#turn-cap
        state.current = (state.current + 1) % self.num_players
        state.phase = Phase.DRAW
        return None

    # ------------------------------------------------------------------ scoring
    def hand_penalty(self, state: GameState, seat: int) -> int:
        """Penalty of the seat's hand: in Three-Thirteen the least over every arrangement
        into melds; in contract games the plain sum of its cards."""
        hand = state.hands[seat]
        if self.play is not None:
            values = self._natural_values
            total = sum(values[f] * hand[f] for f in range(len(values)) if hand[f])
            return total + (hand[self._wild_card] * self.play.wild_penalty if self._wild_card >= 0 else 0)
        naturals, wilds = self.split_wilds(state, hand)
        if not wilds and not any(naturals):
            return 0
        wild_rank = self.rules.rounds[state.round].wild_rank
        wild_value = self.rules.rank_penalties[wild_rank] if wild_rank is not None else 0
        return self.solver.min_penalty(naturals, wilds, self._natural_values, wild_value)

    def _end_round(self, state: GameState) -> RoundResult:
        penalties = [0 if p == state.went_out else self.hand_penalty(state, p) for p in range(self.num_players)]
        state.round_penalties.append(penalties)
        for p, pen in enumerate(penalties):
            state.scores[p] += pen
        state.legal_cache = None
        if state.round + 1 >= self.rules.num_rounds:
            state.phase = Phase.GAME_OVER
            return RoundResult(penalties, game_over=True)
        state.round += 1
        state.dealer = (state.dealer + 1) % self.num_players
        self._deal(state)
        return RoundResult(penalties, game_over=False)

    def winners(self, state: GameState) -> list[int]:
        """Seats with the lowest cumulative score (ties share the win)."""
        best = min(state.scores)
        return [p for p, s in enumerate(state.scores) if s == best]


class _CardPool:
    """A growing pool of cards (a hand plus the discards down to some depth) that answers
    in constant time fast necessary conditions for putting one of its cards on the table
    this turn: it is a wild; or a set or a run of the pool could hold it (going down); or
    it fits a set on the table, or the end of a run of its suit once the pool's cards and
    wilds (and, for a player who may swap, every wild in a run on the table) fill the gap
    to it (a lay-off after other lay-offs).

    Run positions held are kept per suit as an int with one byte per position (0 or 1),
    built from the hand's counts in C: a window's popcount counts the positions held.
    """

    def __init__(
        self, engine: Engine, naturals: list[int], wilds: int, table: Sequence[TableMeld], table_stamp: int,
        may_swap: bool,
    ) -> None:
        cs, mr = engine.card_set, engine.rules.melds
        R = self.R = engine._R
        self.top, self.wild = engine._top, engine._wild_card
        self.set_min, self.run_min, self.distinct = mr.set_min, mr.run_min, mr.set_distinct_suits
        self.ace_high = self.top == R
        self.wilds = wilds
        rows = suit_rows(naturals, R, cs.num_suits)
        present = [row.translate(PRESENT) for row in rows]
        # per rank, the distinct suits (or the cards) held
        by_rank = present if self.distinct else rows
        self.same_rank = list(sum(int.from_bytes(row, "little") for row in by_rank).to_bytes(R, "little"))
        self.fits_a_set, self.runs, wilds_in_runs = engine._table_facts(table_stamp, table)
        self.swappable = wilds_in_runs if may_swap else 0
        self.window = int.from_bytes(bytes([1] * self.run_min), "little")
        self.positions = [int.from_bytes(row, "little") for row in present]
        if self.ace_high:
            self.positions = [held | (held & 1) << (8 * R) for held in self.positions]

    def add(self, face: int) -> None:
        if face == self.wild:
            self.wilds += 1
            return
        rank, suit = face % self.R, face // self.R
        held = self.positions[suit]
        if not self.distinct or not held >> (8 * rank) & 1:
            self.same_rank[rank] += 1
        held |= 1 << (8 * rank)
        if rank == 0 and self.ace_high:
            held |= 1 << (8 * self.R)
        self.positions[suit] = held

    def _positions(self, face: int) -> tuple[int, ...]:
        rank = face % self.R
        return (0, self.R) if rank == 0 and self.ace_high else (rank,)

    def could_lay_off(self, face: int) -> bool:
        if face == self.wild or face in self.fits_a_set:
            return True
        held = self.positions[face // self.R]
        for low, high in self.runs[face // self.R]:
            for q in self._positions(face):
                if q > high:
                    first, last = high + 1, q - 1
                elif q < low:
                    first, last = q + 1, low - 1
                else:
                    continue
                gap = last - first + 1
                if gap <= 0:
                    return True
                have = (held >> (8 * first) & int.from_bytes(bytes([1] * gap), "little")).bit_count()
                if gap - have <= self.wilds + self.swappable:
                    return True
        return False

    def could_meld(self, face: int, sets: int, runs: int) -> bool:
        """Going down with a contract of ``sets`` sets and ``runs`` runs, then laying off."""
        if self.could_lay_off(face):
            return True
        rank, suit = face % self.R, face // self.R
        if sets and self.same_rank[rank] + self.wilds >= self.set_min:
            return True
        if runs:
            # a run through the face: then some shortest run window through it fills too
            run_min, held, window = self.run_min, self.positions[suit], self.window
            need = run_min - self.wilds
            for position in self._positions(face):
                for low in range(max(0, position - run_min + 1), min(position, self.top - run_min + 1) + 1):
                    if (held >> (8 * low) & window).bit_count() >= need:
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


def _replace_one(cards: tuple[int, ...], old: int, new: int) -> tuple[int, ...]:
    k = cards.index(old)
    return cards[:k] + (new,) + cards[k + 1:]
