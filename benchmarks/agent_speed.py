"""Milliseconds per decision that each baseline agent spends in ``act``.

For every game at 4 players and every baseline agent (``random``, ``greedy``, ``expert``),
it plays ``--games`` games with that agent in all four seats and reports the mean, p99 and
max time of one ``act`` call and the decisions per game. Only ``act`` is timed (by the
``TimedAgent`` wrapper of ``rummy-eval``), so the env's own time (masks, observations) is
left out; an agent that asks for ``decision.view`` pays for building it. A baseline whose
module does not import yet is skipped with a note.

    python benchmarks/agent_speed.py --games 20

Everything runs in this one process, single-threaded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from env_speed import cpu_info  # noqa: E402  (beside this script)

from rummy_env.agents import AGENT_NAMES, make_agent, play_game  # noqa: E402
from rummy_env import GAMES  # noqa: E402
from rummy_env.evaluate import TimedAgent, block_seed, parse_env_kwarg, versions  # noqa: E402

PLAYERS = 4


def measure(game: str, agent_name: str, games: int, seed: int, env_kwargs: dict) -> dict:
    """Plays ``games`` games of ``agent_name`` in every seat; the per-decision times of
    ``act`` and the decision counts."""
    env = GAMES[game].env(num_players=PLAYERS, **env_kwargs)
    seats = [TimedAgent(make_agent(agent_name), agent_name, keep_samples=True) for _ in range(PLAYERS)]
    decisions = 0
    cpu0 = time.process_time()
    start = time.perf_counter()
    for g in range(games):
        decisions += sum(play_game(env, seats, block_seed(seed, g)).decisions)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu0
    ms = 1000.0 * np.concatenate([np.asarray(seat.samples) for seat in seats])
    return {"game": game, "agent": agent_name, "games": games, "decisions": decisions,
            "decisions_per_game": decisions / games, "mean_ms": float(ms.mean()),
            "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max()),
            "act_share": float(ms.sum() / 1000.0 / wall), "seconds_per_game": wall / games, "cpu_share": cpu / wall}


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per game and agent (default 20)")
    ap.add_argument("--game", choices=list(GAMES), action="append", help="game to measure (repeatable; default: all)")
    ap.add_argument("--agent", choices=AGENT_NAMES, action="append",
                    help="baseline to measure (repeatable; default: all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    ap.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, default=[], metavar="KEY=VALUE",
                    help="rule configuration, as for rummy-eval (e.g. max_turns_per_round=100)")
    ap.add_argument("--json", metavar="PATH", help="also write the settings and results as JSON")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    env_kwargs = dict(args.env_kwargs)
    info = dict(versions(), cpu=cpu_info())
    print("agent_speed: milliseconds per decision spent in act (the env's time excluded)")
    for key, value in info.items():
        print(f"  {key:<11} {value}")
    print(f"  budget      {args.games} game(s) per configuration, {PLAYERS} players, seed {args.seed}"
          + (f", rules {env_kwargs}" if env_kwargs else ""))
    print(flush=True)

    skipped = {}
    agents = []
    for name in args.agent or AGENT_NAMES:
        try:
            make_agent(name)
            agents.append(name)
        except ValueError as err:
            skipped[name] = str(err)
            print(f"  SKIPPED {name}: {err}")
    if skipped:
        print()

    head = (f"{'game':<17} {'agent':<7} {'mean ms':>9} {'p99 ms':>9} {'max ms':>9} {'decisions/game':>15} "
            f"{'act share':>10} {'s/game':>8}")
    print(head)
    print("-" * len(head))
    rows = []
    for game in args.game or GAMES:
        for name in agents:
            row = measure(game, name, args.games, args.seed, env_kwargs)
            rows.append(row)
            print(f"{game:<17} {name:<7} {row['mean_ms']:>9.4f} {row['p99_ms']:>9.4f} {row['max_ms']:>9.3f} "
                  f"{row['decisions_per_game']:>15,.0f} {100 * row['act_share']:>9.1f}% "
                  f"{row['seconds_per_game']:>8.3f}", flush=True)
    print()
    print("act share: the part of the wall time spent in act (the rest is the env and the loop).")
    if rows:
        share = min(row["cpu_share"] for row in rows)
        print(f"CPU share: the process ran at least {100 * share:.0f}% of the measured wall time"
              + ("" if share >= 0.9 else " -- the machine was busy; times are overstated and noisy"))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "agent_speed", "environment": info,
                       "args": {k: v for k, v in vars(args).items() if k != "env_kwargs"},
                       "env_kwargs": env_kwargs, "skipped": skipped, "results": rows}, f, indent=2)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
