"""The server process: :class:`GomokuServer` puts the server's parts together, starts
them in order and stops them in the reverse one. Each part has one job: the port and
its admission (:mod:`server.listener`), connections and their message handlers
(:mod:`server.connection`, :mod:`server.handlers`), rooms over the store
(:mod:`server.service`), fan-out (:mod:`server.hub`), the players connected here
(:mod:`server.players`), quick match (:mod:`server.matchmaking`), clocks
(:mod:`server.ticker`), the instance's lease and expiry (:mod:`server.housekeeping`),
AI workers (:mod:`server.bots`) and the local ones it starts (:mod:`server.local_workers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import secrets
from collections.abc import Coroutine
from typing import Any

from server import __version__, loop_watch
from server.bots import AiSeating, HintDesk, JobTaker, Watchdog, WorkerRegistry
from server.bots.jobs import InstanceRecord
from server.cluster import add_cluster_gauges
from server.config import ServerConfig
from server.connection import Connection
from server.handoff import Handoff
from server.housekeeping import Housekeeping
from server.hub import Hub
from server.listener import Listener
from server.local_workers import LocalWorkers, local_url, url_host
from server.loop_watch import LoopWatch
from server.matchmaking import Matchmaker
from server.metrics import Metrics
from server.players import LocalPlayers
from server.ratelimit import KeyedWindows
from server.service import RoomService, counted, described, now_ms
from server.services import Services
from server.store import MemoryStore, Store, StoreUnavailable
from server.store.embedded import EmbeddedStore
from server.ticker import ClockTicker

log = logging.getLogger("gomoku.server")


class GomokuServer:
    """One server instance. ``async with GomokuServer(...)`` serves until the block ends."""

    version = __version__

    def __init__(self, config: ServerConfig | None = None, *, store: Store | None = None) -> None:
        self.config = config = config or ServerConfig()
        if store is None:
            store = MemoryStore(session_ttl_ms=config.timers.session_ttl_ms)
        self.store: Store = store
        self.metrics = metrics = Metrics()
        self.hub = Hub(store)
        self.service = RoomService(store, config, metrics)
        self.bots = WorkerRegistry(config.bots, metrics)
        """This instance's AI workers and the AI seats they play."""
        self.ai = AiSeating(self.bots, store, self.service, config)
        self.hints = HintDesk(self.bots, store, config.bots, metrics)
        self.watchdog = Watchdog(self.bots, self.ai, store, self.service, config.bots, metrics)
        self.players = LocalPlayers(self.hub, config.limits)
        self.housekeeping = Housekeeping(store, self.service, config.timers, metrics)
        self.taker = JobTaker(
            lambda: self.housekeeping.instance_id,
            self.bots,
            self.ai,
            self.hints,
            store,
            config.bots,
            metrics,
            self.figures,
        )
        """Takes AI pool jobs for this instance's workers, and publishes them."""
        self._started_ms = 0
        self._address = ""
        self.matchmaker = Matchmaker(store, self.service, self.players, config.matchmaking, metrics)
        self.ticker = ClockTicker(store, self.service, config.timers, metrics)
        self.local_workers = LocalWorkers(config.bots.embedded_seats)
        limits = config.limits
        self.handoff = None
        if config.handoff_key is not None:
            self.handoff = Handoff(
                config.handoff_key,
                lambda: self.housekeeping.instance_id,
                store,
                self.service,
                metrics,
            )
        self.services = Services(
            version=self.version,
            config=config,
            metrics=metrics,
            store=store,
            rooms=self.service,
            hub=self.hub,
            players=self.players,
            housekeeping=self.housekeeping,
            matchmaker=self.matchmaker,
            workers=self.bots,
            taker=self.taker,
            ai=self.ai,
            hints=self.hints,
            bot_keys=set(config.bot_keys),
            code_failures=KeyedWindows(limits.code_failures_per_ip, limits.code_failure_window_ms),
            key_failures=KeyedWindows(limits.code_failures_per_ip, limits.code_failure_window_ms),
            new_players=KeyedWindows(limits.new_players_per_ip, limits.per_ip_window_ms),
            new_rooms=KeyedWindows(limits.rooms_per_ip, limits.per_ip_window_ms),
            chat_lines=KeyedWindows(limits.chat_per_ip, limits.chat_window_ms),
            handoff=self.handoff,
        )
        self.listener = Listener(self.services)
        self.housekeeping.reattach = self.listener.reattach
        self.housekeeping.close_all = self.listener.close_all
        if self.handoff is not None:
            self.handoff.adopt = self.listener.adopt
            self.handoff.find = self.listener.find
        self._tasks: list[asyncio.Task[None]] = []
        self._stopped = False
        metrics.gauges["gomoku_connections"] = lambda: len(self.listener.connections)
        metrics.gauges["gomoku_draining"] = lambda: int(self.listener.draining)
        metrics.gauges["gomoku_players_online"] = self.players.people
        metrics.gauges["gomoku_rooms_followed"] = self.hub.rooms_followed
        self.loop_watch = LoopWatch(metrics)
        metrics.gauges["gomoku_event_loop_lag_seconds"] = self.loop_watch.max_lag
        metrics.gauges["process_resident_memory_bytes"] = loop_watch.resident_bytes
        metrics.gauges["process_cpu_seconds_total"] = loop_watch.cpu_seconds
        metrics.gauges["process_open_fds"] = loop_watch.open_fds
        add_cluster_gauges(metrics, store)
        metrics.identity = {"instance_id": self.housekeeping.instance_id, "pid": str(os.getpid())}

    @property
    def port(self) -> int:
        return self.listener.port

    @property
    def connections(self) -> set[Connection]:
        """The open connections to this instance."""
        return self.listener.connections

    def figures(self) -> InstanceRecord:
        """What this instance publishes about itself for the cluster's views."""
        return InstanceRecord(
            address=self._address,
            started_ms=self._started_ms,
            connections=len(self.listener.connections),
            players=self.players.people(),
            workers=len(self.bots.live_workers()),
            heard_ms=now_ms(),
            draining=self.listener.draining,
        )

    def local_url(self) -> str:
        """Where a worker on this machine reaches the server."""
        return local_url(self.config.host, self.port)

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        self._started_ms = now_ms()
        await self.store.start()
        taken = await self._take_up_games()
        await self.ticker.first_beat()
        await self.housekeeping.join()
        self.hub.on_notice = self.players.deliver_notice
        await self.hub.start()
        await self.listener.start()
        if taken and isinstance(self.store, EmbeddedStore):
            # Served now: a start that failed before here (its port taken) left them
            # in the file for the next.
            await self.store.forget_kept_games()
        if self.handoff is not None:
            self.handoff.start()
        self._address = f"{url_host(self.config.host)}:{self.port}"  # as status prints it
        self._background(self.ticker.run())
        self._background(self.loop_watch.run())
        self._background(self.housekeeping.keep_lease())
        self._background(self.matchmaker.run())
        self._background(self.housekeeping.purge())
        self._background(self.listener.drop_stalled_readers())
        self._background(self.watchdog.watch())
        self._background(self.taker.run())
        if self.config.bots.embedded > 0:
            key = self.config.bots.embedded_key or "embedded-" + secrets.token_urlsafe(24)
            self.services.bot_keys.add(key)
            for _ in range(self.config.bots.embedded):
                self._background(self.local_workers.run(self.local_url(), key))

    async def stop(self) -> None:
        """Close every connection with 1001 (going away) and stop background work.
        Every acknowledged move is already committed to the store. Once: a second call
        does nothing (its store is closed; the games were kept by the first)."""
        if self._stopped:
            return
        self._stopped = True
        await self.local_workers.stop()
        if self.handoff is not None:
            await self.handoff.stop()
        await self.listener.stop()
        await self.housekeeping.leave()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.hints.close()
        if isinstance(self.store, MemoryStore):  # its rooms end with this process
            kept = await self._keep_games()
            await self.service.archive_before_stop(self.store.room_ids(), kept)
        await self.hub.stop()
        await self.store.close()

    async def warn_before_stop(self) -> None:
        """Name the games this stop will end, or keep (the memory store's rooms end with
        the process; a data file keeps the games between people), at its first
        signal."""
        if isinstance(self.store, MemoryStore):
            keeping = isinstance(self.store, EmbeddedStore)
            full = keeping and not await self.store.healthy()
            await self.service.warn_before_stop(
                self.store.room_ids(), keeping=keeping, file_full=full
            )

    async def _keep_games(self) -> list[str]:
        """With a data file, keep the games being played between people in it for the
        next start (:meth:`_take_up_games`); their ids. A data file that takes no writes
        (a full disk) loses them, as a stop did before, with a warning."""
        if not isinstance(self.store, EmbeddedStore):
            return []
        games, _ = await self.service.stop_plan(self.store.room_ids(), keeping=True)
        if not games:
            return []
        try:
            await self.store.keep_games([room.id for room in games])
        except StoreUnavailable as exc:
            log.warning("the games in progress could not be kept in the data file: %s", exc)
            return []
        log.info(
            "kept %s in progress in the data file, to go on when the server starts again on it: %s",
            counted(len(games), "game"),
            ", ".join(map(described, games)),
        )
        return [room.id for room in games]

    async def _take_up_games(self) -> bool:
        """The games the last stop kept in the data file, taken up before the first
        beat (which finds the time the server was down an outage: the running clocks and
        claim countdowns get it back). Nobody is attached to them yet: each room is
        looked at at once, so its seats show their players gone (the grace period runs)
        until they come back. Whether any were taken up."""
        if not isinstance(self.store, EmbeddedStore):
            return False
        if (since := self.store.data.unclean_since_ms) is not None:
            started = datetime.datetime.fromtimestamp(since / 1000, datetime.UTC)
            log.warning(
                "the last server on this data file (started %s UTC) did not stop cleanly "
                "(killed, crashed, or stopped on a full disk): the games being played then "
                "are gone; finished games, players and ratings are kept",
                started.strftime("%Y-%m-%d %H:%M:%S"),
            )
        restored = await self.store.take_up_games()
        if not restored:
            return False
        now = now_ms()
        for room_id in restored:
            await self.store.set_deadline(room_id, now)
        log.info(
            "took up %s in progress kept by the last stop: %s",
            counted(len(restored), "game"),
            " ".join(restored),
        )
        return True

    async def __aenter__(self) -> GomokuServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        self._tasks.append(asyncio.create_task(coro))
