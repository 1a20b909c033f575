"""Running ``gomoku-ai``: a worker until a signal (or the end of standard input)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import Sequence

from protocol import logs
from stopsignals import STOP_SIGNALS, StopSignals
from worker.brain import brain_problem
from worker.control import AiWorker, WorkerRefused
from worker.options import config_from_args, parse_args

log = logging.getLogger("gomoku.worker")


async def stop_on_eof(worker: AiWorker) -> None:
    """Stop the worker when standard input reaches its end (the parent is gone)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.read(4096):
        pass
    log.info("standard input closed: stopping")
    await worker.stop()


async def serve(
    worker: AiWorker, *, eof_stops: bool = False, signals: StopSignals | None = None
) -> int:
    """Run the worker until SIGTERM or SIGINT (or, with ``eof_stops``, until standard
    input closes); the exit status: 0 after a signal, 2 if the server refused us or
    the ``--brain`` does not start (it is started once, before anything is offered).
    ``signals``: a stop signal it noted before the loop took them stops the worker.

    A stop takes a second or so whatever the worker was doing (see
    :mod:`worker.control`): running searches are cut short, not waited for, and so is
    the pool's warm-up."""
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def on_signal() -> None:
        task = loop.create_task(worker.stop())
        stopping.add(task)  # keep a reference until it is done
        task.add_done_callback(stopping.discard)

    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, on_signal)
    if signals is not None and signals.received is not None:
        on_signal()  # came before, and its exception was lost on the way
    if worker.config.brain is not None and (problem := await brain_problem(worker.config.brain)):
        print(f"gomoku-ai: the brain cannot play: {problem}", file=sys.stderr)
        return 2
    watcher = asyncio.create_task(stop_on_eof(worker)) if eof_stops else None
    try:
        await worker.run()
    except WorkerRefused as error:
        print(f"gomoku-ai: {error}", file=sys.stderr)
        return 2
    finally:
        if watcher is not None:
            watcher.cancel()
    return 0


def run(argv: Sequence[str] | None, signals: StopSignals) -> int:
    """``gomoku-ai``, once a stop signal raises :class:`stopsignals.Stopped` (which
    :func:`worker.cli.main` turns into a quiet exit) until the event loop takes them."""
    args = parse_args(argv)
    logs.configure(args.log_level)
    config = config_from_args(args)
    worker = AiWorker(config, measure_loop=args.stats is not None)
    main = serve(worker, eof_stops=args.stop_on_eof, signals=signals)
    try:
        return signals.run(main)
    finally:
        signals.ignore()  # the loop gave them back to Python's handling as it closed
        main.close()  # if a stop came before the loop ran it: not "never awaited"
        if args.stats is not None:
            args.stats.write_text(json.dumps(worker.stats.as_dict(), indent=2) + "\n")
