"""Experience collection on the batched core (``rummy_env.vector``) for ``policy: legal``.

One ``Tables`` batch holds the collector's games; each loop observes every table into
arrays, scores the legal actions of the tables whose seat the current policy plays in one
forward pass (``ScoringNet``), asks the past snapshot for its tables' actions, lets the core
pick the random seats' actions, and steps every table in one call. Nothing is kept per table
in Python objects: decisions go into flat arrays, linked per seat.

**Seats.** Each game draws a seat for the network; every other seat is the current policy
(``self``: trained on too), a frozen snapshot from the pool (``past``) or ``random``, from the
config's mixture. Each collection draws one snapshot from the pool, and every ``past`` seat
plays it for that collection: one forward pass per loop for all of them, where a snapshot
per game had up to ``pool_size`` (measured: the forward passes grew from 0.17 to 0.66 s of
a Three-Thirteen collection as the pool filled). A ``past`` seat's game may so span several
snapshots; the policy never sees which. (The Python baselines, ``greedy`` and ``expert``,
cost milliseconds per decision: the config refuses them here.)

**Per-seat credit** as in ``rollout.py``: rewards reach the receiving seat's last decision;
a decision trains once its seat has decided again or its game is over, and each seat's
last decision waits, with its rewards so far, for the next collection. GAE runs backwards
over the links from each decision to its seat's next one.

**Learners.** PPO samples the policy and values each state; Deep Monte-Carlo
(``algorithm: dmc``, ``training/dmc.py``) plays epsilon-greedy on the network's scores as
Q-values and stores the Q of the action taken, and its targets are the seats' returns
(lambda 1). Everything else, seats, credit and saving, is shared.

**Saving.** ``state`` pickles the random streams, each table's game seed and the actions
played in it so far, the seats' controllers and the waiting decisions; ``restore`` deals the
same games again and replays the actions in the core, so a resumed run plays on exactly as
the run would have.
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from rummy_env import vector

from .config import TrainConfig
from .inputs import game_inputs
from .rollout import CollectorBase
from .scoring import ScoringNet

LEARNER, RANDOM, PAST = 0, 1, 2
"""Controller codes of a seat: the current policy, random, the collection's past snapshot."""


@dataclass
class LegalBatch:
    """Trainable decisions of one collection (``policy: legal``), and what happened meanwhile."""

    states: np.ndarray
    """float32 ``[T, D]``: the state's input of each decision."""
    legal: np.ndarray
    """int32 ``[T, K]``: its legal action ids, padded with -1."""
    actions: np.ndarray
    """int64 ``[T]``: the position of the action played in its row of ``legal``."""
    log_probs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    env_steps: int
    games: list[dict[str, float]] = field(default_factory=list)
    workers: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds of the collection's parts: ``core`` (observe, legal lists, step), ``features``
    (the policies' inputs, ``GameInputs.states``), ``forward`` (the policies' inference and
    sampling), ``bookkeeping`` (the rest)."""

    @classmethod
    def concatenate(cls, batches: list["LegalBatch"]) -> "LegalBatch":
        width = max(b.legal.shape[1] for b in batches)
        legal = np.concatenate([np.pad(b.legal, ((0, 0), (0, width - b.legal.shape[1])), constant_values=-1)
                                for b in batches])
        arrays = {name: np.concatenate([getattr(b, name) for b in batches])
                  for name in ("states", "actions", "log_probs", "values", "advantages", "returns")}
        timings = {k: sum(b.timings.get(k, 0.0) for b in batches) for k in batches[0].timings}
        return cls(**arrays, legal=legal, env_steps=sum(b.env_steps for b in batches),
                   games=[g for b in batches for g in b.games], workers=[w for b in batches for w in b.workers],
                   timings=timings)


class _Decisions:
    """Growing columns of decisions, linked per seat (``following``: the index of the same
    seat's next decision, -1 while unknown)."""

    def __init__(self, capacity: int, input_size: int) -> None:
        self.states = np.zeros((capacity, input_size), np.float32)
        self.legal: list[np.ndarray] = []
        self.actions = np.zeros(capacity, np.int64)
        self.log_probs = np.zeros(capacity, np.float32)
        self.values = np.zeros(capacity, np.float32)
        self.rewards = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, bool)
        self.following = np.full(capacity, -1, np.int64)
        self.size = 0

    def add(self, states: np.ndarray, legal: np.ndarray, actions: np.ndarray, log_probs: np.ndarray,
            values: np.ndarray, rewards: np.ndarray | None = None) -> np.ndarray:
        """Appends rows; returns their indices."""
        rows = np.arange(self.size, self.size + len(actions))
        self.states[rows], self.actions[rows] = states, actions
        self.log_probs[rows], self.values[rows] = log_probs, values
        self.rewards[rows] = 0.0 if rewards is None else rewards
        self.legal.extend(legal)
        self.size += len(rows)
        return rows


class VectorCollector(CollectorBase):
    """Steps ``num_envs`` tables with a ``ScoringNet``; ``collect`` returns a ``LegalBatch``."""

    def __init__(self, config: TrainConfig, stream: int, num_envs: int, network: ScoringNet) -> None:
        super().__init__(config, stream, network)
        self.inputs = game_inputs(config.game, config.env_kwargs(), config.features)
        self.tables = vector.make(config.game, num_envs, seed=int(self.rng.integers(2**31 - 1)),
                                  **config.env_kwargs())
        n, players = num_envs, config.num_players
        self.controllers = np.zeros((n, players), np.int64)
        self.own_seat = np.zeros(n, np.int64)
        self.history: list[list[int]] = [[] for _ in range(n)]
        """The actions of each table's game so far (``restore`` replays them)."""
        self.waiting: dict[str, np.ndarray] | None = None
        """The seats' last decisions, carried to the next collection (``_batch``)."""
        self.waiting_at = np.full((n, players), -1, np.int64)
        """Per table and seat, the row in ``waiting`` of its last decision, or -1."""
        self.games: list[dict[str, float]] = []
        self.observation = vector.Observation(np.zeros(n, np.int32),
                                              np.zeros((n, self.tables.observation_size), np.float32),
                                              np.zeros((n, self.tables.num_actions), bool))
        for table in range(n):
            self._new_game(table)

    def _frozen(self, snapshot: ScoringNet) -> ScoringNet:
        snapshot.freeze_actions(True)  # its action table, summed once
        return snapshot

    # ------------------------------------------------------------------ saving and restoring
    def state(self) -> bytes:
        """Everything later collections depend on, pickled (module docstring)."""
        tables = self.tables
        return pickle.dumps({
            "rng": self.rng, "generator": self.generator.get_state(), "game_seeds": list(tables.game_seeds),
            "streams": tables.streams(), "history": self.history,
            "controllers": self.controllers, "own_seat": self.own_seat, "waiting": self.waiting,
            "waiting_at": self.waiting_at, "games": self.games}, protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, state: bytes) -> None:
        """Continues from ``state`` (of a collector of the same config, stream and share of games)."""
        saved = pickle.loads(state)
        tables = self.tables
        tables.reset(seeds=saved["game_seeds"])
        history = saved["history"]
        longest = max((len(h) for h in history), default=0)
        actions = np.zeros(tables.num_tables, np.int64)
        for step in range(longest):  # the games so far, replayed in lockstep
            active = np.array([len(h) > step for h in history])
            actions[active] = [h[step] for h in history if len(h) > step]
            tables.step(actions, active=active)
        tables.set_streams(saved["streams"])
        self.rng, self.history = saved["rng"], history
        self.generator.set_state(saved["generator"])
        self.controllers, self.own_seat = saved["controllers"], saved["own_seat"]
        self.waiting, self.waiting_at, self.games = saved["waiting"], saved["waiting_at"], saved["games"]

    # ------------------------------------------------------------------ games
    def _new_game(self, table: int) -> None:
        players = self.config.num_players
        self.own_seat[table] = own = int(self.rng.integers(players))
        for seat in range(players):
            code = LEARNER
            if seat != own:
                kind = self.config.draw_seat(self.rng)
                if kind == "past":
                    code = PAST if self.pool else LEARNER
                elif kind == "random":
                    code = RANDOM
            self.controllers[table, seat] = code
        self.history[table] = []

    # ------------------------------------------------------------------ collection
    @torch.no_grad()
    def _sample(self, network: ScoringNet, states: np.ndarray, legal: np.ndarray,
                trained: bool) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Positions chosen in ``legal``, with their log-probabilities and values (these two
        only when ``trained``). PPO samples its policy and values the state; Deep Monte-Carlo
        (``algorithm: dmc``) takes the best-scored action but, with probability ``epsilon``,
        a uniformly random legal one, and values the action it takes (its Q)."""
        legal_t = torch.from_numpy(legal)
        state_t = torch.from_numpy(states)
        if self.config.algorithm == "dmc":
            q = network.distribution(state_t, legal_t).logits  # padding masked: never the best
            positions = q.argmax(1)
            explore = torch.rand(len(positions), generator=self.generator) < self.config.epsilon
            counts = (legal_t >= 0).sum(1)
            uniform = (torch.rand(len(positions), generator=self.generator) * counts).long().clamp(max=counts - 1)
            positions = torch.where(explore, uniform, positions)
            if not trained:
                return positions.numpy(), None, None
            values = q.gather(1, positions.unsqueeze(1)).squeeze(1)
            return positions.numpy(), np.zeros(len(positions), np.float32), values.numpy()
        if trained:
            distribution, values = network(state_t, legal_t)
        else:
            distribution, values = network.distribution(state_t, legal_t), None
        positions = distribution.sample(self.generator)
        if not trained:
            return positions.numpy(), None, None
        return positions.numpy(), distribution.log_prob(positions).numpy(), values.numpy()

    def collect(self, env_steps: int) -> LegalBatch:
        """Plays until ``env_steps`` decisions have been made (by any seat) and returns the
        decisions that are ready to train on."""
        start = time.perf_counter()
        tables, n, players = self.tables, self.tables.num_tables, self.config.num_players
        loops = -(-env_steps // n)
        decisions = _Decisions(loops * n + n * players, self.inputs.input_size)
        last = np.full((n, players), -1, np.int64)
        if self.waiting is not None:  # the seats' waiting decisions open this collection
            w = self.waiting
            rows = decisions.add(w["states"], list(w["legal"]), w["actions"], w["log_probs"], w["values"], w["rewards"])
            where = self.waiting_at >= 0
            last[where] = rows[self.waiting_at[where]]
        self.network.freeze_actions(True)
        snapshot = self.pool[int(self.rng.integers(len(self.pool)))] if self.pool else None
        blocks = [0]  # where each loop's decisions start: no decision links to one of its own loop
        core = features = forward = 0.0
        actions = np.zeros(n, np.int64)
        table_ids = np.arange(n)
        try:
            for _ in range(loops):
                t0 = time.perf_counter()
                observation = tables.observe(out=self.observation)
                legal, _ = tables.legal_lists()
                seats = observation.seat.astype(np.int64)
                codes = self.controllers[table_ids, seats]
                random_seats = codes == RANDOM
                if random_seats.any():
                    actions[random_seats] = tables.random_legal(self.rng, random_seats)[random_seats]
                t1 = time.perf_counter()
                core += t1 - t0
                acting = np.flatnonzero(~random_seats)  # the policies' tables: one call computes their inputs
                states = self.inputs.states(observation.obs[acting])
                is_learner = codes[acting] == LEARNER
                t2 = time.perf_counter()
                features += t2 - t1
                learner = acting[is_learner]
                blocks.append(decisions.size)
                if len(learner):
                    own_legal = legal[learner]
                    positions, log_probs, values = self._sample(self.network, states[is_learner], own_legal, True)
                    actions[learner] = own_legal[np.arange(len(learner)), positions]
                    rows = decisions.add(states[is_learner], own_legal, positions, log_probs, values)
                    previous = last[learner, seats[learner]]
                    linked = previous >= 0
                    decisions.following[previous[linked]] = rows[linked]
                    last[learner, seats[learner]] = rows
                past = acting[~is_learner]
                if len(past):
                    positions, _, _ = self._sample(snapshot, states[~is_learner], legal[past], False)
                    actions[past] = legal[past][np.arange(len(past)), positions]
                t3 = time.perf_counter()
                forward += t3 - t2
                rewards, done = tables.step(actions)
                core += time.perf_counter() - t3
                received = last >= 0
                decisions.rewards[last[received]] += rewards[received]  # one row per seat: no repeats
                for table, action in zip(table_ids.tolist(), actions.tolist()):
                    self.history[table].append(action)
                for table in np.flatnonzero(done).tolist():
                    ended = last[table][last[table] >= 0]
                    decisions.done[ended] = True
                    last[table] = -1
                    self._record(table)
                    self._new_game(table)
        finally:
            self.network.freeze_actions(False)
        batch = self._batch(decisions, last, loops * n, blocks)
        seconds = time.perf_counter() - start
        batch.timings = {"core": core, "features": features, "forward": forward,
                         "bookkeeping": seconds - core - features - forward}
        batch.workers = [{"worker": self.stream, "node": self.node, "env_steps": loops * n, "seconds": seconds}]
        return batch

    def _record(self, table: int) -> None:
        scores = self.tables.final_scores[table]
        winners = np.flatnonzero(scores == scores.min())
        own = int(self.own_seat[table])
        self.games.append({"win": (1.0 / len(winners)) if own in winners else 0.0, "score": float(scores[own])})

    def _batch(self, decisions: _Decisions, last: np.ndarray, env_steps: int, blocks: list[int]) -> LegalBatch:
        size = decisions.size
        waiting = (decisions.following[:size] < 0) & ~decisions.done[:size]
        advantages = self._advantages(decisions, waiting, blocks + [size])
        # the waiting decisions (each seat's last) go to the next collection
        self.waiting_at = np.full_like(last, -1)
        held = last >= 0
        rows = last[held]
        self.waiting_at[held] = np.arange(len(rows))
        self.waiting = {"states": decisions.states[rows].copy(), "legal": [decisions.legal[r] for r in rows],
                        "actions": decisions.actions[rows].copy(), "log_probs": decisions.log_probs[rows].copy(),
                        "values": decisions.values[rows].copy(), "rewards": decisions.rewards[rows].copy()}
        train = np.flatnonzero(~waiting)
        width = max((len(decisions.legal[r]) for r in train), default=1)
        legal = np.full((len(train), width), -1, np.int32)
        for i, r in enumerate(train.tolist()):
            row = decisions.legal[r]
            legal[i, :len(row)] = row
        # a row's list can carry -1 padding from its step's width: only positions of actions matter
        batch = LegalBatch(states=decisions.states[train], legal=legal, actions=decisions.actions[train],
                           log_probs=decisions.log_probs[train], values=decisions.values[train],
                           advantages=advantages[train], returns=advantages[train] + decisions.values[train],
                           env_steps=env_steps, games=self.games)
        self.games = []
        return batch

    def _advantages(self, decisions: _Decisions, waiting: np.ndarray, bounds: list[int]) -> np.ndarray:
        """GAE over each seat's links, one loop's decisions at a time from the last loop back
        (a decision's following one always comes from a later loop). A waiting decision has
        no advantage yet: the one before it bootstraps from its value alone."""
        # Deep Monte-Carlo learns from returns: lambda 1 (bootstrapped only where a seat's
        # trajectory is cut by the collection's end, from the Q of the action it takes next)
        lam = 1.0 if self.config.algorithm == "dmc" else self.config.gae_lambda
        size, gamma = decisions.size, self.config.gamma
        values, rewards = decisions.values[:size], decisions.rewards[:size]
        following, done = decisions.following[:size], decisions.done[:size]
        advantages = np.zeros(size + 1, np.float32)  # the extra entry: 0, read where nothing follows
        next_values = np.append(values, np.float32(0.0))
        for start, stop in zip(bounds[-2::-1], bounds[:0:-1]):
            rows = np.arange(start, stop)
            rows = rows[~waiting[rows]]
            nxt = np.where(done[rows], size, following[rows])
            delta = rewards[rows] + gamma * next_values[nxt] - values[rows]
            advantages[rows] = delta + gamma * lam * advantages[nxt]
        return advantages[:size]
