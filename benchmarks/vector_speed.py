"""Agent steps per second of batched random play (``rummy_env.vector``), with the observation
and the mask of every decision, on one thread and on two, beside OpenSpiel's gin rummy (its
observation tensor and legal-action mask at every decision, ``env_speed.py``'s loop) in the
same run; and the memory a table takes.

    python benchmarks/vector_speed.py --seconds 3
    python benchmarks/vector_speed.py --memory      # resident bytes per table, 4,096 tables

The loop is what a batched learner runs: ``observe(out=buffers)`` (every table's seat,
observation and mask, written into the same buffers each time, as a learner writes into its
rollout buffer; ``--fresh`` for new arrays at every call), one random legal action per table
(``Tables.random_legal``: picked in the core's threads from each table's legal list, the
picks ``rummy_env.vector_env.random_legal`` makes from the mask), ``step(actions)``. Every
table step is one live agent step. The core's own rate (observe and step, without the choice
of the actions) is reported beside it. Every measurement plays the same games from
a fresh deal (table ``i`` dealt seed ``i``, the actions from a generator seeded 0) for the
same number of calls, as many as the first thread count makes in ``--seconds`` (a random
game's later rounds cost more than its first, so a fixed time would compare different work).
Each repeat runs the reference and then every thread count in turn, so that the thread
counts' ratio is taken within a repeat (the "paired" columns, the median over repeats); the
other figures are medians over repeats. The backend is the batch's default, the
compiled core (``RUMMY_ENV_BACKEND=python`` measures the reference engine; the ``backend``
column says which).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from benchmarks.env_speed import REFERENCE_GAME, cpu_info, environment_info, run_reference  # noqa: E402
from rummy_env import vector  # noqa: E402
from rummy_env.registry import GAMES  # noqa: E402


def run_batch(tables: vector.Tables, calls: int | None, seconds: float, reuse: bool) -> dict[str, float]:
    """The observe / choose / step loop from a fresh deal (table ``i`` dealt seed ``i``, the
    actions drawn from a generator seeded 0), for exactly ``calls`` calls, or for ``seconds``
    when ``calls`` is None: agent steps per second, the CPU share, the core's steps per second
    (observe and step only, without the choice) and the calls made. Every run of a given
    ``calls`` plays the same games to the same point, whatever the thread count. With
    ``reuse``, ``observe`` fills the same buffers every time (as a rollout buffer's rows)."""
    tables.reset(seeds=list(range(tables.num_tables)))
    rng = np.random.default_rng(0)
    made = 0
    in_core = 0.0
    out = tables.observe() if reuse else None
    cpu0, start = time.process_time(), time.perf_counter()
    while True:
        t0 = time.perf_counter()
        tables.observe(out=out)
        t1 = time.perf_counter()
        actions = tables.random_legal(rng)
        t2 = time.perf_counter()
        tables.step(actions)
        t3 = time.perf_counter()
        in_core += (t1 - t0) + (t3 - t2)
        made += 1
        elapsed = t3 - start
        if made == calls or (calls is None and elapsed >= seconds):
            steps = made * tables.num_tables
            return {"steps_per_second": steps / elapsed, "cpu_share": (time.process_time() - cpu0) / elapsed,
                    "core_steps_per_second": steps / in_core, "calls": made}


def resident_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def memory_per_table(game: str, players: int, num_tables: int, steps: int) -> dict[str, float]:
    """Resident bytes per table: the process's growth from building ``num_tables`` tables
    and playing ``steps`` batched random steps (observations handed out included)."""
    before = resident_bytes()
    tables = vector.make(game, num_tables, num_players=players, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        tables.observe()
        tables.step(tables.random_legal(rng))
    grown = resident_bytes() - before
    return {"game": game, "players": players, "backend": tables.backend, "tables": num_tables,
            "steps": steps, "bytes": grown, "bytes_per_table": grown / num_tables}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=3.0, help="length of one measurement")
    p.add_argument("--repeats", type=int, default=3, help="measurements per configuration (median reported)")
    p.add_argument("--tables", type=int, default=1024, help="tables per batch")
    p.add_argument("--fresh", action="store_true",
                   help="observe() into new arrays at every step (default: into the same buffers, observe(out=...))")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    p.add_argument("--memory", action="store_true", help="measure memory per table instead (its own process)")
    p.add_argument("--json", help="write the results here")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.memory:
        rows = [memory_per_table(game, 8 if game.startswith("contract") else args.players, 4096, 50)
                for game in args.games]
        for row in rows:
            print(f"{row['game']:22s} {row['players']}p {row['backend']:6s} {row['tables']} tables: "
                  f"{row['bytes'] / 2**20:7.1f} MiB, {row['bytes_per_table'] / 1024:7.1f} KiB per table")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"memory": rows}, f, indent=2)
        return 0
    import pyspiel

    print(json.dumps(environment_info(True)))
    print(cpu_info())
    reference = pyspiel.load_game(REFERENCE_GAME)
    rng = np.random.default_rng(0)
    rows, refs = [], []
    for game in args.games:
        batches = {threads: vector.make(game, args.tables, num_players=args.players, seed=0, num_threads=threads)
                   for threads in args.threads}
        samples: dict[int, list] = {threads: [] for threads in args.threads}
        # as many calls as the first thread count makes in --seconds, then that many every time
        calls = run_batch(batches[args.threads[0]], None, args.seconds, not args.fresh)["calls"]
        for _ in range(args.repeats):  # the thread counts in turn, so that each repeat pairs them
            refs.append(run_reference(reference, pyspiel, rng, args.seconds, None).steps_per_second)
            for threads, tables in batches.items():
                samples[threads].append(run_batch(tables, calls, args.seconds, not args.fresh))
        for threads, tables in batches.items():
            runs = samples[threads]
            row = {"game": game, "players": args.players, "backend": tables.backend, "threads": threads,
                   "tables": args.tables, "fresh_arrays": args.fresh, "samples": runs,
                   **{k: statistics.median(s[k] for s in runs) for k in runs[0] if k != "calls"}, "calls": calls}
            base = samples[args.threads[0]]  # each repeat's ratio to the first thread count's run beside it
            for key in ("steps_per_second", "core_steps_per_second"):
                row[f"paired_{key}_ratio"] = statistics.median(s[key] / b[key] for s, b in zip(runs, base))
            rows.append(row)
            print(f"{game:22s} {tables.backend:6s} {threads} thread(s): {row['steps_per_second']:11,.0f} steps/s "
                  f"(in the core {row['core_steps_per_second']:,.0f}; CPU share {row['cpu_share']:.2f})", flush=True)
    ref = statistics.median(refs)
    print(f"\nopen_spiel {REFERENCE_GAME} (2p), observation + mask: {ref:,.0f} steps/s (median of {len(refs)})")
    print(f"\n| game | backend | threads | steps/s | x OpenSpiel gin | x {args.threads[0]} thread(s), paired | "
          "in the core, steps/s | x, paired |\n|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['game']} | {r['backend']} | {r['threads']} | {r['steps_per_second']:,.0f} | "
              f"{r['steps_per_second'] / ref:.1f} | {r['paired_steps_per_second_ratio']:.2f} | "
              f"{r['core_steps_per_second']:,.0f} | {r['paired_core_steps_per_second_ratio']:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"reference_steps_per_second": ref, "reference_samples": refs, "results": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
