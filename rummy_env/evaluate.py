"""Fair tournaments between agents, reported with 95% confidence intervals.

``rummy-eval`` (or ``python -m rummy_env.evaluate``) and the library call ``evaluate`` play
one game between N agent entries, given as specs (see ``rummy_env.agents.make_agent``):

    rummy-eval --game three_thirteen --agents expert greedy greedy greedy --games 400

Games are played **duplicate style**, in blocks of N games that share one deal: in game r
of a block, entry i sits in seat (i + r) mod N. So every entry plays every deal from every
seat, and the luck of the cards and of the seat cancels out of the comparison. The number
of games is rounded up to a multiple of N.

The block is the independent unit of the statistics: per block, each spec's mean of a
metric over its seat-games; then the mean over blocks with a Student t interval. The win
rate, a proportion, gets Wilson's score interval over its seat-games instead, which stays
inside [0, 1] (and is the wider of the two: duplicate seating makes the block means less
variable than independent games). Entries that share a spec are pooled
(``expert greedy greedy greedy`` reports two rows).

Blocks can run in worker processes (``--workers``); each worker builds its own env and
agents from the specs, and blocks are collected in block order, so the report does not
depend on the number of workers. See ``docs/evaluation.md``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.metadata
import json
import math
import multiprocessing
import os
import platform
import signal
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

import numpy as np
from tqdm import tqdm

from . import __version__
from .registry import GAMES, game_spec
from .agents import Agent, Decision, GameResult, SeatInfo, make_agent, play_game
from .cli import OneLineParser, check_writable, fail
from .recording import Record, RecordingWrapper, recording_file
from .state import IllegalActionError

METRICS: tuple[str, ...] = ("win_rate", "final_score", "penalty_per_round", "rank")

# Two-sided 95% Student t quantiles t(0.975, df). Between rows the next smaller df is used
# (a slightly wider interval, never a narrower one); past the last row, the normal 1.96.
_T975: dict[int, float] = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 50: 2.009, 60: 2.000,
    70: 1.994, 80: 1.990, 90: 1.987, 100: 1.984, 120: 1.980, 200: 1.972, 500: 1.965, 1000: 1.962,
}


class SettingsError(ValueError):
    """The tournament's settings cannot be played (a bad spec, game, count or rule config)."""


class AgentActionError(IllegalActionError):
    """An agent answered a decision with an action its mask does not offer."""


# ---------------------------------------------------------------------- statistics
_Z95 = 1.959963984540054
"""The standard normal's 0.975 quantile."""


def t975(df: int) -> float:
    """Student's t(0.975, df), the factor of a two-sided 95% interval of a mean."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df > max(_T975):
        return 1.96
    return _T975[max(k for k in _T975 if k <= df)]


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval from ``low`` to ``high`` (``None`` when there is none)."""

    mean: float
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        return None if self.low is None else (self.high - self.low) / 2

    @classmethod
    def of(cls, values: Sequence[float]) -> "Interval":
        """The mean of independent ``values`` and ``+- t(0.975, B-1) * sd / sqrt(B)``; none from one value."""
        mean = statistics.fmean(values)
        if len(values) < 2:
            return cls(mean, None, None)
        half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
        return cls(mean, mean - half, mean + half)

    @classmethod
    def wilson(cls, share: float, trials: int) -> "Interval":
        """Wilson's score interval of a proportion ``share`` over ``trials``: always inside [0, 1]."""
        z2 = _Z95 * _Z95
        centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
        half = _Z95 * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
        return cls(share, max(0.0, centre - half), min(1.0, centre + half))

    def to_dict(self) -> dict[str, float | None]:
        return {"mean": self.mean, "ci95_low": self.low, "ci95_high": self.high, "ci95_half_width": self.half_width}

    def text(self, digits: int) -> str:
        if self.low is None:
            return f"{self.mean:.{digits}f} +- n/a"
        if math.isclose(self.mean - self.low, self.high - self.mean, abs_tol=10 ** -(digits + 2)):
            return f"{self.mean:.{digits}f} +- {self.half_width:.{digits}f}"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def seat_metrics(result: GameResult, seat: int) -> dict[str, float]:
    """The metrics of one seat in one game: its share of the win (1/k for k tied winners),
    final score, mean penalty per round, and rank (1 = lowest score; ties share the mean
    of their ranks)."""
    scores = result.scores
    score = scores[seat]
    below = sum(s < score for s in scores)
    level = sum(s == score for s in scores)
    return {
        "win_rate": 1.0 / len(result.winners) if seat in result.winners else 0.0,
        "final_score": float(score),
        "penalty_per_round": statistics.fmean(penalties[seat] for penalties in result.round_penalties),
        "rank": below + (level + 1) / 2,
    }


@dataclass
class GameRecord:
    """One game of the tournament: its block, its place in the block, the deal's seed, and
    which entry sat in each seat (``seating[seat]`` is an index into the specs)."""

    block: int
    game: int
    seed: int
    seating: list[int]
    result: GameResult


@dataclass
class SpecSummary:
    """The pooled results of every entry with one spec."""

    spec: str
    entries: int
    seat_games: int
    decisions: int
    win_rate: Interval
    final_score: Interval
    penalty_per_round: Interval
    rank: Interval

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "entries": self.entries, "seat_games": self.seat_games,
                "decisions": self.decisions, **{m: getattr(self, m).to_dict() for m in METRICS}}


def summarise(specs: Sequence[str], records: Sequence[GameRecord]) -> list[SpecSummary]:
    """Per spec (in order of first entry): each metric's mean over its seat-games within
    each block, then the mean over blocks and its interval (blocks are independent)."""
    blocks = sorted({r.block for r in records})
    per_block: dict[tuple[str, int], list[dict[str, float]]] = {}
    decisions: dict[str, int] = dict.fromkeys(specs, 0)
    for record in records:
        for seat, entry in enumerate(record.seating):
            spec = specs[entry]
            per_block.setdefault((spec, record.block), []).append(seat_metrics(record.result, seat))
            decisions[spec] += record.result.decisions[seat]
    summaries = []
    for spec in dict.fromkeys(specs):
        cells = [per_block[spec, b] for b in blocks]
        intervals = {m: Interval.of([statistics.fmean(game[m] for game in cell) for cell in cells]) for m in METRICS}
        # a win share is a proportion: its interval must stay inside [0, 1], as Wilson's does
        seat_games = [game["win_rate"] for cell in cells for game in cell]
        intervals["win_rate"] = Interval.wilson(statistics.fmean(seat_games), len(seat_games))
        summaries.append(SpecSummary(spec, specs.count(spec), sum(map(len, cells)), decisions[spec], **intervals))
    return summaries


# ---------------------------------------------------------------------- playing
class TimedAgent(Agent):
    """Wraps an agent: times its ``act`` (so the env's own time is left out), and checks
    each answer against the mask, so that an illegal action is reported with the spec."""

    def __init__(self, agent: Agent, spec: str, keep_samples: bool = False) -> None:
        self.agent = agent
        self.spec = spec
        self.name = agent.name
        self.seconds = 0.0
        self.samples: list[float] | None = [] if keep_samples else None
        """With ``keep_samples``, the seconds of every ``act`` call."""

    def start_game(self, seat: SeatInfo, seed: int | None) -> None:
        super().start_game(seat, seed)
        self.agent.start_game(seat, seed)

    def act(self, decision: Decision) -> int:
        start = time.perf_counter()
        action = self.agent.act(decision)
        elapsed = time.perf_counter() - start
        self.seconds += elapsed
        if self.samples is not None:
            self.samples.append(elapsed)
        if not _is_legal(action, decision.action_mask):
            raise AgentActionError(self._illegal_text(action, decision))
        return action

    def _illegal_text(self, action: Any, decision: Decision) -> str:
        layout = self.seat_info.layout
        what = repr(action)
        if _is_action_id(action) and 0 <= action < layout.size:
            what += f" ({layout.text(int(action))})"
        legal = decision.legal_actions
        shown = ", ".join(layout.text(int(a)) for a in legal[:8]) + (", ..." if len(legal) > 8 else "")
        return (f"agent {self.spec!r} in seat {self.seat_info.seat} chose the illegal action {what}; "
                f"its {len(legal)} legal actions were: {shown}")


def _is_action_id(action: Any) -> bool:
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))


def _is_legal(action: Any, mask: np.ndarray) -> bool:
    return _is_action_id(action) and 0 <= action < len(mask) and bool(mask[action])


def block_seed(seed: int, block: int) -> int:
    """The deal seed of ``block``, derived from the tournament's seed (independent streams)."""
    return int(np.random.SeedSequence([seed, block]).generate_state(1)[0])


@dataclass
class BlockOutcome:
    """The games of one block, and each entry's seconds in ``act`` over them; with a
    recording, each game's record (``rummy_env.recording``)."""

    records: list[GameRecord]
    act_seconds: list[float]
    games: list[Record]


class Table:
    """One process's env and agents, built from picklable settings, that plays blocks."""

    def __init__(self, game: str, specs: Sequence[str], env_kwargs: dict[str, Any], record: bool = False) -> None:
        try:  # an unknown game, or options its preset refuses
            self.env = game_spec(game).raw_env(**env_kwargs)
        except ValueError as err:
            raise SettingsError(str(err)) from None
        self.recorder = RecordingWrapper(self.env) if record else None
        self.specs = list(specs)
        self.game = game
        self.players = self.env.rules.num_players
        if len(specs) != self.players:
            raise SettingsError(f"{game} with {self.players} players needs exactly {self.players} agent specs "
                                f"(one per entry), not {len(specs)}: {' '.join(specs)}")
        try:
            self.agents = [TimedAgent(make_agent(spec), spec) for spec in specs]
            # each agent seated once before any game: an agent that cannot play this table (a
            # checkpoint of another game or table size) says so now, not after hours of play
            for seat, agent in enumerate(self.agents):
                agent.start_game(SeatInfo.of(self.env, self.env.possible_agents[seat]), None)
        except ValueError as err:
            raise SettingsError(str(err)) from None

    def play_block(self, block: int, seed: int, after_game: Callable[[], Any] | None = None) -> BlockOutcome:
        """The N games of ``block``: one deal, entry i in seat (i + r) mod N in game r."""
        deal = block_seed(seed, block)
        n = self.players
        for agent in self.agents:
            agent.seconds = 0.0
        records, games = [], []
        for r in range(n):
            seating = [(seat - r) % n for seat in range(n)]
            if self.recorder is not None:
                self.recorder.players = [self.specs[entry] for entry in seating]
            try:
                result = play_game(self.recorder if self.recorder is not None else self.env,
                                   [self.agents[entry] for entry in seating], deal)
            except AgentActionError as err:
                raise AgentActionError(f"{self.game}, block {block} (deal seed {deal}), game {r + 1} of {n}: "
                                       f"{err}") from None
            records.append(GameRecord(block, r, deal, seating, result))
            if self.recorder is not None:
                games.append({**self.recorder.records.pop(), "tournament": {
                    "seed": seed, "block": block, "game": r, "entries": seating}})
            if after_game is not None:
                after_game()
        return BlockOutcome(records, [agent.seconds for agent in self.agents], games)


_worker_table: Table | None = None


# A worker plays one game at a time on one core. Math libraries (torch, for a checkpoint
# agent) would otherwise start a thread per core in every worker, and the workers' threads
# then spin against each other: a trained policy's tournament ran eight times slower.
_WORKER_THREAD_LIMITS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _start_worker(game: str, specs: list[str], env_kwargs: dict[str, Any], record: bool) -> None:
    global _worker_table
    for name in _WORKER_THREAD_LIMITS:  # read when those libraries load: before the agents are built
        os.environ.setdefault(name, "1")
    torch = sys.modules.get("torch")  # already loaded, as by the parent's main module under spawn
    if torch is not None:
        torch.set_num_threads(1)
    _worker_table = Table(game, specs, env_kwargs, record)


def _play_block_in_worker(block: int, seed: int) -> BlockOutcome:
    return _worker_table.play_block(block, seed)


def versions() -> dict[str, str]:
    """The versions a result depends on (Python, the libraries, this package)."""
    def dist(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    return {"python": platform.python_version(), "platform": platform.platform(), "numpy": np.__version__,
            "pettingzoo": dist("pettingzoo"), "gymnasium": dist("gymnasium"), "tqdm": dist("tqdm"),
            "rummy_env": __version__}


# ---------------------------------------------------------------------- the report
@dataclass
class Report:
    """Everything a tournament produced: settings, per-spec results, per-game records, and
    how it ran (workers, timings: the only fields that differ between identical runs)."""

    game: str
    players: int
    specs: list[str]
    games_requested: int
    seed: int
    env_kwargs: dict[str, Any]
    versions: dict[str, str]
    agents: list[SpecSummary]
    records: list[GameRecord]
    workers: int
    wall_seconds: float
    act_seconds: dict[str, float]
    """Per spec, the seconds its entries spent in ``act``."""

    @property
    def games_played(self) -> int:
        return len(self.records)

    @property
    def blocks(self) -> int:
        return self.games_played // self.players

    @property
    def decisions(self) -> int:
        return sum(a.decisions for a in self.agents)

    @property
    def parity(self) -> float:
        """The win rate of an agent as strong as the others."""
        return 1.0 / self.players

    def ms_per_decision(self, spec: str) -> float | None:
        decisions = next(a.decisions for a in self.agents if a.spec == spec)
        return 1000.0 * self.act_seconds[spec] / decisions if decisions else None

    def _per_second(self, count: int) -> float | None:
        return count / self.wall_seconds if self.wall_seconds > 0 else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``settings``, ``summary``, ``agents``, ``execution`` (timings) and
        ``games`` (the raw result of every game; seats are ``player_<seat>``)."""
        return {
            "settings": {"game": self.game, "players": self.players, "agents": list(self.specs),
                         "games_requested": self.games_requested, "seed": self.seed,
                         "env_kwargs": dict(self.env_kwargs), "versions": dict(self.versions)},
            "summary": {"games_played": self.games_played, "blocks": self.blocks,
                        "rounded_up": self.games_played != self.games_requested, "parity": self.parity,
                        "decisions": self.decisions},
            "agents": [a.to_dict() for a in self.agents],
            "execution": {"workers": self.workers, "wall_seconds": self.wall_seconds,
                          "games_per_second": self._per_second(self.games_played),
                          "decisions_per_second": self._per_second(self.decisions),
                          "ms_per_decision": {a.spec: self.ms_per_decision(a.spec) for a in self.agents}},
            "games": [{"block": r.block, "game": r.game, "seed": r.seed, "entries": list(r.seating),
                       "seats": [self.specs[e] for e in r.seating], **asdict(r.result)} for r in self.records],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Report":
        """The report that ``to_dict`` wrote (a ``--json`` file, read back): the summaries
        are computed again from its games, so they follow this version's statistics."""
        settings, execution = data["settings"], data["execution"]
        specs = list(settings["agents"])
        result_fields = GameResult.__dataclass_fields__
        records = [GameRecord(g["block"], g["game"], g["seed"], list(g["entries"]),
                              GameResult(**{k: g[k] for k in result_fields})) for g in data["games"]]
        agents = summarise(specs, records)
        # the report keeps milliseconds per decision; the seconds behind them are those times the decisions
        act_seconds = {a.spec: (execution["ms_per_decision"][a.spec] or 0.0) * a.decisions / 1000.0 for a in agents}
        return cls(game=settings["game"], players=settings["players"], specs=specs,
                   games_requested=settings["games_requested"], seed=settings["seed"],
                   env_kwargs=dict(settings["env_kwargs"]), versions=dict(settings["versions"]), agents=agents,
                   records=records, workers=execution["workers"], wall_seconds=execution["wall_seconds"],
                   act_seconds=act_seconds)

    def format(self) -> str:
        """The report as a readable table."""
        lines = [f"{self.game}, {self.players} players, {_count(self.games_played, 'game')} in "
                 f"{_count(self.blocks, 'block')} (each deal played from every seat), seed {self.seed}"
                 + (f", rules {self.env_kwargs}" if self.env_kwargs else "")]
        if self.games_played != self.games_requested:
            lines.append(f"note: {_count(self.games_requested, 'game')} requested, rounded up to "
                         f"{self.games_played} (a multiple of {self.players}, one block per deal)")
        width = max(5, *(len(a.spec) for a in self.agents))
        head = (f"{'agent':<{width}} {'entries':>7} {'win rate':>21} {'final score':>18} "
                f"{'penalty/round':>16} {'mean rank':>16} {'ms/decision':>11}")
        lines += ["", head, "-" * len(head)]
        for a in self.agents:
            ms = self.ms_per_decision(a.spec)
            lines.append(f"{a.spec:<{width}} {a.entries:>7} {a.win_rate.text(3):>21} {a.final_score.text(1):>18} "
                         f"{a.penalty_per_round.text(2):>16} {a.rank.text(3):>16} "
                         f"{'n/a' if ms is None else f'{ms:.3f}':>11}")
        games_per_second = self._per_second(self.games_played) or 0.0
        decisions_per_second = self._per_second(self.decisions) or 0.0
        lines += ["", f"parity (1/N): win rate {self.parity:.3f}, mean rank {(self.players + 1) / 2:g}",
                  "95% intervals: win rate [low, high], Wilson's over seat-games (tied winners 1/k each); "
                  "the others +- t * sd / sqrt(blocks) over blocks; rank 1 is the lowest score",
                  f"{self.games_played} games, {self.decisions:,} decisions in {self.wall_seconds:.1f} s "
                  f"with {self.workers} worker(s): {games_per_second:.2f} games/s, "
                  f"{decisions_per_second:,.0f} decisions/s"]
        return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def evaluate(game: str, agents: Sequence[str], games: int, seed: int, players: int | None = None,
             workers: int = 1, env_kwargs: dict[str, Any] | None = None, progress: bool = False,
             record: str | os.PathLike | None = None) -> Report:
    """Plays a duplicate-style tournament of ``game`` between the agent specs ``agents``
    (one per entry) and reports it. ``games`` is rounded up to a multiple of the player
    count; ``players`` (default: the game's default) may instead be given as
    ``env_kwargs["num_players"]``. With ``record``, every game's record is written to that
    file (JSON lines, docs/recording.md) in block order, the file appearing only when the
    tournament is over. Raises ``SettingsError`` (a ``ValueError``) for settings that cannot
    be played, and ``AgentActionError`` when an agent acts illegally."""
    specs = list(agents)
    if not all(isinstance(s, str) for s in specs):
        raise SettingsError(f"agents must be spec strings, not {specs!r}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise SettingsError(f"games must be a positive integer, not {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SettingsError(f"seed must be a non-negative integer, not {seed!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SettingsError(f"workers must be a positive integer, not {workers!r}")
    rule_config = dict(env_kwargs or {})
    if players is not None:
        if "num_players" in rule_config and rule_config["num_players"] != players:
            raise SettingsError(f"players={players} and env_kwargs num_players={rule_config['num_players']} disagree")
        rule_config["num_players"] = players
    recording = record is not None
    table = Table(game, specs, rule_config, recording)  # here first: bad settings fail before any worker starts
    n = table.players
    blocks = -(-games // n)
    outcomes: list[BlockOutcome | None] = [None] * blocks
    written = 0  # blocks whose records are written: they go out in block order, whatever the workers
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        write = None
        if recording:
            try:
                write = stack.enter_context(recording_file(record))
            except OSError as err:
                raise SettingsError(f"cannot write the recording {record}: {err.strerror or err}") from None
        bar = stack.enter_context(tqdm(total=blocks * n, unit="game", file=sys.stderr, disable=not progress, desc=game))
        if workers == 1:
            for b in range(blocks):
                outcomes[b] = table.play_block(b, seed, after_game=bar.update)
                written = _write_in_order(outcomes, written, write)
        else:
            # spawned, not forked: a fork of a process whose torch threads have run (a
            # trainer evaluating its policy) can hang in the child
            with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                                     initargs=(game, specs, rule_config, recording),
                                     mp_context=multiprocessing.get_context("spawn")) as pool:
                # the workers start (in submit) with Ctrl-C blocked: a terminal sends it to the whole
                # process group, and it is this process that stops the pool
                held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    futures = {pool.submit(_play_block_in_worker, b, seed): b for b in range(blocks)}
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)
                try:
                    for future in as_completed(futures):
                        outcomes[futures[future]] = future.result()
                        written = _write_in_order(outcomes, written, write)
                        bar.update(n)
                except BaseException:
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
    wall = time.perf_counter() - start
    records = [record for outcome in outcomes for record in outcome.records]
    act_seconds = dict.fromkeys(specs, 0.0)
    for outcome in outcomes:
        for spec, seconds in zip(specs, outcome.act_seconds):
            act_seconds[spec] += seconds
    config = {k: v for k, v in rule_config.items() if k != "num_players"}
    return Report(game=game, players=n, specs=specs, games_requested=games, seed=seed, env_kwargs=config,
                  versions=versions(), agents=summarise(specs, records), records=records, workers=workers,
                  wall_seconds=wall, act_seconds=act_seconds)


def _write_in_order(outcomes: list[BlockOutcome | None], written: int, write: Callable[[Record], None] | None) -> int:
    """Writes the records of the blocks from ``written`` on that have arrived, up to the
    first still missing, and lets them go; returns the next block to write."""
    while write is not None and written < len(outcomes) and outcomes[written] is not None:
        for game in outcomes[written].games:
            write(game)
        outcomes[written].games = []
        written += 1
    return written


# ---------------------------------------------------------------------- command line
def parse_env_kwarg(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as a Python literal (else kept as a string)."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected key=value (like max_turns_per_round=100), not {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="rummy-eval", description="A fair (duplicate-style) tournament between agents, with 95% intervals.",
        epilog="Agent specs: random, greedy, expert, or module:Class (an Agent subclass). See docs/evaluation.md.")
    parser.add_argument("--game", required=True, choices=list(GAMES))
    parser.add_argument("--players", type=int, help="player count (default: the game's default, 4)")
    parser.add_argument("--agents", required=True, nargs="+", metavar="SPEC",
                        help="one agent spec per entry, exactly as many as players")
    parser.add_argument("--games", type=int, default=400,
                        help="games to play, rounded up to a multiple of the players (default 400)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed: every deal derives from it (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1: in this process)")
    parser.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, default=[], metavar="KEY=VALUE",
                        help="rule configuration passed to <game>_v0.env(), values as Python literals "
                             "(e.g. max_turns_per_round=100)")
    parser.add_argument("--json", metavar="PATH", help="also write settings, results and every game as JSON")
    parser.add_argument("--record", metavar="FILE",
                        help="also write every game, action by action, as JSON lines (replayable: docs/recording.md)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    prog = parser.prog
    if args.json and args.record and os.path.abspath(args.json) == os.path.abspath(args.record):
        fail(prog, f"--json and --record name the same file {args.json}")
    for option, path in (("--json", args.json), ("--record", args.record)):
        if path:  # before any game: a long run must not end unable to write its output
            check_writable(prog, option, path)
    if "" not in sys.path and os.getcwd() not in sys.path:  # as `python -m` does: module:Class specs of this folder
        sys.path.insert(0, os.getcwd())
    try:
        report = evaluate(args.game, args.agents, args.games, args.seed, players=args.players,
                          workers=args.workers, env_kwargs=dict(args.env_kwargs),
                          progress=not args.no_progress and sys.stderr.isatty(), record=args.record)
    except SettingsError as err:
        fail(prog, err)
    except AgentActionError as err:
        print(f"rummy-eval: error: {err}", file=sys.stderr)
        return 1
    print(report.format())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report.to_dict(), f, indent=1)
        print(f"wrote {args.json}")
    if args.record:
        print(f"wrote {args.record} ({report.games_played} games)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
