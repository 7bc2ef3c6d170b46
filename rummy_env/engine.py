"""The rules engine: one engine for every game, reading a ``GameRules``.

It knows nothing of PettingZoo. A game is a mutable ``GameState``; the engine lists the
legal actions of the player to act and applies one, per phase (``Phase``), following the
shared procedure of RULES.md: dealer choice and rotation, the one-at-a-time deal, turns,
stock exhaustion and dead rounds, the turn cap, round scoring and game end.

Seats are 0..n-1 and play moves left, from seat ``i`` to ``(i + 1) % n``.
"""

from __future__ import annotations

import copy
import operator
import random
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Mapping, Sequence

from .actions import ActionKind, ActionLayout
from .melds import Meld, MeldSolver
from .rules import GameRules


class Phase(IntEnum):
    DRAW = 0
    DISCARD = 1
    GAME_OVER = 2


@dataclass
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
    known: list[bytearray]
    """Per seat, faces it is publicly known to hold (taken from the discard pile and not
    yet discarded again)."""
    table: list[TableMeld]
    scores: list[int]
    round_penalties: list[list[int]] = field(default_factory=list)
    taken_face: int = -1
    """Face taken from the top of the discard pile this turn, or -1."""
    went_out: int = -1
    """Seat that went out this round, or -1."""
    last_turns_left: int = 0
    turns: int = 0
    """Turns started this round."""
    rng: random.Random = field(default_factory=random.Random)
    legal_cache: list[int] | None = field(default=None, repr=False)

    def clone(self) -> "GameState":
        state = copy.copy(self)
        state.hands = [bytearray(h) for h in self.hands]
        state.hand_sizes = list(self.hand_sizes)
        state.stock = list(self.stock)
        state.discard = list(self.discard)
        state.discard_counts = bytearray(self.discard_counts)
        state.known = [bytearray(k) for k in self.known]
        state.table = list(self.table)
        state.scores = list(self.scores)
        state.round_penalties = [list(p) for p in self.round_penalties]
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
        self.card_set = rules.deck.card_set
        self.layout = ActionLayout(self.card_set)
        self.solver = MeldSolver(self.card_set, rules.melds)
        self.num_players = rules.num_players
        self._all_cards = rules.deck.cards()
        self._face_totals = rules.deck.face_counts()
        cs = self.card_set
        self._natural_values = [rules.rank_penalties[cs.rank(f)] for f in range(cs.num_naturals)]

    # ------------------------------------------------------------------ set-up
    def new_game(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> GameState:
        """A new game, dealt; ``options`` are the scenario options of RULES.md."""
        options = dict(options or {})
        unknown = set(options) - {"deck", "dealer", "round", "scores"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: deck, dealer, round, scores")
        n = self.num_players
        rng = random.Random(self._check_seed(seed))
        round_index = self._option_round(options.get("round", 1)) - 1
        dealer = rng.randrange(n)
        if "dealer" in options:
            dealer = self._option_seat("dealer", options["dealer"])
        scores = self._option_scores(options.get("scores"))
        deck = self._option_deck(options["deck"]) if "deck" in options else None
        state = GameState(
            round=round_index, dealer=dealer, current=0, phase=Phase.DRAW,
            hands=[], hand_sizes=[], stock=[], discard=[], discard_counts=[], known=[], table=[],
            scores=scores, rng=rng,
        )
        self._deal(state, deck)
        return state

    @staticmethod
    def _check_seed(seed: Any) -> int | None:
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
            or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
        ):
            raise ValueError(f"option 'scores' must be {self.num_players} integers, one per seat, not {value!r}")
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
        state.stock = deck[:dealt:-1]  # reversed: the next card to draw is last
        state.table = []
        state.taken_face = -1
        state.went_out = -1
        state.last_turns_left = 0
        state.turns = 0
        state.current = (state.dealer + 1) % n
        state.phase = Phase.DRAW
        state.legal_cache = None

    # ------------------------------------------------------------------ queries
    def wild_faces(self, state: GameState) -> list[int]:
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

    def legal_actions(self, state: GameState) -> list[int]:
        """Legal action ids of the player to act, ascending (cached until the next move)."""
        if state.legal_cache is None:
            if state.phase == Phase.DRAW:
                state.legal_cache = self._draw_legal(state)
            elif state.phase == Phase.DISCARD:
                state.legal_cache = self._discard_legal(state)
            else:
                state.legal_cache = []
        return state.legal_cache

    def _draw_legal(self, state: GameState) -> list[int]:
        # Drawing from an empty stock is legal: it reshuffles, or ends a dead round.
        if state.discard:
            return [ActionLayout.DRAW_STOCK, ActionLayout.DRAW_DISCARD]
        return [ActionLayout.DRAW_STOCK]

    def _discard_legal(self, state: GameState) -> list[int]:
        hand = state.hands[state.current]
        blocked = state.taken_face if state.taken_face >= 0 and hand[state.taken_face] == 1 else -1
        faces = [f for f in range(len(hand)) if hand[f] and f != blocked]
        layout = self.layout
        actions = [layout.discard(f) for f in faces]
        if state.went_out < 0:
            actions += [layout.go_out(f) for f in self._go_out_faces(state, hand) if f != blocked]
        return actions

    def _go_out_faces(self, state: GameState, hand: list[int]) -> list[int]:
        """Faces whose discard leaves a hand that melds completely."""
        naturals, wilds = self.split_wilds(state, hand)
        faces, wild_ok = self.solver.meldable_without_one(naturals, wilds)
        if wild_ok:
            faces += [f for f in self.wild_faces(state) if hand[f]]
        return sorted(faces)

    # ------------------------------------------------------------------ moves
    def apply(self, state: GameState, action: int, actor: str | None = None) -> RoundResult | None:
        """Apply the acting player's action; returns the result if a round ended.

        Raises ``IllegalActionError`` naming the action and the player (``actor``, or the
        seat) and leaves the state unchanged when the action is not legal.
        """
        if state.phase == Phase.GAME_OVER:
            raise IllegalActionError("the game is over: no action can be taken")
        if action not in self.legal_actions(state):
            who = actor if actor is not None else f"seat {state.current}"
            text = self.layout.text(action) if 0 <= action < self.layout.size else "outside the action space"
            legal = ", ".join(self.layout.text(a) for a in self.legal_actions(state))
            raise IllegalActionError(f"illegal action {action} ({text}) for {who}; legal now: {legal}")
        state.legal_cache = None
        kind, face = self.layout.decode(action)
        if kind == ActionKind.DRAW_STOCK:
            return self._apply_draw_stock(state)
        if kind == ActionKind.DRAW_DISCARD:
            return self._apply_draw_discard(state)
        if kind == ActionKind.DISCARD:
            return self._apply_discard(state, face)
        return self._apply_go_out(state, face)

    def _start_turn(self, state: GameState, face: int) -> None:
        p = state.current
        state.hands[p][face] += 1
        state.hand_sizes[p] += 1
        state.turns += 1
        state.phase = Phase.DISCARD

    def _apply_draw_stock(self, state: GameState) -> RoundResult | None:
        if not state.stock:
            # RULES.md, shared procedure 5: reshuffle all but the top discard.
            state.stock = state.discard[:-1]
            del state.discard[:-1]
            state.discard_counts = bytearray(self.card_set.num_faces)
            state.discard_counts[state.discard[0]] = 1
            state.rng.shuffle(state.stock)
            if not state.stock:
                return self._end_round(state)  # a dead round
        self._start_turn(state, state.stock.pop())
        return None

    def _apply_draw_discard(self, state: GameState) -> RoundResult | None:
        face = state.discard.pop()
        state.discard_counts[face] -= 1
        state.taken_face = face
        state.known[state.current][face] += 1
        self._start_turn(state, face)
        return None

    def _put_on_discard(self, state: GameState, face: int) -> None:
        p = state.current
        state.hands[p][face] -= 1
        state.hand_sizes[p] -= 1
        if state.known[p][face]:
            state.known[p][face] -= 1
        state.discard.append(face)
        state.discard_counts[face] += 1
        state.taken_face = -1

    def _apply_discard(self, state: GameState, face: int) -> RoundResult | None:
        self._put_on_discard(state, face)
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
        state.known[p] = bytearray(len(hand))
        state.hands[p] = bytearray(len(hand))
        state.hand_sizes[p] = 0
        state.went_out = p
        state.last_turns_left = self.num_players - 1
        return self._end_turn(state, going_out=True)

    def _end_turn(self, state: GameState, going_out: bool = False) -> RoundResult | None:
        if state.went_out >= 0 and not going_out:
            state.last_turns_left -= 1
            if state.last_turns_left == 0:
                return self._end_round(state)
        if state.turns >= self.rules.max_turns_per_round:
            return self._end_round(state)  # dead round at the cap: RULES.md, shared procedure 6
        state.current = (state.current + 1) % self.num_players
        state.phase = Phase.DRAW
        return None

    # ------------------------------------------------------------------ scoring
    def hand_penalty(self, state: GameState, seat: int) -> int:
        """Least penalty of the seat's hand over every arrangement into melds."""
        naturals, wilds = self.split_wilds(state, state.hands[seat])
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
