"""Each process's own figures, shared with its siblings under ``--processes``.

The processes of ``--processes N`` share one port, so a scrape of ``/metrics`` reaches
whichever of them the kernel picks: with each answering for itself, a Prometheus
counter seemed to go down at every other scrape (a reset each time, ``rate()`` many
times too high), and no process's figures could be followed. So each process writes
its own figures to a folder the supervisor made for them, once a second, and the one
that answers a scrape gives every live process's figures, each with its ``process``
label (the pattern of ``prometheus_client``'s multiprocess mode, for figures that are
already plain numbers).

A process's file is replaced whole (written aside, then renamed), so a reader never
sees half of one. A file not written for :data:`STALE_S` is of a process that is gone
or hung, and is left out, as a target that stopped answering would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

log = logging.getLogger("gomoku.server")

FOLDER_VARIABLE = "GOMOKU_PROCESS_FIGURES"
"""The environment variable by which the supervisor names the folder to its processes."""

WRITE_S = 1.0
"""How often a process writes its figures: a sibling's are at most this old in a scrape."""

STALE_S = 3.0
"""A process whose file is older than this (three writes missed) is gone or hung: its
figures are left out (the supervisor also takes a dead one's file away at once)."""


class OwnFigures(msgspec.Struct, frozen=True):
    """One process's own figures: ``gomoku_instance_info``'s labels, every counter and
    gauge of its own by name, and its error frames by code."""

    identity: dict[str, str]
    values: dict[str, int | float]
    errors: dict[str, int]


class SharedFigures:
    """The folder the processes of one server share, as process ``index`` uses it."""

    def __init__(self, folder: Path, index: int) -> None:
        self.folder = folder
        self.index = index

    def _file(self, index: int) -> Path:
        return self.folder / f"process-{index}.json"

    def write(self, figures: OwnFigures) -> None:
        """Replace this process's file with ``figures``."""
        aside = self.folder / f".process-{self.index}.json"
        aside.write_bytes(msgspec.json.encode(figures))
        os.replace(aside, self._file(self.index))

    def share(self, own: OwnFigures) -> dict[int, OwnFigures]:
        """Write ``own`` (the figures this process gives in a scrape now), then read the
        siblings' (:meth:`siblings`). Written first, so that a sibling answering the next
        scrape gives these figures or later ones: read from a file a second old, a
        counter this process had just given went down in the next scrape."""
        with contextlib.suppress(OSError):  # said by run(), which writes every second
            self.write(own)
        return self.siblings()

    def siblings(self) -> dict[int, OwnFigures]:
        """The other live processes' figures, by process index (unreadable or stale
        files left out: a sibling being started writes its first one within a second)."""
        found: dict[int, OwnFigures] = {}
        now = time.time()
        for path in self.folder.glob("process-*.json"):
            index = int(path.stem.removeprefix("process-"))
            if index == self.index:
                continue
            try:
                if now - path.stat().st_mtime > STALE_S:
                    continue
                found[index] = msgspec.json.decode(path.read_bytes(), type=OwnFigures)
            except (OSError, msgspec.DecodeError):
                continue  # gone since the listing, or a folder someone else wrote in
        return found

    async def run(self, own: Callable[[], OwnFigures]) -> None:
        """Write ``own()`` every :data:`WRITE_S` until cancelled; a failed write is
        logged once and tried again (a full disk must not stop the server)."""
        failing = False
        while True:
            try:
                self.write(own())
                failing = False
            except OSError as exc:
                if not failing:
                    log.warning("cannot share this process's figures in %s: %s", self.folder, exc)
                failing = True
            await asyncio.sleep(WRITE_S)

    def remove_file(self) -> None:
        """Take this process's file away (it stopped, or is stopping)."""
        with contextlib.suppress(OSError):
            self._file(self.index).unlink()

    def remove(self) -> None:
        """Take this process's file away (it stops), and the folder with the last one:
        the supervisor removes it, unless it was killed first."""
        self.remove_file()
        with contextlib.suppress(OSError):  # not empty: a sibling still runs
            self.folder.rmdir()
