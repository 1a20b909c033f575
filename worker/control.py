"""The worker's own connection: it says who the worker is and what it offers,
keeps the server convinced it is alive, and takes the server's orders (seats to
play, seats to give up, hints to find).

It reconnects with backoff (``WorkerConfig.backoff``) after a network drop or a
server restart, presenting its resume token so the server knows it is the same
worker (and a fresh hello if the server no longer knows the token). Seats run
independently on their own connections, so a drop of this one does not stop the
games.

When the server's name has several addresses (replicas behind DNS round robin),
the worker picks one and sends its own and its seats' connections there, so its
seats are served by the server instance it is registered with; when it
reconnects to another address, its seats follow it.

Stopping (SIGTERM) is quick whatever the worker is doing: a connection attempt or
a reconnect wait is abandoned at once, each seat gets a moment to close its
connection and its brain and is then cancelled, and searches still running in
the pool are cut short (:meth:`Thinker.close`), so the process is gone within
about a second and a half, not when the longest move budget or backoff is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
import urllib.parse
from collections.abc import Coroutine
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from engine import IllegalMoveError
from protocol import messages as m
from protocol.backoff import sleep_unless
from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.limits import MAX_SERVER_FRAME
from worker.config import WorkerConfig
from worker.seat import SeatClient
from worker.stats import WorkerStats, watch_loop
from worker.thinker import Thinker

log = logging.getLogger("gomoku.worker")

SEAT_CLOSE_S = 1.0
"""How long a stopping worker lets its seats close their connections and brains
before it cancels them (a seat waiting to reconnect has nothing to close)."""
CLOSE_TIMEOUT_S = 2.0
"""How long the worker's own connection waits for the server's close frame."""

_T = TypeVar("_T")


class WorkerRefused(Exception):
    """The server will not have this worker (a wrong bot key): retrying cannot help."""


class AiWorker:
    """An AI worker. ``await run()`` serves until :meth:`stop` (or a refusal).

    ``thinker`` may be shared between workers in one process (tests do); a worker
    that makes its own closes it when it stops.
    """

    def __init__(
        self,
        config: WorkerConfig,
        *,
        thinker: Thinker | None = None,
        measure_loop: bool = False,
    ) -> None:
        self.config = config
        self.stats = WorkerStats()
        self._own_thinker = thinker is None
        self.thinker = thinker or Thinker(config.processes)
        self.measure_loop = measure_loop
        self.worker_id: str | None = None
        self.token: str | None = None
        self.heartbeat_s = 5.0
        self.seats: dict[str, SeatClient] = {}
        self.ready = asyncio.Event()
        """Set while the server has accepted this worker's offer."""
        self._seat_tasks: set[asyncio.Task[None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ws: ClientConnection | None = None
        self._stopping = False
        self._stopped = asyncio.Event()
        self.address: tuple[str, int] | None = None
        """The server address every connection of this worker goes to (see above)."""
        self.url = config.server
        """The server (of ``config.servers``) every connection of this worker uses."""
        self._failed: tuple[str, int] | None = None
        """The address the last connection could not be made to, or was lost with."""

    # -- lifecycle -------------------------------------------------------------------

    async def run(self) -> None:
        if self.measure_loop:
            self._spawn(watch_loop(self.stats))
        if self._own_thinker and not self._stopping:
            await self._unless_stopped(self.thinker.start())  # a stop does not wait for it
        attempt = 0  # reconnect attempts since the last session
        try:
            while not self._stopping:
                connected = False
                failure = "closed"
                try:
                    ws = await self._unless_stopped(self._open())
                    if ws is None:
                        break  # stop() came while we were connecting
                    connected = True
                    async with ws:
                        self._ws = ws
                        attempt = 0
                        await self._unless_stopped(self._session(ws))
                except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as error:
                    if not self._stopping:
                        failure = f"{'lost' if connected else 'could not be made'} ({error})"
                finally:
                    self._ws = None
                    self.ready.clear()
                if self._stopping:
                    break
                failed_url, self._failed = self.url, self.address
                self._next_server()
                self.stats.reconnects += 1
                attempt += 1
                wait = self.config.backoff.delay(attempt)
                # Said at the first failure and every tenth after (one line each 4-5 s
                # for an hour of a server gone was 800 lines), with when the next try is.
                if attempt == 1 or attempt % 10 == 0:
                    log.info(
                        "worker: connection to %s %s; trying %s in %.1f s (attempt %d)",
                        failed_url,
                        failure,
                        "again" if self.url == failed_url else self.url,
                        wait,
                        attempt,
                    )
                await sleep_unless(self._stopped, wait)
        except InvalidURI as error:
            raise WorkerRefused(f"bad server address: {error}") from None
        finally:
            await self._shutdown()

    def _next_server(self) -> None:
        """After a failure, the next of ``config.servers`` (the same when there is one):
        a worker given several instances is not stopped by the one it used going down."""
        servers = self.config.servers
        if len(servers) > 1:
            self.url = servers[(servers.index(self.url) + 1) % len(servers)]

    async def _open(self) -> ClientConnection:
        await self._pick_address()
        return await connect(
            self.url,
            compression=None,
            max_size=MAX_SERVER_FRAME,
            open_timeout=10,
            close_timeout=CLOSE_TIMEOUT_S,
            **self.target(),
        )

    async def _unless_stopped(self, work: Coroutine[Any, Any, _T]) -> _T | None:
        """The result of ``work``, or None if :meth:`stop` came first (``work`` is
        then cancelled)."""
        task = asyncio.ensure_future(work)
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        return None if task.cancelled() else task.result()

    def target(self) -> dict[str, Any]:
        """``connect()`` arguments that reach the chosen address (none if not chosen)."""
        if self.address is None:
            return {}
        return {"host": self.address[0], "port": self.address[1]}

    async def _pick_address(self) -> None:
        """Resolve the server's name and pick one of its addresses at random, other than
        the one that just failed when there is another (a name that resolves to every
        replica, as Compose's does); if it is not the one the seats use, they reconnect
        to it."""
        parts = urllib.parse.urlsplit(self.url)
        if parts.hostname is None:
            raise InvalidURI(self.url, "no host")
        port = parts.port or (443 if parts.scheme == "wss" else 80)
        infos = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname, port, type=socket.SOCK_STREAM
        )
        addresses = sorted({(str(info[4][0]), int(info[4][1])) for info in infos})
        others = [address for address in addresses if address != self._failed] or addresses
        if self.address in others:
            return
        previous, self.address = self.address, random.choice(others)
        if previous is not None:
            log.info("worker: moving to server address %s:%d", *self.address)
            for seat in self.seats.values():
                seat.reconnect()

    async def stop(self) -> None:
        """Stop: close every connection (seats are handed over after the lease);
        :meth:`run` returns soon after, whatever it was doing."""
        self._stopping = True
        self._stopped.set()
        for seat in list(self.seats.values()):
            seat.release()
        if self._ws is not None:
            await self._ws.close()

    async def _shutdown(self) -> None:
        self._stopping = True
        self._stopped.set()
        for seat in list(self.seats.values()):
            seat.release()
        seats = set(self._seat_tasks)
        if seats:
            _, lingering = await asyncio.wait(seats, timeout=SEAT_CLOSE_S)
            for task in lingering:
                task.cancel()  # waiting to reconnect, or a brain slow to quit
            if lingering:
                await asyncio.wait(lingering, timeout=SEAT_CLOSE_S)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._own_thinker:
            await asyncio.to_thread(self.thinker.close)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the control connection --------------------------------------------------------

    async def _send(self, ws: ClientConnection, message: m.ClientMessage) -> None:
        await ws.send(encode(message))

    async def _next(self, ws: ClientConnection) -> m.ServerMessage | None:
        data = await ws.recv()
        try:
            return decode_server(data)
        except ProtocolError:
            return None  # a message of a newer protocol: ignore it

    async def _reply(self, ws: ClientConnection, request: int) -> m.ServerMessage:
        """The direct reply to ``request`` (orders that arrive meanwhile are handled)."""
        async with asyncio.timeout(10):
            while True:
                message = await self._next(ws)
                if message is None:
                    continue
                if getattr(message, "re", None) == request:
                    return message
                await self._handle(ws, message)

    async def _session(self, ws: ClientConnection) -> None:
        config = self.config
        await self._send(
            ws, m.Hello(name=config.name, token=self.token, bot_key=config.bot_key, id=1)
        )
        reply = await self._reply(ws, 1)
        if isinstance(reply, m.Error) and reply.code == ErrorCode.BAD_TOKEN:
            self.token = None  # the server forgot us (a restart without Redis): start afresh
            await self._send(ws, m.Hello(name=config.name, bot_key=config.bot_key, id=2))
            reply = await self._reply(ws, 2)
        if isinstance(reply, m.Error):
            if reply.code == ErrorCode.BAD_BOT_KEY:
                raise WorkerRefused(f"the server refused the bot key: {reply.message}")
            raise ConnectionError(f"hello refused: {reply.code}: {reply.message}")
        assert isinstance(reply, m.Welcome)
        if self.worker_id is not None and reply.player != self.worker_id:
            log.info("worker: the server knows us as a new worker %s", reply.player)
        self.worker_id, self.token = reply.player, reply.token
        levels = list(config.offered_levels())
        await self._send(ws, m.BotReady(seats=config.seats, levels=levels, id=3))
        accepted = await self._reply(ws, 3)
        if not isinstance(accepted, m.BotAccepted):
            raise ConnectionError(f"bot_ready refused: {accepted!r}")
        self.heartbeat_s = accepted.heartbeat_ms / 1000
        self.ready.set()
        log.info(
            "worker %s ready at %s: %d seats, levels %s",
            self.worker_id,
            self.url,
            config.seats,
            ",".join(levels),
        )
        beat = asyncio.create_task(self._heartbeat(ws))
        try:
            while True:
                message = await self._next(ws)
                if message is not None:
                    await self._handle(ws, message)
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                await beat

    async def _heartbeat(self, ws: ClientConnection) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            await self._send(ws, m.BotHeartbeat())

    async def _handle(self, ws: ClientConnection, message: m.ServerMessage) -> None:
        if isinstance(message, m.BotSeat):
            self._take_seat(message)
        elif isinstance(message, m.BotRelease):
            seat = self.seats.get(message.player)
            if seat is not None:
                log.info("worker: seat %s released (%s)", message.player, message.reason)
                seat.release()
        elif isinstance(message, m.HintRequest):
            self._spawn(self._hint(ws, message))
        elif isinstance(message, m.Error):
            log.warning("worker: server error %s: %s", message.code, message.message)

    def _take_seat(self, order: m.BotSeat) -> None:
        seat = self.seats.get(order.player)
        if seat is not None and not seat.released:
            seat.rooms.add(order.room)
            seat.reconnect(order.token)  # a new token for a seat we play: use it
            return
        seat = SeatClient(
            self,
            player=order.player,
            token=order.token,
            name=order.name,
            room=order.room,
            level=order.level,
        )
        self.seats[order.player] = seat
        task = asyncio.create_task(seat.run())
        self._seat_tasks.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._seat_tasks.discard(finished)
            if self.seats.get(order.player) is seat:
                del self.seats[order.player]
            if not finished.cancelled() and finished.exception() is not None:
                log.error("seat %s failed", order.player, exc_info=finished.exception())

        task.add_done_callback(done)

    async def _hint(self, ws: ClientConnection, request: m.HintRequest) -> None:
        try:
            choice = await self.thinker.move(
                request.rule,
                request.size,
                request.moves,
                self.config.hint_level,
                request.time_ms / 1000,
            )
            result = m.HintResult(request=request.request, point=choice.point, reason=choice.reason)
        except (IllegalMoveError, ValueError) as error:
            result = m.HintResult(request=request.request, point=None, reason=str(error)[:40])
        self.stats.hints += 1
        with contextlib.suppress(ConnectionClosed):
            await self._send(ws, result)
