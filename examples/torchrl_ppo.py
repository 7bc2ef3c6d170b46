"""Masked PPO self-play on a rummy_env game with TorchRL: one shared policy plays every seat.

What it shows: how a TorchRL user plugs the AEC env in. ``PettingZooWrapper(use_mask=True)``
puts all seats in one group, so one ``ProbabilisticActor`` with a ``MaskedCategorical`` acts for
them; a ``Collector`` gathers steps, ``GAE`` and ``ClipPPOLoss`` do the update. The one piece
TorchRL has no component for is turn-based credit: ``per_seat_decisions`` turns the collected
steps into one trajectory per seat (see docs/integrations.md#torchrl).

    pip install -e ".[train,torchrl]"
    python examples/torchrl_ppo.py --smoke                  # a few updates, well under a minute
    python examples/torchrl_ppo.py --steps 20000 --seed 1   # --game: any name in rummy_env.GAMES

It ends with one line ``RESULT {json}``: library, game, env_steps (env.step calls, any seat),
seconds (training wall time, imports excluded), steps_per_second, updates (gradient steps),
final_loss (the mean total loss of the last update).
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

try:
    from torchrl.collectors import Collector  # torchrl >= 0.11
except ImportError:  # older releases name it SyncDataCollector (removed in 0.13)
    from torchrl.collectors import SyncDataCollector as Collector

import rummy_env

G = "players"  # the one group holding every seat, so that one network plays them all
OBS, MASK, SEAT_MASK = (G, "observation", "observation"), (G, "action_mask"), (G, "mask")


def make_env(game: str, seed: int) -> PettingZooWrapper:
    base = rummy_env.GAMES[game].env()
    # use_mask=True is required for AEC envs: (G, "mask") marks the acting seat. The wrapper
    # reads the action mask of the acting seat only and sets the others' to all True, so our
    # all-zero masks of waiting seats never reach MaskedCategorical (no all-masked rows), and
    # _step_aec passes on the acting seat's action alone: what is sampled for the others is ignored.
    return PettingZooWrapper(env=base, use_mask=True, group_map={G: list(base.possible_agents)}, seed=seed)


def make_modules(env: PettingZooWrapper, hidden: int) -> tuple[ProbabilisticActor, ValueOperator]:
    n_obs = env.observation_spec[OBS].shape[-1]
    n_act = env.full_action_spec[G, "action"].space.n

    def mlp(out: int) -> nn.Sequential:
        return nn.Sequential(nn.Linear(n_obs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                             nn.Linear(hidden, out))

    actor = ProbabilisticActor(
        TensorDictModule(mlp(n_act), in_keys=[OBS], out_keys=[(G, "logits")]),
        in_keys={"logits": (G, "logits"), "mask": MASK},  # sampling and log-probs use the legal actions only
        out_keys=[(G, "action")], distribution_class=MaskedCategorical,
        return_log_prob=True, log_prob_key=(G, "log_prob"),  # one name across TorchRL versions
    )
    critic = ValueOperator(mlp(1), in_keys=[OBS], out_keys=[(G, "state_value")])
    return actor, critic


def per_seat_decisions(batch: TensorDict) -> TensorDict:
    """The collected steps ([T], every seat in each) as T decisions, one per step, grouped by seat.

    Round rewards reach a seat while other seats act, so each decision gets every reward its seat
    receives from that step until its next decision (within the episode). Its "next" is the seat's
    next decision; its last decision in the batch is cut (done, not terminated) and bootstrapped
    from the seat's latest observation, so GAE never runs across seats or episodes."""
    T, n_seats = batch[SEAT_MASK].shape
    steps = torch.arange(T)
    ended = batch["next", "done"].reshape(T)                     # the episode ended at this step
    episode = torch.cumsum(ended.long(), 0) - ended.long()       # episode index of each step
    rows = []
    for seat in range(n_seats):
        acts = batch[SEAT_MASK][:, seat].nonzero().squeeze(-1)    # the seat's decision steps
        if len(acts) == 0:
            continue
        owner = torch.searchsorted(acts, steps, right=True) - 1   # the latest decision at or before t
        keep = (owner >= 0) & (episode == episode[acts[owner.clamp(min=0)]])
        owner = owner[keep]
        reward = torch.zeros(len(acts)).index_add_(0, owner, batch["next", G, "reward"][keep, seat, 0])
        terminated = torch.zeros(len(acts), dtype=torch.bool).index_fill_(0, owner[ended[keep]], True)
        now = batch[G][acts, seat].select("observation", "action_mask", "action", "log_prob")
        last_obs = batch["next", G, "observation"][T - 1, seat].unsqueeze(0)
        nxt = TensorDict({
            "observation": torch.cat([batch[G, "observation"][acts[1:], seat], last_obs]),
            "reward": reward.unsqueeze(-1),
            "terminated": terminated.unsqueeze(-1),
            "done": (terminated | (torch.arange(len(acts)) == len(acts) - 1)).unsqueeze(-1),
        }, batch_size=[len(acts)])
        rows.append(TensorDict({G: now, "next": TensorDict({G: nxt}, [len(acts)])}, [len(acts)]))
    return torch.cat(rows)


def train(game: str, seed: int, steps: int, batch_steps: int, epochs: int, minibatch: int, hidden: int) -> dict:
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # a batch of 4 seats per step: extra threads only wait on each other
    env = make_env(game, seed)
    actor, critic = make_modules(env, hidden)
    collector = Collector(env, actor, frames_per_batch=batch_steps, total_frames=steps)
    gae = GAE(gamma=0.995, lmbda=0.95, value_network=critic, average_gae=True)
    keys = dict(value=(G, "state_value"), reward=(G, "reward"), done=(G, "done"), terminated=(G, "terminated"))
    gae.set_keys(**keys)
    loss_fn = ClipPPOLoss(actor, critic, clip_epsilon=0.2)  # entropy bonus 0.01 by default (its name changed in 0.9)
    loss_fn.set_keys(action=(G, "action"), sample_log_prob=(G, "log_prob"), **keys)
    optim = torch.optim.Adam(loss_fn.parameters(), lr=3e-4)
    buffer = ReplayBuffer(storage=LazyTensorStorage(batch_steps), sampler=SamplerWithoutReplacement(),
                          batch_size=minibatch)
    env_steps = updates = 0
    losses: list[float] = []
    start = time.perf_counter()
    for batch in collector:
        env_steps += batch.numel()  # one env.step per frame: the batch has no env dimension
        decisions = per_seat_decisions(batch)
        with torch.no_grad():
            gae(decisions)
        buffer.empty()
        buffer.extend(decisions)
        losses = []
        for _ in range(epochs):
            for _ in range(len(decisions) // minibatch):
                parts = loss_fn(buffer.sample())
                total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
                optim.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss_fn.parameters(), 0.5)
                optim.step()
                updates += 1
                losses.append(total.item())
        collector.update_policy_weights_()
    seconds = time.perf_counter() - start
    collector.shutdown()
    return {"library": "torchrl", "game": game, "env_steps": env_steps, "seconds": round(seconds, 2),
            "steps_per_second": round(env_steps / seconds, 1), "updates": updates,
            "final_loss": sum(losses) / len(losses)}


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
