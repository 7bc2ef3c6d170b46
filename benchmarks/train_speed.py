"""Environment steps per second of training, per game, with each game's config in a folder.

    python benchmarks/train_speed.py                              # configs/scratch: the batched trainer
    python benchmarks/train_speed.py --configs configs            # the shipped configs (dense policy)
    python benchmarks/train_speed.py --game three_thirteen --updates 10

Runs the real trainer (``rummy_training.ppo.Trainer``: rollout workers, batched policy, PPO
update) from ``<configs>/<game>.yaml`` with evaluation and the imitation warm start off, in a
temporary run folder, and reports the environment steps (decisions of every seat) per second
of whole updates (collection and update) after the first, which includes starting the
workers, with where the time went (median seconds per update): the collection (for
``policy: legal`` split into the core's observe, legal lists and step; the policies'
inputs and features; their forward passes and sampling; the rest) and the update. OpenSpiel's gin rummy playing
random games with observations (``env_speed.py``'s loop) runs in the same process first,
as the reference (skipped where open_spiel is not importable). Goal (issue 48): at least
20,000 steps/s in every game on 2 cores, and at least OpenSpiel's random play.
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

import numpy as np  # noqa: E402

from benchmarks.env_speed import REFERENCE_GAME, run_reference  # noqa: E402
from rummy_env import GAMES  # noqa: E402
from rummy_training.config import load_config  # noqa: E402
from rummy_training.ppo import Trainer  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


PARTS = ("collect_seconds", "collect_core_seconds", "collect_features_seconds", "collect_forward_seconds",
         "collect_bookkeeping_seconds", "update_seconds")


def measure(game: str, updates: int, workers: int | None, backend: str = "process",
            configs: Path = CONFIGS / "scratch") -> list[dict[str, float]]:
    """Each update after the first: its steps per second and its parts' seconds (``PARTS``,
    where the metrics have them), with rollout workers on ``backend``."""
    config = load_config(configs / f"{game}.yaml")
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
    return [{key: float(row[key]) for key in ("steps_per_second",) + PARTS if row.get(key)} for row in rows[1:]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=list(GAMES), action="append",
                    help="game to measure (repeatable; default: every game with a config in the folder)")
    ap.add_argument("--configs", type=Path, default=CONFIGS / "scratch",
                    help="folder of <game>.yaml configs (default configs/scratch)")
    ap.add_argument("--updates", type=int, default=6, help="updates measured per game, after the first (default 6)")
    ap.add_argument("--workers", type=int, help="override the configs' num_workers")
    ap.add_argument("--reference-seconds", type=float, default=5.0, help="OpenSpiel gin's random play (default 5 s)")
    args = ap.parse_args(argv)
    if args.updates < 1:
        ap.error("--updates must be at least 1")
    print(f"train_speed: {os.cpu_count()} logical CPUs, load average {os.getloadavg()[0]:.2f} at the start; "
          f"configs {args.configs}")
    try:
        import pyspiel

        reference = run_reference(pyspiel.load_game(REFERENCE_GAME), pyspiel, np.random.default_rng(0),
                                  args.reference_seconds, None).steps_per_second
        print(f"  OpenSpiel {REFERENCE_GAME}, random play with observations: {reference:,.0f} steps/s")
    except ImportError as err:
        reference = None
        print(f"  OpenSpiel reference skipped: {err}")
    head = (f"{'game':<18} {'steps/s (median)':>17} {'min':>8} {'max':>8}  seconds per update: "
            f"{'collect':>7} {'core':>6} {'features':>8} {'forward':>7} {'rest':>6} {'update':>7}")
    results = []
    for game in args.game or [g for g in GAMES if (args.configs / f"{g}.yaml").exists()]:
        rows = measure(game, args.updates, args.workers, configs=args.configs)
        speeds = [row["steps_per_second"] for row in rows]
        parts = "".join(f" {statistics.median(r.get(k, float('nan')) for r in rows):>{w}.3f}"
                        for k, w in zip(PARTS, (7, 6, 8, 7, 6, 7)))
        results.append(f"{game:<18} {statistics.median(speeds):>17,.0f} {min(speeds):>8,.0f} {max(speeds):>8,.0f}  "
                       f"{'':19}{parts}")
        print(f"  {game}: {', '.join(f'{s:,.0f}' for s in speeds)}", flush=True)
    print()
    print(head)
    print("-" * len(head))
    print("\n".join(results))
    if reference is not None:
        print(f"OpenSpiel {REFERENCE_GAME} random play in the same run: {reference:,.0f} steps/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
