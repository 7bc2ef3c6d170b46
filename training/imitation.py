"""An optional warm start before PPO: imitation of a baseline agent.

With ``imitation_agent`` set (e.g. ``expert``), the trainer first plays games with that
agent in every seat (or, with ``imitation_opponent``, in one seat per game and the opponent
in the others: the positions the policy will meet against that opponent), recording each of
its decisions (observation, mask, action) and the deciding seat's discounted return
(rewards credited to each seat's last decision: ``trajectories.py``, as in PPO), then fits the policy head to
the agent's actions (cross-entropy over the legal actions) and the value head to the
returns. PPO self-play then starts from a policy that already plays like the baseline,
instead of from uniform play.

With ``imitation_rounds`` above 1 the warm start is DAgger (Ross, Gordon and Bagnell,
2011): each further round plays the recorded seats with the network fitted so far (its
most probable action, as ``PolicyAgent`` plays) while the baseline, shown every decision,
labels each one with its own choice; the network is then fitted again on every round's
decisions. A policy that only saw the baseline's own games drifts, at play time, into
positions the baseline never reaches; these rounds teach it what to do there.

Both steps show progress bars on stderr (``progress``): decisions recorded, then minibatches
fitted. Given a folder, each recording worker saves what it has recorded as it goes
(``RecordingParts``) and goes on from there when started again, and ``imitate`` reports each
fitted epoch, so that a stopped warm start resumes where it stopped (``warm_start.py``).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from tqdm import tqdm

from rummy_env.agents import Episode, SeatInfo, make_agent

from .checkpoint import build_network
from .config import TrainConfig, config_from_dict
from .features import FEATURES
from .model import PolicyNet
from .stopping import ctrl_c_blocked, deferred_signals
from .trajectories import SeatTrajectories, seat_returns

PART_SECONDS = 10.0
"""A recording worker with a folder saves its new decisions at the first game end after this
many seconds of recording (and at its end): a stop loses at most about this much of its work."""


class _Recorded:
    """A recorded decision: where it is in the recording, and its seat's credit."""

    __slots__ = ("index", "reward", "done")

    def __init__(self, index: int) -> None:
        self.index, self.reward, self.done = index, 0.0, False


@dataclass
class Demonstrations:
    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    """The imitated agent's choice at each decision: the label."""
    returns: np.ndarray
    played: np.ndarray
    """The action taken there: the label, or the network's choice in a DAgger round."""

    FIELDS = ("observations", "masks", "actions", "returns", "played")

    @classmethod
    def concatenate(cls, parts: list["Demonstrations"]) -> "Demonstrations":
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in cls.FIELDS))

    def __len__(self) -> int:
        return len(self.actions)


class RecordingParts:
    """One recording stream's progress in ``folder``: ``stream-SSS-part-KKKK.npz`` files, each
    the decisions of some whole games (masks as packed bits), the stream's random state after
    them and the games played so far. Each is written through a temporary file, so a stop
    leaves whole parts only; started again, the stream reads them and goes on from the last."""

    def __init__(self, folder: Path, stream: int) -> None:
        self.folder = folder
        self.prefix = f"stream-{stream:03d}-part-"

    def paths(self) -> list[Path]:
        return sorted(self.folder.glob(f"{self.prefix}*.npz"))

    def load(self) -> tuple[list[Demonstrations], dict[str, Any] | None, int]:
        """The saved parts, the random state after the last and its count of games."""
        parts, state, games = [], None, 0
        for path in self.paths():
            with np.load(path) as data:
                masks = np.unpackbits(data["masks"], axis=1, count=int(data["mask_width"])).astype(bool)
                parts.append(Demonstrations(data["observations"], masks, data["actions"], data["returns"],
                                            data["played"]))
                state, games = json.loads(str(data["random_state"])), int(data["games"])
        return parts, state, games

    def save(self, part: Demonstrations, random_state: dict[str, Any], games: int) -> None:
        path = self.folder / f"{self.prefix}{len(self.paths()):04d}.npz"
        arrays = {"observations": part.observations, "masks": np.packbits(part.masks, axis=1),
                  "mask_width": np.array(part.masks.shape[1]), "actions": part.actions, "returns": part.returns,
                  "played": part.played, "random_state": np.array(json.dumps(random_state)), "games": np.array(games)}
        tmp = path.with_name(path.name + ".tmp")
        with deferred_signals():  # a stop waits for the part (a worker never gets one: its signals are blocked)
            self.folder.mkdir(parents=True, exist_ok=True)
            # deflate at its fastest: observations are mostly zeros, and the recording must not wait
            with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
                for name, array in arrays.items():
                    with archive.open(f"{name}.npy", "w", force_zip64=True) as entry:
                        np.lib.format.write_array(entry, np.asanyarray(array), allow_pickle=False)
            os.replace(tmp, path)


def play_demonstrations(config: dict, stream: int, decisions: int,
                        weights: dict[str, torch.Tensor] | None = None,
                        after_game: Callable[[int], Any] | None = None,
                        folder: Path | None = None) -> Demonstrations:
    """Games with ``imitation_agent`` in the recorded seats until ``decisions`` decisions
    are recorded (whole games only). With ``weights``, a network of the config with those
    weights plays the recorded seats, and ``imitation_agent`` only labels their decisions.
    ``after_game`` is told each game's count of recorded decisions. With a ``folder``, the
    stream's progress is saved there (``RecordingParts``) and read back first: the result is
    the same whether or not the stream was stopped and started again on the way."""
    cfg = config_from_dict(config, check=False)  # the trainer has validated it
    rng = np.random.default_rng([cfg.seed, 10_000 + stream])
    saved = RecordingParts(folder, stream) if folder is not None else None
    parts, random_state, games = saved.load() if saved is not None else ([], None, 0)
    if random_state is not None:
        rng.bit_generator.state = random_state
    done = sum(len(part) for part in parts)
    if after_game is not None and done:
        after_game(done)
    if done >= decisions:
        return Demonstrations.concatenate(parts)
    env = cfg.make_env()
    episode = Episode(env)
    names = env.possible_agents
    imitated = [make_agent(cfg.imitation_agent) for _ in names]
    opponents = [make_agent(cfg.imitation_opponent) for _ in names] if cfg.imitation_opponent else imitated
    features = FEATURES[cfg.features](SeatInfo.of(env, names[0]))
    network = None
    if weights is not None:
        network = build_network(cfg, env.observer.size, env.layout.size)
        network.load_state_dict(weights)
        network.eval()
    observations, masks, actions, played = [], [], [], []
    returns: list[float] = []
    last_save = time.monotonic()
    while done + len(actions) < decisions:
        episode.reset(int(rng.integers(2**31 - 1)))
        recorded = {games % len(names)} if cfg.imitation_opponent else set(range(len(names)))
        games += 1
        agents = [imitated[seat] if seat in recorded else opponents[seat] for seat in range(len(names))]
        for seat, agent in enumerate(agents):
            agent.start_game(episode.seat_infos[seat], int(rng.integers(2**31 - 1)))
        first = len(actions)
        trajectories = SeatTrajectories(len(names))
        while not episode.over:
            seat = episode.seat
            decision = episode.decision()
            label = action = agents[seat].act(decision)
            if seat in recorded:
                trajectories.record(seat, _Recorded(len(actions)))
                observation = features(decision.observation, decision.action_mask)
                if network is not None:
                    action = network.most_probable(observation, decision.action_mask)
                observations.append(observation)
                masks.append(decision.action_mask)
                actions.append(label)
                played.append(action)
            trajectories.credit(episode.step(action))
        game_returns = [0.0] * (len(actions) - first)
        for trajectory in trajectories.end_game():
            for step, value in zip(trajectory, seat_returns([s.reward for s in trajectory], cfg.gamma)):
                game_returns[step.index - first] = value
        returns += game_returns
        if after_game is not None:
            after_game(len(game_returns))
        finished = done + len(actions) >= decisions
        if actions and (finished if saved is None else finished or time.monotonic() - last_save >= PART_SECONDS):
            part = Demonstrations(np.stack(observations), np.stack(masks).astype(bool), np.array(actions, np.int64),
                                  np.array(returns, np.float32), np.array(played, np.int64))
            if saved is not None:
                saved.save(part, rng.bit_generator.state, games)
            parts.append(part)
            done += len(part)
            observations, masks, actions, played, returns = [], [], [], [], []
            last_save = time.monotonic()
    return Demonstrations.concatenate(parts)


_recorded: Any = None
"""A worker process's share of the count of decisions recorded (a shared ``multiprocessing.Value``)."""


def _start_worker(recorded: Any) -> None:
    global _recorded
    torch.set_num_threads(1)  # each worker's network sees one decision at a time: more threads would only contend
    _recorded = recorded


def _count(decisions: int) -> None:
    with _recorded.get_lock():
        _recorded.value += decisions


def _play_in_worker(config: dict, stream: int, decisions: int, weights: dict[str, torch.Tensor] | None,
                    folder: Path | None) -> Demonstrations:
    return play_demonstrations(config, stream, decisions, weights, after_game=_count, folder=folder)


def collect_demonstrations(config: TrainConfig, round_index: int = 0,
                           weights: dict[str, torch.Tensor] | None = None,
                           folder: Path | None = None) -> Demonstrations:
    """``imitation_decisions`` decisions, over ``num_workers`` processes (at least one); a
    DAgger round (``round_index`` 1, 2, ...) passes the network's ``weights``. Each round
    and worker has its own random stream. With a ``folder``, each stream's progress is
    saved there and read back first (``play_demonstrations``)."""
    workers = max(1, config.num_workers)
    share = -(-config.imitation_decisions // workers)
    streams = [round_index * workers + k for k in range(workers)]
    what = f"{config.imitation_agent}'s decisions" if weights is None else f"the network's play, {config.imitation_agent}'s labels"
    with tqdm(total=share * workers, unit="decision", unit_scale=True, file=sys.stderr, disable=not config.progress,
              desc=f"warm start {round_index + 1}/{config.imitation_rounds}: recording {what}") as bar:
        if workers == 1:
            return play_demonstrations(config.to_dict(), streams[0], share, weights, after_game=bar.update,
                                       folder=folder)
        context = multiprocessing.get_context("spawn")
        recorded = context.Value("q", 0)
        # a Pool, not a ProcessPoolExecutor: leaving the block early (a stop) terminates its workers at once
        with ctrl_c_blocked():
            pool = context.Pool(workers, initializer=_start_worker, initargs=(recorded,))
        with pool:
            parts = pool.starmap_async(_play_in_worker, [(config.to_dict(), stream, share, weights, folder)
                                                         for stream in streams])
            while not parts.ready():
                parts.wait(0.2)
                bar.update(min(recorded.value, bar.total) - bar.n)
            return Demonstrations.concatenate(parts.get())


def recorded_streams(config: TrainConfig, round_index: int, folder: Path) -> Demonstrations | None:
    """A round's demonstrations as ``collect_demonstrations`` saved them in ``folder``, if its
    every stream is there whole (None otherwise), without playing."""
    workers = max(1, config.num_workers)
    share = -(-config.imitation_decisions // workers)
    parts = [RecordingParts(folder, round_index * workers + k).load()[0] for k in range(workers)]
    if any(sum(len(part) for part in stream) < share for stream in parts):
        return None
    return Demonstrations.concatenate([part for stream in parts for part in stream])


EpochDone = Callable[[int, dict[str, float], dict[str, Any]], None]
"""Told after each epoch of ``imitate``: the epochs done, their stats and the optimiser's state."""


def imitate(network: PolicyNet, demos: Demonstrations, config: TrainConfig, generator: torch.Generator,
            round_index: int = 0, start_epoch: int = 0, optimizer_state: dict[str, Any] | None = None,
            after_epoch: EpochDone | None = None) -> dict[str, float]:
    """Fits the network to the demonstrations; returns the last epoch's action agreement and
    value loss (on the data it was trained on). A fit that goes on from ``start_epoch``
    epochs, with the optimiser's state and the generator as they were then, ends as the fit
    that never stopped."""
    optimizer = torch.optim.Adam(network.parameters(), lr=config.imitation_learning_rate, eps=1e-5)
    if optimizer_state is not None:
        optimizer.load_state_dict(optimizer_state)
    observations, masks = torch.from_numpy(demos.observations), torch.from_numpy(demos.masks)
    actions, returns = torch.from_numpy(demos.actions), torch.from_numpy(demos.returns)
    size = len(actions)
    batches = -(-size // config.minibatch_size)
    stats: dict[str, float] = {}
    with tqdm(total=config.imitation_epochs * batches, initial=start_epoch * batches, unit="batch", file=sys.stderr,
              disable=not config.progress,
              desc=f"warm start {round_index + 1}/{config.imitation_rounds}: fitting {size:,} decisions") as bar:
        for epoch in range(start_epoch, config.imitation_epochs):
            order = torch.randperm(size, generator=generator)
            agree = value_sum = 0.0
            for start in range(0, size, config.minibatch_size):
                rows = order[start:start + config.minibatch_size]
                distribution, values = network(observations[rows], masks[rows])
                policy_loss = -distribution.log_prob(actions[rows]).mean()
                loss_v = 0.5 * ((values - returns[rows]) ** 2).mean()
                loss = policy_loss + config.vf_coef * loss_v
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(network.parameters(), config.max_grad_norm)
                optimizer.step()
                agree += (distribution.mode() == actions[rows]).sum().item()
                value_sum += loss_v.item() * len(rows)
                bar.update()
            stats = {"imitation_agreement": agree / size, "imitation_value_loss": value_sum / size,
                     "imitation_decisions": size}
            bar.set_postfix(epoch=epoch + 1, agreement=f"{stats['imitation_agreement']:.3f}")
            if after_epoch is not None:
                after_epoch(epoch + 1, stats, optimizer.state_dict())
    return stats
