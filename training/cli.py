"""The trainer's command line: a config from ``--config FILE``, the flags, or a run to resume.

    rummy-train --config configs/three_thirteen.yaml --total-steps 2000000 --seed 3
    rummy-train --resume runs/three_thirteen-s3/last.pt                       # nothing else needed
    rummy-train --resume runs/three_thirteen-s3/last.pt --total-steps 4000000 # go on for longer

Every field of ``TrainConfig`` is a flag (tyro builds them from the dataclass, its docstrings
the help). With ``--resume`` the config is the checkpoint's, and only the fields of
``config.RESUMABLE`` may be given anew: the others would make the run another one. A user's
error (a bad flag or value, a missing file, a checkpoint that cannot be resumed) is one line
on stderr through ``rummy_env.cli.fail``, exit code 2, before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
import sys
from pathlib import Path
from typing import Any, Sequence

import tyro

from rummy_env.cli import OneLineParser, fail

from .config import ConfigError, TrainConfig, config_from_dict, load_config, refuse_changes

DESCRIPTION = ("Masked-PPO self-play training (--config FILE loads a YAML config first; "
               "--resume RUN/last.pt continues a run with its own config).")


def command_name() -> str:
    """The command as the user typed it: ``rummy-train`` or, under ``python -m`` (whose argv[0]
    is the file's path, .../training/ppo.py), ``python -m rummy_training.ppo``."""
    return "python -m rummy_training.ppo" if sys.argv[0].endswith(".py") else Path(sys.argv[0]).name


def parse_args(argv: Sequence[str] | None = None, prog: str | None = None) -> TrainConfig:
    """The validated config of a command line. Ends the command (``fail``) on a malformed one;
    raises ``ConfigError`` or ``CheckpointError`` for a config that cannot be trained."""
    prog = prog or command_name()
    pre = OneLineParser(prog=prog, add_help=False, allow_abbrev=False)
    pre.add_argument("--config", type=Path)
    pre.add_argument("--resume")
    known, rest = pre.parse_known_args(argv)
    if known.resume is None:
        default = load_config(known.config) if known.config else TrainConfig()
        config = _tyro(default, rest, prog)
    else:
        if known.config:
            raise ConfigError("--resume takes the run's config from its checkpoint: give no --config")
        config = resume_config(known.resume, lambda saved: _tyro(saved, rest, prog))
    config.validate()
    return config


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


def _tyro(default: TrainConfig, args: list[str], prog: str) -> TrainConfig:
    """tyro's parse of ``args`` over ``default``. Its help prints as it is; its errors (a box
    of many lines) become the first sentence of the box in one line, through ``fail``."""
    if "-h" in args or "--help" in args:
        return tyro.cli(TrainConfig, default=default, args=args, prog=prog, description=DESCRIPTION)
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured), contextlib.redirect_stdout(captured):
            return tyro.cli(TrainConfig, default=default, args=args, prog=prog, description=DESCRIPTION)
    except SystemExit as exit_:
        if not exit_.code:
            raise
        fail(prog, f"{_first_message(captured.getvalue())} (see {prog} --help)")


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
