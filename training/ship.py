"""Ships a run's best checkpoint to ``checkpoints/`` with its model card.

    python -m rummy_training.ship runs/three_thirteen-s1 --name three_thirteen --games 2000 --workers 2

Copies the run's ``best.pt`` (weights, stored as float16, config, counters and evaluation
history; no optimiser or pool) to ``checkpoints/<name>.pt`` (``--out`` names another folder), then plays the acceptance
tournaments with the evaluation harness, one per opponent (``--opponents``, default
``greedy expert``): the policy in one seat, the opponent in every other, seats rotated, on
deals of a seed the training never evaluated on (``--seed``, default 7; training selects its
best checkpoint on the deals of ``eval_seed``, so those would flatter it). Writes each
report to ``checkpoints/<name>.<opponent>.eval.json``, the run's learning curve beside them,
and the model card ``checkpoints/<name>.md`` (config, training steps and time, the tables,
and whether it beats each opponent: win rate above parity with the 95% interval above
parity, and a lower mean final score). The exit code is 0 when it beats them all, else 1.

It refuses to overwrite shipped files (``<name>.pt``, ``.md``, ``.<opponent>.eval.json`` or
``_learning_curve.png``) unless given ``--force``; this and every other user's error is one
line on stderr and exit code 2, before anything is written.

Given a shipped checkpoint instead of a run, it writes that checkpoint's card again, from
the reports beside it, after playing the tournaments it has no report of (all of them with
``--force``): this is how a checkpoint gets an evaluation against another opponent once its
run is gone. ``--note`` is kept in the shipped checkpoint, so a card written again keeps it.

    python -m rummy_training.ship checkpoints/three_thirteen.pt --opponents greedy expert random
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Sequence

import torch
import yaml

from rummy_env.agents import AGENT_NAMES
from rummy_env.cli import OneLineParser, fail
from rummy_env.evaluate import Report, evaluate

from .checkpoint import FORMAT, CheckpointError, load_checkpoint

KEPT = ("format", "package_version", "game", "rules_config", "observation_size", "action_size", "config",
        "counters", "weights", "history", "inputs")


def beats(report: Report) -> tuple[bool, str]:
    """Whether the first entry beats the others: win rate and its interval above parity, and
    a lower mean final score; with the reason in words."""
    ours, theirs = report.agents[0], report.agents[1]
    parity = report.parity
    low = ours.win_rate.low
    win_ok = ours.win_rate.mean > parity and low is not None and low > parity
    score_ok = ours.final_score.mean < theirs.final_score.mean
    interval = f"95% interval from {low:.3f}" if low is not None else "no interval: a single block"
    words = (f"win rate {ours.win_rate.mean:.3f} ({interval}) against parity {parity:.3f}; "
             f"mean final score {ours.final_score.mean:.1f} against {theirs.final_score.mean:.1f}")
    return win_ok and score_ok, words


def _network_line(data: dict) -> str:
    config = data["config"]
    if config.get("policy") == "legal":
        features = "" if config["features"] == "none" else f" and features `{config['features']}`"
        return (f"- Network: the legal-action policy (`training/scoring.py`): {len(data['inputs']['columns'])} "
                f"numbers of the observation{features}, a trunk {list(config['hidden_sizes'])} (ReLU), each legal action "
                f"scored against it (action width {config['action_width']}) and a value head, weights stored as "
                f"{_precision(data['weights'])}; plays the most probable legal action.")
    return (f"- Network: the observation plus features `{config['features']}`, a trunk {list(config['hidden_sizes'])} "
            f"(ReLU), policy{' (with the face head)' if config.get('face_head') else ''} and "
            + ("value heads" if not config.get("privileged_critic") else
               "a critic of its own that in training also read the other seats' hands and the stock")
            + f", weights stored as {_precision(data['weights'])}; plays the most probable legal action.")


def model_card(name: str, data: dict, reports: dict[str, Report]) -> str:
    """The model card of a shipped checkpoint's ``data`` (its ``note`` a line of it), with the
    acceptance report and its command per opponent."""
    config, counters = data["config"], data["counters"]
    imitation = counters.get("imitation")
    hours = _hours(counters)
    history = data.get("history", [])  # a warm start (warm_start.pt) has no evaluations yet
    kept = [row for row in history if row.get("env_steps") == counters["env_steps"]]
    lines = [
        f"# `{name}.pt`: {'masked-PPO self-play' if counters['env_steps'] else 'imitation (no PPO steps)'} policy for "
        f"{data['game']}, {config['num_players']} players",
        "",
        f"- Observation size {data['observation_size']}, action size {data['action_size']}, rules config "
        f"`{data['rules_config']}`, package version {data['package_version']}, format `{FORMAT}`.",
        _network_line(data),
    ]
    start = counters.get("init")
    if start:
        before = start["counters"]
        lines.append(f"- Started from the weights of `{start['path']}` ({before['env_steps']:,} PPO steps and "
                     f"{_hours(before):.2f} hours of training before).")
    if imitation:
        lines.append(f"- Warm start: imitation of `{config['imitation_agent']}` on "
                     f"{imitation['imitation_decisions']:,} of its decisions (agreement {imitation['imitation_agreement']:.3f} on them), "
                     f"{imitation['seconds'] / 60:.1f} minutes.")
    lines += [
        f"- PPO self-play: {counters['env_steps']:,} environment steps ({counters['trained_decisions']:,} trained "
        f"decisions) in {counters['updates']} updates; {hours:.2f} hours in all on 2 CPU cores.",
    ]
    if kept:
        lines.append(f"- Kept as the best of {len(history)} evaluations during training (against "
                     f"`{config['eval_opponent']}`, {config['eval_games']} games each on the deals of seed "
                     f"{config['eval_seed']}): update {counters['updates']}, win rate {kept[0]['eval_win_rate']:.3f}.")
    if data.get("note"):
        lines.append(f"- {data['note']}")
    lines += [
        f"- Learning curve of the run: `{name}_learning_curve.png`.",
        "",
        "## Evaluation",
        "",
    ]
    for opponent, report in reports.items():
        ok, words = beats(report)
        lines += [
            f"Against `{opponent}` in every other seat, {report.games_played} games with seats rotated (each deal "
            f"from every seat), seed {report.seed} (deals the training never evaluated on):",
            "",
            "```",
            report.format(),
            "```",
            "",
            f"**{'Beats' if ok else 'Does not beat'} {opponent}**: {words}.",
            "",
            "Reproduce the evaluation:",
            "",
            "```",
            reproduce_command(report),
            "```",
            "",
        ]
    lines += [
        "## Training config",
        "",
        "```yaml",
        # where the run lived is this machine's business, not the recipe's
        yaml.safe_dump({k: v for k, v in config.items() if k not in ("run_dir", "resume")}, sort_keys=False).rstrip(),
        "```",
    ]
    return "\n".join(lines) + "\n"


def _precision(weights: dict[str, torch.Tensor]) -> str:
    """The floating-point type(s) of the stored weights (float16 since shipping halved them)."""
    return " and ".join(sorted({str(w.dtype).removeprefix("torch.") for w in weights.values() if w.is_floating_point()}))


def _hours(counters: dict) -> float:
    """Training hours of a checkpoint: its PPO updates, its warm start and the training of
    the checkpoint it started from."""
    seconds = counters["seconds"] + counters.get("imitation", {}).get("seconds", 0.0)
    start = counters.get("init")
    return seconds / 3600 + (_hours(start["counters"]) if start else 0.0)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}")
    return int(text)


def report_path(target: Path, opponent: str) -> Path:
    """Where the report of the shipped ``target``'s tournament against ``opponent`` lives."""
    return target.with_name(f"{target.stem}.{opponent}.eval.json")


def shipped_files(out: Path, name: str, opponents: Sequence[str]) -> list[Path]:
    """The files that shipping ``name`` with acceptance reports against ``opponents`` writes to ``out``."""
    target = out / f"{name}.pt"
    return [target, target.with_suffix(".md"), *(report_path(target, opponent) for opponent in opponents),
            out / f"{name}_learning_curve.png"]


def main(argv: Sequence[str] | None = None) -> int:
    prog = "python -m rummy_training.ship"
    ap = OneLineParser(prog=prog, description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, metavar="RUN_OR_SHIPPED",
                    help="a run folder (holding best.pt) to ship; or a shipped checkpoint (<out>/<name>.pt) whose "
                         "card to write again, playing only the tournaments it has no report of yet")
    ap.add_argument("--name", help="file name in the --out folder (without .pt); required to ship a run")
    ap.add_argument("--out", type=Path, help="folder of the shipped files (default checkpoints, under the working directory)")
    ap.add_argument("--checkpoint", help="which checkpoint of the run (default best.pt)")
    ap.add_argument("--games", type=_positive, default=2000, help="games of the acceptance tournament (default 2000)")
    ap.add_argument("--seed", type=int, default=7, help="seed of its deals (default 7)")
    ap.add_argument("--workers", type=_positive, default=2, help="worker processes (default 2)")
    ap.add_argument("--opponents", nargs="+", choices=AGENT_NAMES, default=["greedy", "expert"],
                    help="the baselines of the acceptance tournaments, one each (default greedy expert)")
    ap.add_argument("--note", help="a line for the model card (e.g. how the run ended); kept in the shipped checkpoint")
    ap.add_argument("--force", action="store_true", help="overwrite files shipped before under this name "
                    "(for a shipped checkpoint: play its tournaments again)")
    args = ap.parse_args(argv)
    if args.seed < 0:
        fail(prog, f"--seed must be at least 0, not {args.seed}")
    opponents = list(dict.fromkeys(args.opponents))
    if args.source.suffix == ".pt":
        return _card_again(prog, args, opponents)
    if args.name is None:
        fail(prog, "--name is required to ship a run (the file name in the --out folder, without .pt)")
    if not args.name or Path(args.name).name != args.name:
        fail(prog, f"--name must be a file name without a folder, not {args.name!r} (--out gives the folder)")
    data = _load(prog, args.source / (args.checkpoint or "best.pt"))
    out = args.out or Path("checkpoints")
    existing = [str(path) for path in shipped_files(out, args.name, opponents) if path.exists()]
    if existing and not args.force:
        fail(prog, f"{', '.join(existing)} already exist(s): give --force to overwrite, or another --name")
    if out.exists() and not out.is_dir():
        fail(prog, f"--out {out} is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{args.name}.pt"
    shipped = {key: data[key] for key in KEPT if key in data}
    # float16 halves the file (loading copies into float32); the tournament below plays these weights
    shipped["weights"] = {k: v.half() if v.is_floating_point() else v for k, v in data["weights"].items()}
    if args.note:
        shipped["note"] = args.note
    torch.save(shipped, target)
    reports = {opponent: _play(target, data, opponent, args) for opponent in opponents}
    (out / f"{args.name}.md").write_text(model_card(args.name, shipped, reports))
    if (args.source / "learning_curve.png").exists():
        shutil.copyfile(args.source / "learning_curve.png", out / f"{args.name}_learning_curve.png")
    return _verdicts(reports)


def _card_again(prog: str, args: argparse.Namespace, opponents: list[str]) -> int:
    """A shipped checkpoint's card written again beside it, from its stored reports and the
    tournaments it had none of (all of them again with ``--force``)."""
    given = [flag for flag in ("name", "out", "checkpoint") if getattr(args, flag) is not None]
    if given:
        fail(prog, f"--{', --'.join(given)} ship a run: a shipped checkpoint's card is written beside it, under its name")
    target = args.source
    data = _load(prog, target)
    players = data["config"]["num_players"]
    stored = {}
    for opponent in opponents:
        path = report_path(target, opponent)
        if path.exists() and not args.force:
            try:
                stored[opponent] = Report.from_dict(json.loads(path.read_text()))
            except (ValueError, KeyError, TypeError) as err:
                fail(prog, f"{path} is not a tournament report ({type(err).__name__}: {err}): give --force to play it again")
            expected = [_spec(target)] + [opponent] * (players - 1)
            if stored[opponent].specs != expected:
                fail(prog, f"{path} is a tournament of {stored[opponent].specs}, not {expected}: give --force to play it again")
    if args.note is not None:
        # the note lives in the checkpoint, so that the next card keeps it; the weights are untouched
        data["note"] = args.note
        torch.save(data, target)
    reports = {opponent: stored[opponent] if opponent in stored else _play(target, data, opponent, args)
               for opponent in opponents}
    target.with_suffix(".md").write_text(model_card(target.stem, data, reports))
    return _verdicts(reports)


def _load(prog: str, path: Path) -> dict:
    try:
        return load_checkpoint(path)
    except CheckpointError as err:
        fail(prog, str(err))


def _spec(target: Path) -> str:
    """The checkpoint's agent spec as a command run from the repository root gives it."""
    return os.path.relpath(target) if target.resolve().is_relative_to(Path.cwd()) else str(target)


def _play(target: Path, data: dict, opponent: str, args: argparse.Namespace) -> Report:
    """The acceptance tournament of the shipped ``target`` against ``opponent``, its report written beside it."""
    players = data["config"]["num_players"]
    report = evaluate(data["game"], [_spec(target)] + [opponent] * (players - 1), games=args.games, seed=args.seed,
                      env_kwargs=data["rules_config"], workers=args.workers, progress=True)
    # compact: a report holds every game, and 10,000 games indented would pass 8 MB
    report_path(target, opponent).write_text(json.dumps(report.to_dict(), separators=(",", ":")))
    return report


def reproduce_command(report: Report) -> str:
    """The ``rummy-eval`` command that plays ``report``'s tournament again."""
    return (f"rummy-eval --game {report.game} --agents {' '.join(report.specs)} --games {report.games_requested} "
            f"--seed {report.seed} --workers {report.workers}")


def _verdicts(reports: dict[str, Report]) -> int:
    """Prints each report and its verdict; 0 when the checkpoint beats every opponent, else 1."""
    results = []
    for opponent, report in reports.items():
        ok, words = beats(report)
        print(report.format())
        print(f"\n{'beats' if ok else 'does NOT beat'} {opponent}: {words}\n")
        results.append(ok)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
