"""Microseconds per call of the meld engine on random hands: the compiled core
(src/core/meld_solver.cpp, contract_solver.cpp, backend ``native``) and its Python reference
(rummy_env/meld_solver.py, contract_solver.py, backend ``python``) side by side, with
their answers compared.

For each meld-rule configuration, hand size and number of wilds it times the four solver
queries on distinct random hands:

    can_meld_all(counts, wilds)            do all the cards meld?
    meldable_without_one(counts, wilds)    which one card may be left out (going out)?
    min_penalty(counts, wilds, values, w)  least penalty of the unmatched cards
    can_make_contract(counts, wilds, s, r) can s sets and r runs be made at once?

The solver memoises subproblems across calls, so every measurement says how warm its
memo was:

    cold  every call starts with empty memos (a new ContractSolver, built untimed, per call)
    warm  one fresh ContractSolver per measured batch, its memos carried from hand to hand
          (as an environment's solver is during a game); every hand is still distinct

    python benchmarks/meld_speed.py --seconds 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from itertools import product
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env.cards import CardSet  # noqa: E402
from rummy_env.backend import BACKENDS, solver as make_solver  # noqa: E402
from rummy_env.melds import MeldRules  # noqa: E402

STANDARD = CardSet("standard", 4, 13, True)
ROOK = CardSet("rook", 4, 14, True)


@dataclass(frozen=True)
class RuleConfig:
    card_set: CardSet
    decks: int  # natural cards are drawn from this many shuffled decks
    rules: MeldRules
    rank_values: tuple[int, ...]  # penalty of an unmatched natural, by rank (min_penalty)
    wild_value: int  # penalty of an unmatched wild (min_penalty)
    note: str


# Penalty values only steer min_penalty's pruning; they follow the usual scoring of each game.
CONFIGS = {
    "three_thirteen": RuleConfig(
        STANDARD, 2, MeldRules(all_wild_melds=True),
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10), 10,
        "2 standard decks, MeldRules(all_wild_melds=True)"),
    "contract_rummy": RuleConfig(
        STANDARD, 2, MeldRules(set_max=4, set_distinct_suits=True, ace_high=True),
        (15, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10), 50,
        "2 standard decks, MeldRules(set_max=4, set_distinct_suits=True, ace_high=True)"),
    "rook": RuleConfig(
        ROOK, 2, MeldRules(run_min=4),
        (5, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10), 20,
        "2 Rook decks (4 colours x 1..14), MeldRules(run_min=4)"),
}

# The seven contracts of Contract Rummy as (sets, runs); hand i is asked contract i % 7.
CONTRACTS = [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]

QUERIES = ["can_meld_all", "meldable_without_one", "min_penalty", "can_make_contract"]


class Hands:
    """A fixed-seed stream of distinct random hands (counts of naturals, wilds), extended
    on demand; every measurement of one configuration walks the same stream from its start."""

    def __init__(self, cfg: RuleConfig, hand_size: int, wilds: int, seed: int) -> None:
        self.deck = [f for _ in range(cfg.decks) for f in range(cfg.card_set.num_naturals)]
        self.n_naturals = hand_size - wilds
        self.num_faces = cfg.card_set.num_naturals
        self.rng = random.Random(seed)
        self.seen: set[tuple[int, ...]] = set()
        self.hands: list[list[int]] = []

    def __getitem__(self, i: int) -> list[int]:
        while len(self.hands) <= i:
            counts = [0] * self.num_faces
            for f in self.rng.sample(self.deck, self.n_naturals):
                counts[f] += 1
            key = tuple(counts)
            if key not in self.seen:
                self.seen.add(key)
                self.hands.append(counts)
        return self.hands[i]


def make_call(query: str, cfg: RuleConfig, wilds: int):
    values = [cfg.rank_values[f % cfg.card_set.num_ranks] for f in range(cfg.card_set.num_naturals)]
    if query == "can_meld_all":
        return lambda s, c, i: s.can_meld_all(c, wilds)
    if query == "meldable_without_one":
        return lambda s, c, i: s.meldable_without_one(c, wilds)
    if query == "min_penalty":
        return lambda s, c, i: s.min_penalty(c, wilds, values, cfg.wild_value)
    if query == "can_make_contract":
        return lambda s, c, i: s.can_make_contract(c, wilds, *CONTRACTS[i % len(CONTRACTS)])
    raise ValueError(query)


def summarise_outcome(query: str, results: list) -> str:
    if query in ("can_meld_all", "can_make_contract"):
        return f"{100 * sum(map(bool, results)) / len(results):.0f}% true"
    if query == "meldable_without_one":
        ok = sum(1 for faces, wild in results if faces or wild)
        return f"{100 * ok / len(results):.0f}% can go out"
    return f"mean {sum(results) / len(results):.1f}"


def measure(cfg, hands: Hands, query: str, wilds: int, memo: str, backend: str, seconds, calls, min_calls,
            max_calls, clock):
    """Time one query on hands 0, 1, 2, ... until the budget is spent; returns
    (per-call nanoseconds, results)."""
    call = make_call(query, cfg, wilds)
    solver = make_solver(cfg.card_set, cfg.rules, backend)
    times: list[int] = []
    results: list = []
    deadline = time.perf_counter() + (seconds if seconds is not None else float("inf"))
    i = 0
    while True:
        if calls is not None:
            if i >= calls:
                break
        elif i >= max_calls or (i >= min_calls and time.perf_counter() >= deadline):
            break
        counts = hands[i]  # generated (untimed) on first use
        if memo == "cold":
            # A new solver rather than clearing its memo dicts by name: robust to memos
            # the solver may add (some are seeded with base cases, so clearing would break them).
            solver = make_solver(cfg.card_set, cfg.rules, backend)
        t0 = clock()
        r = call(solver, counts, i)
        times.append(clock() - t0)
        results.append(r)
        i += 1
    return times, results


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", nargs="+", choices=list(CONFIGS), default=list(CONFIGS),
                    help="meld-rule configurations (default: all)")
    ap.add_argument("--hand-sizes", type=int, nargs="+", default=[13, 16],
                    help="cards per hand, wilds included (default: 13 16)")
    ap.add_argument("--wilds", type=int, nargs="+", default=[0, 2, 4], help="wilds per hand (default: 0 2 4)")
    ap.add_argument("--queries", nargs="+", choices=QUERIES, default=QUERIES, help="queries to time (default: all)")
    ap.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS),
                    help="solvers to time, side by side (default: both)")
    ap.add_argument("--memo", choices=["cold", "warm", "both"], default="both",
                    help="memo state of the measured calls (default: both)")
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=2.0,
                        help="time budget of one (rules, hand size, wilds) configuration, shared equally "
                             "by its query x memo measurements (default 2)")
    budget.add_argument("--calls", type=int, help="instead of a time budget, exactly this many hands per measurement")
    ap.add_argument("--min-calls", type=int, default=50,
                    help="with a time budget, at least this many calls per measurement (default 50)")
    ap.add_argument("--max-calls", type=int, default=100_000,
                    help="with a time budget, at most this many calls per measurement (default 100000)")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="time calls by wall clock (perf_counter, default) or by process CPU time "
                         "(process_time: ignores time the process was preempted on a busy machine)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random hands (default 0)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    if args.calls is not None:
        args.seconds = None
        if args.calls < 1:
            ap.error("--calls must be at least 1")
    elif args.seconds <= 0:
        ap.error("--seconds must be positive")
    for h in args.hand_sizes:
        for w in args.wilds:
            if not 0 <= w <= h:
                ap.error(f"{w} wilds do not fit a hand of {h} cards")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    memos = ["cold", "warm"] if args.memo == "both" else [args.memo]
    per_measure = None if args.seconds is None else args.seconds / (len(args.queries) * len(memos) * len(args.backends))
    clock = time.perf_counter_ns if args.clock == "wall" else time.process_time_ns
    wall0, cpu0 = time.perf_counter(), time.process_time()
    print("meld_speed: microseconds per solver call on distinct random hands, backends " + ", ".join(args.backends))
    print(f"  python      {platform.python_version()} ({platform.python_implementation()}), numpy {np.__version__}")
    print(f"  platform    {platform.platform()}")
    if args.seconds is not None:
        print(f"  budget      {args.seconds:g} s per configuration = {per_measure:.3g} s per query x memo x backend "
              f"(at least {args.min_calls}, at most {args.max_calls} calls), seed {args.seed}")
    else:
        print(f"  budget      {args.calls} hands per measurement, seed {args.seed}")
    print(f"  clock       {args.clock} ({'time.perf_counter_ns' if args.clock == 'wall' else 'time.process_time_ns'})")
    print("  memo        cold = a new solver (empty memos) for every call; warm = one fresh solver per batch, "
          "memos kept across its (distinct) hands")
    for name in args.rules:
        print(f"  {name:<15} {CONFIGS[name].note}")
    print(f"  contracts   hand i asks for CONTRACTS[i % 7] of {CONTRACTS} (sets, runs)")
    print(flush=True)

    head = (f"{'rules':<15} {'hand':>4} {'wilds':>5}  {'query':<21} {'memo':<5} {'backend':<7} {'calls':>6} "
            f"{'mean us':>9} {'p50 us':>9} {'p99 us':>9} {'max us':>9}  outcome")
    print(head)
    print("-" * len(head))
    rows = []
    mismatches = 0
    for ci, name in enumerate(args.rules):
        cfg = CONFIGS[name]
        for hand_size in args.hand_sizes:
            for wilds in args.wilds:
                hands = Hands(cfg, hand_size, wilds, seed=hash((args.seed, ci, hand_size, wilds)) & 0xFFFFFFFF)
                for query in args.queries:
                    answers = {}
                    for memo, backend in product(memos, args.backends):
                        ns, results = measure(cfg, hands, query, wilds, memo, backend, per_measure, args.calls,
                                              args.min_calls, args.max_calls, clock)
                        answers[memo, backend] = results
                        us = np.asarray(ns, dtype=np.float64) / 1000.0
                        row = {
                            "rules": name, "hand_size": hand_size, "wilds": wilds, "query": query,
                            "memo": memo, "memo_warm": memo == "warm", "backend": backend, "calls": len(us),
                            "mean_us": float(us.mean()), "p50_us": float(np.percentile(us, 50)),
                            "p99_us": float(np.percentile(us, 99)), "max_us": float(us.max()),
                            "outcome": summarise_outcome(query, results),
                        }
                        rows.append(row)
                        print(f"{name:<15} {hand_size:>4} {wilds:>5}  {query:<21} {memo:<5} {backend:<7} {row['calls']:>6} "
                              f"{row['mean_us']:>9.1f} {row['p50_us']:>9.1f} {row['p99_us']:>9.1f} "
                              f"{row['max_us']:>9.1f}  {row['outcome']}", flush=True)
                    # neither the memo's state nor the backend may change an answer
                    first_key, first = next(iter(answers.items()))
                    for key, other in answers.items():
                        k = min(len(first), len(other))
                        if first[:k] != other[:k]:
                            mismatches += 1
                            print(f"  WARNING: {first_key} and {key} answers differ for {name}/{hand_size}/{wilds}/{query}")
    share = (time.process_time() - cpu0) / max(time.perf_counter() - wall0, 1e-9)
    print()
    print(f"CPU share: the process ran {100 * share:.0f}% of the wall time"
          + ("" if share >= 0.9 else " -- the machine was busy; wall-clock p99/max include preemption"
             + (" (try --clock cpu)" if args.clock == "wall" else "")))
    print("p99 is of the calls in one measurement; with few calls (slow queries, small budgets) it is close to the max.")
    if mismatches:
        print(f"WARNING: {mismatches} measurement(s) gave different answers (memo state or backend)")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "meld_speed", "python": platform.python_version(), "cpu_share": share,
                       "platform": platform.platform(), "args": vars(args), "contracts": CONTRACTS,
                       "results": rows}, f, indent=2)
        print(f"wrote {args.json}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
