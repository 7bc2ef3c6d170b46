"""Experience collection: many games stepped side by side, with one batched forward pass of
the policy per step for all the games whose acting seat it plays.

**Seats.** Each game draws a seat for the network; every other seat is filled from the
config's mixture: the current policy (``self``: trained on too), a frozen snapshot from the
pool (``past``), or a baseline agent. Past snapshots and baselines only act.

**Per-seat credit** (``trajectories.py``, shared with the imitation warm start). Each trained
seat's decisions in a game form its own trajectory, and a reward goes to its seat's last
decision. A decision is ready to train on once its seat has decided again (its next value
is then known) or the game is over. When a collection stops, each trained seat's last
decision waits, with the rewards credited so far, to open that seat's trajectory in the
next collection; GAE runs per trajectory segment, bootstrapped from the waiting decision's
value.

**Saving.** Between collections, ``Collector.state`` pickles everything later collections
depend on (random streams, games in progress, pending decisions; not the parts of each env
that its rules fix), and ``restore`` continues from it: a resumed run plays on exactly as
the run would have (``workers.py`` gathers the states for last.pt).

**Privileged inputs.** With ``privileged_critic``, each trained decision also keeps what its
seat cannot see (``privileged_inputs``) for the critic; the policy acts without it.
"""

from __future__ import annotations

import copy
import io
import pickle
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from rummy_env.agents import Agent, Episode, make_agent
from rummy_env.env import RummyEnv

from .config import TrainConfig
from .features import FEATURES
from .model import PolicyNet
from .trajectories import SeatTrajectories, seat_gae

LEARNER = "self"
STATIC_PARTS = ("engine", "layout", "observer", "rules", "observation_spaces", "action_spaces")
"""The parts of an env that its rules fix: a collector's saved state refers to them instead of
holding them (they are most of an env's size), and a restored collector uses its own."""


def privileged_size(env: RummyEnv, stock_order: int = 0) -> int:
    """The size of ``privileged_inputs`` for this env's game and players."""
    return (env.observer.num_players + stock_order) * env.observer.num_faces


def privileged_inputs(env: RummyEnv, seat: int, stock_order: int = 0) -> np.ndarray:
    """What the privileged critic reads besides the seat's input, all hidden from the seat:
    the count of each face in each other seat's hand (left first), then in the stock, then
    (``stock_order``) the next cards to be drawn, one row of faces each, in draw order (rows
    of zeros past the stock's end)."""
    state, faces = env.game_state, env.observer.num_faces
    hands = np.frombuffer(b"".join(state.hands[seat + 1:] + state.hands[:seat]), np.uint8)
    stock = np.bincount(state.stock, minlength=faces)
    upcoming = np.zeros((stock_order, faces), np.uint8)
    drawn_next = np.asarray(state.stock[::-1][:stock_order], np.intp)  # the stock is drawn from its end
    upcoming[np.arange(len(drawn_next)), drawn_next] = 1
    return np.concatenate([hands, stock, upcoming.ravel()]).astype(np.float32)


class _Step:
    """One decision of a trained seat; ``observation`` is the network's input (the
    observation and the config's features), ``privileged`` the critic's extra input (or None)."""

    __slots__ = ("observation", "privileged", "mask", "action", "log_prob", "value", "reward", "done")

    def __init__(self, observation: np.ndarray, privileged: np.ndarray | None, mask: np.ndarray, action: int,
                 log_prob: float, value: float) -> None:
        self.observation, self.privileged, self.mask, self.action = observation, privileged, mask, action
        self.log_prob, self.value = log_prob, value
        self.reward, self.done = 0.0, False


@dataclass
class Batch:
    """Trainable decisions of one collection, and what happened meanwhile."""

    observations: np.ndarray
    privileged: np.ndarray
    """The privileged critic's inputs, a row per decision (no columns without one)."""
    masks: np.ndarray
    actions: np.ndarray
    log_probs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    env_steps: int
    """Decisions of every seat (the throughput's unit), trained on or not."""
    games: list[dict[str, float]] = field(default_factory=list)
    """Per finished game, the network's own seat: win share, final score, penalty per round."""
    workers: list[dict[str, Any]] = field(default_factory=list)
    """Per collector that played: its ``worker`` number, the ``node`` it ran on, its
    ``env_steps`` and the ``seconds`` it took (the trainer writes them to workers.csv)."""

    @classmethod
    def concatenate(cls, batches: list["Batch"]) -> "Batch":
        arrays = {name: np.concatenate([getattr(b, name) for b in batches])
                  for name in ("observations", "privileged", "masks", "actions", "log_probs", "values", "advantages", "returns")}
        return cls(**arrays, env_steps=sum(b.env_steps for b in batches),
                   games=[g for b in batches for g in b.games], workers=[w for b in batches for w in b.workers])


class _Table:
    """One game in the vector, with who plays each seat and the trained seats' trajectories."""

    def __init__(self, env: RummyEnv) -> None:
        self.env = env
        self.episode = Episode(env)
        self.names = env.possible_agents
        self.controllers: list[Any] = []
        self.own_seat = 0
        self.trajectories = SeatTrajectories(len(self.names))
        self.baselines: dict[tuple[int, str], Agent] = {}


class CollectorBase:
    """What every collector has: its config, its stream's random generators (numpy's for
    games and seats, torch's for actions), where it runs, the network it plays and trains,
    and the pool of frozen snapshots."""

    def __init__(self, config: TrainConfig, stream: int, network: Any) -> None:
        self.config = config
        self.stream = stream
        self.node = socket.gethostname()
        """Where this collector runs, as its batches report it (a Ray actor names its node)."""
        self.rng = np.random.default_rng([config.seed, stream])
        self.generator = torch.Generator().manual_seed(int(self.rng.integers(2**62)))
        self.network = network
        self.pool: list[Any] = []

    def set_pool(self, pool_weights: list[dict[str, torch.Tensor]]) -> None:
        """Replaces the frozen snapshots (state dicts of the same architecture)."""
        self.pool = []
        for weights in pool_weights:
            net = copy.deepcopy(self.network)
            net.load_state_dict(weights)
            self.pool.append(self._frozen(net.eval()))

    def _frozen(self, snapshot: Any) -> Any:
        """A snapshot made ready to play (it will never train)."""
        return snapshot


class Collector(CollectorBase):
    """Steps ``num_envs`` games with the given network; ``collect`` returns a ``Batch``."""

    def __init__(self, config: TrainConfig, stream: int, num_envs: int, network: PolicyNet) -> None:
        super().__init__(config, stream, network)
        self.tables = [_Table(config.make_env()) for _ in range(num_envs)]
        self.features = FEATURES[config.features](self.tables[0].episode.seat_infos[0])
        self.ready: list[tuple[list[_Step], np.ndarray]] = []
        self.games: list[dict[str, float]] = []
        for table in self.tables:
            self._new_game(table)

    # ------------------------------------------------------------------ saving and restoring
    def state(self) -> bytes:
        """Everything later collections depend on, pickled: the random streams, the games in
        progress (each env, the seats' controllers, the baseline agents with their own random
        state) and each trained seat's pending decision. Taken between collections."""
        static = {id(getattr(table.env, name)): (name, i) for i, table in enumerate(self.tables)
                  for name in STATIC_PARTS}
        buffer = io.BytesIO()
        _StatePickler(buffer, static).dump({"rng": self.rng, "generator": self.generator.get_state(),
                                            "tables": self.tables, "games": self.games})
        return buffer.getvalue()

    def restore(self, state: bytes) -> None:
        """Continues from ``state`` (of a collector of the same config, stream and share of games)."""
        saved = _StateUnpickler(io.BytesIO(state), self.tables).load()
        self.rng, self.tables, self.games = saved["rng"], saved["tables"], saved["games"]
        self.generator.set_state(saved["generator"])

    # ------------------------------------------------------------------ games
    def _new_game(self, table: _Table) -> None:
        n = len(table.names)
        table.episode.reset(int(self.rng.integers(2**31 - 1)))
        table.own_seat = int(self.rng.integers(n))
        table.controllers = []
        for seat in range(n):
            kind = LEARNER
            if seat != table.own_seat:
                kind = self.config.draw_seat(self.rng)
            if kind == "past":
                kind = int(self.rng.integers(len(self.pool))) if self.pool else LEARNER
            elif kind != LEARNER:
                agent = table.baselines.get((seat, kind))
                if agent is None:
                    agent = table.baselines[(seat, kind)] = make_agent(kind)
                agent.start_game(table.episode.seat_infos[seat], int(self.rng.integers(2**31 - 1)))
                kind = agent
            table.controllers.append(kind)
        table.trajectories = SeatTrajectories(n)

    def _end_game(self, table: _Table) -> None:
        env = table.env
        for trajectory in table.trajectories.end_game():
            self._finish(trajectory, 0.0)
        state = env.game_state
        winners = env.engine.winners(state)
        own = table.own_seat
        self.games.append({
            "win": (1.0 / len(winners)) if own in winners else 0.0,
            "score": float(state.scores[own]),
            "penalty_per_round": float(np.mean([p[own] for p in state.round_penalties])),
        })
        self._new_game(table)

    def _finish(self, steps: list[_Step], next_value: float) -> None:
        rewards = np.array([s.reward for s in steps], dtype=np.float32)
        values = np.array([s.value for s in steps], dtype=np.float32)
        dones = np.array([s.done for s in steps])
        self.ready.append((steps, seat_gae(rewards, values, dones, next_value, self.config.gamma,
                                           self.config.gae_lambda)))

    # ------------------------------------------------------------------ collection
    def _inputs(self, rows: list[tuple[_Table, int, dict]]) -> tuple[list[np.ndarray], torch.Tensor]:
        """The network inputs (observation and features) of ``rows``, and their masks."""
        inputs = [self.features(obs["observation"], obs["action_mask"]) for _, _, obs in rows]
        return inputs, torch.from_numpy(np.stack([obs["action_mask"] for _, _, obs in rows]).astype(bool))

    @torch.no_grad()
    def _act(self, network: PolicyNet, rows: list[tuple[_Table, int, dict]]) -> list[int]:
        """Samples a frozen snapshot's actions for ``rows``."""
        inputs, masks = self._inputs(rows)
        return network.distribution(torch.from_numpy(np.stack(inputs)), masks).sample(self.generator).tolist()

    @torch.no_grad()
    def _act_trained(self, rows: list[tuple[_Table, int, dict]]) -> list[_Step]:
        """Samples the trained network's actions for ``rows``, as steps of their seats."""
        inputs, masks = self._inputs(rows)
        privileged = ([privileged_inputs(table.env, table.episode.seat, self.config.privileged_stock_order)
                       for table, _, _ in rows]
                      if self.config.privileged_critic else None)
        distribution, values = self.network(torch.from_numpy(np.stack(inputs)), masks,
                                            privileged=None if privileged is None else torch.from_numpy(np.stack(privileged)))
        actions = distribution.sample(self.generator)
        log_probs = distribution.log_prob(actions).numpy()
        return [_Step(given, None if privileged is None else privileged[k], obs["action_mask"], action,
                      float(log_probs[k]), float(values[k]))
                for k, (given, (_, _, obs), action) in enumerate(zip(inputs, rows, actions.tolist()))]

    def collect(self, env_steps: int) -> Batch:
        """Plays until ``env_steps`` decisions have been made (by any seat) and returns the
        decisions that are ready to train on."""
        start = time.perf_counter()
        steps = 0
        while steps < env_steps:
            chosen: list[int] = [0] * len(self.tables)
            trained: list[tuple[_Table, int, dict]] = []
            by_snapshot: dict[int, list[tuple[_Table, int, dict]]] = {}
            for i, table in enumerate(self.tables):
                episode = table.episode
                controller = table.controllers[episode.seat]
                if controller == LEARNER:
                    trained.append((table, i, episode.observe()))
                elif isinstance(controller, int):
                    by_snapshot.setdefault(controller, []).append((table, i, episode.observe()))
                else:
                    chosen[i] = controller.act(episode.decision())
            if trained:
                for (table, i, _), step in zip(trained, self._act_trained(trained)):
                    chosen[i] = step.action
                    table.trajectories.record(table.episode.seat, step)
            for snapshot, rows in by_snapshot.items():
                for (_, i, _), action in zip(rows, self._act(self.pool[snapshot], rows)):
                    chosen[i] = action
            for table, action in zip(self.tables, chosen):
                self._step(table, action)
            steps += len(self.tables)
        batch = self._batch(steps)
        batch.workers = [{"worker": self.stream, "node": self.node, "env_steps": steps,
                          "seconds": time.perf_counter() - start}]
        return batch

    def _step(self, table: _Table, action: int) -> None:
        table.trajectories.credit(table.episode.step(action))
        if table.episode.over:
            self._end_game(table)

    def _batch(self, env_steps: int) -> Batch:
        for table in self.tables:
            for segment, next_value in table.trajectories.split_ready():
                self._finish(segment, next_value)
        steps = [s for segment, _ in self.ready for s in segment]
        advantages = np.concatenate([a for _, a in self.ready]) if self.ready else np.zeros(0, np.float32)
        values = np.array([s.value for s in steps], dtype=np.float32)
        size = self.network.trunk[0].in_features
        extra = self.network.privileged_size
        batch = Batch(
            observations=np.stack([s.observation for s in steps]) if steps else np.zeros((0, size), np.float32),
            privileged=np.stack([s.privileged for s in steps]) if steps and extra
            else np.zeros((len(steps), extra), np.float32),
            masks=np.stack([s.mask for s in steps]).astype(bool) if steps
            else np.zeros((0, self.network.policy.out_features), bool),
            actions=np.array([s.action for s in steps], dtype=np.int64),
            log_probs=np.array([s.log_prob for s in steps], dtype=np.float32),
            values=values,
            advantages=advantages,
            returns=advantages + values,
            env_steps=env_steps,
            games=self.games,
        )
        self.ready, self.games = [], []
        return batch


class _StatePickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, static: dict[int, tuple[str, int]]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.static = static

    def persistent_id(self, obj: Any) -> tuple[str, int] | None:
        return self.static.get(id(obj))


class _StateUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, tables: list[_Table]) -> None:
        super().__init__(file)
        self.tables = tables

    def persistent_load(self, key: tuple[str, int]) -> Any:
        name, index = key
        return getattr(self.tables[index].env, name)
