"""Melds as data, shared by every game: the meld rules, a placed meld, and the compact
codes of card counts that the meld solvers (``meld_solver``, ``contract_solver``) memoise on.

Everything here works on *natural counts* (a list with one count per natural face of the
deck's ``CardSet``) plus a number of wild cards, since wilds are interchangeable. A run is
described by positions: position ``p`` of suit ``s`` is the face ``s * R + p % R`` (``R``
ranks); with ``ace_high`` the ace also sits at position ``R``, above the king.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

UNLIMITED = 1 << 20  # room of a set with no maximum size
FACE_BITS = 4  # bits per face in a memo key: counts of one face stay below 16 (<= 8 decks)
MEMO_LIMIT = 1 << 18  # entries a solver memo holds before it is cleared
# AT_LEAST[k]: a bytes.translate table marking the byte values >= k with 1, others 0
AT_LEAST = [bytes(int(v >= k) for v in range(256)) for k in range(256)]
PRESENT = AT_LEAST[1]  # ``counts.translate(PRESENT)``: 1 where a face is held
AT_MOST = [bytes(min(v, k) for v in range(256)) for k in range(256)]  # translate tables capping at k


def suit_rows(counts: Sequence[int], num_ranks: int, num_suits: int) -> list[bytes]:
    """The counts as one ``bytes`` row per suit (counts stay below 256)."""
    data = bytes(counts)
    return [data[s * num_ranks:(s + 1) * num_ranks] for s in range(num_suits)]


@dataclass(frozen=True)
class MeldRules:
    """What makes a legal set or run in one game."""

    set_min: int = 3
    set_max: int | None = None
    set_distinct_suits: bool = False
    run_min: int = 3
    ace_high: bool = False
    all_wild_melds: bool = False

    def __post_init__(self) -> None:
        if self.set_min < 1 or self.run_min < 1:
            raise ValueError("meld minimum sizes must be positive")
        if self.set_max is not None and self.set_max < self.set_min:
            raise ValueError("set_max must be at least set_min")
        if self.all_wild_melds and self.set_max is not None:
            raise ValueError("all-wild melds are only supported with unlimited sets")


@dataclass(frozen=True)
class Meld:
    """One meld: its natural faces, how many wilds, and where a run lies.

    For a set, ``rank`` is the set's rank. For a run, ``suit`` and the positions
    ``low``..``high`` (inclusive) say which card every place stands for.
    """

    kind: Literal["set", "run"]
    naturals: tuple[int, ...]
    wilds: int
    rank: int = -1
    suit: int = -1
    low: int = -1
    high: int = -1

    @property
    def size(self) -> int:
        return len(self.naturals) + self.wilds

    def wild_positions(self, num_ranks: int) -> list[int]:
        """Run positions filled by wilds, low to high."""
        taken = {f % num_ranks for f in self.naturals}
        return [p for p in range(self.low, self.high + 1) if p % num_ranks not in taken]


def encode_cards(cards: Sequence[int]) -> int:
    code = 0
    for f in cards:
        code += 1 << (FACE_BITS * f)
    return code


def encode_counts(counts: Sequence[int]) -> int:
    # one hex digit per face (counts stay below 16), built in C: the bytes' hex has "0k"
    # per face, and every second digit is k
    return int(bytes(counts[::-1]).hex()[1::2] or "0", 16)
