"""The network side of the client: one WebSocket to the server, kept alive.

A :class:`Connection` connects, says hello (with the remembered resume token),
and feeds every decoded server message to ``dispatch``, together with local
:mod:`client.state` actions that describe the link itself. When the socket
drops it retries with exponential backoff, reporting each attempt and the time
of the next try; once back it says hello with the token (same player, same
seats) and asks every room it was in for the events after the last one it saw
(``resume``), then reports the catch-up as done.

A resume is done when the server's direct reply to it arrives (a snapshot or
an error echoing the request id) or, when the server answers with the missed
events alone, once those stop arriving for :data:`CATCH_UP_QUIET` seconds.

Nothing here knows about the terminal: the app passes ``dispatch``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import itertools
import random
import time
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from client.state import Action, ConnectionChanged, ResumeDone, ResumeStarted
from protocol import messages as msg
from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode, ProtocolError, UnknownMessageType
from protocol.limits import MAX_SERVER_FRAME

CATCH_UP_QUIET = 0.3  # seconds without a room event that end a resume's catch-up
DEFAULT_PORT = 8765


class AddressError(ValueError):
    """A server address that is not ``HOST``, ``HOST:PORT`` or ``[IPv6]:PORT``."""


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``"192.168.1.20:8765"`` -> ``("192.168.1.20", 8765)``; the port is optional."""
    text = text.strip()
    if not text:
        raise AddressError("empty server address")
    if text.startswith("["):  # [::1]:8765
        host, sep, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
        if not sep or (rest and not rest.startswith(":")):
            raise AddressError(f"{text!r} is not an address like [::1]:8765")
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, ""
        if ":" in host:
            try:
                ipaddress.IPv6Address(host)  # a bare IPv6 address such as ::1
            except ValueError:
                raise AddressError(f"{text!r} is not an address like host:8765") from None
    if not host:
        raise AddressError(f"{text!r} has no host name")
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise AddressError(f"{port_text!r} is not a port number (1..65535)")
    return host, int(port_text)


class HelloRefused(Exception):
    """The server answered ``hello`` with an error (not a forgotten token): the link is
    dropped and tried again after the backoff."""


@dataclasses.dataclass(frozen=True, slots=True)
class Backoff:
    """Delays between reconnect attempts: ``initial`` doubling up to ``maximum``,
    each shortened by up to ``jitter`` (a fraction) so clients of a restarted
    server do not all come back in the same instant."""

    initial: float = 0.5
    maximum: float = 15.0
    factor: float = 2.0
    jitter: float = 0.2

    def delay(self, attempt: int) -> float:
        """The wait before reconnect attempt ``attempt`` (1 = the first retry)."""
        base = min(self.maximum, self.initial * self.factor ** max(0, attempt - 1))
        return base * (1 - self.jitter * random.random())


@dataclasses.dataclass(slots=True)
class _Resume:
    room: str
    request: int
    last_activity: float


class Connection:
    """One player's link to one server.

    ``dispatch`` receives every server message and link action, in order, on
    the event loop that runs :meth:`run`. ``on_welcome`` is told the name and
    token the server issued, to remember them.
    """

    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        *,
        token: str | None = None,
        dispatch: Callable[[Action], None],
        on_welcome: Callable[[str, str], None] | None = None,
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.token = token
        self.dispatch = dispatch
        self.on_welcome = on_welcome
        self.backoff = backoff
        self.clock = clock
        self.player: str | None = None
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._seqs: dict[str, int] = {}  # room -> last event seq seen
        self._resumes: dict[int, _Resume] = {}
        self._closing = False
        self._welcomed = asyncio.Event()
        self._hello_id = 0

    @property
    def uri(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port}/"

    @property
    def address(self) -> str:
        """``host:port``, the key the resume token is remembered under."""
        return f"{self.host}:{self.port}"

    @property
    def online(self) -> bool:
        return self._ws is not None and self._welcomed.is_set()

    async def wait_welcomed(self) -> None:
        """Wait until the server has welcomed this connection."""
        await self._welcomed.wait()

    def next_id(self) -> int:
        return next(self._ids)

    async def send(self, message: msg.ClientMessage) -> bool:
        """Send ``message`` if online; False (nothing sent) while the link is down."""
        ws = self._ws
        if ws is None or not self._welcomed.is_set():
            return False
        try:
            await ws.send(encode(message))
        except ConnectionClosed:
            return False
        return True

    async def close(self) -> None:
        """Close the link for good (no reconnect)."""
        self._closing = True
        ws = self._ws
        if ws is not None:
            await ws.close()

    async def run(self) -> None:
        """Connect and keep reconnecting until :meth:`close`. Never raises for
        network trouble: it is reported through ``dispatch``."""
        attempt = 0
        while not self._closing:
            if attempt == 0:
                self.dispatch(ConnectionChanged("connecting"))
            try:
                async with connect(
                    self.uri,
                    compression=None,
                    max_size=MAX_SERVER_FRAME,
                    open_timeout=5,
                    ping_interval=20,
                    ping_timeout=20,
                ) as ws:
                    self._ws = ws
                    await self._session(ws)
            except (OSError, InvalidHandshake, InvalidURI, TimeoutError, HelloRefused) as exc:
                detail = str(exc) or type(exc).__name__
            except ConnectionClosed as exc:
                detail = exc.reason or f"closed ({exc.code})" if exc.rcvd else "connection lost"
            else:
                detail = "connection closed"
            finally:
                if self._welcomed.is_set():
                    attempt = 0  # the backoff grows only while no attempt gets welcomed
                self._ws = None
                self._welcomed.clear()
                self._resumes.clear()
            if self._closing:
                break
            attempt += 1
            delay = self.backoff.delay(attempt)
            self.dispatch(ConnectionChanged("reconnecting", attempt, self.clock() + delay, detail))
            await asyncio.sleep(delay)
        self.dispatch(ConnectionChanged("offline", detail="closed"))

    async def _session(self, ws: ClientConnection) -> None:
        await self._hello(ws, self.token)
        watcher = asyncio.create_task(self._watch_resumes())
        try:
            async for frame in ws:
                if isinstance(frame, str):
                    continue  # the protocol is binary; a text frame is not for us
                try:
                    message = decode_server(frame)
                except UnknownMessageType:
                    continue  # a newer server's message: ignore (forward compatibility)
                except ProtocolError:
                    continue
                await self._receive(ws, message)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    async def _hello(self, ws: ClientConnection, token: str | None) -> None:
        self._hello_id = self.next_id()
        await ws.send(encode(msg.Hello(id=self._hello_id, name=self.name, token=token)))

    async def _receive(self, ws: ClientConnection, message: msg.ServerMessage) -> None:
        match message:
            case msg.Welcome(player=player, name=name, token=token, rooms=rooms):
                self.player, self.name, self.token = player, name, token
                self._welcomed.set()
                self.dispatch(message)
                if self.on_welcome is not None:
                    self.on_welcome(name, token)
                for room in sorted(set(self._seqs) | set(rooms)):
                    await self._resume(ws, room)
                return
            case msg.Error(code=code, re=re) if (
                re == self._hello_id and code == ErrorCode.BAD_TOKEN
            ):
                self.token = None  # the server forgot us: start as a new player
                await self._hello(ws, None)
                return
            case msg.Error(code=code, message=text, re=re) if (
                re == self._hello_id and not self._welcomed.is_set()
            ):
                # Refused for another reason (the server's store is down, say): show it,
                # and try again on a new connection after the backoff, token kept.
                self.dispatch(message)
                raise HelloRefused(f"the server refused hello: {code}: {text}")
            case msg.Snapshot(room=view):
                self._seqs[view.id] = view.seq
            case msg.Event(room=room, seq=seq):
                self._seqs[room] = max(seq, self._seqs.get(room, 0))
                for pending in self._resumes.values():
                    if pending.room == room:
                        pending.last_activity = self.clock()
            case msg.Left(room=room):
                self._seqs.pop(room, None)
        self.dispatch(message)
        re = getattr(message, "re", None)
        if re is not None and re in self._resumes:
            self.dispatch(ResumeDone(self._resumes.pop(re).room))

    async def _resume(self, ws: ClientConnection, room: str) -> None:
        request = self.next_id()
        self._resumes[request] = _Resume(room, request, self.clock())
        self.dispatch(ResumeStarted(room))
        after = self._seqs.get(room, 0)
        await ws.send(encode(msg.Resume(id=request, room=room, after=after)))

    async def _watch_resumes(self) -> None:
        """End a resume that the server answered with events only, once they stop."""
        while True:
            await asyncio.sleep(CATCH_UP_QUIET / 3)
            now = self.clock()
            for request, pending in list(self._resumes.items()):
                if now - pending.last_activity >= CATCH_UP_QUIET:
                    del self._resumes[request]
                    self.dispatch(ResumeDone(pending.room))

    def forget_room(self, room: str) -> None:
        """Stop resuming ``room`` after a reconnect (the player left it)."""
        self._seqs.pop(room, None)
