"""A Gymnasium ``VectorEnv`` for batched single-seat learning: ``num_envs`` tables of
``rummy_env.vector``, one learning seat at each, the other seats played in one batch.

    from rummy_env.vector_env import SeatVectorEnv
    envs = SeatVectorEnv("three_thirteen", num_envs=64, num_players=4, seed=0)
    obs, infos = envs.reset(seed=0)
    actions = ...  # one legal action per table: infos["action_mask"] (bool [num_envs, n]) or envs.action_masks()
    obs, rewards, terminations, truncations, infos = envs.step(actions)

**Spaces.** ``single_observation_space`` is the seat's observation (the AEC env's
``observation`` part, a float32 ``Box``), ``single_action_space`` the game's flat
``Discrete`` layout; ``observation_space`` and ``action_space`` are their batches.

**Every step is a decision of the learner.** ``step`` applies the learner's action at every
table, then plays the other seats (``opponent``) at the tables where they are to act, in
batches, until the learner is to act again everywhere. An error of the opponents (a callable
that raises or returns an illegal action) leaves the env to be ``reset``. ``opponent`` is ``"random"`` (a
uniformly random legal action, from the env's own generator) or a callable taking the
observations and masks of the tables where opponents act (``[k, obs_size]``, bool
``[k, num_actions]``) and returning their ``k`` actions: a batched policy.

**Rewards.** Every reward the learning seat receives while the others play is added to the
reward of the learner's step: an episode's rewards sum to the seat's return in the AEC env
(those paid before its first decision of a game come with that decision's step).

**Episodes end and restart in the same step** (Gymnasium's ``AutoresetMode.SAME_STEP``):
where ``terminations`` is true, the returned observation is the next game's first decision,
and ``infos["final_scores"]`` holds the finished game's scores (in the rows that
``infos["_final_scores"]`` marks). Games end by the rules (the
turn cap included), so ``truncations`` is always false; no decision is left at the end of a
game, so there is no final observation to return.

**The learner's seat** is ``learner_seat`` at every table, or, if ``None``, drawn for each
game from the env's generator (so one policy learns every seat); ``infos["seat"]`` says which.

**Seeds.** ``reset(seed=s)`` deals table ``i`` the AEC env's game of seed ``s + i`` (a list
gives each table's seed) and seeds the generator of the opponents' and seats' draws; later
games come from each table's stream (``rummy_env.vector``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from . import vector
from .engine import Engine
from .observation import Observer

Opponent = Union[str, Callable[[np.ndarray, np.ndarray], Any]]

try:  # Gymnasium 1.1 and later name the modes; 1.0 resets in the next step only
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - Gymnasium 1.0
    _SAME_STEP = "SameStep"


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A uniformly random legal action in each row of ``mask`` (bool ``[N, A]``), found from
    the legal entries alone: a few microseconds a row even with thousands of actions
    (``Tables.random_legal`` makes the same picks from the core's legal lists)."""
    rows, width = mask.shape
    legal = np.flatnonzero(mask)  # ascending: row by row
    counts = np.bincount(legal // width, minlength=rows)
    if rows and not counts.all():
        raise ValueError(f"row {int(np.argmin(counts))} of the mask has no legal action")
    starts = np.cumsum(counts) - counts
    picks = starts + np.minimum((rng.random(rows) * counts).astype(np.int64), counts - 1)  # a product may round up to 1
    return legal[picks] - np.arange(rows) * width


class SeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables, one learning seat each (module docstring)."""

    metadata = {"autoreset_mode": _SAME_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int, num_players: int | None = None, *, learner_seat: int | None = 0,
                 opponent: Opponent = "random", seed: int | None = None, num_threads: int = 1,
                 reward_mode: str = "relative", backend: str | None = None, **rules: Any) -> None:
        self.tables = vector.make(game, num_envs, num_players, seed, num_threads=num_threads,
                                  reward_mode=reward_mode, backend=backend, **rules)
        n = self.tables.num_players
        if learner_seat is not None and (isinstance(learner_seat, bool) or not isinstance(learner_seat, int)
                                         or not 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat from 0 to {n - 1} or None, not {learner_seat!r}")
        if not (opponent == "random" or callable(opponent)):
            raise ValueError(f"opponent must be 'random' or a callable of (observations, masks), not {opponent!r}")
        self.num_envs = num_envs
        self.learner_seat = learner_seat
        self.opponent = opponent
        low, high = Observer(Engine(self.tables.rules)).bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.tables.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._seats = np.zeros(num_envs, dtype=np.int32)
        self._pending = np.zeros(num_envs, dtype=np.float32)
        self._view: vector.Observation | None = None
        self._seed_generator(seed)

    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict | None = None):
        if options:
            raise ValueError(f"reset takes no options here, not {options!r}")
        if isinstance(seed, (bool, np.bool_)):
            raise ValueError(f"seed must be an integer, a list of them or None, not {seed!r}")
        if seed is not None:
            seeds = [seed + i for i in range(self.num_envs)] if isinstance(seed, (int, np.integer)) else list(seed)
            self.tables.reset(seeds)
            self._seed_generator(seeds[0])
        else:
            self.tables.reset()
        self._pending[:] = 0
        self._draw_seats(np.ones(self.num_envs, dtype=np.bool_))
        self._view = None  # until the opponents have played up to the learner's decisions
        self._play_others(self._pending, self._pending, np.zeros(self.num_envs, dtype=np.bool_), {})
        return self._view.obs, self._infos({})

    def step(self, actions: Any):
        if self._view is None:
            raise RuntimeError("call reset() before step() (and after an error in the opponents' play)")
        rewards, done = self.tables.step(actions)  # an illegal action changes nothing
        received = rewards[np.arange(self.num_envs), self._seats] + self._pending
        self._pending = np.zeros(self.num_envs, dtype=np.float32)
        final: dict[str, np.ndarray] = {}
        try:
            self._game_over(done, final)
            self._play_others(received, self._pending, done, final)
        except BaseException:  # the learner's actions are in: the tables wait on no one known
            self._view = None
            raise
        return (self._view.obs, received, done, np.zeros(self.num_envs, dtype=np.bool_),
                self._infos(final))

    def action_masks(self) -> np.ndarray:
        """The legal actions of every table's current decision (bool ``[num_envs, num_actions]``)."""
        if self._view is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._view.mask.copy()

    def _play_others(self, received: np.ndarray, pending: np.ndarray, finished: np.ndarray,
                     final: dict[str, np.ndarray]) -> None:
        """Plays the other seats until the learner is to act at every table; a reward of a game
        that ``finished`` already in this step goes to the next game's first step."""
        rows = np.arange(self.num_envs)
        while True:
            view = self.tables.observe()
            others = view.seat != self._seats
            if not others.any():
                self._view = view
                return
            if self.opponent == "random":  # picked in the core from its legal lists
                actions = self.tables.random_legal(self._np_random, others)
            else:
                actions = np.zeros(self.num_envs, dtype=np.int64)
                actions[others] = np.asarray(self.opponent(view.obs[others], view.mask[others]))
            rewards, done = self.tables.step(actions, active=others)
            mine = rewards[rows, self._seats]
            received += np.where(finished, 0.0, mine)
            pending += np.where(finished, mine, 0.0)
            self._game_over(done & ~finished, final)
            finished |= done

    def _game_over(self, done: np.ndarray, final: dict[str, np.ndarray]) -> None:
        if not done.any():
            return
        scores = final.setdefault("final_scores", np.zeros((self.num_envs, self.tables.num_players), np.int32))
        ended = final.setdefault("_final_scores", np.zeros(self.num_envs, np.bool_))  # Gymnasium's mask of the rows set
        scores[done] = self.tables.final_scores[done]
        ended |= done
        self._draw_seats(done)

    def _seed_generator(self, seed: Any) -> None:
        """The generator of the opponents' random actions and the drawn seats (Gymnasium's
        ``np_random``), from ``seed`` (any int: its absolute value) or OS entropy."""
        self._np_random_seed = None if seed is None else abs(int(seed))
        self._np_random = np.random.default_rng(self._np_random_seed)

    def _draw_seats(self, tables: np.ndarray) -> None:
        if self.learner_seat is not None:
            self._seats[tables] = self.learner_seat
        else:
            self._seats[tables] = self._np_random.integers(self.tables.num_players, size=int(tables.sum()))

    def _infos(self, final: dict[str, np.ndarray]) -> dict[str, Any]:
        return {"action_mask": self._view.mask.copy(), "seat": self._seats.copy(), **final}


__all__ = ["SeatVectorEnv", "random_legal"]
