"""Training steps per second with 1, 2 and 4 rollout workers, local processes against Ray
actors, side by side in one run.

    python benchmarks/distributed_speed.py                       # Three-Thirteen, 4 updates each
    python benchmarks/distributed_speed.py --game contract_rummy --workers 1 2 --updates 3

For each worker count it runs the real trainer (``train_speed.measure``: the game's default
config, no warm start, no evaluation) once with ``backend: process`` and once with
``backend: ray`` (a private Ray instance on this machine), alternating so that a change in
the machine's load hits both alike, and reports the median steps per second of whole updates
(collection and the learner's update) after the first. The Ray column needs the [ray] extra.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # train_speed, beside this file

from train_speed import CONFIGS, GAMES, measure  # noqa: E402

BACKENDS = ("process", "ray")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=list(GAMES), default="three_thirteen")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4], help="worker counts (default 1 2 4)")
    ap.add_argument("--updates", type=int, default=4, help="updates measured per setting, after the first")
    ap.add_argument("--json", help="write every sample and the settings to this file")
    args = ap.parse_args(argv)
    if args.updates < 1 or any(w < 1 for w in args.workers):
        ap.error("--updates and --workers must be at least 1")
    print(f"distributed_speed: {args.game}, {os.cpu_count()} logical CPUs, "
          f"load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    samples: dict[str, dict[str, list[float]]] = {}
    for workers in args.workers:
        for backend in BACKENDS:
            speeds = [row["steps_per_second"] for row in measure(args.game, args.updates, workers, backend, CONFIGS)]
            samples.setdefault(str(workers), {})[backend] = speeds
            print(f"  {workers} worker(s), {backend}: {', '.join(f'{s:,.0f}' for s in speeds)}", flush=True)
    head = f"{'workers':>7} {'process steps/s':>16} {'ray steps/s':>12} {'ray/process':>12}"
    print()
    print(head)
    print("-" * len(head))
    for workers, by_backend in samples.items():
        local, ray = (statistics.median(by_backend[b]) for b in BACKENDS)
        print(f"{workers:>7} {local:>16,.0f} {ray:>12,.0f} {ray / local:>12.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "updates": args.updates, "cpus": os.cpu_count(), "samples": samples}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
