"""The network side of the client: one WebSocket to the server, kept alive.

A :class:`Connection` connects, says hello (with the remembered resume token),
and feeds every decoded server message to ``dispatch``, together with local
:mod:`client.state` actions that describe the link itself. When the socket
drops it retries with exponential backoff (:data:`RECONNECT`), reporting each
attempt and the time of the next try; once back it says hello with the token (same player, same
seats) and asks every room it was in for the events after the last one it saw
(``resume``), then reports the catch-up as done.

A resume is done when the server's direct reply to it arrives (a snapshot or
an error echoing the request id) or, when the server answers with the missed
events alone, once those stop arriving for :data:`CATCH_UP_QUIET` seconds.

A server that forgets the player (``bad_token`` after its restart) is told
about with :class:`~client.state.IdentityLost` before the hello is repeated
without the token; a room it no longer has (``no_such_room`` to ``resume``) with
:class:`~client.state.RoomGone`. Why a connection attempt failed is classified
by :mod:`client.failures`.

Nothing here knows about the terminal: the app passes ``dispatch``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import time
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Data

from client.address import ServerAddress
from client.failures import LinkFailure, closed_by_server, failure_of
from client.state.model import Action
from client.state.room import ResumeDone, ResumeStarted, RoomGone, RoomSeen
from client.state.session import ConnectionChanged, IdentityLost
from protocol import messages as msg
from protocol.backoff import Backoff, sleep_unless
from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.limits import MAX_SERVER_FRAME, PROTOCOL_VERSION

CATCH_UP_QUIET = 0.3  # seconds without a room event that end a resume's catch-up
OPEN_TIMEOUT_S = 5.0  # the TCP, TLS and WebSocket handshakes together
HELLO_TIMEOUT_S = 10.0  # from hello to welcome: a server that never answers is not ours
RECONNECT = Backoff(initial=0.5, maximum=15.0)
"""Waits between reconnect attempts: 0.5 s doubling to 15 s, each up to 20% shorter."""
RESTART_RETRY = Backoff(initial=0.5, maximum=2.0)
"""The waits while a server restarts (it closed with 1001, or a proxy says no server is
behind it), for :data:`RESTART_WINDOW_S`: a restart takes seconds, and each second
waited beyond it is a second off the clock of a player on the move (with the growing
waits a player came back 8 s after the servers were)."""
RESTART_WINDOW_S = 60.0
"""How long after the server said it was going away the waits stay that short."""


@dataclasses.dataclass(slots=True)
class _Resume:
    """A ``resume`` waiting for its reply. A ``background`` one is for a room the
    player sits in but was not looking at: its snapshot is not put on screen."""

    room: str
    request: int
    last_activity: float
    background: bool = False


class Connection:
    """One player's link to one server.

    ``dispatch`` receives every server message and link action, in order, on
    the event loop that runs :meth:`run`. ``on_welcome`` is told the name and
    token the server issued, to remember them. ``open_timeout`` bounds the
    handshakes, ``hello_timeout`` the wait for ``welcome``.
    """

    def __init__(
        self,
        address: ServerAddress,
        name: str,
        *,
        token: str | None = None,
        dispatch: Callable[[Action], None],
        on_welcome: Callable[[str, str], None] | None = None,
        backoff: Backoff = RECONNECT,
        clock: Callable[[], float] = time.monotonic,
        open_timeout: float = OPEN_TIMEOUT_S,
        hello_timeout: float = HELLO_TIMEOUT_S,
    ) -> None:
        self.server = address
        self.name = name
        self.token = token
        self.dispatch = dispatch
        self.on_welcome = on_welcome
        self.backoff = backoff
        self.clock = clock
        self.open_timeout = open_timeout
        self.hello_timeout = hello_timeout
        self.player: str | None = None
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._seqs: dict[str, int] = {}  # room -> last event seq seen
        self._shown: str | None = None  # the room on screen: resumed in the foreground
        self._resumes: dict[int, _Resume] = {}
        self._resumed: dict[int, str] = {}
        """Request id -> room of every resume sent on this connection: an error answering
        one means the room is gone even after its catch-up was taken as over (a resume
        that is up to date gets no reply, so a slow server's refusal comes after the
        quiet time that ends it)."""
        self._codes: dict[str, str] = {}
        """Room -> its invite code, where known (shown to its players, or the code this
        client joined it by): a spectator of a private room whose connection dropped is
        no longer in it, and joins it again by its code rather than losing it."""
        self._joins_by_code: dict[int, str] = {}  # request id -> the code it joins by
        self._closing = False
        self._stopped = asyncio.Event()  # set by stop() / close(): no more attempts
        self._welcomed = asyncio.Event()
        self._hello_id = 0
        self._tasks: set[asyncio.Task[None]] = set()  # this session's resume watchers

    @property
    def address(self) -> str:
        """How the screens name the server (``host:port``, or the URL)."""
        return self.server.display

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
        if isinstance(message, msg.Join) and message.code is not None and message.id is not None:
            self._joins_by_code[message.id] = message.code
        try:
            await ws.send(encode(message))
        except ConnectionClosed:
            return False
        return True

    def stop(self) -> None:
        """Stop trying to connect (the player gave up on this server); :meth:`run`
        ends at once if it is waiting for the next try, after the attempt in
        progress otherwise."""
        self._closing = True
        self._stopped.set()

    async def close(self) -> None:
        """Close the link for good (no reconnect)."""
        self.stop()
        ws = self._ws
        if ws is not None:
            await ws.close()

    async def run(self) -> None:
        """Connect and keep reconnecting until :meth:`close` or :meth:`stop`. Never
        raises for network trouble: it is reported through ``dispatch``
        (:class:`ConnectionChanged` with the problem and the time of the next try)."""
        attempt = 0
        failure = LinkFailure("lost")
        restarting_since: float | None = None  # the server said it was going away then
        while not self._closing:
            if attempt == 0:
                self.dispatch(ConnectionChanged("connecting"))
            try:
                async with connect(
                    self.server.url,
                    compression=None,
                    max_size=MAX_SERVER_FRAME,
                    open_timeout=self.open_timeout,
                    ping_interval=20,
                    ping_timeout=20,
                ) as ws:
                    self._ws = ws
                    await self._session(ws)
                failure = closed_by_server(ws.close_code)
            except (OSError, EOFError, WebSocketException, LinkFailure) as exc:
                # Every way a network attempt fails (TimeoutError and ssl.SSLError are
                # OSErrors); a fault of the client's own code is not one and goes on up.
                failure = failure_of(exc, self.server)
            finally:
                was_welcomed = self._welcomed.is_set()
                self._ws = None
                self._welcomed.clear()
                self._resumes.clear()
                self._resumed.clear()
            if was_welcomed:
                attempt = 0  # the backoff grows only while no attempt gets welcomed
                restarting_since = None
            if self._closing:
                break
            attempt += 1
            delay = self.backoff.delay(attempt)
            if restarting_since is None and failure.restarting:
                restarting_since = self.clock()
            if restarting_since is not None and self.clock() - restarting_since < RESTART_WINDOW_S:
                delay = min(delay, RESTART_RETRY.delay(attempt))
            self.dispatch(
                ConnectionChanged(
                    "reconnecting",
                    attempt,
                    self.clock() + delay,
                    detail=failure.told(),
                    problem=failure.problem,
                    was_online=was_welcomed,
                )
            )
            await sleep_unless(self._stopped, delay)
        self.dispatch(ConnectionChanged("offline", detail=failure.told(), problem=failure.problem))

    async def _session(self, ws: ClientConnection) -> None:
        tasks = self._tasks = set()
        try:
            await self._hello(ws, self.token)
            try:
                async with asyncio.timeout(self.hello_timeout):
                    while not self._welcomed.is_set():
                        await self._frame(ws, await ws.recv())
            except TimeoutError:
                raise LinkFailure("not_gomoku", "no answer to hello") from None
            async for frame in ws:
                await self._frame(ws, frame)
        finally:
            running = list(tasks)  # a task that ends removes itself from ``tasks``
            for task in running:
                task.cancel()
            for task in running:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _frame(self, ws: ClientConnection, frame: Data) -> None:
        """Decode and handle one frame. Before ``welcome`` anything that is not our
        protocol means the server is not a Gomoku server; after it, a frame this
        client cannot read is skipped (a newer server's message)."""
        welcomed = self._welcomed.is_set()
        if isinstance(frame, str):
            if not welcomed:
                raise LinkFailure("not_gomoku", "it sent text, not the Gomoku protocol")
            return
        try:
            message = decode_server(frame)
        except ProtocolError:
            if not welcomed:
                raise LinkFailure("not_gomoku", "its replies are not the Gomoku protocol") from None
            return  # UnknownMessageType included: forward compatibility
        await self._receive(ws, message)

    async def _hello(self, ws: ClientConnection, token: str | None) -> None:
        self._hello_id = self.next_id()
        await ws.send(encode(msg.Hello(id=self._hello_id, name=self.name, token=token)))

    async def _receive(self, ws: ClientConnection, message: msg.ServerMessage) -> None:
        if isinstance(message, msg.Snapshot | msg.Error) and message.re is not None:
            code = self._joins_by_code.pop(message.re, None)
            if code is not None and isinstance(message, msg.Snapshot):
                self._codes[message.room.id] = code
        if isinstance(message, msg.Snapshot) and message.room.code is not None:
            self._codes[message.room.id] = message.room.code
        match message:
            case msg.Welcome(player=player, name=name, token=token, rooms=rooms):
                self.player, self.name, self.token = player, name, token
                self._welcomed.set()
                self.dispatch(message)
                if self.on_welcome is not None:
                    self.on_welcome(name, token)
                for room in sorted(set(self._seqs) | set(rooms)):
                    await self._resume(ws, room, background=room != self._shown)
                return
            case msg.Error(code=ErrorCode.BAD_TOKEN, re=re) if re == self._hello_id:
                # The server forgot us (restarted without keeping players): say so, then
                # start afresh as a new player; the old rooms are not ours any more.
                self.token = None
                self._seqs.clear()
                self.dispatch(IdentityLost())
                await self._hello(ws, None)
                return
            case msg.Error(code=ErrorCode.UNSUPPORTED_VERSION, message=text, re=re) if (
                re == self._hello_id
            ):
                raise LinkFailure("version", f"this client speaks {PROTOCOL_VERSION}; {text}")
            case msg.Error(code=code, message=text, re=re) if (
                re == self._hello_id and not self._welcomed.is_set()
            ):
                # Refused for another reason (the server's store is down, say): show it,
                # and try again on a new connection after the backoff, token kept.
                self.dispatch(message)
                raise LinkFailure("refused_hello", f"{code}: {text}")
            case msg.Error(code=ErrorCode.NOT_IN_ROOM, re=re) if (
                re in self._resumed and self._resumed[re] in self._codes
            ):
                # A private room watched before the drop: watched again by its code.
                pending = self._resumes.pop(re, None)
                room = self._resumed.pop(re)
                await self._watch_again(ws, room, pending)
                return
            case msg.Error(code=code, re=re) if re in self._resumed and code in (
                ErrorCode.NO_SUCH_ROOM,
                ErrorCode.NOT_IN_ROOM,
            ):
                self._resumes.pop(re, None)
                room = self._resumed.pop(re)
                self.forget_room(room)
                self.dispatch(RoomGone(room))
                return
            case msg.Snapshot(room=view, re=re) if (
                re in self._resumes and self._resumes[re].background
            ):
                del self._resumes[re]
                self._seqs[view.id] = view.seq
                self.dispatch(RoomSeen(view))
                return
            case msg.Snapshot(room=view):
                self._seqs[view.id] = view.seq
                self._shown = view.id
            case msg.Event(room=room, seq=seq):
                self._seqs[room] = max(seq, self._seqs.get(room, 0))
                for pending in self._resumes.values():
                    if pending.room == room:
                        pending.last_activity = self.clock()
            case msg.Left(room=room, closed=True):  # unasked: the room's time was up
                self.forget_room(room)
                self.dispatch(RoomGone(room, expired=True))
                return
            case msg.Left(room=room):
                self.forget_room(room)
        self.dispatch(message)
        re = getattr(message, "re", None)
        if re is not None and re in self._resumes:
            pending = self._resumes.pop(re)
            self.dispatch(ResumeDone(pending.room))

    async def _resume(self, ws: ClientConnection, room: str, *, background: bool) -> None:
        request = self.next_id()
        self._resumes[request] = _Resume(room, request, self.clock(), background)
        self._resumed[request] = room
        if not background:
            self.dispatch(ResumeStarted(room))
        after = self._seqs.get(room, 0)
        await ws.send(encode(msg.Resume(id=request, room=room, after=after)))
        task = asyncio.create_task(self._end_quiet_resume(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch_again(self, ws: ClientConnection, room: str, pending: _Resume | None) -> None:
        """Join ``room`` as a spectator by its known invite code, answered (a snapshot)
        as the resume it stands for would have been."""
        request = self.next_id()
        background = pending is not None and pending.background
        self._resumes[request] = _Resume(room, request, self.clock(), background)
        self._resumed[request] = room  # a refusal now (no such room) is the room gone
        code = self._codes[room]
        self._joins_by_code[request] = code
        await ws.send(encode(msg.Join(id=request, code=code, role="spectator")))

    async def _end_quiet_resume(self, request: int) -> None:
        """End a resume that the server answers with events only, once they stop:
        sleeps until :data:`CATCH_UP_QUIET` after the room's last event, and no longer
        (no timer runs once the catch-up is over)."""
        while (pending := self._resumes.get(request)) is not None:
            wait = pending.last_activity + CATCH_UP_QUIET - self.clock()
            if wait <= 0:
                del self._resumes[request]
                self.dispatch(ResumeDone(pending.room))  # (in the background too: caught up)
                return
            await asyncio.sleep(wait)

    def seen_rooms(self) -> frozenset[str]:
        """The rooms this connection has had a snapshot or events of (it resumes them
        after a reconnection); a welcome that lists another was made meanwhile."""
        return frozenset(self._seqs)

    def forget_room(self, room: str) -> None:
        """Stop resuming ``room`` after a reconnect (the player left it)."""
        self._seqs.pop(room, None)
        self._codes.pop(room, None)
        if self._shown == room:
            self._shown = None
