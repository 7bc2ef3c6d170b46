"""Environment steps per second of training, per game, with each game's default config.

    python benchmarks/train_speed.py                       # every game, 6 updates each
    python benchmarks/train_speed.py --game three_thirteen --updates 10

Runs the real trainer (``rummy_training.ppo.Trainer``: rollout workers, batched policy, PPO
update) from ``configs/<game>.yaml`` with evaluation and the imitation warm start off, in a temporary run folder, and
reports the environment steps (decisions of every seat) per second of whole updates
(collection and update) after the first, which includes starting the workers. Target
(issue 6): at least 3,000 steps/s for Three-Thirteen on 2 cores with the default network.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env import GAMES  # noqa: E402
from rummy_training.config import load_config  # noqa: E402
from rummy_training.ppo import Trainer  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def measure(game: str, updates: int, workers: int | None, backend: str = "process") -> list[float]:
    """Steps per second of each update after the first, with rollout workers on ``backend``."""
    config = load_config(CONFIGS / f"{game}.yaml")
    with tempfile.TemporaryDirectory() as run_dir:
        # no warm start: it happens once, before training, and is not the steady state measured
        changes = dict(total_steps=(updates + 1) * config.steps_per_update, eval_every=0, progress=False,
                       imitation_agent=None, run_dir=run_dir, run_name="speed", backend=backend)
        if workers is not None:
            changes["num_workers"] = workers
        config = dataclasses.replace(config, **changes)
        config.validate()
        Trainer(config).train()
        with open(Path(run_dir) / "speed" / "metrics.csv") as f:
            rows = list(csv.DictReader(f))
    return [float(row["steps_per_second"]) for row in rows[1:]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=list(GAMES), action="append",
                    help="game to measure (repeatable; default: every game with a config in configs/)")
    ap.add_argument("--updates", type=int, default=6, help="updates measured per game, after the first (default 6)")
    ap.add_argument("--workers", type=int, help="override the configs' num_workers")
    args = ap.parse_args(argv)
    if args.updates < 1:
        ap.error("--updates must be at least 1")
    print(f"train_speed: {os.cpu_count()} logical CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    head = f"{'game':<18} {'steps/s (median)':>17} {'min':>8} {'max':>8}"
    results = []
    for game in args.game or [g for g in GAMES if (CONFIGS / f"{g}.yaml").exists()]:
        speeds = measure(game, args.updates, args.workers)
        results.append(f"{game:<18} {statistics.median(speeds):>17,.0f} {min(speeds):>8,.0f} {max(speeds):>8,.0f}")
        print(f"  {game}: {', '.join(f'{s:,.0f}' for s in speeds)}", flush=True)
    print()
    print(head)
    print("-" * len(head))
    print("\n".join(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
