"""Masked PPO self-play on a rummy_env game with Tianshou 2: one shared policy plays every seat.

What it shows: how a Tianshou user plugs the AEC env in. Tianshou's ``PettingZooEnv`` turns each
step into an observation of the seat to act (``obs``, ``mask``, ``agent_id``) and a reward vector
(one entry per seat); one ``PPO`` algorithm with a masked actor plays all seats through a
``Collector`` and the on-policy trainer. Tianshou's multi-agent path (``MultiAgentOnPolicyAlgorithm``)
is not used: it credits a seat only with the rewards of its own steps, and our round rewards mostly
arrive while another seat acts. ``SeatPPO`` re-threads each batch into per-seat trajectories first
(see docs/integrations.md#tianshou).

    pip install -e ".[train,tianshou]"
    python examples/tianshou_ppo.py --smoke                  # a few updates, well under a minute
    python examples/tianshou_ppo.py --steps 20000 --seed 1   # --game: any name in rummy_env.GAMES

It ends with one line ``RESULT {json}``: library, game, env_steps (env.step calls, any seat),
seconds (training wall time, imports excluded), steps_per_second, updates (gradient steps),
final_loss (the mean total loss of the last update).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, ReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OnPolicyTrainerParams
from torch import nn

import rummy_env


def mlp(n_in: int, n_out: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, n_out))


class MaskedActor(nn.Module):
    """PettingZooEnv's observation Batch (obs, mask, agent_id) -> logits with the illegal actions ruled out."""

    def __init__(self, n_obs: int, n_act: int, hidden: int) -> None:
        super().__init__()
        self.net = mlp(n_obs, n_act, hidden)

    def forward(self, obs: Batch, state: object = None, info: object = None) -> tuple[torch.Tensor, object]:
        logits = self.net(torch.as_tensor(obs.obs, dtype=torch.float32))
        # a large finite negative, not -inf: an illegal action gets probability 0 and adds 0 to the entropy
        return logits.masked_fill(~torch.as_tensor(obs.mask, dtype=torch.bool), -1e9), state


class Critic(nn.Module):
    def __init__(self, n_obs: int, hidden: int) -> None:
        super().__init__()
        self.net = mlp(n_obs, 1, hidden)

    def forward(self, obs: Batch) -> torch.Tensor:
        return self.net(torch.as_tensor(obs.obs, dtype=torch.float32))


def per_seat_decisions(batch: Batch, seats: dict[str, int]) -> ReplayBuffer:
    """The collected steps (one env, in order) as one trajectory per seat, in a buffer of their own.

    A decision's reward is every reward its seat receives from that step until its next decision
    (within the episode), and its obs_next is the seat's next decision. A seat's last decision of
    the batch has no next one here and is left out unless it ended the game; the one before it
    ends its trajectory (truncated), so that GAE never runs from one seat into the next."""
    seat_of = np.array([seats[a] for a in batch.obs.agent_id])
    ended = np.logical_or(batch.terminated, batch.truncated)
    episode = np.cumsum(ended) - ended  # episode index of each step
    steps = np.arange(len(batch))
    picked, nexts, rewards, terminated, truncated = [], [], [], [], []
    for seat in range(len(seats)):
        acts = np.flatnonzero(seat_of == seat)
        if len(acts) == 0:
            continue
        owner = np.searchsorted(acts, steps, side="right") - 1  # the seat's latest decision at or before t
        keep = (owner >= 0) & (episode == episode[acts[np.maximum(owner, 0)]])
        reward = np.zeros(len(acts))
        np.add.at(reward, owner[keep], batch.rew[keep, seat])
        term = np.zeros(len(acts), dtype=bool)
        term[owner[keep & ended]] = True
        valid = np.append(np.ones(len(acts) - 1, dtype=bool), term[-1])  # the last has no next decision here
        last = np.flatnonzero(valid)[-1:]  # the seat's last kept decision ends its trajectory
        trunc = np.zeros(len(acts), dtype=bool)
        trunc[last] = ~term[last]
        picked.append(acts[valid])
        nexts.append(np.append(acts[1:], acts[-1])[valid])
        rewards.append(reward[valid])
        terminated.append(term[valid])
        truncated.append(trunc[valid])
    rows, nxt = np.concatenate(picked), np.concatenate(nexts)
    term, trunc = np.concatenate(terminated), np.concatenate(truncated)
    # PPO's GAE reads the terminated flags and the unfinished episode from the buffer, so it gets its own
    return ReplayBuffer.from_data(obs=batch.obs[rows], act=batch.act[rows], rew=np.concatenate(rewards),
                                  terminated=term, truncated=trunc, done=term | trunc, obs_next=batch.obs[nxt])


class SeatPPO(PPO):
    """Tianshou's PPO, fed per-seat trajectories: its GAE, clipping and losses run unchanged."""

    def __init__(self, *, seats: dict[str, int], **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.seats = seats

    def _preprocess_batch(self, batch: Batch, buffer: ReplayBuffer, indices: np.ndarray) -> Batch:
        decisions = per_seat_decisions(batch, self.seats)
        return super()._preprocess_batch(decisions[:], decisions, np.arange(len(decisions)))


def train(game: str, seed: int, steps: int, batch_steps: int, epochs: int, minibatch: int, hidden: int) -> dict:
    torch.manual_seed(seed)
    np.random.seed(seed)  # Tianshou shuffles minibatches with numpy's global generator
    torch.set_num_threads(1)  # small batches: extra threads only wait on each other
    env = PettingZooEnv(rummy_env.GAMES[game].env())
    envs = DummyVectorEnv([lambda: env])  # one game: the per-seat threading reads one env's steps in order
    envs.seed(seed)
    n_obs, n_act = env.observation_space["observation"].shape[0], env.action_space.n
    policy = DiscreteActorPolicy(actor=MaskedActor(n_obs, n_act, hidden), action_space=env.action_space)
    algorithm = SeatPPO(seats=env.agent_idx, policy=policy, critic=Critic(n_obs, hidden),
                        optim=AdamOptimizerFactory(lr=3e-4), gamma=0.995, gae_lambda=0.95,
                        eps_clip=0.2, ent_coef=0.01, max_grad_norm=0.5)
    # a plain buffer holds one env's steps in order (a VectorReplayBuffer would also cost seconds of numba compiling)
    collector = Collector(algorithm, envs, ReplayBuffer(batch_steps))
    params = OnPolicyTrainerParams(
        training_collector=collector, max_epochs=-(-steps // batch_steps), epoch_num_steps=batch_steps,
        collection_step_num_env_steps=batch_steps, batch_size=minibatch, update_step_num_repetitions=epochs,
        verbose=False, show_progress=False,
    )
    trainer = algorithm.create_trainer(params)
    start = time.perf_counter()
    trainer.reset()
    updates, loss = 0, float("nan")
    for _ in range(params.max_epochs):  # one epoch = one collection and one PPO update
        stats = trainer.execute_epoch().training_stat
        updates, loss = updates + stats.gradient_steps, stats.loss.mean
    seconds = time.perf_counter() - start
    env_steps = collector.collect_step
    return {"library": "tianshou", "game": game, "env_steps": env_steps, "seconds": round(seconds, 2),
            "steps_per_second": round(env_steps / seconds, 1), "updates": updates, "final_loss": float(loss)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="three_thirteen", choices=list(rummy_env.GAMES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=20_000, help="env steps to collect (all seats)")
    parser.add_argument("--smoke", action="store_true", help="a tiny budget: 2 batches of 512 steps")
    args = parser.parse_args()
    if args.smoke:
        result = train(args.game, args.seed, steps=1024, batch_steps=512, epochs=2, minibatch=128, hidden=64)
    else:
        result = train(args.game, args.seed, steps=args.steps, batch_steps=2048, epochs=4, minibatch=256, hidden=128)
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
