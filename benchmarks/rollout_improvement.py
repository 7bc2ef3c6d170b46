"""How much one step of policy improvement by rollouts would gain over ``expert``.

It plays games of four ``expert``s. At a sampled share of the decisions that offer a
choice, it scores every legal action of the seat to act by rollouts: ``--samples`` deals
consistent with what the seat sees (the cards hidden from it dealt again at random, the
faces others are known to hold left with them), each action applied to each deal, then
four fresh ``expert``s playing to the round's end. An action's score is the seat's round
penalty less the mean of the others' (lower is better); every action sees the same deals,
so their differences are measured with common random numbers.

The rollout policy takes the best-scoring action where it beats ``expert``'s choice by at
least ``--min-gap`` (default 0: wherever it is better), and ``expert``'s otherwise. Where
it changes the choice, both actions are scored again on ``--check-samples`` fresh deals,
and the difference (``expert``'s score less the rollout choice's) is that decision's gain;
where it keeps ``expert``'s it is 0. The second scoring is independent of the choice, so
the mean gain is unbiased: the choosing deals' own difference, biased up by the choice, is
kept only as ``choosing_gap``.

``--phases`` limits the probe to some phases (``draw``; ``play``: discard, meld, lay off,
go out; ...). ``--json`` writes every probed decision: its round, its phase, how many
actions it offered, both choices, ``choosing_gap``, whether the policy changed it, and its
gain.

A positive mean gain says the rollout policy plays better than ``expert`` on these
decisions, so an improvement operator built on it (imitating its choices) has something
to learn; a gain at or below 0 says ``expert``'s choices are as good as one step of
lookahead with ``expert`` playing on can tell.

    python benchmarks/rollout_improvement.py three_thirteen --games 3 --share 0.1

Everything runs in this one process, single-threaded; a probed decision costs about
``actions x samples`` rollouts to the round's end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo root

from rummy_env import GAMES  # noqa: E402
from rummy_env.agents import make_agent  # noqa: E402
from rummy_env.agents.base import Agent, Decision, SeatInfo  # noqa: E402
from rummy_env.cli import OneLineParser, check_writable, integer_at_least  # noqa: E402
from rummy_env.state import GameState, Phase  # noqa: E402

PLAYERS = 4
PROBED_PHASES = tuple(phase for phase in Phase if phase != Phase.GAME_OVER)


def determinize(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` whose cards hidden from ``seat`` (the stock, and the others'
    hands less the faces they are known to hold) are dealt again at random; what ``seat``
    observes is unchanged."""
    deal = state.clone()
    pool = list(deal.stock)
    hidden_counts = {}
    for other, hand in enumerate(deal.hands):
        if other == seat:
            continue
        hidden = [held - known for held, known in zip(hand, deal.known[other])]
        for face, count in enumerate(hidden):
            pool.extend([face] * count)
        hidden_counts[other] = sum(hidden)
    rng.shuffle(pool)
    start = 0
    for other, count in hidden_counts.items():
        hand = bytearray(deal.known[other])
        for face in pool[start:start + count]:
            hand[face] += 1
        deal.hands[other] = hand
        start += count
    deal.stock = pool[start:]
    deal.rng = random.Random(rng.getrandbits(64))  # a reshuffle in the rollout is unseen too
    deal.legal_cache = None
    return deal


class Rollouts:
    """Scores actions by playing the round out with fresh ``expert``s (see the module docstring)."""

    def __init__(self, game: str, seed: int) -> None:
        self.env = GAMES[game].env(num_players=PLAYERS)
        self.env.reset(seed=seed)
        raw = self.env.unwrapped
        self.engine, self.observer, self.size = raw.engine, raw.observer, raw.layout.size
        self.seats = [SeatInfo.of(raw, name) for name in raw.possible_agents]

    def experts(self) -> list[Agent]:
        agents = [make_agent("expert") for _ in range(PLAYERS)]
        for agent, info in zip(agents, self.seats):
            agent.start_game(info, None)
        return agents

    def decision(self, state: GameState) -> Decision:
        seat = self.engine.to_act(state)
        mask = np.zeros(self.size, dtype=np.int8)
        mask[self.engine.legal_actions(state)] = 1
        return Decision(self.observer.encode(state, seat), mask, lambda: {})

    def relative_penalty(self, penalties: list[int], seat: int) -> float:
        """The seat's round penalty less the others' mean."""
        return penalties[seat] - (sum(penalties) - penalties[seat]) / (PLAYERS - 1)

    def score(self, state: GameState, actions: list[int], samples: int, rng: random.Random) -> dict[int, float]:
        """Each action's mean ``relative_penalty`` over ``samples`` deals consistent with the seat's view."""
        seat = self.engine.to_act(state)
        total = dict.fromkeys(actions, 0.0)
        for _ in range(samples):
            deal = determinize(state, seat, rng)
            for action in actions:
                total[action] += self.play_out(deal.clone(), action, seat)
        return {action: value / samples for action, value in total.items()}

    def play_out(self, state: GameState, action: int, seat: int) -> float:
        agents = self.experts()
        result = self.engine.apply(state, action)
        while result is None:
            acting = self.engine.to_act(state)
            result = self.engine.apply(state, int(agents[acting].act(self.decision(state))))
        return self.relative_penalty(result.penalties, seat)


def probe(game: str, games: int, share: float, samples: int, check_samples: int, seed: int,
          phases: tuple[Phase, ...] = PROBED_PHASES, min_gap: float = 0.0) -> dict:
    """Plays ``games`` games of four ``expert``s from ``seed`` and probes a ``share`` of
    their decisions with a choice in ``phases``: the settings, the counts, the mean gain
    per probed decision with its 95% interval (None under two probes), and every probe."""
    rollouts = Rollouts(game, seed)
    engine = rollouts.engine
    rng = random.Random(seed)
    layout = rollouts.env.unwrapped.layout
    probes: list[dict] = []
    decisions = deviations = 0
    started = time.perf_counter()
    for index in range(games):
        state = engine.new_game(seed * 1_000_003 + index)
        players = rollouts.experts()
        while state.phase != Phase.GAME_OVER:
            decisions += 1
            chosen = int(players[engine.to_act(state)].act(rollouts.decision(state)))
            legal = list(engine.legal_actions(state))
            if len(legal) > 1 and state.phase in phases and rng.random() < share:
                scores = rollouts.score(state, legal, samples, rng)
                best = min(legal, key=scores.__getitem__)
                gap = scores[chosen] - scores[best]
                deviates = best != chosen and gap >= min_gap
                gain = 0.0
                if deviates:
                    deviations += 1
                    check = rollouts.score(state, [chosen, best], check_samples, rng)
                    gain = check[chosen] - check[best]
                probes.append({"round": state.round, "phase": state.phase.name.lower(), "actions": len(legal),
                               "expert": layout.text(chosen), "rollout": layout.text(best),
                               "choosing_gap": gap, "deviates": deviates, "gain": gain})
            engine.apply(state, chosen)
        gains = [probe["gain"] for probe in probes]
        print(f"game {index + 1}/{games}: {len(gains)} probed, {deviations} changed, "
              f"mean gain {np.mean(gains) if gains else 0:+.3f}, {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
    gains = [probe["gain"] for probe in probes]
    mean = float(np.mean(gains)) if gains else 0.0
    half = 1.96 * float(np.std(gains, ddof=1)) / math.sqrt(len(gains)) if len(gains) > 1 else None
    return {
        "game": game, "games": games, "share": share, "samples": samples, "check_samples": check_samples,
        "seed": seed, "phases": [phase.name.lower() for phase in phases], "decisions": decisions,
        "min_gap": min_gap, "probed": len(probes), "deviated": deviations, "mean_gain": mean,
        "gain_interval": None if half is None else [mean - half, mean + half],
        "seconds": time.perf_counter() - started, "probes": probes,
    }


def share_of_decisions(text: str) -> float:
    """An argparse type: a share above 0 and at most 1."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share above 0 and at most 1, not {text!r}")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="rollout_improvement.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=list(GAMES))
    parser.add_argument("--games", type=integer_at_least(1), default=3)
    parser.add_argument("--share", type=share_of_decisions, default=0.1,
                        help="share of the decisions with a choice to probe")
    parser.add_argument("--samples", type=integer_at_least(1), default=16, help="deals per action when choosing")
    parser.add_argument("--check-samples", type=integer_at_least(2), default=48,
                        help="fresh deals per action when scoring a changed decision")
    parser.add_argument("--min-gap", type=float, default=0.0,
                        help="change expert's choice only where the rollout choice scores at least this much "
                             "better on the choosing deals (default 0: wherever it is better)")
    parser.add_argument("--phases", nargs="+", choices=[phase.name.lower() for phase in PROBED_PHASES],
                        help="probe only the decisions of these phases (default: all)")
    parser.add_argument("--seed", type=integer_at_least(0), default=1)
    parser.add_argument("--json", help="write the result, every probed decision included, to this file")
    args = parser.parse_args(argv)
    if not args.min_gap >= 0:
        parser.error(f"argument --min-gap: expected a number of at least 0, not {args.min_gap}")
    if args.json:
        check_writable(parser.prog, "--json", args.json)
    phases = tuple(Phase[name.upper()] for name in args.phases) if args.phases else PROBED_PHASES
    result = probe(args.game, args.games, args.share, args.samples, args.check_samples, args.seed, phases,
                   args.min_gap)
    interval = result["gain_interval"]
    spread = "too few probes for an interval" if interval is None else f"95% interval {interval[0]:+.3f} to {interval[1]:+.3f}"
    print(f"{args.game}: {result['probed']} of {result['decisions']} decisions probed "
          f"({args.samples} deals to choose, {args.check_samples} to check), the rollout policy changes "
          f"expert's choice on {result['deviated']}; mean gain per probed decision {result['mean_gain']:+.3f} "
          f"({spread}) in round penalty against the others' mean, {result['seconds']:.0f} s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)


if __name__ == "__main__":
    main()
