"""What ``gomoku-ai`` can be told: one keyword-only dataclass."""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import shlex

from engine.ai import LEVEL_NAMES
from protocol.backoff import Backoff

RECONNECT = Backoff(initial=0.2, maximum=5.0)
"""The worker's waits between reconnect attempts: 0.2 s doubling to 5 s, each up to 20%
shorter (its seats must be back in their games well within the server's lease)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class WorkerConfig:
    """Settings of one AI worker."""

    server: str
    """``ws://HOST:PORT`` of the server."""
    also: tuple[str, ...] = ()
    """Other servers of the same cluster (one Redis), tried in turn when the one in use
    cannot be reached: the AI pool does not go with one instance."""
    bot_key: str
    seats: int = 4
    """Games played at once."""
    levels: tuple[str, ...] = LEVEL_NAMES
    """Levels of the built-in engine offered (ignored with ``brain``)."""
    brain: str | None = None
    """A Gomocup brain command: seats are played by it instead of the engine."""
    brain_level: str | None = None
    """The level name the brain is offered as (default ``brain:`` + its file name)."""
    processes: int | None = None
    """Search processes (default: one per CPU)."""
    move_time_s: float = 2.0
    """The most seconds one move may take, whatever the clock allows (and the time
    per move in games without a clock)."""
    pace_ms: int = 500
    """In a game between two AIs, the least time a move takes (within its time budget),
    so that people can watch it; 0 plays at full speed."""
    overhead_ms: int = 150
    """Kept back from the clock on every move for the network and the pool."""
    resign: bool = False
    """Resign a game the search proves lost."""
    rematch: bool = True
    """Accept rematches."""
    linger_s: float = 20.0
    """How long a seat waits after its game for a rematch before it is given up."""
    hint_level: str = "master"
    name: str = "AI worker"
    backoff: Backoff = RECONNECT
    """Waits between reconnect attempts, of the worker's own connection and each seat's."""

    @property
    def servers(self) -> tuple[str, ...]:
        """Every server the worker may use, the first one first."""
        return (self.server, *self.also)

    def offered_levels(self) -> tuple[str, ...]:
        if self.brain is not None:
            return (self.brain_level or brain_level_name(self.brain),)
        return self.levels


def brain_level_name(command: str) -> str:
    """``brain:`` and the command's file name (for ``python [options] script.py args``
    the script's, for ``python -m module`` the module's), fit for a level name."""
    words = shlex.split(command) or ["brain"]
    program = words[0]
    if os.path.basename(program).startswith("python"):  # the script's name, or the module's
        for before, word in itertools.pairwise(words):
            if before == "-m" or not word.startswith("-"):
                program = word
                break
    base = os.path.basename(program)
    base = re.sub(r"\.(py|exe)$", "", base.lower())
    cleaned = re.sub(r"[^a-z0-9_.+-]", "-", base).strip("-.") or "brain"
    return f"brain:{cleaned}"[:40]
