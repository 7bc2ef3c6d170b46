"""How each deal of a game ends, and where the penalty comes from, for given agents.

Per deal (round) of the game, over ``--games`` games of the ``--agents`` (one spec per
seat, default four ``expert``s) on the deals of ``--seed``:

- **out**: the share of the rounds that someone ended by going out (the rest ended dead:
  the stock could not be refilled, or the turn cap came);
- **turns**: the round's turns (all seats');
- **penalty**: the mean penalty of a seat in the round;
- in the contract games, of the seats that did not go out, the share that were **down**
  when the round ended, the mean penalty of those down and of those **not down**, and the
  share of the deal's penalty that the not-down seats scored.

    python benchmarks/round_endings.py contract_rummy --games 100 --seed 1

It says which part of the play decides a game's score (docs/training.md, "Where Contract
Rummy's penalty comes from"). One process; every deal's seed derives from ``--seed``.
"""

from __future__ import annotations

import os
import statistics
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env import GAMES  # noqa: E402
from rummy_env.agents import make_agent  # noqa: E402
from rummy_env.agents.base import Episode  # noqa: E402
from rummy_env.cli import OneLineParser, integer_at_least  # noqa: E402
from rummy_env.evaluate import block_seed  # noqa: E402


@dataclass
class SeatRound:
    """One seat's end of one round."""

    deal: int
    """The round's index (0 first)."""
    turns: int
    went_out: bool
    down: bool
    """Down when the round ended (contract games; never for the seat that went out)."""
    penalty: int


def round_endings(game: str, specs: list[str], games: int, seed: int) -> list[list[SeatRound]]:
    """Every round of ``games`` games of ``specs`` (one per seat): each seat's end of it."""
    env = GAMES[game].env(num_players=len(specs))
    episode = Episode(env)
    rounds: list[list[SeatRound]] = []
    for g in range(games):
        deal = block_seed(seed, g)
        agents = [make_agent(spec) for spec in specs]
        episode.reset(deal)
        for seat, agent in enumerate(agents):
            agent.start_game(episode.seat_infos[seat], deal * 1_000_003 + seat)
        state = env.unwrapped.game_state
        while not episode.over:
            # the round's last step deals the next one, so read the ending state before it
            before = len(state.round_penalties), state.round, state.turns, state.went_out, list(state.down_turn)
            actor = episode.seat
            episode.step(agents[actor].act(episode.decision()))
            state = env.unwrapped.game_state
            ended, deal_index, turns, went_out, down_turn = before
            if len(state.round_penalties) == ended:
                continue
            penalties = state.round_penalties[-1]
            if went_out < 0 and penalties[actor] == 0:
                went_out = actor  # went out in this very step (contract games: it ends the round)
            rounds.append([SeatRound(deal_index, turns, seat == went_out,
                                     seat != went_out and bool(down_turn) and down_turn[seat] >= 0, penalty)
                           for seat, penalty in enumerate(penalties)])
    return rounds


def _mean(values: list[float]) -> str:
    return f"{statistics.fmean(values):.1f}" if values else "-"


def table(game: str, rounds: list[list[SeatRound]]) -> str:
    """The per-deal summary of ``rounds`` as text."""
    contract = GAMES[game].rules().contract_play is not None
    head = f"{'deal':>4} {'rounds':>6} {'out':>5} {'turns':>6} {'penalty':>8}"
    if contract:
        head += f" {'down':>5} {'penalty down':>13} {'penalty not down':>17} {'not-down share':>15}"
    lines = [head]
    for deal in sorted({r[0].deal for r in rounds}):
        of_deal = [r for r in rounds if r[0].deal == deal]
        seats = [s for r in of_deal for s in r]
        line = (f"{deal + 1:>4} {len(of_deal):>6} {statistics.fmean(any(s.went_out for s in r) for r in of_deal):>5.2f}"
                f" {statistics.fmean(r[0].turns for r in of_deal):>6.0f} {_mean([s.penalty for s in seats]):>8}")
        if contract:
            stayed = [s for s in seats if not s.went_out]
            down = [s.penalty for s in stayed if s.down]
            not_down = [s.penalty for s in stayed if not s.down]
            total = sum(s.penalty for s in seats)
            line += (f" {len(down) / max(1, len(stayed)):>5.2f} {_mean(down):>13} {_mean(not_down):>17}"
                     f" {sum(not_down) / total if total else 0:>15.2f}")
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--agents", nargs="+", metavar="SPEC", default=["expert"] * 4,
                        help="one agent spec per seat (default four expert)")
    parser.add_argument("--games", type=integer_at_least(1), default=100)
    parser.add_argument("--seed", type=integer_at_least(0), default=1)
    args = parser.parse_args(argv)
    try:
        GAMES[args.game].rules(num_players=len(args.agents))
        for spec in args.agents:
            make_agent(spec)
    except ValueError as err:
        parser.error(str(err))
    rounds = round_endings(args.game, args.agents, args.games, args.seed)
    print(f"{args.game}, {' '.join(args.agents)}: {args.games} games from seed {args.seed}")
    print(table(args.game, rounds))


if __name__ == "__main__":
    main()
