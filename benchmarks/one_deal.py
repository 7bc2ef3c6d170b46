"""One deal of a game played on its own: how an agent does in it against three others.

A game's result is decided in few of its deals (Contract Rummy's by going down in deals 4-6
and going out in deal 7: ``round_endings.py``), and a whole game costs seven of them. This
plays only deal ``--deal`` of GAME (its cards, contract and rules as in the full game, every
score starting at 0), ``--games`` deals from ``--seed``, each once with ``--agent`` in every
seat and ``--against`` in the others. It prints, for the agent and for the seats against it,
the share of deals in which the seat went out (penalty 0) and the mean penalty, each with the
agent's figure less the mean of the others' in the same deal (a 95% interval over the deals,
which are independent; a lower penalty is better).

    python benchmarks/one_deal.py contract_rummy --deal 7 --agent rummy_env.agents.contract_last_deal:LastDealContract --games 500

Deal 7 of Contract Rummy takes about 0.08 s of one core per game played, an eighth of a whole game.
"""

from __future__ import annotations

import os
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env import GAMES  # noqa: E402
from rummy_env.agents import make_agent, play_game  # noqa: E402
from rummy_env.cli import OneLineParser, integer_at_least  # noqa: E402
from rummy_env.env import RummyEnv  # noqa: E402
from rummy_env.evaluate import Interval, block_seed  # noqa: E402


def one_deal_env(game: str, deal: int) -> RummyEnv:
    """A raw env of ``game`` (its default rules) that plays only its deal ``deal`` (1 first)."""
    full = GAMES[game].env().unwrapped
    rounds = full.rules.rounds
    if not 1 <= deal <= len(rounds):
        raise ValueError(f"--deal must be 1 to {len(rounds)} for {game}, not {deal}")
    rules = replace(full.rules, rounds=(rounds[deal - 1],))
    kind = type(f"{type(full).__name__}_deal{deal}", (type(full),), {"rules_factory": staticmethod(lambda: rules)})
    return kind()


@dataclass
class DealResult:
    """One deal, ``agent`` in seat ``seat``: every seat's penalty."""

    seat: int
    penalties: list[int]

    def mine(self) -> list[int]:
        return [self.penalties[self.seat]]

    def theirs(self) -> list[int]:
        return [p for s, p in enumerate(self.penalties) if s != self.seat]


def play_deal(game: str, deal: int, agent: str, against: str, seed: int) -> list[DealResult]:
    """The deal of ``seed`` played once with ``agent`` in each seat."""
    env = one_deal_env(game, deal)
    results = []
    for seat in range(env.rules.num_players):
        agents = [make_agent(agent if s == seat else against) for s in range(env.rules.num_players)]
        results.append(DealResult(seat, list(play_game(env, agents, seed).round_penalties[-1])))
    return results


def summary(results: list[list[DealResult]]) -> list[str]:
    """The printed lines, from each deal's results (its seats, one per entry). The intervals
    are over the deals (independent), of the agent's figure less the mean of the others'."""
    lines = []
    for label, of in (("went out", lambda ps: statistics.fmean(p == 0 for p in ps)), ("penalty", statistics.fmean)):
        mine = statistics.fmean(of(r.mine()) for block in results for r in block)
        theirs = statistics.fmean(of(r.theirs()) for block in results for r in block)
        gap = Interval.of([statistics.fmean(of(r.mine()) - of(r.theirs()) for r in block) for block in results])
        lines.append(f"{label}: {mine:.3f}, the others {theirs:.3f}; less the others' [95%]: {gap.text(3)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="one_deal.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("game", choices=sorted(GAMES))
    ap.add_argument("--deal", type=integer_at_least(1), required=True, help="which deal (1 first)")
    ap.add_argument("--agent", default="expert", help="the agent spec measured (default expert)")
    ap.add_argument("--against", default="expert", help="the agent spec of the other seats (default expert)")
    ap.add_argument("--games", type=integer_at_least(1), default=500, help="deals, each played once per seat")
    ap.add_argument("--seed", type=integer_at_least(0), default=1)
    ap.add_argument("--workers", type=integer_at_least(1), default=2)
    args = ap.parse_args(argv)
    try:
        one_deal_env(args.game, args.deal)
        make_agent(args.agent), make_agent(args.against)
    except ValueError as err:
        ap.error(str(err))
    seeds = [block_seed(args.seed, g) for g in range(args.games)]
    jobs = [(args.game, args.deal, args.agent, args.against, s) for s in seeds]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(play_deal, *zip(*jobs), chunksize=4))
    print(f"{args.game}, deal {args.deal} alone: {args.agent} in each seat against {args.against}, "
          f"{args.games} deals from seed {args.seed}")
    print("\n".join(summary(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
