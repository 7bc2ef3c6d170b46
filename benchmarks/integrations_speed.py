"""Training throughput of every integration example beside this project's own trainer, in
one run, on the same game and a similar budget of environment steps.

    python benchmarks/integrations_speed.py                    # Three-Thirteen, about 40,000 steps each
    python benchmarks/integrations_speed.py --steps 20000 --only sb3 torchrl

Each example (``examples/<library>_*.py``) runs in its own process with its budget set to
about ``--steps`` environment steps (decisions of every seat), and reports in its ``RESULT``
line the steps and the seconds of training alone (no imports, no start-up, no evaluation).
Besides environment steps per second it reports the decisions per second that the policy
trained on: SB3's learner plays one seat of four against cheap opponents, the trainer's
policy acts at most seats (self-play, with `greedy` in some), and the other examples' shared
policy acts and trains at every seat.
The trainer (``rummy_training.ppo.Trainer``) runs Three-Thirteen's default config with raw
observations (``features: none``, like the examples), no warm start and no evaluation,
with 1 and 2 rollout worker processes. A library that is not installed is left out.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rummy_training.config import load_config  # noqa: E402
from rummy_training.ppo import Trainer  # noqa: E402

# library -> (module it needs, script, the options that give it a budget of about `steps` env steps)
EXAMPLES = {
    "sb3": ("sb3_contrib", "sb3_maskable_ppo.py",
            lambda steps: ["--steps", str(steps // 4), "--eval-games", "0", "--opponents", "greedy"]),  # 4 seats
    "rllib": ("ray.rllib", "rllib_ppo.py", lambda steps: ["--iterations", str(max(1, steps // 4000)), "--batch", "4000"]),
    "torchrl": ("torchrl", "torchrl_ppo.py", lambda steps: ["--steps", str(steps)]),
    "tianshou": ("tianshou", "tianshou_ppo.py", lambda steps: ["--steps", str(steps)]),
    "ray": ("ray", "ray_distributed.py", lambda steps: ["--updates", str(max(1, steps // 16384))]),
}


def run_example(library: str, steps: int) -> dict:
    module, script, budget = EXAMPLES[library]
    done = subprocess.run([sys.executable, str(REPO / "examples" / script), *budget(steps)], cwd=REPO,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{script} failed:\n{done.stderr[-2000:]}")
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def run_trainer(steps: int, workers: int) -> dict:
    config = load_config(REPO / "configs" / "three_thirteen.yaml")
    with tempfile.TemporaryDirectory() as run_dir:
        config = dataclasses.replace(config, features="none", imitation_agent=None, eval_every=0, progress=False,
                                     num_workers=workers, total_steps=steps, run_dir=run_dir, run_name="speed")
        config.validate()
        start = time.perf_counter()
        Trainer(config).train()
        seconds = time.perf_counter() - start
        with open(Path(run_dir) / "speed" / "metrics.csv") as f:
            last = list(csv.DictReader(f))[-1]
    return {"library": f"rummy_training ({workers} worker{'s' if workers > 1 else ''})",
            "env_steps": int(last["env_steps"]), "trained_decisions": int(last["trained_decisions"]),
            "seconds": round(seconds, 2), "steps_per_second": round(int(last["env_steps"]) / seconds, 1)}


def trained_decisions(result: dict) -> int:
    """Decisions the policy trained on: SB3's learner plays one seat; the other examples'
    shared policy plays and trains on every seat."""
    return result.get("trained_decisions", result.get("learner_steps", result["env_steps"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=40_000, help="environment steps per run (default 40,000)")
    ap.add_argument("--only", nargs="+", choices=list(EXAMPLES), help="examples to run (default: every installed one)")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args(argv)
    print(f"integrations_speed: Three-Thirteen, 4 players, about {args.steps:,} steps each; "
          f"{os.cpu_count()} logical CPUs, load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    results = [run_trainer(args.steps, workers) for workers in (1, 2)]
    for row in results:
        print(f"  {row['library']}: {row['steps_per_second']:,.0f} steps/s", flush=True)
    for library in args.only or list(EXAMPLES):
        if importlib.util.find_spec(EXAMPLES[library][0].split(".")[0]) is None:
            print(f"  {library}: not installed, left out")
            continue
        results.append(run_example(library, args.steps))
        print(f"  {library}: {results[-1]['steps_per_second']:,.0f} steps/s", flush=True)
    head = f"{'trainer':<28} {'env steps':>10} {'seconds':>8} {'steps/s':>9} {'trained decisions/s':>20}"
    print()
    print(head)
    print("-" * len(head))
    for row in results:
        print(f"{row['library']:<28} {row['env_steps']:>10,} {row['seconds']:>8.1f} {row['steps_per_second']:>9,.0f} "
              f"{trained_decisions(row) / row['seconds']:>20,.0f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
