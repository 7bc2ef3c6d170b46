"""Agent steps per second of random legal play through the full PettingZoo AEC API.

For every game / player count it plays random legal games with the idiomatic PettingZoo
loop (``env.last()``, the action mask, ``env.step``) and, in the same run, OpenSpiel's gin
rummy with an equivalent loop (observation tensor + legal-action mask at every decision) as
a reference point. Measurements are interleaved (reference, ours, ..., reference, ours, ...)
and the median of ``--repeats`` measurements is reported, with the ratio ours / reference.

    python benchmarks/env_speed.py --seconds 3

Only live agent steps (an action taken by the agent to act) count: the ``env.step(None)``
calls that remove finished agents and OpenSpiel's chance nodes are run and timed, but not
counted. Everything runs in this one process, single-threaded.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

import rummy_env  # noqa: E402

# Every registered game and the player counts measured by default: the fewest, the default
# and the most it allows.
GAMES: dict[str, list[int]] = {
    name: sorted({spec.player_counts[0], spec.default_players, spec.player_counts[-1]})
    for name, spec in rummy_env.GAMES.items()
}

REFERENCE_GAME = "gin_rummy"
CHECK_EVERY = 16  # steps between clock checks in timed mode


# ---------------------------------------------------------------------- environment info
def _version(*dists: str) -> str:
    for d in dists:
        try:
            return importlib.metadata.version(d)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "not installed"


def cpu_info() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return f"{model} ({os.cpu_count()} logical CPUs, {usable} usable; benchmark is single-threaded)"


def environment_info(pyspiel_ok: bool) -> dict[str, str]:
    return {
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "platform": platform.platform(),
        "cpu": cpu_info(),
        "numpy": np.__version__,
        "pettingzoo": _version("pettingzoo"),
        "gymnasium": _version("gymnasium"),
        "open_spiel": _version("open_spiel", "open-spiel") if pyspiel_ok else "not importable",
        "rummy_env": getattr(rummy_env, "__version__", "?"),
    }


# ---------------------------------------------------------------------- measurements
@dataclass
class Sample:
    steps: int  # live agent steps (decisions)
    seconds: float
    games_completed: int
    steps_in_completed_games: int
    cpu_seconds: float = 0.0  # process CPU time: below ``seconds`` when the CPU was shared

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def measure(play_game, seconds: float | None, games: int | None) -> Sample:
    """Plays games with ``play_game(deadline) -> (steps, completed)`` for ``seconds`` or
    exactly ``games`` games; a timed measurement stops as soon as the budget is spent,
    possibly mid-game (``play_game`` checks the deadline every ``CHECK_EVERY`` steps)."""
    steps = completed = steps_done = 0
    cpu0 = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else float("inf")
    while games is None or completed < games:
        game_steps, finished = play_game(deadline)
        steps += game_steps
        if finished:
            completed += 1
            steps_done = steps
        if time.perf_counter() >= deadline:
            break
    return Sample(steps, time.perf_counter() - start, completed, steps_done, time.process_time() - cpu0)


def run_ours(env, rng: np.random.Generator, seconds: float | None, games: int | None) -> Sample:
    """Random legal games through the AEC API, for ``seconds`` or exactly ``games`` games."""

    def play_game(deadline: float) -> tuple[int, bool]:
        steps = 0
        env.reset(seed=int(rng.integers(2**31 - 1)))
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if steps % CHECK_EVERY == 0 and time.perf_counter() >= deadline:
                return steps, False
        return steps, True

    return measure(play_game, seconds, games)


def copy_cost(env, rng: np.random.Generator, steps: int = 2000, repeats: int = 20) -> float:
    """Microseconds that one ``observe`` spends handing out its new arrays: copying the
    state's cached observation and mask (what an ``observe`` that shared them saved), timed
    ``repeats`` times at each of ``steps`` random decisions."""
    raw = env.unwrapped
    total_ns = copies = 0
    env.reset(seed=int(rng.integers(2**31 - 1)))
    for _ in range(steps):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=int(rng.integers(2**31 - 1)))
            continue
        observation, mask = raw._obs_cache[agent]
        start = time.perf_counter_ns()
        for _ in range(repeats):
            observation.copy(), mask.copy()
        total_ns += time.perf_counter_ns() - start
        copies += repeats
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return total_ns / copies / 1000


def sample_outcome(outcomes: list[tuple[int, float]], u: float) -> int:
    """The chance outcome at cumulative probability ``u`` (cheap: no array building)."""
    acc = 0.0
    for action, prob in outcomes:
        acc += prob
        if u < acc:
            return action
    return outcomes[-1][0]


def run_reference(game, pyspiel, rng: np.random.Generator, seconds: float | None, games: int | None) -> Sample:
    """The same for OpenSpiel's gin rummy: chance sampled (not counted), and at every
    decision the observation tensor and a legal-action mask built as our env does."""
    num_actions = game.num_distinct_actions()

    def play_game(deadline: float) -> tuple[int, bool]:
        steps = 0
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_outcome(state.chance_outcomes(), rng.random()))
                continue
            p = state.current_player()
            obs = np.asarray(state.observation_tensor(p), dtype=np.float32)  # noqa: F841
            mask = np.zeros(num_actions, np.int8)
            mask[state.legal_actions(p)] = 1
            legal = np.flatnonzero(mask)
            state.apply_action(int(legal[rng.integers(len(legal))]))
            steps += 1
            if steps % CHECK_EVERY == 0 and time.perf_counter() >= deadline:
                return steps, False
        return steps, True

    return measure(play_game, seconds, games)


@dataclass
class Config:
    name: str
    make: object  # () -> Sample-producing callable(rng, seconds, games)
    samples: list[Sample] = field(default_factory=list)

    def median(self) -> float:
        return statistics.median(s.steps_per_second for s in self.samples)


def paired_ratio(config: Config, reference: Config) -> float:
    """The median over repeats of ours / reference within one repeat (adjacent in time)."""
    return statistics.median(
        ours.steps_per_second / ref.steps_per_second
        for ours, ref in zip(config.samples, reference.samples) if ref.steps_per_second > 0
    )


# ---------------------------------------------------------------------- main
def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=sorted(GAMES), action="append",
                    help="game to measure (repeatable; default: every game in the registry)")
    ap.add_argument("--players", type=int, nargs="+",
                    help="player counts to measure (default: each game's fewest, default and most)")
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=10.0,
                        help="time budget of one measurement, in seconds (default 10)")
    budget.add_argument("--games", type=int,
                        help="instead of a time budget, play exactly this many complete games per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="measurements per configuration (default 3); the median is reported")
    ap.add_argument("--warmup", type=float, default=1.0,
                    help="seconds of untimed play per configuration before measuring (default 1; 0 disables)")
    ap.add_argument("--seed", type=int, default=0, help="base seed of action choice and deals (default 0)")
    ap.add_argument("--no-reference", action="store_true", help="skip the OpenSpiel gin rummy reference")
    ap.add_argument("--copy-cost", action="store_true",
                    help="also measure what handing out new observation arrays costs each observe() (the copies "
                         "that keep a caller's observation its own), beside a whole step")
    ap.add_argument("--json", metavar="PATH", help="also write every sample and the summary as JSON")
    args = ap.parse_args(argv)
    if args.games is not None:
        args.seconds = None
        if args.games < 1:
            ap.error("--games must be at least 1")
    elif args.seconds <= 0:
        ap.error("--seconds must be positive")
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    # (game, players) pairs: a requested count is measured for every selected game that
    # supports it, and must be supported by at least one of them.
    games = args.game or sorted(GAMES)
    args.plan = [(g, n) for g in games
                 for n in (GAMES[g] if args.players is None else rummy_env.GAMES[g].player_counts)
                 if args.players is None or n in args.players]
    unsupported = sorted(set(args.players or []) - {n for _, n in args.plan})
    if unsupported:
        ap.error(f"no selected game supports {unsupported} players: "
                 + ", ".join(f"{g} {list(rummy_env.GAMES[g].player_counts)}" for g in games))
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    pyspiel = None
    pyspiel_error = None
    if not args.no_reference:
        try:
            import pyspiel  # type: ignore[no-redef]
        except Exception as err:  # ImportError, or a broken binary wheel
            pyspiel_error = f"{type(err).__name__}: {err}"

    info = environment_info(pyspiel is not None)
    print("env_speed: agent steps per second of random legal play")
    for k, v in info.items():
        print(f"  {k:<11} {v}")
    if args.no_reference:
        print("  reference   skipped (--no-reference)")
    elif pyspiel is None:
        print(f"  reference   SKIPPED: open_spiel is not importable ({pyspiel_error});\n"
              f"              install it (pip install open-spiel, or the 'bench' extra) to compare with {REFERENCE_GAME}")
    budget = f"{args.seconds:g} s" if args.seconds is not None else f"{args.games} game(s)"
    print(f"  budget      {budget} per measurement, {args.repeats} repeat(s), warmup {args.warmup:g} s, seed {args.seed}")
    print(flush=True)

    # Configurations: ours, one per game and player count.
    configs: list[Config] = []
    envs = {}
    for gname, n in args.plan:
        env = envs[f"{gname} ({n}p)"] = rummy_env.GAMES[gname].env(num_players=n)
        configs.append(Config(f"{gname} ({n}p)", lambda rng, s, g, env=env: run_ours(env, rng, s, g)))
    reference = None
    if pyspiel is not None:
        game = pyspiel.load_game(REFERENCE_GAME)
        reference = Config(f"open_spiel {REFERENCE_GAME} (2p)", lambda rng, s, g: run_reference(game, pyspiel, rng, s, g))

    everything = ([reference] if reference else []) + configs
    if args.warmup > 0:
        for i, c in enumerate(everything):
            c.make(np.random.default_rng([args.seed, 999, i]), args.warmup, None)

    # Interleave: in every repeat, the reference and then each of our configurations.
    for r in range(args.repeats):
        for i, c in enumerate(everything):
            s = c.make(np.random.default_rng([args.seed, r, i]), args.seconds, args.games)
            c.samples.append(s)
            print(f"  [{r + 1}/{args.repeats}] {c.name:<28} {s.steps_per_second:>10,.0f} steps/s "
                  f"({s.steps} steps, {s.games_completed} games, {s.seconds:.2f} s)", flush=True)
    print()

    ref_median = reference.median() if reference else None
    head = (f"{'configuration':<28} {'steps/s (median)':>17} {'min':>10} {'max':>10} {'steps/game':>11} {'ratio':>7}"
            f" {'paired':>7}")
    print(head)
    print("-" * len(head))
    rows = []
    for c in everything:
        sps = [s.steps_per_second for s in c.samples]
        done = sum(s.games_completed for s in c.samples)
        # Mean steps of the complete games (a timed measurement may stop mid-game).
        per_game = sum(s.steps_in_completed_games for s in c.samples) / done if done else None
        ratio = c.median() / ref_median if ref_median and c is not reference else None
        paired = paired_ratio(c, reference) if ratio is not None else None
        print(f"{c.name:<28} {c.median():>17,.0f} {min(sps):>10,.0f} {max(sps):>10,.0f} "
              f"{(f'{per_game:,.0f}' if per_game else 'n/a'):>11} {(f'{ratio:.3f}' if ratio is not None else ('ref' if c is reference else '-')):>7}"
              f" {(f'{paired:.3f}' if paired is not None else '-'):>7}")
        rows.append({
            "name": c.name,
            "reference": c is reference,
            "median_steps_per_second": c.median(),
            "ratio_to_reference": ratio,
            "paired_ratio_median": paired,
            "samples": [dict(asdict(s), steps_per_second=s.steps_per_second) for s in c.samples],
        })
    print()
    if ref_median:
        print(f"ratio = our median steps/s / median steps/s of {reference.name} (> 1: we are faster).\n"
              "paired = median over repeats of the ratio within one repeat (ours against the reference\n"
              "measured in the same repeat, close in time), which cancels most of a shared machine's slow spells.")
    wall = sum(s.seconds for c in everything for s in c.samples)
    cpu = sum(s.cpu_seconds for c in everything for s in c.samples)
    share = cpu / wall if wall else 1.0
    print(f"CPU share: the process ran {100 * share:.0f}% of the measured wall time"
          + ("" if share >= 0.9 else " -- the machine was busy; steps/s are understated and noisy"))
    print("steps/game: mean live agent steps of the complete games played (n/a: no game completed;\n"
          "a timed measurement stops when its budget is spent, possibly mid-game).")
    copies = {}
    if args.copy_cost:
        print(f"\n{'configuration':<28} {'obs + mask':>11} {'copies/observe':>15} {'step':>9} {'share':>6}")
        for c in configs:
            cost = copy_cost(envs[c.name], np.random.default_rng([args.seed, 777]))
            step = 1e6 / c.median()
            raw = envs[c.name].unwrapped
            copies[c.name] = {"copy_us": cost, "step_us": step}
            print(f"{c.name:<28} {4 * raw.observer.size + raw.layout.size:>9,} B {cost:>12.2f} us {step:>6.1f} us "
                  f"{100 * cost / step:>5.1f}%")
        print("copies/observe: the two copies that make each observe()'s arrays the caller's own; step: a whole\n"
              "agent step of the loop above (1 / its median steps/s), which observes once.")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "env_speed", "environment": info, "cpu_share": share,
                       "args": {k: v for k, v in vars(args).items() if k != "plan"},
                       "reference_error": pyspiel_error, "results": rows, "copy_cost": copies}, f, indent=2)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
