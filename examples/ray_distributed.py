"""Ray: this project's PPO trainer with its rollout workers as Ray actors on a cluster.

    pip install -e ".[train,ray]"
    python examples/ray_distributed.py --smoke                       # a local two-node cluster, under a minute
    python examples/ray_distributed.py --address auto --workers 8    # the cluster this machine is part of

The same as ``rummy-train --config configs/<game>.yaml --backend ray --ray-address ADDRESS``
(docs/distributed.md), from Python. Without ``--address`` the script starts a local cluster of
two nodes (``ray.cluster_utils.Cluster``, room for half the workers on each), so that the workers are spread
over both, as they would be over machines. At the end it prints the decisions each node
played (from the run's ``workers.csv``) and one ``RESULT {json}`` line.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import tempfile
import time
from collections import Counter
from pathlib import Path

from ray.cluster_utils import Cluster

from rummy_env import GAMES
from rummy_training.config import load_config
from rummy_training.ppo import Trainer

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=[g for g in GAMES if (CONFIGS / f"{g}.yaml").exists()], default="three_thirteen")
    ap.add_argument("--address", help="a Ray cluster to join (default: start a local two-node cluster)")
    ap.add_argument("--workers", type=int, default=2, help="rollout workers (Ray actors)")
    ap.add_argument("--updates", type=int, default=10, help="PPO updates of the game's default batch")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smoke", action="store_true", help="a tiny run: 3 updates of 2,048 steps, a small network")
    args = ap.parse_args()

    cluster = None
    if args.address is None:  # two nodes with room for half the workers each
        per_node = math.ceil(args.workers / 2)
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": per_node})
        cluster.add_node(num_cpus=per_node)
        cluster.wait_for_nodes()
    config = load_config(CONFIGS / f"{args.game}.yaml")
    changes = dict(backend="ray", ray_address=args.address or cluster.address, num_workers=args.workers,
                   seed=args.seed, eval_every=0, imitation_agent=None, progress=False)
    if args.smoke:
        changes.update(steps_per_update=2048, num_envs=8, hidden_sizes=(64,), minibatch_size=512)
    updates = 3 if args.smoke else args.updates
    changes["total_steps"] = updates * changes.get("steps_per_update", config.steps_per_update)
    with tempfile.TemporaryDirectory() as run_dir:
        config = dataclasses.replace(config, run_dir=run_dir, run_name="ray", **changes)
        config.validate()
        start = time.perf_counter()
        run = Trainer(config).train()
        seconds = time.perf_counter() - start
        with open(run / "metrics.csv") as f:
            metrics = list(csv.DictReader(f))
        with open(run / "workers.csv") as f:
            by_node = Counter()
            for row in csv.DictReader(f):
                by_node[row["node"]] += int(row["env_steps"])
    if cluster is not None:
        cluster.shutdown()
    for node, steps in sorted(by_node.items()):
        print(f"node {node}: {steps:,} decisions")
    env_steps = int(metrics[-1]["env_steps"])
    print("RESULT " + json.dumps({
        "library": "ray", "game": args.game, "env_steps": env_steps, "seconds": round(seconds, 2),
        "steps_per_second": round(env_steps / seconds, 1), "updates": len(metrics),
        "final_loss": float(metrics[-1]["policy_loss"]), "trained_decisions": int(metrics[-1]["trained_decisions"]),
        "nodes": len(by_node), "workers": args.workers}))


if __name__ == "__main__":
    main()
