"""The trainer's command line: a config from ``--config FILE``, the flags, or a run to resume.

    rummy-train --config configs/three_thirteen.yaml --total-steps 2000000 --seed 3
    rummy-train --resume runs/three_thirteen-s3/last.pt                       # nothing else needed
    rummy-train --resume runs/three_thirteen-s3/last.pt --total-steps 4000000 # go on for longer
    rummy-train --config configs/three_thirteen.yaml --force                  # start that run folder afresh

Every field of ``TrainConfig`` is a flag (tyro builds them from the dataclass, its docstrings
the help); ``--help`` lists them beside ``--config`` and ``--force`` with the defaults that
the run would take: a config file's values when ``--config`` is given. With ``--resume`` the
config is the checkpoint's, and only the fields of ``config.RESUMABLE`` may be given anew:
the others would make the run another one. A user's error (an unknown option, with the
closest known ones; a bad value, naming its field; a missing file; a checkpoint that cannot
be resumed; a run folder that already holds a run) is one line on stderr through
``rummy_env.cli.fail``, exit code 2, before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Sequence

import tyro

from rummy_env.cli import OneLineParser, fail, unknown_option

from .config import ConfigError, TrainConfig, config_from_dict, load_config, refuse_changes

DESCRIPTION = ("Masked-PPO self-play training. The defaults below are the config's: TrainConfig's own, or "
               "with --config FILE that file's values (rummy-train --config configs/three_thirteen.yaml --help); "
               "--resume RUN/last.pt continues a run with its own config.")


@dataclass
class RunOptions:
    """The command's own options, beside the config's fields."""

    config: Path | None = None
    """A YAML config file (e.g. configs/three_thirteen.yaml, the main job): its values become
    the defaults of every option below."""
    force: bool = False
    """Start afresh in a run folder that already holds a run, deleting that run's files
    (without it, such a start is refused)."""


@dataclass
class Command:
    """What the command line asks for: the run's config, and whether to start its folder afresh."""

    config: TrainConfig
    force: bool = False


def command_name() -> str:
    """The command as the user typed it: ``rummy-train`` or, under ``python -m`` (whose argv[0]
    is the file's path, .../training/ppo.py), ``python -m rummy_training.ppo``."""
    return "python -m rummy_training.ppo" if sys.argv[0].endswith(".py") else Path(sys.argv[0]).name


def parse_args(argv: Sequence[str] | None = None, prog: str | None = None) -> Command:
    """The validated config of a command line. Ends the command (``fail``) on a malformed one;
    raises ``ConfigError`` or ``CheckpointError`` for a config that cannot be trained."""
    prog = prog or command_name()
    pre = OneLineParser(prog=prog, add_help=False, allow_abbrev=False)
    pre.add_argument("--config", type=Path)
    pre.add_argument("--resume")
    pre.add_argument("--force", action="store_true")
    known, rest = pre.parse_known_args(argv)
    options = RunOptions(known.config, known.force)
    if known.resume is None:
        default = load_config(known.config) if known.config else TrainConfig()
        config = _tyro(default, options, rest, prog)
    else:
        if known.config or known.force:
            raise ConfigError(f"--resume goes on with a run, its own config and folder: give no "
                              f"{'--config' if known.config else '--force'}")
        config = resume_config(known.resume, lambda saved: _tyro(saved, options, rest, prog))
    config.validate()
    return Command(config, known.force)


def resume_config(path: str, override: Any = None) -> TrainConfig:
    """The config of the run that ``path`` (its last.pt) continues: the checkpoint's, with
    ``override(saved)``'s changes where ``config.RESUMABLE`` allows them, in the checkpoint's
    folder."""
    from .checkpoint import load_resumable  # torch is loaded only for a run to resume

    data = load_resumable(path)
    saved = config_from_dict(data["config"], source=f"the config in {path}", check=False)
    config = override(dataclasses.replace(saved)) if override else dataclasses.replace(saved)
    for name in ("run_dir", "run_name"):
        if getattr(config, name) != getattr(saved, name):
            raise ConfigError(f"{name}: a resumed run goes on in its own folder, {Path(path).parent}")
    refuse_changes(saved, config, path)
    folder = Path(path).parent
    config.run_dir, config.run_name, config.resume = str(folder.parent), folder.name, str(path)
    return config


_BOX = re.compile(r"[\u2500-\u257f]|\x1b\[[0-9;]*m")  # box-drawing characters and colour codes
_RULE = re.compile(r"^-{3,}$")


def _tyro(default: TrainConfig, options: RunOptions, args: list[str], prog: str) -> TrainConfig:
    """tyro's parse of ``args`` over ``default`` (``options`` only shown in the help). Its help
    prints as it is; an unknown option is named with the closest known ones, and tyro's other
    errors (a box of many lines) become the first sentence of the box in one line (``fail``)."""
    def command(run: Annotated[RunOptions, tyro.conf.arg(name="")] = options,
                train: Annotated[TrainConfig, tyro.conf.arg(name="")] = default) -> TrainConfig:
        return train

    if "-h" in args or "--help" in args:
        return tyro.cli(command, args=args, prog=prog, description=DESCRIPTION)
    flags = option_names()
    for arg in args:
        name = arg.split("=", 1)[0]
        if name.startswith("--") and name.replace("_", "-") not in flags:
            fail(prog, f"{unknown_option(name, flags)} (see {prog} --help)")
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured), contextlib.redirect_stdout(captured):
            return tyro.cli(command, args=args, prog=prog, description=DESCRIPTION)
    except SystemExit as exit_:
        if not exit_.code:
            raise
        fail(prog, f"{_first_message(captured.getvalue())} (see {prog} --help)")


def option_names() -> list[str]:
    """Every option of the command: a flag per config field (``--no-X`` too for a switch),
    ``--config``, ``--force`` and ``--help``."""
    hints = typing.get_type_hints(TrainConfig)
    names = ["--help", "--config", "--force", "--no-force"]
    for field in dataclasses.fields(TrainConfig):
        flag = field.name.replace("_", "-")
        names += [f"--{flag}", f"--no-{flag}"] if hints[field.name] is bool else [f"--{flag}"]
    return names


def _first_message(text: str) -> str:
    """The message of a tyro error box: its lines from the rule under the title to the next
    rule or blank line; the title if there are none."""
    title, body = "", []
    for line in [_BOX.sub("", raw).strip() for raw in text.splitlines()]:
        if not title:
            title = line
        elif _RULE.match(line) or (not line and body):
            if body:
                break
        elif line:
            body.append(line)
    return " ".join(body) or title or "invalid arguments"
