"""SIGINT and SIGTERM (and SIGHUP) before a command's event loop takes them, and after.

``gomoku-server`` and ``gomoku-ai`` take most of a second to import, then open their
store or warm their search pool. Meanwhile Python's own handling printed a
``KeyboardInterrupt`` traceback for a Ctrl-C, and SIGTERM ended the process with no
exit status of ours. From the first line of a command's code (:func:`run_command`)
either raises :class:`Stopped`, which the command turns into a quiet exit with status
0, as a stop by a signal is; the event loop takes them while the command runs
(:meth:`StopSignals.run`), and once it has closed they are ignored (the process is on
its way out).

A package of its own that imports nothing else: the server and the worker import
neither each other nor anything heavy before the signals are taken.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT)
if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
    # A terminal or SSH link closing, or a service manager's reload habit: stop cleanly
    # as for SIGTERM (it ended the server at once, status 129, games unlogged), unless
    # the process was started to ignore it (``nohup``), which still holds.
    STOP_SIGNALS += (signal.SIGHUP,)


class Stopped(BaseException):  # like KeyboardInterrupt: not an error
    """A stop signal came before the event loop took them (its name is the text)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signal = signum


class StopSignals:
    """SIGINT and SIGTERM until the event loop takes them (:meth:`raise_stopped`), and
    after it has closed (:meth:`ignore`)."""

    def __init__(self) -> None:
        self.received: str | None = None
        """The first stop signal that came (``"SIGINT"``), or None. Python loses the
        exception a handler raises where it cannot be raised (in a weakref callback or
        a finalizer, where it is only printed: not this one), so the event loop's
        handlers act on this too once they are installed."""

    def raise_stopped(self) -> None:
        """From now on SIGINT and SIGTERM raise :class:`Stopped` (where Python would
        raise KeyboardInterrupt for SIGINT)."""
        for sig in STOP_SIGNALS:
            signal.signal(sig, self._stop)
        sys.unraisablehook = _drop_stopped

    def run(
        self,
        main: Coroutine[Any, Any, T],
        new_loop: Callable[[], asyncio.AbstractEventLoop] | None = None,
    ) -> T:
        """``asyncio.run(main)`` on a loop from ``new_loop`` (asyncio's by default), with
        the stop signals held back while the loop is made: one that came in the middle
        of it left a half-made loop, whose finalizer printed a traceback. One held back
        raises :class:`Stopped` once the loop is whole, and the loop is closed."""
        import asyncio

        make = new_loop or asyncio.new_event_loop
        with asyncio.Runner(loop_factory=lambda: _made_whole(make)) as runner:
            return runner.run(main)

    def ignore(self) -> None:
        """From now on SIGINT and SIGTERM do nothing (the process is on its way out)."""
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.received = self.received or signal.Signals(signum).name
        raise Stopped(signum)


def _made_whole(make: Callable[[], asyncio.AbstractEventLoop]) -> asyncio.AbstractEventLoop:
    """The loop ``make`` makes with SIGINT and SIGTERM held back (:meth:`StopSignals.run`)."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks to hold them
        return make()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        loop = make()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # one held back raises here
    except BaseException:
        loop.close()
        raise
    return loop


def _drop_stopped(unraisable: sys.UnraisableHookArgs) -> None:
    """Print what Python could not raise, as it does, unless it is :class:`Stopped`
    (the signal is noted already)."""
    if not isinstance(unraisable.exc_value, Stopped):
        sys.__unraisablehook__(unraisable)


def run_command(command: Callable[[StopSignals], int], *, logger: str, what: str) -> int:
    """``command(signals)`` with the stop signals taken from now on: the command's exit
    status, or 0 for a stop signal that came before its event loop took them (then
    ``logger`` says "SIGINT: stopping before {what} started", if logging is set up by
    then). ``command`` imports the command's modules itself, so that a signal during
    those imports is taken too."""
    signals = StopSignals()
    try:
        # In the try: a signal that comes once one handler is in and before the others
        # are (a CI run's SIGTERM) raises from raise_stopped itself.
        signals.raise_stopped()
        return command(signals)
    except Exception:
        if signals.received is None:
            raise
        stop = signals.received  # raised through Python code that wrapped it
    except Stopped as stopped:
        stop = str(stopped)
    except KeyboardInterrupt:  # SIGINT before its own handler was in (Python's)
        stop = signal.SIGINT.name
    signals.ignore()
    import logging

    logging.getLogger(logger).info("%s: stopping before %s started", stop, what)
    return 0
