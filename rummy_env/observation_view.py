"""Reading an observation back: the inverse of ``Observer.encode``, part by part.

``Observer.decoder`` (an ``ObservationDecoder``: plain data, it pickles) knows where each
named part lies and how it was scaled; ``decode(vector)`` gives an ``ObservationView`` whose
methods return each part as what it means: counts by face, a face from a one-hot, seats'
hand sizes and scores as integers, the table's melds slot by slot. Agents read observations
only through it, so that the encoding lives in one place. Seats are relative, as in the
observation: 0 is the observer, 1 the player to its left, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class SlotView:
    """One meld on the table, as its ``table_slots`` entry encodes it."""

    owner: int
    """The seat that laid it, relative to the observer."""
    is_set: bool
    naturals: tuple[int, ...]
    """Its natural cards' faces, one entry per card."""
    represents: tuple[int, ...]
    """For a run, the faces its wilds stand for."""
    set_wilds: int
    """For a set, how many wilds it holds."""


@dataclass(frozen=True)
class ObservationDecoder:
    """The layout and the scales of one configuration's observations."""

    offsets: Mapping[str, slice]
    size: int
    num_players: int
    num_faces: int
    num_naturals: int
    hand_scale: int
    """``hand_sizes`` are encoded divided by this (the largest hand size + 1)."""
    card_scale: int
    """``stock_size`` is encoded divided by this (the cards in the game)."""
    turn_scale: int
    """``turns`` is encoded divided by this (``max_turns_per_round``)."""
    phases: tuple[str, ...]
    """The names of the ``phase`` one-hot's entries."""

    def decode(self, observation: np.ndarray) -> "ObservationView":
        return ObservationView(self, observation)


class ObservationView:
    """One encoded observation, read by part name."""

    __slots__ = ("decoder", "vector", "_offsets")

    def __init__(self, decoder: ObservationDecoder, vector: np.ndarray) -> None:
        self.decoder = decoder
        self.vector = vector
        self._offsets = decoder.offsets

    def has(self, name: str) -> bool:
        """Whether this configuration's observation has the part (see the env's docstring)."""
        return name in self._offsets

    def part(self, name: str) -> np.ndarray:
        """The part's entries as encoded (a view of the vector)."""
        return self.vector[self._offsets[name]]

    def counts(self, name: str) -> list[int]:
        """A part of counts (``hand``, ``discard_pile``, ``table``, ``known_held``), as ints."""
        return [int(c) for c in self.part(name).tolist()]

    def counts_of(self, *names: str) -> list[list[int]]:
        """Several count parts at once (one conversion of the span that holds them)."""
        offsets = self._offsets
        start = min(offsets[name].start for name in names)
        ints = self.vector[start:max(offsets[name].stop for name in names)].astype(np.int64).tolist()
        return [ints[offsets[name].start - start:offsets[name].stop - start] for name in names]

    def known_of(self, seat: int) -> list[int]:
        """Per face, the cards the (relative, 1..n-1) seat is publicly known to hold."""
        return self.counts("known_held")[(seat - 1) * self.decoder.num_faces:seat * self.decoder.num_faces]

    def face(self, name: str) -> int:
        """The face of a one-hot face part (``discard_top``, ``taken_face``, ``must_place``,
        ``buy_offer``; ``discard_order``'s top card), or -1 where it is empty."""
        row = self.part(name)[: self.decoder.num_faces]
        return int(np.argmax(row)) if row.any() else -1

    def index(self, name: str) -> int:
        """The index of a one-hot part (``round``, ``to_act``, ``dealer``, ``wild_rank``,
        ``phase``, ``turn_owner``), or -1 where it is empty."""
        row = self.part(name)
        return int(np.argmax(row)) if row.any() else -1

    @property
    def phase(self) -> str:
        """``draw``, ``play``, ``going_down`` or ``buy`` (``over`` once the game has ended)."""
        k = self.index("phase")
        return self.decoder.phases[k] if k >= 0 else "over"

    def flags(self, name: str) -> list[bool]:
        """A per-seat 0 / 1 part (``gone_down``, ``gone_out``)."""
        return [x > 0.5 for x in self.part(name).tolist()]

    @property
    def hand_sizes(self) -> list[int]:
        return [round(x * self.decoder.hand_scale) for x in self.part("hand_sizes").tolist()]

    @property
    def scores(self) -> list[int]:
        """Every seat's total before this round."""
        return [round(x * 100) for x in self.part("scores").tolist()]

    @property
    def buys(self) -> list[int]:
        """Cards each seat bought this round."""
        return [round(x * 10) for x in self.part("buys").tolist()]

    @property
    def turns(self) -> int:
        return round(float(self.part("turns")[0]) * self.decoder.turn_scale)

    @property
    def stock_size(self) -> int:
        return round(float(self.part("stock_size")[0]) * self.decoder.card_scale)

    def discard_order(self, depth: int) -> list[int]:
        """The top ``depth`` cards of the discard pile, top first (games with deep draws)."""
        F = self.decoder.num_faces
        rows = self.part("discard_order")[:depth * F].reshape(depth, F)
        return [int(f) for f in np.argmax(rows, axis=1)]

    def table_slots(self) -> list[SlotView]:
        """The melds on the table in slot order (contract games)."""
        n, N = self.decoder.num_players, self.decoder.num_naturals
        melds = []
        for row in self.part("table_slots").reshape(-1, n + 2 + 2 * N + 1):
            if not (row[n] or row[n + 1]):
                break  # slots fill in order: the rest are empty
            naturals = tuple(int(f) for f in np.flatnonzero(row[n + 2:n + 2 + N]) for _ in range(int(row[n + 2 + f])))
            represents = tuple(int(f) for f in np.flatnonzero(row[n + 2 + N:n + 2 + 2 * N]))
            melds.append(SlotView(int(np.argmax(row[:n])), bool(row[n]), naturals, represents, int(row[-1])))
        return melds
