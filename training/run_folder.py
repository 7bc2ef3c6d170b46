"""A run's folder (``<run_dir>/<run_name>``): what a run writes there, whether a folder holds
a run, and the refusal to start a second run over one.

A run starts only in a folder that holds none of ``RUN_FILES``. A folder that holds a run
is either resumed (``--resume <folder>/last.pt``) or, with ``--force``, cleared of those
files (and only those) before the new run writes anything.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .config import ConfigError

WARM_START = "warm_start"
"""The folder of a warm start's progress (``warm_start.py``), removed once the warm start is done."""
RUN_FILES: tuple[str, ...] = (
    "last.pt", "latest.pt", "best.pt", "warm_start.pt", "pool.pt", "config.yaml", "metrics.csv", "workers.csv",
    "learning_curve.png", "tensorboard", "kept", WARM_START,
)
"""Everything a run writes in its folder (checkpoints are written through a ``.tmp`` file
beside them, which counts too)."""


class RunFolderTaken(ConfigError):
    """A new run asked to start in a folder that holds a run."""


def run_files(folder: Path) -> list[Path]:
    """The run's files and folders that ``folder`` holds."""
    names = set(RUN_FILES) | {f"{name}.tmp" for name in RUN_FILES}
    return sorted(path for path in folder.iterdir() if path.name in names) if folder.is_dir() else []


def claim(folder: Path, force: bool) -> None:
    """Raises ``RunFolderTaken`` (naming the folder and both ways on) if ``folder`` holds a
    run, unless ``force``; touches nothing."""
    if run_files(folder) and not force:
        raise RunFolderTaken(f"{folder} already holds a run: go on with it with --resume {folder / 'last.pt'}, "
                             f"or start afresh with --force (deletes that run)")


def clear(folder: Path) -> None:
    """Deletes a run's files from ``folder``; anything else in it stays."""
    for path in run_files(folder):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
