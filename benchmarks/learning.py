"""The published from-scratch PPO baseline: a learning curve per game at a fixed budget.

    python benchmarks/learning.py three_thirteen                  # 50 M steps, seed 1: configs/learning/
    python benchmarks/learning.py contract_rummy --seed 2
    python benchmarks/learning.py three_thirteen --steps 2000000 --points 10 --opponents random greedy
    python benchmarks/learning.py --table                         # the README's table of every curve
    python benchmarks/learning.py three_thirteen --configs configs/scratch --run-dir runs/scratch \
        --out benchmarks/results/scratch                          # the legal-action policy on the batched core

Trains PPO with ``configs/learning/GAME.yaml`` (``--configs`` names another folder): from the initial policy (no imitation, no
init_checkpoint), with only the features any agent could compute from its own observation
(``FAIR_FEATURES``; a set that passes the expert baseline's advice, ``ADVICE_FEATURES``, is
refused), keeping the weights about ``--points`` times over the budget (``keep_every``). The
run folder is ``<run-dir>/<game>-s<seed>``; if it holds a ``last.pt``, the run resumes from
there instead: a stopped benchmark goes on, and a larger ``--steps`` extends it (at the
run's own ``keep_every``). A finished run's final weights are kept too.

Then every kept checkpoint not yet in the curve file plays ``--eval-games`` games against
each of ``--opponents``: the checkpoint in one seat, the opponent in the others, seats
rotated by the harness (``rummy_env.evaluate``), on deals of seed 7000 + seed, which
training never saw. Each result is a row of ``<out>/<game>-s<seed>/curve.csv`` (``COLUMNS``;
``wall_seconds`` is the checkpoint's training time), written as it comes: re-running never
duplicates rows, and a stop loses at most the evaluation in progress. ``learning_curve.png``
beside it shows win rate and penalty per round over environment steps and over training
hours. At the end a Markdown table gives each opponent's row at the last step; ``--table``
prints that table for every curve under ``--out``, without training or evaluating.

``--set FIELD=VALUE ...`` overrides config fields (the value read as YAML:
``hidden_sizes=[64]``). Every user error is one line on stderr, exit code 2, before anything
is written. Ctrl-C stops the run as the trainer does (its last.pt kept), exit code 130; the
same command then goes on from there.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any, Sequence

import matplotlib
import yaml

matplotlib.use("Agg")  # files only: training machines have no screen
import matplotlib.pyplot as plt  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rummy_env import GAMES, game_spec  # noqa: E402
from rummy_env.cli import OneLineParser, check_writable_folder, fail, integer_at_least  # noqa: E402
from rummy_env.evaluate import SettingsError, Table, evaluate  # noqa: E402
from rummy_training.checkpoint import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402
from rummy_training.config import ConfigError, TrainConfig, config_from_dict, load_config, refuse_changes  # noqa: E402
from rummy_training.plot import BELOW  # noqa: E402
from rummy_training.ppo import Trainer  # noqa: E402
from rummy_training.stopping import Stopped, stop_on_signals  # noqa: E402

PROG = "learning.py"
CONFIGS = REPO / "configs" / "learning"
FAIR_FEATURES: tuple[str, ...] = ("none", "three_thirteen_penalties", "contract_plan", "hand_penalties",
                                  "hand_and_draw_penalties")
"""Feature sets computed from the seat's own observation alone: any agent could compute them."""
ADVICE_FEATURES: tuple[str, ...] = ("three_thirteen_expert", "three_thirteen_closer", "contract_expert",
                                     "contract_last_deal", "contract_last_deal_odds")
"""Feature sets that pass a heuristic's advice (``expert``'s, or its variants ``closer``'s, ``last_deal``'s and
``last_deal_odds``'s): not from scratch."""
OWNED_FIELDS = {"game": "the GAME argument", "seed": "--seed", "total_steps": "--steps", "keep_every": "--points",
                "run_dir": "--run-dir", "run_name": "the benchmark (<game>-s<seed>)",
                "resume": "the benchmark (it resumes the run folder's last.pt)"}
"""Config fields that the benchmark's own options set, and which option that is."""
OPPONENTS = ("random", "greedy", "expert")
EVAL_SEED_BASE = 7_000
"""The evaluation deals' seed is this plus the training seed: deals training never played."""
COLUMNS = ("env_steps", "wall_seconds", "opponent", "games", "win_rate", "win_low", "win_high", "penalty_per_round",
           "opponent_penalty_per_round", "final_score", "opponent_final_score", "players")


# ---------------------------------------------------------------------- the command line
positive = integer_at_least(1)


def field_value(text: str) -> tuple[str, Any]:
    """``FIELD=VALUE`` with the value read as YAML, as in a config file."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected FIELD=VALUE (like learning_rate=1e-4), not {text!r}")
    try:
        return name, yaml.safe_load(value)
    except yaml.YAMLError:
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not valid YAML") from None


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description=__doc__.split("\n\n")[0],
                           epilog="Games: " + ", ".join(GAMES) + ". See benchmarks/README.md.")
    parser.add_argument("game", nargs="?", metavar="GAME", help="a game of the registry (configs/learning/GAME.yaml)")
    parser.add_argument("--steps", type=positive, help="environment steps to train (default: the config's budget)")
    parser.add_argument("--seed", type=integer_at_least(0), help="training seed (default: the config's, 1)")
    parser.add_argument("--points", type=positive, default=20, help="weights kept over the budget (default 20)")
    parser.add_argument("--eval-games", type=positive, default=200, help="games per point and opponent (default 200)")
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS), metavar="SPEC",
                        help="agent specs the kept weights play (default: random greedy expert)")
    parser.add_argument("--workers", type=positive, default=2, help="evaluation worker processes (default 2)")
    parser.add_argument("--configs", type=Path, default=CONFIGS,
                        help="the folder of GAME.yaml configs (default configs/learning)")
    parser.add_argument("--run-dir", type=Path, default=Path("runs/learning"), help="where run folders go")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/learning"), help="where curves go")
    parser.add_argument("--set", nargs="+", action="extend", type=field_value, default=[], metavar="FIELD=VALUE",
                        help="config field overrides (values in YAML)")
    parser.add_argument("--table", action="store_true",
                        help="print the Markdown table of every curve under --out (of GAME only, if given) and stop")
    return parser


def benchmark_config(game: str, args: argparse.Namespace) -> TrainConfig:
    """The run's config: the game's learning config with the options applied, resuming the
    run folder's last.pt if there is one. Raises ``ConfigError`` naming the field."""
    data = load_config(args.configs / f"{game}.yaml").to_dict()
    for name, value in args.set:
        if name in OWNED_FIELDS:
            raise ConfigError(f"--set {name}: {name} is set by {OWNED_FIELDS[name]}")
        data[name] = value
    if args.seed is not None:
        data["seed"] = args.seed
    if args.steps is not None:
        data["total_steps"] = args.steps
    data["run_dir"], data["run_name"] = str(args.run_dir), f"{game}-s{data['seed']}"
    config = config_from_dict(data, source="--set")
    problem = from_scratch_problem(config)
    if problem:
        raise ConfigError(problem)
    last = args.run_dir / config.run_name / "last.pt"
    if last.exists():  # keep_every cannot change on resuming: the run keeps its own spacing
        saved = config_from_dict(load_checkpoint(last)["config"], source=str(last), check=False)
        data["keep_every"], data["resume"] = saved.keep_every, str(last)
        try:
            refuse_changes(saved, config_from_dict(data, source="--set"), last)
        except ConfigError as err:
            raise ConfigError(f"{err} (to start a new run instead, give another --seed or --run-dir)") from None
    else:
        updates = -(-config.total_steps // config.steps_per_update)
        data["keep_every"] = -(-updates // args.points)
    return config_from_dict(data, source="--set")


def from_scratch_problem(config: TrainConfig) -> str | None:
    """Why ``config`` is not a from-scratch run, or ``None`` if it is."""
    if config.imitation_agent is not None:
        return f"imitation_agent is {config.imitation_agent!r}: the benchmark trains from scratch (give none)"
    if config.init_checkpoint is not None:
        return f"init_checkpoint is {config.init_checkpoint!r}: the benchmark trains from scratch (give none)"
    if config.features not in FAIR_FEATURES:
        return (f"features {config.features!r} pass the expert baseline's advice; the benchmark allows only "
                f"features any agent computes from its own observation: {', '.join(FAIR_FEATURES)}")
    return None


# ---------------------------------------------------------------------- the curve file
def read_curve(path: Path) -> list[dict[str, Any]]:
    """The rows of a curve file, numbers as numbers (none if there is no file)."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [{k: v if k == "opponent" else (int(v) if k in ("env_steps", "games", "players") else float(v))
                 for k, v in row.items()} for row in csv.DictReader(f)]


def append_row(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def evaluate_kept(config: TrainConfig, run_dir: Path, curve: Path, opponents: Sequence[str], games: int,
                  workers: int) -> None:
    """Plays every kept checkpoint against each opponent it has not yet played in ``curve``,
    appending one row per result."""
    done = {(row["env_steps"], row["opponent"]) for row in read_curve(curve)}
    for path in sorted((run_dir / "kept").glob("*.pt")):
        todo = [o for o in opponents if (int(path.stem), o) not in done]
        if not todo:
            continue
        counters = load_checkpoint(path)["counters"]
        for opponent in todo:
            report = evaluate(config.game, [str(path)] + [opponent] * (config.num_players - 1), games=games,
                              seed=EVAL_SEED_BASE + config.seed, env_kwargs=config.env_kwargs(), workers=workers,
                              progress=config.progress and sys.stderr.isatty())
            ours, theirs = report.agents[0], report.agents[1]
            append_row(curve, {
                "env_steps": counters["env_steps"], "wall_seconds": round(counters["seconds"], 3),
                "opponent": opponent, "games": report.games_played, "win_rate": ours.win_rate.mean,
                "win_low": ours.win_rate.low, "win_high": ours.win_rate.high,
                "penalty_per_round": ours.penalty_per_round.mean,
                "opponent_penalty_per_round": theirs.penalty_per_round.mean, "final_score": ours.final_score.mean,
                "opponent_final_score": theirs.final_score.mean, "players": config.num_players})
            print(f"{counters['env_steps']:>12,} steps, {counters['seconds'] / 3600:.2f} h: vs {opponent}: "
                  f"win rate {ours.win_rate.text(3)}, penalty per round {ours.penalty_per_round.mean:.2f} "
                  f"({opponent}'s {theirs.penalty_per_round.mean:.2f})", flush=True)


# ---------------------------------------------------------------------- the plot and the table
def plot_curve(rows: Sequence[dict[str, Any]], config: TrainConfig, path: Path) -> None:
    """Win rate (95% band, parity dashed) and penalty per round (the policy's solid, each
    opponent's own dashed), one colour per opponent, over env steps and over training hours."""
    figure, axes = plt.subplots(2, 2, figsize=(12, 9))
    opponents = list(dict.fromkeys(row["opponent"] for row in rows))
    for column, (key, scale, label) in enumerate((("env_steps", 1e-6, "environment steps (millions)"),
                                                  ("wall_seconds", 1 / 3600, "training wall-clock hours"))):
        wins, penalty = axes[0][column], axes[1][column]
        for index, opponent in enumerate(opponents):
            mine = sorted((row for row in rows if row["opponent"] == opponent), key=lambda row: row["env_steps"])
            x = [row[key] * scale for row in mine]
            colour = f"C{index}"
            wins.plot(x, [row["win_rate"] for row in mine], marker="o", color=colour, label=f"vs {opponent}")
            wins.fill_between(x, [row["win_low"] for row in mine], [row["win_high"] for row in mine],
                              color=colour, alpha=0.2)
            penalty.plot(x, [row["penalty_per_round"] for row in mine], marker="o", color=colour,
                         label=f"policy vs {opponent}")
            penalty.plot(x, [row["opponent_penalty_per_round"] for row in mine], linestyle="--", color=colour,
                         label=opponent)
        wins.axhline(1.0 / config.num_players, color="grey", linestyle="--", label="parity")
        wins.set(xlabel=label, ylabel="win rate (95% interval)", ylim=(0, 1))
        penalty.set(xlabel=label, ylabel="mean penalty per round")
        wins.legend(**{**BELOW, "ncol": len(opponents) + 1})
        penalty.legend(**{**BELOW, "ncol": len(opponents)})  # a column per opponent: policy, then its own
    trained = max(row["env_steps"] for row in rows)  # a curve drawn before its run ends stops there
    figure.suptitle(f"{config.game}, {config.num_players} players, seed {config.seed}: PPO from scratch, "
                    f"{trained:,} steps so far; the policy in one seat, the opponent in the others")
    figure.tight_layout()
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


TABLE_HEAD = ("| game | seed | opponent | env steps | training hours | win rate (95% interval) | parity "
              "| penalty per round (opponent's) |\n|---|---:|---|---:|---:|---:|---:|---:|")


def table_rows(game: str, seed: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    """One Markdown row per opponent, at its last evaluated step; the win rate in bold where
    its interval lies above parity."""
    lines = []
    for opponent in dict.fromkeys(row["opponent"] for row in rows):
        last = max((row for row in rows if row["opponent"] == opponent), key=lambda row: row["env_steps"])
        parity = 1.0 / last["players"]
        win = f"{last['win_rate']:.3f} ({last['win_low']:.3f}-{last['win_high']:.3f})"
        lines.append(f"| {game}, {last['players']} players | {seed} | {opponent} | {last['env_steps']:,} "
                     f"| {last['wall_seconds'] / 3600:.2f} | {f'**{win}**' if last['win_low'] > parity else win} "
                     f"| {parity:.3f} | {last['penalty_per_round']:.2f} ({last['opponent_penalty_per_round']:.2f}) |")
    return lines


def print_table(out: Path, game: str | None) -> None:
    """The Markdown table of every curve under ``out`` (of ``game`` only, if given), by game
    in the registry's order, then seed."""
    runs = []
    for curve in out.glob("*/curve.csv"):
        name, _, seed = curve.parent.name.rpartition("-s")
        if (game is None or name == game) and seed.isdigit():
            runs.append(((list(GAMES).index(name) if name in GAMES else len(GAMES), name, int(seed)), curve))
    rows = [line for (_, name, seed), curve in sorted(runs) for line in table_rows(name, str(seed), read_curve(curve))]
    if not rows:
        fail(PROG, f"--table: no curves of {game or 'any game'} under {out} (a benchmark run writes them)")
    print("\n".join([TABLE_HEAD, *rows]))
    print("\nbold: the win rate's 95% interval lies above parity (1 / players)")


# ---------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    """0 when the benchmark is done, 2 for a user's error, 128 + the signal when stopped."""
    args = build_parser().parse_args(argv)
    if args.game is not None:
        try:
            game_spec(args.game)
        except ValueError as err:
            fail(PROG, err)
    if args.table:
        print_table(args.out, args.game)
        return 0
    if args.game is None:
        fail(PROG, f"give a GAME: one of {', '.join(GAMES)} (or --table)")
    if not (args.configs / f"{args.game}.yaml").exists():
        fail(PROG, f"{args.game} has no learning config {args.configs}/{args.game}.yaml")
    try:
        config = benchmark_config(args.game, args)
    except (ConfigError, CheckpointError) as err:
        fail(PROG, err)
    opponents = list(dict.fromkeys(args.opponents))
    for opponent in opponents:
        try:  # each opponent seated once now: a bad spec fails before hours of training
            Table(config.game, [opponent] * config.num_players, config.env_kwargs())
        except SettingsError as err:
            fail(PROG, f"--opponents {opponent}: {err}")
    results = args.out / config.run_name
    for option, folder in (("--run-dir", args.run_dir), ("--out", args.out)):
        check_writable_folder(PROG, option, folder)
    for option, folder in (("--out", results), ("--run-dir", args.run_dir / config.run_name)):
        try:  # the checks above trust the permission bits; only making the folder proves it
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            fail(PROG, f"{option} {folder}: {err.strerror}")
    trainer, phase = None, "training"
    with stop_on_signals():
        try:
            try:
                trainer = Trainer(config)
            except (ConfigError, CheckpointError) as err:  # a last.pt that cannot be resumed
                fail(PROG, err)
            if trainer.counters["env_steps"] < config.total_steps:
                trainer.train()
            else:
                print(f"{trainer.run_dir} has trained {trainer.counters['env_steps']:,} steps of "
                      f"{config.total_steps:,}: evaluating", flush=True)
            final = trainer.run_dir / "kept" / f"{trainer.counters['env_steps']:012d}.pt"
            if not final.exists():  # the budget's end is a point whatever keep_every
                final.parent.mkdir(exist_ok=True)
                save_checkpoint(final, trainer.network, trainer.config, trainer.counters)
            phase = "evaluating"
            evaluate_kept(config, trainer.run_dir, results / "curve.csv", opponents, args.eval_games, args.workers)
        except Stopped as stop:
            if phase == "evaluating":
                where = f"while evaluating (the rows so far are in {results / 'curve.csv'})"
            elif trainer is not None and trainer.saved is not None:
                where = f"at update {trainer.saved[0]} (env steps {trainer.saved[1]:,})"
            else:
                where = "before the first update"
            print(f"{PROG}: stopped {where}; the same command goes on from there", file=sys.stderr)
            return stop.exit_code
    rows = read_curve(results / "curve.csv")
    plot_curve(rows, config, results / "learning_curve.png")
    print(f"curve: {results / 'curve.csv'}, plot: {results / 'learning_curve.png'}\n")
    print("\n".join([TABLE_HEAD, *table_rows(config.game, str(config.seed), rows)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
