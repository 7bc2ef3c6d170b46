"""An optional warm start before PPO: imitation of a baseline agent.

With ``imitation_agent`` set (e.g. ``expert``), the trainer first plays games with that
agent in every seat (or, with ``imitation_opponent``, in one seat per game and the opponent
in the others: the positions the policy will meet against that opponent), recording each of
its decisions (observation, mask, action) and the deciding seat's discounted return
(rewards credited to each seat's last decision, as in PPO), then fits the policy head to
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
fitted. The demonstrations live in memory only: a warm start that is stopped starts again.
"""

from __future__ import annotations

import multiprocessing
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch
from tqdm import tqdm

from rummy_env.agents import Episode, SeatInfo, make_agent

from .checkpoint import build_network
from .config import TrainConfig, config_from_dict
from .features import FEATURES
from .model import PolicyNet
from .stopping import ctrl_c_blocked


@dataclass
class Demonstrations:
    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    """The imitated agent's choice at each decision: the label."""
    returns: np.ndarray
    played: np.ndarray
    """The action taken there: the label, or the network's choice in a DAgger round."""

    @classmethod
    def concatenate(cls, parts: list["Demonstrations"]) -> "Demonstrations":
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("observations", "masks", "actions", "returns", "played")))


def play_demonstrations(config: dict, stream: int, decisions: int,
                        weights: dict[str, torch.Tensor] | None = None,
                        after_game: Callable[[int], Any] | None = None) -> Demonstrations:
    """Games with ``imitation_agent`` in the recorded seats until ``decisions`` decisions
    are recorded (whole games only). With ``weights``, a network of the config with those
    weights plays the recorded seats, and ``imitation_agent`` only labels their decisions.
    ``after_game`` is told each game's count of recorded decisions."""
    cfg = config_from_dict(config, check=False)  # the trainer has validated it
    rng = np.random.default_rng([cfg.seed, 10_000 + stream])
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
    observations, masks, actions, rewards, seats, played = [], [], [], [], [], []
    returns: list[float] = []
    games = 0
    while len(actions) < decisions:
        episode.reset(int(rng.integers(2**31 - 1)))
        recorded = {games % len(names)} if cfg.imitation_opponent else set(range(len(names)))
        games += 1
        agents = [imitated[seat] if seat in recorded else opponents[seat] for seat in range(len(names))]
        for seat, agent in enumerate(agents):
            agent.start_game(episode.seat_infos[seat], int(rng.integers(2**31 - 1)))
        first = len(actions)
        last_of_seat = [-1] * len(names)
        while not episode.over:
            seat = episode.seat
            decision = episode.decision()
            label = action = agents[seat].act(decision)
            if seat in recorded:
                last_of_seat[seat] = len(actions)
                observation = features(decision.observation, decision.action_mask)
                if network is not None:
                    action = network.most_probable(observation, decision.action_mask)
                observations.append(observation)
                masks.append(decision.action_mask)
                actions.append(label)
                played.append(action)
                rewards.append(0.0)
                seats.append(seat)
            step_rewards = episode.step(action)
            for other, index in enumerate(last_of_seat):  # a round may end on anyone's step
                if index >= 0:
                    rewards[index] += step_rewards[other]
        following = [0.0] * len(names)
        game_returns = [0.0] * (len(actions) - first)
        for k in range(len(actions) - 1, first - 1, -1):
            following[seats[k]] = rewards[k] + cfg.gamma * following[seats[k]]
            game_returns[k - first] = following[seats[k]]
        returns += game_returns
        if after_game is not None:
            after_game(len(game_returns))
    return Demonstrations(np.stack(observations), np.stack(masks).astype(bool), np.array(actions, np.int64),
                          np.array(returns, np.float32), np.array(played, np.int64))


_recorded: Any = None
"""A worker process's share of the count of decisions recorded (a shared ``multiprocessing.Value``)."""


def _start_worker(recorded: Any) -> None:
    global _recorded
    torch.set_num_threads(1)  # each worker's network sees one decision at a time: more threads would only contend
    _recorded = recorded


def _count(decisions: int) -> None:
    with _recorded.get_lock():
        _recorded.value += decisions


def _play_in_worker(config: dict, stream: int, decisions: int,
                    weights: dict[str, torch.Tensor] | None) -> Demonstrations:
    return play_demonstrations(config, stream, decisions, weights, after_game=_count)


def collect_demonstrations(config: TrainConfig, round_index: int = 0,
                           weights: dict[str, torch.Tensor] | None = None) -> Demonstrations:
    """``imitation_decisions`` decisions, over ``num_workers`` processes (at least one); a
    DAgger round (``round_index`` 1, 2, ...) passes the network's ``weights``. Each round
    and worker has its own random stream."""
    workers = max(1, config.num_workers)
    share = -(-config.imitation_decisions // workers)
    streams = [round_index * workers + k for k in range(workers)]
    what = f"{config.imitation_agent}'s decisions" if weights is None else f"the network's play, {config.imitation_agent}'s labels"
    with tqdm(total=share * workers, unit="decision", unit_scale=True, file=sys.stderr, disable=not config.progress,
              desc=f"warm start {round_index + 1}/{config.imitation_rounds}: recording {what}") as bar:
        if workers == 1:
            return play_demonstrations(config.to_dict(), streams[0], share, weights, after_game=bar.update)
        context = multiprocessing.get_context("spawn")
        recorded = context.Value("q", 0)
        # a Pool, not a ProcessPoolExecutor: leaving the block early (a stop) terminates its workers at once
        with ctrl_c_blocked():
            pool = context.Pool(workers, initializer=_start_worker, initargs=(recorded,))
        with pool:
            parts = pool.starmap_async(_play_in_worker, [(config.to_dict(), stream, share, weights)
                                                         for stream in streams])
            while not parts.ready():
                parts.wait(0.2)
                bar.update(min(recorded.value, bar.total) - bar.n)
            return Demonstrations.concatenate(parts.get())


def imitate(network: PolicyNet, demos: Demonstrations, config: TrainConfig, generator: torch.Generator,
            round_index: int = 0) -> dict[str, float]:
    """Fits the network to the demonstrations; returns the last epoch's action agreement and
    value loss (on the data it was trained on)."""
    optimizer = torch.optim.Adam(network.parameters(), lr=config.imitation_learning_rate, eps=1e-5)
    observations, masks = torch.from_numpy(demos.observations), torch.from_numpy(demos.masks)
    actions, returns = torch.from_numpy(demos.actions), torch.from_numpy(demos.returns)
    size = len(actions)
    agreement = value_loss = 0.0
    with tqdm(total=config.imitation_epochs * -(-size // config.minibatch_size), unit="batch", file=sys.stderr,
              disable=not config.progress,
              desc=f"warm start {round_index + 1}/{config.imitation_rounds}: fitting {size:,} decisions") as bar:
        for epoch in range(config.imitation_epochs):
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
            agreement, value_loss = agree / size, value_sum / size
            bar.set_postfix(epoch=epoch + 1, agreement=f"{agreement:.3f}")
    return {"imitation_agreement": agreement, "imitation_value_loss": value_loss, "imitation_decisions": size}
