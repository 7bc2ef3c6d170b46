"""Whether ``expert`` sits at a local optimum of its own parameters, playing against itself.

``expert``'s parameters (the numeric class attributes of the game's expert heuristic, e.g.
Three-Thirteen's ``potential`` or Contract Rummy's ``DANGER``) were tuned against three
``greedy``s. Each ``--variant`` (comma-separated ``name=value`` settings) plays one seat
against three default ``expert``s, seats rotated, ``--games`` games from ``--seed``, the same
deals for every variant. It prints the variant's win rate (Wilson's 95% interval; parity is
1/4), its mean rank, and its final score less the mean of the other three seats' in the same
game (lower is better; 95% interval over the tournament's blocks, which are independent).

A variant clearly past parity is a stronger teacher for the trained policies than ``expert``
itself; none past it says that tuning ``expert``'s parameters against itself has nothing to
offer on these deals. ``--agent SPEC`` plays any agent spec the same way, e.g. the changes to
``expert``'s method in ``expert_variants.py`` (``--agent expert_variants:ExactQ``).

    python benchmarks/expert_knobs.py three_thirteen --variant potential=1.3 --games 400

Each variant plays as the agent spec ``expert_knobs:<settings>``; this module builds that
agent from the spec (its ``__getattr__``), so the tournament's worker processes rebuild the
same agent from the string. ``--json`` writes every variant's summary.
"""

from __future__ import annotations

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env import GAMES  # noqa: E402
from rummy_env.agents import make_agent  # noqa: E402
from rummy_env.agents.base import Agent  # noqa: E402
from rummy_env.agents.heuristic import ExpertAgent, heuristic_class  # noqa: E402
from rummy_env.cli import OneLineParser, check_writable, integer_at_least  # noqa: E402
from rummy_env.evaluate import Interval, Report, evaluate  # noqa: E402
from rummy_env.rules import GameRules  # noqa: E402

PLAYERS = 4


def knobs(heuristic: type[Agent]) -> dict[str, int | float]:
    """The heuristic's parameters and their defaults: its own public numeric class attributes."""
    return {name: value for name, value in vars(heuristic).items()
            if not name.startswith("_") and isinstance(value, (int, float)) and not isinstance(value, bool)}


def parse_settings(text: str, heuristic: type[Agent]) -> dict[str, int | float]:
    """``name=value,...`` as typed settings of ``heuristic``'s parameters; a ``ValueError``
    naming what is wrong (an unknown name lists the known ones)."""
    defaults = knobs(heuristic)
    settings: dict[str, int | float] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"variant {text!r}: expected name=value settings separated by commas, not {item!r}")
        if name not in defaults:
            raise ValueError(f"variant {text!r}: {heuristic.__name__} has no parameter {name!r}; "
                             f"its parameters: {', '.join(sorted(defaults))}")
        if name in settings:
            raise ValueError(f"variant {text!r}: {name!r} is set twice")
        kind = type(defaults[name])
        try:
            settings[name] = kind(value.strip())
        except ValueError:
            raise ValueError(f"variant {text!r}: {name} takes {'an integer' if kind is int else 'a number'}, "
                             f"not {value.strip()!r}") from None
    return settings


class KnobbedExpert(ExpertAgent):
    """``expert`` with some parameters changed (``settings``, as the spec wrote them)."""

    settings = ""

    def heuristic(self, rules: GameRules) -> type[Agent]:
        base = super().heuristic(rules)
        return type(base.__name__, (base,), parse_settings(self.settings, base))


def __getattr__(settings: str) -> type[Agent]:
    """The agent class of the spec ``expert_knobs:<settings>`` (see the module docstring)."""
    if "=" not in settings:
        raise AttributeError(settings)
    return type(settings, (KnobbedExpert,), {"settings": settings})


def paired_score_gap(report: Report, spec: str) -> Interval:
    """The final score of the seat playing ``spec`` less the mean of the other seats' in the
    same game: the mean over blocks of each block's mean, and its 95% interval."""
    entry = report.specs.index(spec)
    gaps: dict[int, list[float]] = {}
    for record in report.records:
        scores = record.result.scores
        seat = record.seating.index(entry)
        others = [s for i, s in enumerate(scores) if i != seat]
        gaps.setdefault(record.block, []).append(scores[seat] - statistics.fmean(others))
    return Interval.of([statistics.fmean(g) for g in gaps.values()])


def measure(game: str, variant: str, games: int, seed: int, workers: int) -> dict:
    """One variant's tournament against three ``expert``s, summarised."""
    return measure_agent(game, f"expert_knobs:{variant}", games, seed, workers) | {"variant": variant}


def measure_agent(game: str, spec: str, games: int, seed: int, workers: int) -> dict:
    """The tournament of the agent ``spec`` against three ``expert``s, summarised."""
    report = evaluate(game, [spec] + ["expert"] * (PLAYERS - 1), games, seed, players=PLAYERS, workers=workers)
    summary = next(s for s in report.agents if s.spec == spec)
    return {"variant": spec, "games": len(report.records), "win_rate": summary.win_rate.to_dict(),
            "rank": summary.rank.to_dict(), "score_gap": paired_score_gap(report, spec).to_dict(),
            "wall_seconds": report.wall_seconds}


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--variant", action="append", default=[],
                        help="name=value[,name=value...]: one variant of expert's parameters (repeatable)")
    parser.add_argument("--agent", action="append", default=[],
                        help="an agent spec to play in the variant's seat, e.g. expert_variants:ExactQ (repeatable)")
    parser.add_argument("--games", type=integer_at_least(1), default=2000)
    parser.add_argument("--seed", type=integer_at_least(0), default=31)
    parser.add_argument("--workers", type=integer_at_least(1), default=2)
    parser.add_argument("--json", metavar="PATH", help="write every variant's summary here")
    args = parser.parse_args(argv)
    if not args.variant and not args.agent:
        parser.error("give at least one --variant or --agent")
    heuristic = heuristic_class("expert", GAMES[args.game].rules())
    for spec in args.agent:
        try:
            make_agent(spec)
        except ValueError as err:
            parser.error(str(err))
    for variant in args.variant:
        try:
            parse_settings(variant, heuristic)
        except ValueError as err:
            parser.error(str(err))
    if args.json:
        check_writable(parser.prog, "--json", args.json)
    print(f"{args.game}: one seat of each variant against three expert, {args.games} games from seed {args.seed}")
    print(f"{'variant':<40} {'win rate [95%]':>22} {'mean rank':>16} {'score less the others [95%]':>30}")
    results = []
    runs = [(measure, variant) for variant in args.variant] + [(measure_agent, spec) for spec in args.agent]
    for run, name in runs:
        result = run(args.game, name, args.games, args.seed, args.workers)
        results.append(result)
        win, rank, gap = result["win_rate"], result["rank"], result["score_gap"]
        print(f"{name:<40} {win['mean']:.3f} [{win['ci95_low']:.3f}, {win['ci95_high']:.3f}]"
              f"{rank['mean']:>10.3f} +- {rank['ci95_half_width']:.3f}"
              f"{gap['mean']:>16.2f} [{gap['ci95_low']:.2f}, {gap['ci95_high']:.2f}]", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "games": args.games, "seed": args.seed, "variants": results}, f, indent=1)


if __name__ == "__main__":
    main()
