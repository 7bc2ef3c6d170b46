"""The state of a game in progress, as plain data: what the rule components read and
change (docs/rules/README.md#shared-procedure).

Seats are 0..n-1 and play moves left, from seat ``i`` to ``(i + 1) % n``.
"""

from __future__ import annotations

import copy
import itertools
import random
from dataclasses import dataclass, field
from enum import IntEnum

from .melds import Meld

_TABLE_STAMPS = itertools.count(1)


def new_table_stamp() -> int:
    """A stamp no other table has had: set whenever a table changes (caches key on it)."""
    return next(_TABLE_STAMPS)


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
