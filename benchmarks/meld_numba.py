"""C++ or numba for the compiled core: the least-penalty search (the core's branch and bound,
src/core/meld_solver.cpp) written in numba, timed against the compiled core on the same
hands, answers compared. The measurement that decided the core's language
(docs/architecture.md#the-compiled-core); it needs numba (pip install numba).

    python benchmarks/meld_numba.py --seconds 3
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

import numba
import numpy as np
from numba import njit, types
from numba.typed import Dict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env.backend import solver as make_solver  # noqa: E402
from rummy_env.cards import CardSet  # noqa: E402
from rummy_env.melds import MeldRules  # noqa: E402

R, S, N = 13, 4, 52  # Three-Thirteen's deck: 4 suits of 13, two decks; sets 3+, runs 3+, all-wild sets
SET_MIN, RUN_MIN = 3, 3
UNLIMITED = 1 << 20
MAX_OPTIONS, MAX_FACES, MAX_DEPTH = 512, 16, 64
KEY = types.UniTuple(types.int64, 6)
VALUE = types.UniTuple(types.int64, 2)


@njit(cache=True)
def _options(c, i, wilds, faces, sizes, used, rooms):
    """The melds holding natural ``i`` (the core's enumeration, all sets then all runs): faces,
    wilds needed and room, into the depth's buffers; returns how many."""
    n = 0
    rank, suit = i % R, i // R
    # sets: per suit from i's own, how many copies join (all-wild sets allowed: no maximum)
    f_list = np.empty(4, np.int64)
    lo = np.empty(4, np.int64)
    hi = np.empty(4, np.int64)
    k = np.empty(4, np.int64)
    m = 0
    f_list[0], lo[0], hi[0] = i, 1, c[i]
    m = 1
    for t in range(suit + 1, S):
        f = t * R + rank
        if c[f]:
            f_list[m], lo[m], hi[m] = f, 0, c[f]
            m += 1
    for j in range(m):
        k[j] = lo[j]
    while True:
        total = 0
        for j in range(m):
            total += k[j]
        need = SET_MIN - total if total < SET_MIN else 0
        if need <= wilds:
            s = 0
            for j in range(m):
                for _ in range(k[j]):
                    faces[n, s] = f_list[j]
                    s += 1
            sizes[n], used[n], rooms[n] = s, need, UNLIMITED
            n += 1
        j = m - 1
        while j >= 0 and k[j] == hi[j]:
            k[j] = lo[j]
            j -= 1
        if j < 0:
            break
        k[j] += 1
    # runs upward from i (ace low only), a stack of (top, gaps, naturals)
    base = suit * R
    p0 = i % R
    stack_q = np.empty(64, np.int64)
    stack_g = np.empty(64, np.int64)
    stack_f = np.empty((64, MAX_FACES), np.int64)
    stack_n = np.empty(64, np.int64)
    top = 0
    stack_q[0], stack_g[0], stack_n[0] = p0, 0, 1
    stack_f[0, 0] = i
    top = 1
    max_pos = R - 1
    while top:
        top -= 1
        q, gaps, size = stack_q[top], stack_g[top], stack_n[top]
        row = stack_f[top].copy()
        length = q - p0 + 1
        pad = RUN_MIN - length if length < RUN_MIN else 0
        if gaps + pad <= wilds and length + pad <= R and (max_pos - q) + p0 >= pad:
            for x in range(size):
                faces[n, x] = row[x]
            sizes[n], used[n], rooms[n] = size, gaps + pad, R - length - pad
            n += 1
        for nq in range(q + 1, R):
            g = gaps + (nq - q - 1)
            if g > wilds or nq - p0 + 1 > R:
                break
            if c[base + nq]:
                stack_q[top], stack_g[top], stack_n[top] = nq, g, size + 1
                for x in range(size):
                    stack_f[top, x] = row[x]
                stack_f[top, size] = base + nq
                top += 1
    return n


@njit(cache=True)
def _unplaced(wilds, room):
    if wilds <= room:
        return 0
    if wilds >= SET_MIN:  # all-wild sets
        return 0
    return wilds - room


@njit(cache=True)
def _pen(c, code, start, wilds, room, depth, bound, values, wild_value, memo, faces, sizes, used, rooms):
    if bound <= 0:
        return 0
    key = (code[0], code[1], code[2], code[3], wilds, room if room < wilds else wilds)
    if key in memo:
        hit = memo[key]
        if hit[1] == 1 or hit[0] >= bound:
            return hit[0]
    i = start
    while i < N and c[i] == 0:
        i += 1
    if i == N:
        result = _unplaced(wilds, room) * wild_value
        memo[key] = (result, 1)
        return result
    best = bound
    count = _options(c, i, wilds, faces[depth], sizes[depth], used[depth], rooms[depth])
    for o in range(count):
        if best <= 0:
            break
        sub = code.copy()
        for x in range(sizes[depth, o]):
            f = faces[depth, o, x]
            c[f] -= 1
            sub[f // 16] -= np.int64(1) << (4 * (f % 16))
        v = _pen(c, sub, i, wilds - used[depth, o], room + rooms[depth, o], depth + 1, best, values, wild_value,
                 memo, faces, sizes, used, rooms)
        for x in range(sizes[depth, o]):
            c[faces[depth, o, x]] += 1
        if v < best:
            best = v
    if best > values[i]:
        c[i] -= 1
        sub = code.copy()
        sub[i // 16] -= np.int64(1) << (4 * (i % 16))
        v = values[i] + _pen(c, sub, i, wilds, room, depth + 1, best - values[i], values, wild_value, memo,
                             faces, sizes, used, rooms)
        c[i] += 1
        if v < best:
            best = v
    memo[key] = (best, 1 if best < bound else 0)
    return best


@njit(cache=True)
def min_penalty(counts, wilds, values, wild_value, faces, sizes, used, rooms):
    """The least penalty of the hand, with a memo of its own (as the core's cold measurement)."""
    memo = Dict.empty(key_type=KEY, value_type=VALUE)
    code = np.zeros(4, np.int64)
    for f in range(N):
        code[f // 16] += np.int64(counts[f]) << (4 * (f % 16))
    c = counts.copy()
    return _pen(c, code, 0, wilds, 0, 0, np.int64(1) << 40, values, wild_value, memo, faces, sizes, used, rooms)


def hands(count: int, size: int, wilds: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    deck = [f for f in range(N)] * 2
    out = []
    for _ in range(count):
        counts = [0] * N
        for f in rng.sample(deck, size - wilds):
            counts[f] += 1
        out.append(counts)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per measurement (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cs, rules = CardSet("standard", 4, 13, True), MeldRules(all_wild_melds=True)
    values_list = [min(f % R + 1, 10) for f in range(N)]
    values = np.array(values_list, np.int64)
    faces = np.zeros((MAX_DEPTH, MAX_OPTIONS, MAX_FACES), np.int64)
    sizes = np.zeros((MAX_DEPTH, MAX_OPTIONS), np.int64)
    used = np.zeros((MAX_DEPTH, MAX_OPTIONS), np.int64)
    rooms = np.zeros((MAX_DEPTH, MAX_OPTIONS), np.int64)
    t0 = time.perf_counter()
    min_penalty(np.zeros(N, np.int64), 0, values, 10, faces, sizes, used, rooms)  # compile (or load the cache)
    compile_seconds = time.perf_counter() - t0
    print(f"meld_numba: least penalty of a 13-card Three-Thirteen hand, numba {numba.__version__} against the "
          f"compiled core, a fresh memo per hand; python {platform.python_version()}, {platform.platform()}")
    print(f"numba's first call (compiling or loading its cache): {compile_seconds:.1f} s\n")
    print(f"{'wilds':>5} {'hands':>6} {'numba us':>9} {'core us':>8} {'numba/core':>10}")
    for wilds in (0, 2, 4):
        batch = hands(20_000, 13, wilds, args.seed + wilds)
        arrays = [np.array(h, np.int64) for h in batch]
        timings = {}
        answers = {}
        for name in ("numba", "core"):
            deadline = time.perf_counter() + args.seconds
            spent, done, got = 0.0, 0, []
            while done < len(batch) and time.perf_counter() < deadline:
                if name == "numba":
                    t = time.perf_counter()
                    got.append(min_penalty(arrays[done], wilds, values, 10, faces, sizes, used, rooms))
                else:
                    core = make_solver(cs, rules, "native")  # a fresh memo, built untimed
                    t = time.perf_counter()
                    got.append(core.min_penalty(batch[done], wilds, values_list, 10))
                spent += time.perf_counter() - t
                done += 1
            timings[name] = spent / done * 1e6
            answers[name] = got
        k = min(len(answers["numba"]), len(answers["core"]))
        if answers["numba"][:k] != answers["core"][:k]:
            print(f"answers differ with {wilds} wilds")
            return 1
        print(f"{wilds:>5} {k:>6} {timings['numba']:>9.1f} {timings['core']:>8.1f} "
              f"{timings['numba'] / timings['core']:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
