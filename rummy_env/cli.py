"""What every command line of the project does with a user's error: one line on stderr,
``PROG: error: MESSAGE``, and exit code 2, before any work starts and with nothing written;
never a traceback. ``--help`` still prints the full usage."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from pathlib import Path
from typing import Callable, Iterable, NoReturn

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


def closest_options(typed: str, options: Iterable[str]) -> list[str]:
    """The options a mistyped ``typed`` most likely meant, best first (at most three): those
    it begins (``--learning-rat``), those whose words it abbreviates by their initials
    (``--lr``: ``--learning-rate``), else the nearest by spelling (``--sede``: ``--seed``)."""
    def words(option: str) -> list[str]:
        return option.lstrip("-").lower().replace("_", "-").split("-")

    typed_words = words(typed.split("=", 1)[0])
    key = "-".join(typed_words)
    options = sorted(set(options), key=len)
    for test in (lambda o: "-".join(words(o)).startswith(key),
                 lambda o: "".join(w[:1] for w in words(o)) == key,
                 lambda o: len(typed_words) > 1 and all(a.startswith(b) for a, b in zip(words(o), typed_words))
                 and len(words(o)) == len(typed_words)):
        hits = [o for o in options if test(o)]
        if hits:
            return hits[:3]
    spelled = {"-".join(words(o)): o for o in options}
    return [spelled[o] for o in difflib.get_close_matches(key, list(spelled), n=3, cutoff=0.6)]


def unknown_option(typed: str, options: Iterable[str]) -> str:
    """``unknown option --lr; did you mean --learning-rate?`` (no guess when none is close)."""
    guesses = closest_options(typed, options)
    return f"unknown option {typed}" + (f"; did you mean {' or '.join(guesses)}?" if guesses else "")


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors (a bad option, a missing or bad value) are one line
    naming the problem and the way to ``--help``, instead of the usage block and a line; an
    unknown option is answered with the closest known ones."""

    def error(self, message: str) -> NoReturn:
        unknown = re.match(r"unrecognized arguments: (.*)", message)
        if unknown:
            options = [o for action in self._actions for o in action.option_strings if o.startswith("--")]
            typed = [arg for arg in unknown.group(1).split() if arg.startswith("-") and not _is_number(arg)]
            if typed:
                message = "; ".join(unknown_option(arg.split("=", 1)[0], options) for arg in typed)
        fail(self.prog, f"{message} (see {self.prog} --help)")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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
