"""The server process: the WebSocket listener, HTTP health, metrics and the browser
client's page on the same port, and the background work (clock flags, matchmaking,
housekeeping)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import http
import itertools
import logging
import os
import secrets
import sys
import time
from collections.abc import Coroutine
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from engine import Rule
from protocol import messages as m
from protocol.errors import CloseCode
from protocol.values import Limits, TimeControl
from server import __version__, game
from server.bots import AiSeating, HintDesk, Watchdog, WorkerRegistry
from server.config import ServerConfig
from server.connection import Connection, wire_limits
from server.game import GameError
from server.handshake import OriginPolicy, select_encoding
from server.http_files import StaticSite, wants_websocket, without_body
from server.hub import Hub
from server.metrics import Metrics
from server.ratelimit import KeyedWindows, SlidingWindow
from server.room import Seat
from server.service import NoSuchRoom, Notice, RoomService, decode_notice, encode_notice, now_ms
from server.sessions import new_room_id
from server.store import MemoryStore, QueueEntry, Store, StoreUnavailable

log = logging.getLogger("gomoku.server")

WRITE_LIMIT = 64 * 1024
"""Bytes websockets buffers for a peer before its own sends (pings, close) wait; our
frames are written without waiting and bounded by ``send_buffer`` instead."""


class GomokuServer:
    """One server instance. ``async with GomokuServer(...)`` serves until the block ends."""

    version = __version__

    def __init__(self, config: ServerConfig | None = None, *, store: Store | None = None) -> None:
        self.config = config or ServerConfig()
        if store is None:
            store = MemoryStore(session_ttl_ms=self.config.timers.session_ttl_ms)
        self.store: Store = store
        self.metrics = Metrics()
        self.hub = Hub(self.store)
        self.service = RoomService(self.store, self.config, self.metrics)
        self.bots = WorkerRegistry(self.config.bots, self.metrics)
        """This instance's AI workers and the AI seats they play."""
        self.ai = AiSeating(self.bots, self.store, self.service, self.config)
        self.hints = HintDesk(self.bots, self.config.bots, self.metrics)
        self.watchdog = Watchdog(
            self.bots, self.ai, self.store, self.service, self.config.bots, self.metrics
        )
        self.bot_keys: set[str] = set(self.config.bot_keys)
        """Accepted bot keys: the configured ones and the embedded workers' own."""
        self.site = StaticSite.from_package()
        """The browser client's files, served at ``http://host:port/``."""
        self.origins = OriginPolicy(self.config.allowed_origins)
        self._embedded: list[asyncio.subprocess.Process] = []
        self._stopping = False
        self.connections: set[Connection] = set()
        self.per_address: collections.Counter[str] = collections.Counter()
        """Open connections per client address (for ``max_conns_per_ip``)."""
        self.chat_windows: dict[str, SlidingWindow] = {}
        """Chat flood limit per player (shared by the player's connections here)."""
        limits = self.config.limits
        self.code_failures = KeyedWindows(
            limits.code_failures_per_ip, limits.code_failure_window_ms
        )
        """Joins by a wrong invite code per client address (guessing)."""
        self.players: dict[str, set[Connection]] = {}
        self.instance_id = secrets.token_hex(6)
        """This instance in the store: its connections' attachments carry it, and its
        lease (renewed by :meth:`_keep_lease`) says it is alive."""
        self._conn_ids = itertools.count(1)
        self._detach_retry: set[tuple[str, str]] = set()
        """(room, connection) attachments a closed connection could not drop (the store
        was unreachable): tried again until they are gone."""
        self.queues: dict[str, tuple[Rule, TimeControl | None]] = {}
        self._server: Server | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._match_wakeup = asyncio.Event()
        self.metrics.gauges["gomoku_connections"] = lambda: len(self.connections)
        self.metrics.gauges["gomoku_players_online"] = lambda: len(self.players)
        self.metrics.gauges["gomoku_rooms_followed"] = self.hub.rooms_followed
        self.metrics.cluster_gauges["gomoku_rooms"] = self.store.count_rooms
        self.metrics.cluster_gauges["gomoku_lobby_rooms"] = self.store.count_lobby

    # -- lifecycle -------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = next(iter(self._server.sockets)).getsockname()[1]
        return port

    async def start(self) -> None:
        await self.store.start()
        # Beat before serving: a restart finds the outage it ends before anyone acts.
        timers = self.config.timers
        self.service.outage = await self.store.beat(now_ms(), timers.outage_after_ms)
        await self.store.instance_beat(self.instance_id, now_ms() + timers.instance_lease_ms)
        self.hub.on_notice = self._deliver_notice
        await self.hub.start()
        limits = self.config.limits
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._process_request,
            select_subprotocol=select_encoding,
            max_size=limits.max_frame,
            compression=None,
            ping_interval=limits.ping_interval_s,
            ping_timeout=limits.ping_timeout_s,
            max_queue=16,
            write_limit=WRITE_LIMIT,
        )
        self._background(self._tick_clocks())
        self._background(self._keep_lease())
        self._background(self._matchmake())
        self._background(self._housekeeping())
        self._background(self._drop_stalled_readers())
        self._background(self.watchdog.watch())
        if self.config.bots.embedded > 0:
            key = "embedded-" + secrets.token_urlsafe(24)
            self.bot_keys.add(key)
            for _ in range(self.config.bots.embedded):
                self._background(self._run_embedded_worker(key))

    async def stop(self) -> None:
        """Close every connection with 1001 (going away) and stop background work.
        Every acknowledged move is already committed to the store."""
        self._stopping = True
        await self._stop_embedded_workers()
        if self._server is not None:
            self._server.close(close_connections=True, code=CloseCode.GOING_AWAY)
            try:
                # A peer that reads nothing never lets its close frame out: abort it.
                async with asyncio.timeout(self.config.limits.close_timeout_s):
                    await self._server.wait_closed()
            except TimeoutError:
                for conn in list(self.connections):
                    conn.ws.transport.abort()
                await self._server.wait_closed()
        await self._leave_store()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.hints.close()
        await self.hub.stop()
        await self.store.close()

    async def __aenter__(self) -> GomokuServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        self._tasks.append(asyncio.create_task(coro))

    # -- connections -----------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        limits = self.config.limits
        address = self.client_address(ws, ws.request)
        if len(self.connections) >= limits.max_connections:
            await ws.close(CloseCode.POLICY, "too many connections")
            return
        if limits.max_conns_per_ip and self.per_address[address] >= limits.max_conns_per_ip:
            # Handshakes that raced past _process_request's check end here.
            self.metrics.inc("gomoku_refused_per_ip_total")
            await ws.close(CloseCode.POLICY, "too many connections from your address")
            return
        conn = Connection(self, ws, address)
        self.connections.add(conn)
        self.per_address[address] += 1
        try:
            await conn.run()
        except Exception:
            self.metrics.inc("gomoku_errors_internal_total")
            log.exception("connection handler failed")
            await ws.close(CloseCode.INTERNAL, "internal server error")
        finally:
            self.connections.discard(conn)
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]

    def client_address(self, ws: ServerConnection, request: Request | None) -> str:
        """Who is connecting: the peer's IP, or the client a trusted reverse proxy
        names in ``X-Forwarded-For`` (its last entry, the one the proxy added)."""
        peer = ws.remote_address[0] if ws.remote_address else ""
        if peer in self.config.trusted_proxies and request is not None:
            forwarded = request.headers.get("X-Forwarded-For", "")
            last = forwarded.rsplit(",", 1)[-1].strip()
            if last:
                return last
        return str(peer)

    async def _process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP on the WebSocket port (``HEAD`` gets the headers of a ``GET``)."""
        response = await self._answer_http(ws, request)
        return None if response is None else without_body(request, response)

    async def _answer_http(self, ws: ServerConnection, request: Request) -> Response | None:
        """``/healthz``, ``/metrics``, the browser client's files (:mod:`server.http_files`),
        or None to go on with the WebSocket handshake."""
        path = request.path.split("?", 1)[0]
        if path not in ("/healthz", "/metrics") and not wants_websocket(request):
            return self.site.respond(request)
        per_ip = self.config.limits.max_conns_per_ip
        if (
            per_ip
            and path not in ("/healthz", "/metrics")
            and self.per_address[self.client_address(ws, request)] >= per_ip
        ):
            self.metrics.inc("gomoku_refused_per_ip_total")
            return ws.respond(
                http.HTTPStatus.TOO_MANY_REQUESTS, "too many connections from your address\n"
            )
        if path == "/healthz":
            if await self.store.healthy():
                return ws.respond(http.HTTPStatus.OK, "ok\n")
            return ws.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "store unavailable\n")
        if path == "/metrics":
            response = ws.respond(http.HTTPStatus.OK, await self.metrics.collect())
            response.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
            return response
        if not self.origins.allows(request.headers):
            self.metrics.inc("gomoku_refused_origin_total")
            return ws.respond(http.HTTPStatus.FORBIDDEN, "pages from your origin may not connect\n")
        return None

    async def attach(self, player_id: str, conn: Connection) -> None:
        first = player_id not in self.players
        self.players.setdefault(player_id, set()).add(conn)
        if first:
            await self.hub.add_player(player_id)

    def detach(self, player_id: str, conn: Connection) -> bool:
        """Forget a closed connection; True if the player has others here."""
        conns = self.players.get(player_id)
        if conns is None:
            return False
        conns.discard(conn)
        if conns:
            return True
        del self.players[player_id]
        self.chat_windows.pop(player_id, None)
        asyncio.get_running_loop().create_task(self.hub.remove_player(player_id))
        return False

    def new_conn_id(self) -> str:
        """A connection id unique over every instance: this instance's id, ``/``, a number."""
        return f"{self.instance_id}/{next(self._conn_ids)}"

    def detach_later(self, room_id: str, conn_id: str) -> None:
        """A closed connection's attachment that could not be dropped now: try again."""
        self._detach_retry.add((room_id, conn_id))

    async def _keep_lease(self) -> None:
        """Renew this instance's lease; reap instances whose lease ran out (their
        attachments would keep players present forever); drop attachments that closed
        connections left behind while the store was unreachable."""
        lease = self.config.timers.instance_lease_ms
        while True:
            await asyncio.sleep(lease / 5000)
            try:
                now = now_ms()
                await self.store.instance_beat(self.instance_id, now + lease)
                for room_id, conn_id in sorted(self._detach_retry):
                    if await self.store.detach(room_id, conn_id, now) == 0:
                        await self.service.presence_changed(room_id)
                    self._detach_retry.discard((room_id, conn_id))
                for instance in await self.store.expired_instances(now, lease):
                    gone = await self.store.reap_instance(instance, now)
                    log.warning(
                        "server instance %s stopped renewing its lease: its connections "
                        "left %d rooms",
                        instance,
                        len(gone),
                    )
                    for room_id in gone:
                        with contextlib.suppress(GameError, NoSuchRoom):
                            await self.service.presence_changed(room_id)
            except StoreUnavailable as exc:
                log.info("the instance lease waits for the store: %s", exc)
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("instance lease upkeep failed")

    async def _leave_store(self) -> None:
        """Stopping: every connection detached as it closed; drop whatever attachment of
        this instance is left and its lease, so a stopped instance keeps nobody present."""
        with contextlib.suppress(StoreUnavailable):
            gone = await self.store.reap_instance(self.instance_id, now_ms())
            for room_id in gone:
                with contextlib.suppress(GameError, NoSuchRoom):
                    await self.service.presence_changed(room_id)

    def chat_window(self, player_id: str) -> SlidingWindow:
        """The player's chat flood limit: one window for all their connections here."""
        window = self.chat_windows.get(player_id)
        if window is None:
            limits = self.config.limits
            window = SlidingWindow(limits.chat_per_window, limits.chat_window_ms)
            self.chat_windows[player_id] = window
        return window

    def wire_limits(self) -> Limits:
        return wire_limits(self.config)

    async def _deliver_notice(self, player_id: str, data: bytes) -> None:
        notice = decode_notice(data)
        for conn in list(self.players.get(player_id, ())):
            await conn.notice(notice)

    # -- background work -------------------------------------------------------

    async def _tick_clocks(self) -> None:
        """Flag players whose clock ran out, even if nobody sends anything. Each tick
        beats first, so an outage is found (and its time given back to the clocks,
        :mod:`server.outage`) before any flag can fall for it."""
        timers = self.config.timers
        store_down = False
        while True:
            await asyncio.sleep(timers.tick_interval_s)
            try:
                now = now_ms()
                latest = await self.store.beat(now, timers.outage_after_ms)
                if latest is not None and latest.end_ms == now:
                    self.metrics.inc("gomoku_outages_total")
                    log.warning(
                        "no server beat for %.1f s: running clocks get that time back",
                        (latest.end_ms - latest.start_ms) / 1000,
                    )
                self.service.outage = latest
                due = await self.store.claim_due(now, timers.deadline_lease_ms)
                for room_id in due:
                    with contextlib.suppress(GameError, NoSuchRoom):
                        await self.service.act(room_id, game.Tick())
                        await self.service.announce_spectators(room_id, due=True)
                if store_down:
                    log.info("the store answers again")
                store_down = False
            except StoreUnavailable as exc:
                if not store_down:
                    log.warning("the store is unreachable (%s); clocks wait for it", exc)
                store_down = True
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("clock ticker failed")

    def wake_matchmaker(self) -> None:
        self._match_wakeup.set()

    async def _matchmake(self) -> None:
        """Pair waiting players; runs when someone queues and every interval. While the
        store is unreachable it waits for it, as the clock ticker does (a warning, not
        an internal error)."""
        mm = self.config.matchmaking
        store_down = False
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._match_wakeup.wait(), mm.interval_s)
            self._match_wakeup.clear()
            try:
                for name in await self.store.queue_names():
                    pairs = await self.store.queue_pair(
                        name, now_ms(), base_gap=mm.base_gap, gap_per_second=mm.gap_per_second
                    )
                    for first, second in pairs:
                        try:
                            await self._start_match(name, first, second)
                        except StoreUnavailable:
                            await self._requeue(name, (first, second))
                            raise
                store_down = False
            except StoreUnavailable as exc:
                if not store_down:
                    log.warning("the store is unreachable (%s); matchmaking waits for it", exc)
                store_down = True
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("matchmaker failed")

    async def _start_match(self, queue: str, first: QueueEntry, second: QueueEntry) -> None:
        rule_name, _, tc = queue.partition("/")
        time_control = None
        if tc != "none":
            base, _, inc = tc.partition("+")
            time_control = TimeControl(base_ms=int(base), inc_ms=int(inc))
        entries = [first, second]  # the one who waited longer plays Black
        players = [e.player_id for e in entries]
        settings = game.RoomSettings(rule=Rule(rule_name), time=time_control, rated=True)
        seats: list[tuple[Seat, game.SeatWish]] = [(self._seat_for(e), "any") for e in entries]
        room = await self.service.open(new_room_id(), settings, seats=seats)
        log.info("matched %s and %s in room %s", *players, room.id)
        for player in players:
            await self.store.publish_player(
                player, encode_notice(Notice(kind="matched", room=room.id))
            )

    async def _requeue(self, queue: str, entries: tuple[QueueEntry, ...]) -> None:
        """A pair taken out of the queue whose game could not be created: put them back,
        with the time they started waiting (their place). If even that fails, tell the
        players' connections here that they no longer wait, rather than let them wait for
        a match that cannot come."""
        for entry in entries:
            try:
                await self.store.queue_add(queue, entry)
            except StoreUnavailable:
                log.warning("player %s lost their place in queue %s", entry.player_id, queue)
                for conn in self.players.get(entry.player_id, ()):
                    if conn.queue == queue:
                        conn.queue = None
                        conn.send(m.Unqueued())

    def _seat_for(self, entry: QueueEntry) -> Seat:
        """The seat of a matched player, with the rating they queued with (their rating
        under the queue's rule)."""
        rating = round(entry.rating)
        for conn in self.players.get(entry.player_id, ()):
            if conn.session is not None:
                seat = conn.seat()
                seat.rating = rating
                return seat
        return Seat(id=entry.player_id, name=entry.name or entry.player_id, rating=rating)

    # -- the embedded AI worker --------------------------------------------------

    def local_url(self) -> str:
        """Where a worker on this machine reaches the server (loopback if listening on all)."""
        host = self.config.host
        if host in ("", "0.0.0.0"):
            host = "127.0.0.1"
        elif host == "::":
            host = "::1"
        if ":" in host:
            host = f"[{host}]"
        return f"ws://{host}:{self.port}"

    async def _run_embedded_worker(self, key: str) -> None:
        """Run one local AI worker process (``python -m worker``) and restart it if it
        dies, with a growing pause, until the server stops."""
        pause = 0.5
        while not self._stopping:
            args = [
                sys.executable,
                "-m",
                "worker",
                "--server",
                self.local_url(),
                "--seats",
                str(self.config.bots.embedded_seats),
                "--log-level",
                "WARNING",
                "--stop-on-eof",  # the pipe closes when this process ends, however it ends
            ]
            env = {**os.environ, "GOMOKU_BOT_KEY": key}
            process = await asyncio.create_subprocess_exec(
                *args, env=env, stdin=asyncio.subprocess.PIPE
            )
            self._embedded.append(process)
            log.info("started the local AI worker (pid %d)", process.pid)
            started = asyncio.get_running_loop().time()
            code = await process.wait()
            self._embedded.remove(process)
            if self._stopping:
                return
            log.warning("the local AI worker exited with code %s; restarting it", code)
            if asyncio.get_running_loop().time() - started > 30:
                pause = 0.5
            await asyncio.sleep(pause)
            pause = min(pause * 2, 30.0)

    async def _stop_embedded_workers(self) -> None:
        for process in list(self._embedded):
            if process.stdin is not None:
                process.stdin.close()  # the worker stops at the end of its input
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for process in list(self._embedded):
            try:
                await asyncio.wait_for(process.wait(), 5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()

    async def _housekeeping(self) -> None:
        while True:
            await asyncio.sleep(self.config.timers.purge_interval_s)
            try:
                await self.store.purge()
            except StoreUnavailable as exc:
                log.info("housekeeping waits for the store: %s", exc)

    async def _drop_stalled_readers(self) -> None:
        """Drop connections whose current frame has waited ``send_timeout_s`` for the
        peer to read: a peer that stopped reading also stalls keepalive pings, so
        nothing else would ever notice it."""
        timeout = self.config.limits.send_timeout_s
        while True:
            await asyncio.sleep(max(0.05, timeout / 4))
            now = time.monotonic()
            for conn in list(self.connections):
                stalled = conn.stalled_for(now)
                if stalled > timeout:
                    conn.drop_slow_reader(f"no progress for {stalled:.0f} s")
