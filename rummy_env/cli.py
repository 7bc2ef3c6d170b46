"""What every command line of the project does with a user's error: one line on stderr,
``PROG: error: MESSAGE``, and exit code 2, before any work starts and with nothing written;
never a traceback. ``--help`` still prints the full usage."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, NoReturn

USAGE_ERROR = 2


def fail(prog: str, message: str) -> NoReturn:
    """Ends the command with ``message`` as its one line on stderr and exit code 2."""
    text = " ".join(str(message).split())  # one line, whatever the message held
    print(f"{prog}: error: {text}", file=sys.stderr)
    raise SystemExit(USAGE_ERROR)


def integer_at_least(least: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``least``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {least}, not {text!r}")
        return value
    return parse


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors (a bad option, a missing or bad value) are one line
    naming the problem and the way to ``--help``, instead of the usage block and a line."""

    def error(self, message: str) -> NoReturn:
        fail(self.prog, f"{message} (see {self.prog} --help)")


def check_writable(prog: str, option: str, path: str | os.PathLike) -> None:
    """Ends the command (``fail``) unless a file can be written at ``path``; checked before
    any work, writing nothing, so that a long run never ends unable to write its output."""
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        problem = "is a folder"
    elif not folder.is_dir():
        problem = f"is in {folder}, which is not a folder" if folder.exists() else f"is in {folder}, which does not exist"
    elif not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        problem = "is not writable"
    else:
        return
    fail(prog, f"{option} {path} {problem}")


def check_writable_folder(prog: str, option: str, path: str | os.PathLike) -> None:
    """Ends the command (``fail``) unless ``path`` is a writable folder or one that can be
    made (its nearest existing parent is a writable folder); makes nothing."""
    path = Path(path)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        fail(prog, f"{option} {path}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        fail(prog, f"{option} {path}: {existing} is not writable")
