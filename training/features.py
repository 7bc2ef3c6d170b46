"""Optional extra inputs of the policy, computed from the seat's own observation and mask.

``features: none`` (the default) feeds the network the observation alone. A named feature
set appends numbers derived from what the seat sees, as hand-crafted inputs did for
TD-Gammon: they never use hidden information, and the checkpoint records which set it was
trained with, so that ``PolicyAgent`` computes the same at play time.

``three_thirteen_penalties`` (Three-Thirteen only; 54 numbers), from the exact least
penalty ``pen`` of the seat's hand ``H`` over every arrangement (the round's wild rank, the
game's values; ``rummy_env.melds`` via the baselines' ``HandPenalties``):

- per face ``f`` (52): ``(pen(H) - pen(H - f)) / 10`` if ``H`` holds ``f``, else 0: what
  discarding it saves;
- ``pen(H) / 100``;
- at a draw with a top discard ``t``: ``(pen(H) - min_d pen(H + t - d)) / 10``, what taking
  it and then the best allowed discard saves (else 0).
"""

from __future__ import annotations

import numpy as np

from rummy_env.agents import SeatInfo


class Features:
    """No extra inputs."""

    name = "none"
    size = 0
    game: str | None = None
    """The one game the set is for (None: any)."""

    def __init__(self, seat: SeatInfo) -> None:
        self.seat = seat

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.zeros(0, np.float32)

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's input: the observation, then the features."""
        return observation


class ThreeThirteenPenalties(Features):
    """See the module docstring."""

    name = "three_thirteen_penalties"
    size = 54
    game = "three_thirteen"

    def __init__(self, seat: SeatInfo) -> None:
        super().__init__(seat)
        if seat.game != self.game:
            raise ValueError(f"features {self.name!r} are for {self.game}, not {seat.game}")
        from rummy_env.agents.three_thirteen_heuristics import shared_solver

        self.solver = shared_solver(seat)
        self.faces = seat.rules.deck.card_set.num_naturals
        off = seat.observation_offsets
        self.hand, self.top, self.wild = off["hand"], off["discard_top"], off["wild_rank"]
        self.by_wild_rank: dict[int, object] = {}
        self.calls = 0

    def _penalties(self, wild_rank: int):
        from rummy_env.agents.three_thirteen_heuristics import HandPenalties

        self.calls += 1
        if self.calls % 20_000 == 0:  # fresh caches now and then bound their memory
            self.by_wild_rank.clear()
        hands = self.by_wild_rank.get(wild_rank)
        if hands is None:
            hands = self.by_wild_rank[wild_rank] = HandPenalties(self.solver, self.seat.rules.rank_penalties, wild_rank)
        return hands

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.concatenate([observation, self.compute(observation, mask)])

    def compute(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        hand = observation[self.hand].astype(np.int64).tolist()
        hands = self._penalties(int(observation[self.wild].argmax()))
        penalty, loose = hands.unmatched(hand)
        saving = [0.0] * self.faces
        for f in loose:
            saving[f] = hands.face_value(f)  # unmatched in a best arrangement: saves its value
        for f in range(self.faces):
            if hand[f] and f not in loose:
                hand[f] -= 1
                saving[f] = penalty - hands.pen(hand)
                hand[f] += 1
        out[:self.faces] = np.array(saving, np.float32) / 10
        out[self.faces] = penalty / 100
        top = observation[self.top]
        if mask[1] and top.any():  # a draw, with the top discard on offer
            t = int(top.argmax())
            hand[t] += 1
            allowed = [f for f in range(self.faces) if hand[f] and (f != t or hand[f] > 1)]
            best, _ = hands.removals(hand, allowed)
            out[self.faces + 1] = (penalty - best) / 10
        return out


FEATURES: dict[str, type[Features]] = {cls.name: cls for cls in (Features, ThreeThirteenPenalties)}

