"""RLlib (new API stack): PPO trains one shared, masked policy over every seat of a game,
with RLlib's env checking left on.

    pip install -e ".[train,rllib]"
    python examples/rllib_ppo.py --smoke                 # under a minute
    python examples/rllib_ppo.py --iterations 20
    python examples/rllib_ppo.py --address auto --env-runners 16   # the cluster this machine is part of

The env adapter and the action-masking module are ``rummy_training.rllib``
(``RummyMultiAgentEnv``, ``MaskedPPOModule``, ``ppo_config``): every seat's rewards reach
its own actions, illegal logits are masked before sampling, and the checker's unmasked
sample ends its test game instead of raising. Rollouts run in ``--env-runners`` Ray actors,
on a private Ray instance, or with ``--address`` on a running cluster (multi-node is RLlib's own).
One ``RESULT {json}`` line at the end gives the throughput (``env_steps``: decisions of
every seat), the last iteration's loss and the games finished (a game of a near-uniform
policy takes 4,000 to 7,000 steps; with the zero-sum ``relative`` reward, RLlib's
``episode_return_mean``, the sum over seats, is 0 by construction).
"""

from __future__ import annotations

import argparse
import json
import logging
import time

import ray

from rummy_env import GAMES
from rummy_training.rllib import SHARED_POLICY, ppo_config


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=list(GAMES), default="three_thirteen")
    ap.add_argument("--iterations", type=int, default=20, help="PPO iterations (each one batch and its update)")
    ap.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    ap.add_argument("--env-runners", type=int, default=1, help="Ray actors that step games")
    ap.add_argument("--address", help="a Ray cluster to join (default: a private instance, even if a cluster runs here)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smoke", action="store_true", help="a tiny run: 2 iterations of 1,000 steps, a small network")
    args = ap.parse_args()
    hidden = (256, 256)
    if args.smoke:
        args.iterations, args.batch, hidden = 2, 1000, (64,)

    if args.address:
        ray.init(address=args.address, include_dashboard=False, logging_level=logging.WARNING)
    else:  # "local": with no address Ray would join whatever cluster last started on this machine
        ray.init(address="local", num_cpus=max(2, args.env_runners + 1), include_dashboard=False,
                 logging_level=logging.WARNING)
    config = (
        ppo_config(args.game, hidden_sizes=hidden)
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(512, args.batch), num_epochs=4,
                  lr=3e-4, gamma=0.995, entropy_coeff=0.01)
        .debugging(seed=args.seed, log_level="WARN")
    )
    algo = config.build_algo()
    start = time.perf_counter()
    for _ in range(args.iterations):
        result = algo.train()
    seconds = time.perf_counter() - start
    learner = result["learners"][SHARED_POLICY]
    env_steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
    print("RESULT " + json.dumps({
        "library": "rllib", "game": args.game, "env_steps": env_steps, "seconds": round(seconds, 2),
        "steps_per_second": round(env_steps / seconds, 1), "updates": args.iterations,
        "final_loss": float(learner["total_loss"]),
        "games_finished": int(result["env_runners"].get("num_episodes_lifetime", 0))}))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
