"""Per-seat credit (STYLE.md, item 12), shared by PPO's collector (``rollout.py``) and the
imitation warm start (``imitation.py``).

Each recorded seat's decisions in a game form that seat's own trajectory. Rewards arrive at
the step that ends a round, usually while another seat acts; each is added to the receiving
seat's last recorded decision. ``SeatTrajectories`` keeps one game's open trajectories and
does that crediting; a recorded decision is any object with ``reward`` and ``done``
attributes (and ``value``, for ``split_ready``). ``seat_gae`` and ``seat_returns`` turn one
seat's trajectory into advantages or discounted returns.

The batched core's collector (``vector_rollout.py``) credits the same way over flat arrays,
a step of every table at once (tested in ``tests/test_legal_policy.py``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


class SeatTrajectories:
    """One game's recorded decisions, a list per seat in order, credited as the module says."""

    def __init__(self, seats: int) -> None:
        self.segments: list[list[Any]] = [[] for _ in range(seats)]

    def record(self, seat: int, decision: Any) -> None:
        self.segments[seat].append(decision)

    def credit(self, rewards: Sequence[float]) -> None:
        """One step's rewards, each to its seat's last recorded decision (a round may end on
        anyone's step)."""
        for seat, segment in enumerate(self.segments):
            if segment:
                segment[-1].reward += rewards[seat]

    def end_game(self) -> list[list[Any]]:
        """Each recorded seat's trajectory of the finished game, its last decision marked done."""
        finished = [segment for segment in self.segments if segment]
        for segment in finished:
            segment[-1].done = True
        return finished

    def split_ready(self) -> list[tuple[list[Any], float]]:
        """For a collection that stops mid-game: each seat's decisions but its last, with the
        last one's value to bootstrap from. The last decision stays, with the rewards credited
        so far, to open the seat's trajectory in the next collection."""
        ready = []
        for seat, segment in enumerate(self.segments):
            if len(segment) > 1:
                ready.append((segment[:-1], segment[-1].value))
                self.segments[seat] = segment[-1:]
        return ready


def seat_gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, next_value: float, gamma: float,
             lam: float) -> np.ndarray:
    """GAE advantages of one seat's trajectory segment, in order: ``dones[t]`` marks a
    decision after which the seat's game ended (no bootstrap past it); ``next_value`` is the
    value of the seat's decision after the segment (ignored if the segment ends in a done)."""
    advantages = np.zeros(len(rewards), dtype=np.float32)
    last = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        following = next_value if t == len(rewards) - 1 else values[t + 1]
        live = 0.0 if dones[t] else 1.0
        delta = rewards[t] + gamma * following * live - values[t]
        last = delta + gamma * lam * live * last
        advantages[t] = last
    return advantages


def seat_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """The discounted return from each decision of one seat's finished trajectory."""
    returns = [0.0] * len(rewards)
    following = 0.0
    for k in range(len(rewards) - 1, -1, -1):
        following = rewards[k] + gamma * following
        returns[k] = following
    return returns
