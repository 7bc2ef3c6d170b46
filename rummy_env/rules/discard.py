"""The discard: which cards may go on the pile now, and putting one there
(docs/rules/README.md#discard-rule)."""

from __future__ import annotations

import itertools

from ..state import GameState


def discardable(state: GameState) -> list[int]:
    """Faces the player to act may discard now (obligations aside): any card held but the
    one just taken from the top of the pile, unless another of its face is held."""
    hand = state.hands[state.current]
    faces = list(itertools.compress(range(len(hand)), hand))  # the faces held, in C
    t = state.taken_face
    if t >= 0 and hand[t] == 1:
        faces.remove(t)
    return faces


def put_on_discard(state: GameState, face: int) -> None:
    """The player to act puts ``face`` on the discard pile."""
    p = state.current
    state.hands[p][face] -= 1
    state.hand_sizes[p] -= 1
    if state.known[p][face]:
        state.known[p][face] -= 1
    state.discard.append(face)
    state.discard_seats.append(p)
    state.discard_counts[face] += 1
    state.taken_face = -1
