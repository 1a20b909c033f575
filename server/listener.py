"""The server's port: WebSocket connections, and plain HTTP on the same port
(``/healthz``, ``/metrics``, the browser client's files, :mod:`server.http_files`).
Admission happens here: the limits on connections in all and per client address,
allowed web origins; and connections whose peer stopped reading are dropped. Every
answer names this instance (``X-Gomoku-Instance``), and before a stop the listener
drains: ``/healthz`` answers 503 while the players here are still served."""

from __future__ import annotations

import asyncio
import collections
import http
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.errors import CloseCode
from server import games_list
from server.addresses import forwarded_ip, limit_key
from server.connection import Connection
from server.handoff import Moving
from server.handshake import OriginPolicy, select_encoding
from server.http_files import StaticSite, wants_websocket, without_body
from server.services import Services
from server.store import StoreUnavailable
from server.wsconn import GuardedConnection, MovableConnection, Options, adopted

log = logging.getLogger("gomoku.server")

MAX_ORIGINS_TOLD = 100
"""Distinct refused origins logged; beyond it only ``gomoku_refused_origin_total`` counts
(a page cannot flood the log by sending new origins)."""

MAX_QUEUE = 16
"""Frames websockets reads ahead of the connection's handler before it stops reading."""
READ_WHOLE = 4
"""How many times the size limit (``max_frame``) a frame may be for websockets to read
it whole: one over the limit then reaches the connection's handler in its turn, after
the replies to the frames before it, and is refused there (``too_large``, then 1009).
Refused by the WebSocket layer itself, on reading its header, the close came at once,
and replies to requests already taken were lost (a bot's room was made, its snapshot
never sent). Larger ones still are, so read-ahead stays bounded."""
WRITE_LIMIT = 64 * 1024
"""Bytes websockets buffers for a peer before its own sends (pings, close) wait; our
frames are written without waiting and bounded by ``send_buffer`` instead."""
REATTACH_AT_ONCE = 32
"""Connections attached again together after this instance's lease was taken over."""


PROBES = ("/healthz", "/livez", "/metrics")
"""The paths a monitor asks: answered whatever the page's files and the per-address limit."""


class Listener:
    """The listening socket and the connections it admitted."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.config = services.config
        self.metrics = services.metrics
        self.site = StaticSite.from_package()
        """The browser client's files, served at ``http://host:port/``."""
        self.origins = OriginPolicy(self.config.allowed_origins)
        self.connections: set[Connection] = set()
        self.per_address: collections.Counter[str] = collections.Counter()
        """Open connections per client address, by :func:`~server.addresses.limit_key`
        (for ``max_conns_per_ip``)."""
        self.origins_told: set[tuple[str, str]] = set()
        """(origin, Host) pairs already logged as refused: each is logged once."""
        self.draining = False
        """Stopping soon (:meth:`drain`): ``/healthz`` answers 503 so a load balancer
        sends new connections elsewhere; everything else is served as usual."""
        self._server: Server | None = None
        limits = self.config.limits
        self.options = Options(
            max_size=limits.max_frame * READ_WHOLE,
            ping_interval=limits.ping_interval_s,
            ping_timeout=limits.ping_timeout_s,
            max_queue=MAX_QUEUE,
            write_limit=WRITE_LIMIT,
        )
        """Every connection's options, accepted here or handed over by a sibling."""

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = next(iter(self._server.sockets)).getsockname()[1]
        return port

    async def start(self) -> None:
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._process_request,
            process_response=self._process_response,
            select_subprotocol=select_encoding,
            compression=None,
            **self.options,
            reuse_port=self.config.reuse_port,
            # Counting frames costs a little per frame: only where connections may move.
            create_connection=MovableConnection if self.services.handoff else GuardedConnection,
        )

    async def drain(self, seconds: float, stop_now: Callable[[], Awaitable[str]]) -> str | None:
        """Before a stop: with players connected, go on serving for ``seconds`` while
        ``/healthz`` answers 503, so a load balancer's health checks take this instance
        out before its clients are told to go (:meth:`stop`) and reconnect, through the
        balancer, to another instance. ``stop_now`` (a second signal, say) ends the pause
        at once; what it returned is returned. Without players connected there is
        nobody to move and no pause: AI workers alone (the local ones stop with the
        server; others reconnect by themselves) do not hold a stop up."""
        players = [c for c in self.connections if c.identity is None or not c.identity.bot]
        if seconds <= 0 or not players:
            return None
        self.draining = True
        log.info(
            "draining: /healthz answers 503 for %g s, then the connections close with 1001 "
            "(%d now; signal again to stop now)",
            seconds,
            len(players),
        )
        try:
            return await asyncio.wait_for(stop_now(), seconds)
        except TimeoutError:
            return None

    async def stop(self) -> None:
        """Close every connection with 1001 (going away)."""
        if self._server is None:
            return
        self._server.close(close_connections=True, code=CloseCode.GOING_AWAY)
        try:
            # A peer that reads nothing never lets its close frame out: abort it.
            async with asyncio.timeout(self.config.limits.close_timeout_s):
                await self._server.wait_closed()
        except TimeoutError:
            for conn in list(self.connections):
                conn.ws.transport.abort()
            await self._server.wait_closed()

    # -- connections -----------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        limits = self.config.limits
        address = self.client_address(ws, ws.request)
        if len(self.connections) >= limits.max_connections:
            await ws.close(CloseCode.POLICY, "too many connections")
            return
        per_ip = limits.max_conns_per_ip
        if per_ip and self.per_address[limit_key(address)] >= per_ip:
            # Handshakes that raced past _process_request's check end here.
            self.metrics.inc("gomoku_refused_per_ip_total")
            await ws.close(CloseCode.POLICY, "too many connections from your address")
            return
        assert isinstance(ws, GuardedConnection)  # the server's create_connection
        await self._serve(Connection(self.services, ws, address))

    async def _serve(self, conn: Connection, first: Awaitable[None] | None = None) -> None:
        """Serve a connection until it closes, after ``first`` (a failure there closes it
        as an internal error)."""
        address = conn.limit_key
        self.connections.add(conn)
        self.per_address[address] += 1
        try:
            if first is not None:
                await first
            await conn.run()
        except Exception:
            self.metrics.inc("gomoku_errors_internal_total")
            log.exception("connection handler failed")
            await conn.ws.close(CloseCode.INTERNAL, "internal server error")
        finally:
            self.connections.discard(conn)
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]

    # -- connections handed over by a sibling process (server.handoff) ----------------

    async def adopt(self, sock: socket.socket, moving: Moving) -> Connection | None:
        """Serve a connection a sibling process handed over (its socket, open and between
        two of the client's frames): None, the socket closed, if this instance is
        stopping, is full, or cannot take it over in the store. Beyond the limit of
        connections in all only; its address was let in where it connected."""
        server = self._server
        if (
            server is None
            or self.draining
            or not server.is_serving()
            or len(self.connections) >= self.config.limits.max_connections
        ):
            sock.close()
            return None
        ws = adopted(server, moving.subprotocol, self.options)
        conn = Connection(self.services, ws, moving.address)
        try:
            await conn.take_over(moving)
        except Exception as exc:  # undone: the sibling goes on serving it
            if not isinstance(exc, StoreUnavailable | OSError):
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("taking over a connection from a sibling failed")
            else:
                log.warning("could not take over a connection from a sibling: %s", exc)
            sock.close()
            return None
        # Once the socket is in the event loop it is read (uvloop reads before a pause
        # could stop it): from there on the connection is this instance's, come what may.
        try:
            await asyncio.get_running_loop().connect_accepted_socket(lambda: ws, sock)
        except OSError as exc:  # nothing was read from it: the sibling goes on serving it
            log.warning("could not take over a connection from a sibling: %s", exc)
            await conn.give_back()
            sock.close()
            return None
        task = asyncio.create_task(self._run_adopted(server, ws, conn, moving))
        server.handler_tasks.add(task)
        return conn

    async def _run_adopted(
        self, server: Server, ws: MovableConnection, conn: Connection, moving: Moving
    ) -> None:
        """What websockets does for a connection it accepted, after the handshake."""
        server.all_connections.add(ws)
        ws.start_keepalive()
        try:
            async with ws:
                await self._serve(conn, first=conn.carry_on(moving))
        finally:
            server.all_connections.discard(ws)
            server.handler_tasks.discard(asyncio.current_task())

    def close_all(self, code: int, reason: str) -> int:
        """Close every connection with ``code`` (the store lost its data): how many."""
        conns = list(self.connections)
        for conn in conns:
            conn.close(code, reason)
        return len(conns)

    async def reattach(self) -> tuple[int, bool]:
        """Attach every connection again to its rooms (:meth:`Connection.reattach`),
        a few at a time: this instance's lease was taken over. Returns how many
        connections were attached again, and whether all were (one moving to a sibling
        process is left for the next pass). Raises StoreUnavailable if the store is."""
        done, whole = 0, True
        conns = sorted(self.connections, key=lambda c: c.conn_id)
        for first in range(0, len(conns), REATTACH_AT_ONCE):
            batch = conns[first : first + REATTACH_AT_ONCE]
            results = await asyncio.gather(*(c.reattach() for c in batch), return_exceptions=True)
            for conn, result in zip(batch, results, strict=True):
                if isinstance(result, StoreUnavailable):
                    raise result
                if isinstance(result, BaseException):
                    log.error("attaching %s again failed", conn.conn_id, exc_info=result)
                elif result:
                    done += 1
                else:
                    whole = False
        return done, whole

    def find(self, conn_id: str) -> Connection | None:
        """The connection here with the store id ``conn_id``, if it is open."""
        return next((c for c in self.connections if c.conn_id == conn_id), None)

    def _elsewhere(
        self, ws: ServerConnection, request: Request, what: str, path: str
    ) -> Response | None:
        """403 for a request from another machine than the server's own (None: it is the
        server's own), saying that ``what`` can be opened there at ``path``: the list of
        games and their records hold private games and player ids, which others may not
        read. (Its network address too is refused: the loopback one is the machine's own.)"""
        try:
            local = ipaddress.ip_address(self.client_address(ws, request)).is_loopback
        except ValueError:
            local = False
        if local:
            return None
        return ws.respond(
            http.HTTPStatus.FORBIDDEN,
            f"{what} for the server's own machine: open it there as "
            f"http://127.0.0.1:{self.port}{path}\n",
        )

    async def _games_csv(self, ws: ServerConnection, request: Request) -> Response:
        """Every finished game as CSV (:mod:`server.games_list`), to the server's own
        machine only; each row links its record (:meth:`_game_record`)."""
        if (
            refused := self._elsewhere(ws, request, "the list of games is", "/games.csv")
        ) is not None:
            return refused
        try:
            since_ms, limit = games_list.query(request.path)
        except games_list.BadQuery as error:
            return ws.respond(http.HTTPStatus.BAD_REQUEST, f"{error}\n")
        host = request.headers.get("Host") or f"127.0.0.1:{self.port}"
        try:
            text = await games_list.games_csv(
                self.services.store,
                since_ms=since_ms,
                limit=limit,
                records_at=f"http://{host}{games_list.RECORDS_PATH}",
            )
        except StoreUnavailable:
            return ws.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "store unavailable\n")
        return _attached(ws.respond(http.HTTPStatus.OK, text), "text/csv", "games.csv")

    async def _game_record(self, ws: ServerConnection, request: Request, path: str) -> Response:
        """``/games/<id>.json``: a finished game's record, private ones too, to the server's
        own machine only: the JSON record the clients export and read back (``gomoku
        review``), for a teacher to go over pupils' private games without asking each."""
        refused = self._elsewhere(ws, request, "a game's record is", path)
        if refused is not None:
            return refused
        game_id = games_list.record_id(path)
        if game_id is None:
            return ws.respond(http.HTTPStatus.NOT_FOUND, "no such game here\n")
        try:
            data = await self.services.store.get_record(game_id)
        except StoreUnavailable:
            return ws.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "store unavailable\n")
        if data is None:
            return ws.respond(
                http.HTTPStatus.NOT_FOUND,
                f"no finished game {game_id} here (a game still being played has no record yet)\n",
            )
        response = ws.respond(http.HTTPStatus.OK, "")
        response.body = data
        del response.headers["Content-Length"]
        response.headers["Content-Length"] = str(len(data))
        return _attached(response, "application/json", f"{game_id}.json")

    def client_address(self, ws: ServerConnection, request: Request | None) -> str:
        """Who is connecting: the peer's IP, or the client a trusted reverse proxy
        names in ``X-Forwarded-For`` (its last entry, the one the proxy added; the
        proxy's own address when that names no IP address)."""
        peer = ws.remote_address[0] if ws.remote_address else ""
        if peer in self.config.trusted_proxies and request is not None:
            # A client may send the header itself; the proxy then adds a line of its own
            # (HAProxy) or appends to it (nginx): either way its entry comes last.
            lines = request.headers.get_all("X-Forwarded-For")
            named = forwarded_ip(lines[-1].rsplit(",", 1)[-1]) if lines else None
            if named is not None:
                return named
        return str(peer)

    async def drop_stalled_readers(self) -> None:
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

    # -- plain HTTP --------------------------------------------------------------

    async def _process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP on the WebSocket port (``HEAD`` gets the headers of a ``GET``)."""
        response = await self._answer_http(ws, request)
        return None if response is None else without_body(request, response)

    def _log_refused_origin(self, headers: Headers) -> None:
        """Tell the operator once per origin and ``Host`` that a page was refused: a proxy
        that passes the host without its port (nginx's ``$host``) makes the server's own
        page look like another site's, and players only see the page stay offline."""
        seen = (", ".join(headers.get_all("Origin")), ", ".join(headers.get_all("Host")))
        if seen in self.origins_told or len(self.origins_told) >= MAX_ORIGINS_TOLD:
            return
        self.origins_told.add(seen)
        log.warning(
            "refused a page from %r (the request's Host is %r): if it is this server's own "
            "page behind a proxy, have the proxy pass the Host with its port (nginx: "
            "$http_host); another site's page may connect with --allow-origin",
            *seen,
        )

    def _process_response(self, ws: ServerConnection, request: Request, response: Response) -> None:
        """Every answer names the instance that gave it (behind a load balancer, or with
        ``--processes``, which of several served a request)."""
        response.headers["X-Gomoku-Instance"] = self.services.housekeeping.instance_id

    async def _answer_http(self, ws: ServerConnection, request: Request) -> Response | None:
        """``/healthz`` (ready: not draining, the store answers), ``/livez`` (alive: 200
        whenever the process answers, so that a liveness probe does not restart every
        instance through a Redis outage), ``/metrics``, the browser client's files
        (:mod:`server.http_files`), or None to go on with the WebSocket handshake."""
        path = request.path.split("?", 1)[0]
        if path == "/games.csv":
            return await self._games_csv(ws, request)
        if path.startswith(games_list.RECORDS_PATH):
            return await self._game_record(ws, request, path)
        if path not in PROBES and not wants_websocket(request):
            return self.site.respond(request)
        per_ip = self.config.limits.max_conns_per_ip
        if (
            per_ip
            and path not in PROBES
            and self.per_address[limit_key(self.client_address(ws, request))] >= per_ip
        ):
            self.metrics.inc("gomoku_refused_per_ip_total")
            return ws.respond(
                http.HTTPStatus.TOO_MANY_REQUESTS, "too many connections from your address\n"
            )
        if path == "/livez":  # the process answers: a liveness probe, whatever the store
            return ws.respond(http.HTTPStatus.OK, "alive\n")
        if path == "/healthz":
            if self.draining:
                return ws.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "draining\n")
            if await self.services.store.healthy():
                return ws.respond(http.HTTPStatus.OK, "ok\n")
            return ws.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "store unavailable\n")
        if path == "/metrics":
            response = ws.respond(http.HTTPStatus.OK, await self.metrics.collect())
            del response.headers["Content-Type"]  # Headers is a multidict: replace, not add
            response.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
            return response
        if not self.origins.allows(request.headers):
            self.metrics.inc("gomoku_refused_origin_total")
            self._log_refused_origin(request.headers)
            return ws.respond(http.HTTPStatus.FORBIDDEN, "pages from your origin may not connect\n")
        return None


def _attached(response: Response, media_type: str, filename: str) -> Response:
    """``response`` as a UTF-8 file of ``media_type`` named ``filename`` (shown in the
    browser, saved under that name)."""
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = f"{media_type}; charset=utf-8"
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
