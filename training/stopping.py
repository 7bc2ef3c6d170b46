"""Stopping a run with Ctrl-C (SIGINT) or SIGTERM.

While ``stop_on_signals()`` is active, either signal raises ``Stopped`` in the main thread,
wherever the run is: the trainer's ``finally`` blocks then stop the rollout workers and
close the logs, and the command reports where the run can be resumed. Inside
``deferred_signals()`` (the writing of last.pt and the note of what it holds) a signal
waits for the block's end, so that the run's last.pt is always one whole update's state and
the report names that update. A terminal sends Ctrl-C to the whole process group: worker
processes are started inside ``ctrl_c_blocked()``, so that they never see it (not even while
they start) and the trainer stops them.
"""

from __future__ import annotations

import contextlib
import signal
from multiprocessing import resource_tracker
from types import FrameType
from typing import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(BaseException):
    """A stop asked for by a signal; a ``BaseException``, as ``KeyboardInterrupt`` is, so that
    no ``except Exception`` on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's code for a process ended by the signal: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum


_deferring = 0
_pending: int | None = None


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _pending
    if _deferring:
        _pending = signum
        return
    raise Stopped(signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Stopped`` while the block runs (in the main thread)."""
    previous = {signum: signal.signal(signum, _on_signal) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """A signal that arrives in the block raises ``Stopped`` at its end, once it has run whole."""
    global _deferring, _pending
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
    if not _deferring and _pending is not None:
        signum, _pending = _pending, None
        raise Stopped(signum)


@contextlib.contextmanager
def ctrl_c_blocked() -> Iterator[None]:
    """Processes started in the block begin with SIGINT blocked, as the block holds it (a
    process inherits the signal mask, across exec too); here a SIGINT that arrives meanwhile
    takes effect at the block's end."""
    resource_tracker.ensure_running()  # its first start unblocks SIGINT: it must not happen in the block
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
