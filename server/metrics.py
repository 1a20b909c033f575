"""Counters and gauges, written out in the Prometheus text format by hand
(a handful of numbers does not need a client library).

Every figure says what it covers. Counters and most gauges are this instance's own
(Prometheus adds instances up with ``sum``); a few gauges are cluster-wide: they
read the store, so every instance sharing a Redis reports the same value (take one,
never the sum).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from server.shared_figures import OwnFigures, SharedFigures

log = logging.getLogger("gomoku.server")

CLUSTER_READ_S = 1.5
"""How long a scrape of /metrics waits for the store's cluster-wide figures."""

Scope = Literal["instance", "cluster"]

_SCOPE_TEXT: dict[Scope, str] = {
    "instance": "This instance only.",
    "cluster": "Cluster-wide: every instance on the store, read from the store.",
}

_HELP: dict[str, tuple[str, Scope, str]] = {
    "gomoku_instance_info": (
        "gauge",
        "instance",
        "Always 1; its labels say which server instance answered (the id its connections "
        "carry in the store, also sent in the X-Gomoku-Instance header) and its process id.",
    ),
    "gomoku_connections": ("gauge", "instance", "Open WebSocket connections."),
    "gomoku_players_online": (
        "gauge",
        "instance",
        "People with at least one open connection (AI workers and their AI seats not "
        "counted: see gomoku_ai_workers and gomoku_ai_seats_busy).",
    ),
    "gomoku_rooms": ("gauge", "cluster", "Rooms in the store (waiting, playing or finished)."),
    "gomoku_lobby_rooms": ("gauge", "cluster", "Public rooms listed in the lobby."),
    "gomoku_games_in_progress": (
        "gauge",
        "cluster",
        "Games begun and not over (in their opening or being played), in every room.",
    ),
    "gomoku_rooms_followed": (
        "gauge",
        "instance",
        "Rooms whose events this instance relays to its connections.",
    ),
    "gomoku_rooms_created_total": ("counter", "instance", "Rooms created."),
    "gomoku_games_started_total": ("counter", "instance", "Games started."),
    "gomoku_games_finished_total": ("counter", "instance", "Games finished (game_over logged)."),
    "gomoku_moves_total": ("counter", "instance", "Moves accepted."),
    "gomoku_games_archived_total": (
        "counter",
        "instance",
        "Finished games archived (record, ratings).",
    ),
    "gomoku_archive_failures_total": (
        "counter",
        "instance",
        "Attempts to archive a finished game that failed (retried later).",
    ),
    "gomoku_outages_total": ("counter", "instance", "Outages found (no server beat)."),
    "gomoku_messages_total": ("counter", "instance", "Client messages received."),
    "gomoku_errors_total": ("counter", "instance", "Error frames sent, by code."),
    "gomoku_errors_internal_total": (
        "counter",
        "instance",
        "Unexpected exceptions in message handlers and background work.",
    ),
    "gomoku_connections_handed_off_total": (
        "counter",
        "instance",
        "Connections handed to a sibling process that holds their game (--processes).",
    ),
    "gomoku_connections_adopted_total": (
        "counter",
        "instance",
        "Connections a sibling process handed over, served here since (--processes).",
    ),
    "gomoku_slow_readers_dropped_total": (
        "counter",
        "instance",
        "Connections dropped because they did not read their frames.",
    ),
    "gomoku_refused_per_ip_total": (
        "counter",
        "instance",
        "Connections refused because their address had too many open.",
    ),
    "gomoku_refused_origin_total": (
        "counter",
        "instance",
        "WebSocket handshakes refused because a page from another web origin made them.",
    ),
    "gomoku_draining": (
        "gauge",
        "instance",
        "1 while this instance drains before it stops (/healthz answers 503, its players "
        "still served, then told to go with 1001), else 0.",
    ),
    "gomoku_store_up": (
        "gauge",
        "instance",
        "1 while this instance reaches its store (Redis answers, and its live feed is up), "
        "else 0, as /healthz tells: the cluster-wide figures have no sample while it is 0.",
    ),
    "gomoku_ai_workers": ("gauge", "instance", "AI workers connected."),
    "gomoku_ai_seats": (
        "gauge",
        "instance",
        "Games the connected AI workers offer to play at once.",
    ),
    "gomoku_ai_seats_busy": (
        "gauge",
        "instance",
        "AI seats in play that this instance looks after (a seat back in the AI pool, "
        "waiting for a worker, is counted by no instance: see gomoku_ai_queue_jobs).",
    ),
    "gomoku_ai_handovers_total": (
        "counter",
        "instance",
        "AI seats whose worker was gone, put back in the AI pool for another worker.",
    ),
    "gomoku_ai_jobs_taken_over_total": (
        "counter",
        "instance",
        "AI pool jobs this instance took over from an instance that did not finish them.",
    ),
    "gomoku_hints_total": ("counter", "instance", "Hints answered."),
    "gomoku_event_loop_lag_seconds": (
        "gauge",
        "instance",
        "The longest the event loop woke late over the last 10 s: every frame, move and "
        "clock waited that long then.",
    ),
    "gomoku_event_loop_stalls_total": (
        "counter",
        "instance",
        "Times the event loop woke 1 s or more late (each one also logged as a WARNING).",
    ),
    "process_resident_memory_bytes": ("gauge", "instance", "Resident memory (RSS), in bytes."),
    "process_cpu_seconds_total": ("counter", "instance", "CPU time used, user and system."),
    "process_open_fds": ("gauge", "instance", "Open file descriptors (sockets included)."),
    "gomoku_cluster_instances": (
        "gauge",
        "cluster",
        "Server instances heard from within the last 3 s (each reports every second; one "
        "silent longer is stopped or cut off).",
    ),
    "gomoku_cluster_connections": (
        "gauge",
        "cluster",
        "Open WebSocket connections (summed over the instances heard from within 3 s).",
    ),
    "gomoku_cluster_players_online": (
        "gauge",
        "cluster",
        "People with at least one open connection, AI not counted (summed over the "
        "instances heard from within 3 s: a killed one's players come back elsewhere).",
    ),
    "gomoku_cluster_ai_workers": ("gauge", "cluster", "AI workers connected to any instance."),
    "gomoku_cluster_ai_seats": ("gauge", "cluster", "Games all AI workers offer to play at once."),
    "gomoku_cluster_ai_seats_in_play": (
        "gauge",
        "cluster",
        "AI seats given out (in play, or waiting in the AI pool for a worker).",
    ),
    "gomoku_ai_queue_jobs": (
        "gauge",
        "cluster",
        "AI pool jobs by queue (seat:LEVEL, hint) and state (waiting, taken).",
    ),
}


_NOT_PLAIN = frozenset({"gomoku_instance_info", "gomoku_errors_total", "gomoku_store_up"})
"""Figures of an instance's own that are not one plain number of :class:`Metrics`."""


def help_text(name: str) -> str:
    """The ``# HELP`` text of a metric: what it counts, and whether it is this instance's
    own figure or the cluster's."""
    _, scope, text = _HELP[name]
    return f"{text} {_SCOPE_TEXT[scope]}"


class Metrics:
    """Counters the server bumps, gauges of this instance read when ``/metrics`` is
    scraped, and cluster-wide gauges read from the store then (:meth:`collect`)."""

    def __init__(self) -> None:
        self.counters: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.gauges: dict[str, Callable[[], float]] = {}
        self.cluster_gauges: dict[str, Callable[[], Awaitable[int]]] = {}
        self.identity: dict[str, str] = {}
        """The labels of ``gomoku_instance_info`` (plain ids: nothing to escape)."""
        self.cluster_series: dict[str, Callable[[], Awaitable[dict[str, int]]]] = {}
        """Cluster-wide gauges with labels: name -> (labels -> value)."""
        self.store_up: Callable[[], Awaitable[bool]] | None = None
        """Whether the store answers (``gomoku_store_up``; 1 when not set)."""
        self.missing = False
        """The last scrape could not read every cluster-wide figure (said once)."""
        self.shared: SharedFigures | None = None
        """Under ``--processes``: where the sibling processes' own figures are read."""

    def own(self) -> OwnFigures:
        """This process's own figures as they are now (the gauges read)."""
        values: dict[str, int | float] = {}
        for name, (_, scope, _) in _HELP.items():
            if scope == "instance" and name not in _NOT_PLAIN:
                values[name] = self.gauges[name]() if name in self.gauges else self.counters[name]
        return OwnFigures(dict(self.identity), values, dict(self.errors))

    def inc(self, name: str, amount: int = 1) -> None:
        self.counters[name] += amount

    def error(self, code: str) -> None:
        self.errors[code] += 1

    async def collect(self) -> str:
        """The whole page: cluster-wide gauges are read from the store first, together and
        for at most :data:`CLUSTER_READ_S`; one the store cannot answer by then is left
        without a sample (its HELP and TYPE stay). Read one after another with no bound,
        a hung Redis kept a scrape waiting past any scraper's timeout, this instance's
        own figures with it."""
        readers: dict[str, Callable[[], Awaitable[Any]]] = {
            **self.cluster_gauges,
            **self.cluster_series,
        }
        tasks = {name: asyncio.ensure_future(reader()) for name, reader in readers.items()}
        answers = None if self.store_up is None else asyncio.ensure_future(self.store_up())
        waited = [*tasks.values(), *([] if answers is None else [answers])]
        if waited:
            await asyncio.wait(waited, timeout=CLUSTER_READ_S)
        up = 1  # (a store with nothing to check: the memory store)
        if answers is not None:
            up = int(answers.done() and answers.exception() is None and bool(answers.result()))
            answers.cancel()  # (nothing once done)
        read: dict[str, int] = {}
        series: dict[str, dict[str, int]] = {}
        missed: dict[str, str] = {}  # why, by metric: said in one line, not one each
        for name, task in tasks.items():
            if not task.done():
                task.cancel()
                missed[name] = "the store did not answer in time"
            elif (exc := task.exception()) is not None:  # the store is down: the page answers
                missed[name] = str(exc) or type(exc).__name__
            elif name in self.cluster_series:
                series[name] = task.result()
            else:
                read[name] = task.result()
        if missed and not self.missing:  # once until they are read again, not each scrape
            reasons = sorted(set(missed.values()))
            log.info("%d cluster metrics not read: %s", len(missed), "; ".join(reasons))
        elif self.missing and not missed:
            log.info("cluster metrics read again")
        self.missing = bool(missed)
        if not up:
            # No cluster figure while the store is not up, as README says: those read in
            # the half second after Redis is back, before this instance's feed is, were
            # too low (no instance, no player), and would set off an alert.
            read, series = {}, {}
        own = self.own()  # given as written: process_cpu_seconds_total moves on meanwhile
        siblings = {} if self.shared is None else self.shared.share(own)
        return self.render(read, series, store_up=up, own=own, siblings=siblings)

    def render(
        self,
        cluster: Mapping[str, int] | None = None,
        series: Mapping[str, Mapping[str, int]] | None = None,
        *,
        store_up: int = 1,
        own: OwnFigures | None = None,
        siblings: Mapping[int, OwnFigures] | None = None,
    ) -> str:
        """The page from what this instance knows, with ``cluster`` gauges (and labelled
        ``series``) as read. Under ``--processes`` (a ``process`` in :attr:`identity`)
        each figure of a process's own is given for this process and each of
        ``siblings``, labelled with its ``process``; ``own``: this process's figures (None:
        as they are now)."""
        cluster = cluster or {}
        series = series or {}
        mine = self.own() if own is None else own
        given = [("", mine)]
        if "process" in self.identity:
            by_process = {int(self.identity["process"]): mine, **(siblings or {})}
            given = [(f'process="{i}"', by_process[i]) for i in sorted(by_process)]
        lines: list[str] = []
        for name, (kind, scope, _) in _HELP.items():
            lines.append(f"# HELP {name} {help_text(name)}")
            lines.append(f"# TYPE {name} {kind}")
            if name == "gomoku_store_up":
                lines.append(f"{name} {store_up}")
            elif scope == "cluster" and name in series:
                for labels, value in sorted(series[name].items()):
                    lines.append(f"{name}{{{labels}}} {value}")
            elif scope == "cluster":
                if name in cluster:
                    lines.append(f"{name} {cluster[name]}")
            else:
                for process, figures in given:
                    lines += _own_lines(name, process, figures)
        return "\n".join(lines) + "\n"


def _own_lines(name: str, process: str, figures: OwnFigures) -> list[str]:
    """The samples of metric ``name`` of a process's own, each labelled ``process`` (a
    label, or "" for a server of one process)."""
    if name == "gomoku_instance_info":
        labels = ",".join(f'{k}="{v}"' for k, v in figures.identity.items())
        return [f"{name}{{{labels}}} 1"]
    if name == "gomoku_errors_total":
        # No sample before the first error, as Prometheus has a labelled counter (a
        # code="none" series read as an error code named "none").
        before = f"{process}," if process else ""
        return [
            f'{name}{{{before}code="{code}"}} {n}' for code, n in sorted(figures.errors.items())
        ]
    value = figures.values.get(name)
    if value is None:  # a sibling of an older version, without this figure
        return []
    return [f"{name}{{{process}}} {value}" if process else f"{name} {value}"]
