"""Environment speed of this checkout against another revision, side by side in one run.

It checks the other revision out into a temporary git worktree and runs
``benchmarks/env_speed.py`` there and here alternately (the order swapped every round), so
that both meet the same machine load; each run's own ``--seed`` plays the same games in
both trees when behaviour is unchanged. It reports, per game and player count, the median
steps/s of each tree and the median of the per-round ratios (this / other).

    python benchmarks/env_speed_versus.py --against 2224768 --rounds 5 --games 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run_env_speed(tree: Path, budget: list[str], seed: int, out: Path) -> dict[str, float]:
    """Steps/s per configuration of one ``env_speed.py`` run in ``tree``."""
    subprocess.run(
        [sys.executable, "benchmarks/env_speed.py", "--no-reference", "--repeats", "1", "--warmup", "0.5",
         *budget, "--seed", str(seed), "--json", str(out)],
        cwd=tree, check=True, stdout=subprocess.DEVNULL,
    )
    return {row["name"]: row["median_steps_per_second"] for row in json.loads(out.read_text())["results"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="the git revision to compare with (e.g. a commit or tag)")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each tree, alternating (default 3)")
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=3.0, help="time budget per configuration and run (default 3)")
    budget.add_argument("--games", type=int,
                        help="instead, exactly this many complete games per configuration and run: the same "
                             "games in both trees when behaviour is unchanged, so the same work is timed")
    args = ap.parse_args(argv)
    budget_args = ["--games", str(args.games)] if args.games else ["--seconds", str(args.seconds)]
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(other), args.against], cwd=HERE, check=True)
        try:
            runs: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
            for r in range(args.rounds):
                order = [("this", HERE), ("other", other)]
                for name, tree in order if r % 2 == 0 else order[::-1]:
                    runs[name].append(run_env_speed(tree, budget_args, r, Path(tmp) / f"{name}.json"))
                    print(f"  round {r + 1}/{args.rounds}: {name} done", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=HERE, check=True)
    print(f"\nsteps/s, median of {args.rounds} runs per tree; ratio: median over rounds of this / {args.against}")
    head = f"{'configuration':<28} {'this':>10} {args.against[:10]:>10} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for config in runs["this"][0]:
        this = [run[config] for run in runs["this"]]
        if config not in runs["other"][0]:
            print(f"{config:<28} {statistics.median(this):>10,.0f} {'-':>10} {'-':>7}")
            continue
        other_sps = [run[config] for run in runs["other"]]
        ratio = statistics.median(a / b for a, b in zip(this, other_sps))
        print(f"{config:<28} {statistics.median(this):>10,.0f} {statistics.median(other_sps):>10,.0f} {ratio:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
