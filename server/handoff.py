"""Moving a connection to the sibling process that holds its game
(``gomoku-server --processes``).

The kernel gives each new connection to any of the processes sharing the port, so
about half of all games would have their two players on different processes, and both
processes would then handle every move: the one that commits it, and the other, which
hears it from Redis and relays it (about a third more CPU per move in
``bench/load.py``). So when a connection attaches to a room where its player sits and
the opponent's one connection is attached on a sibling process, one of the two moves:
its socket is handed to the other process over a Unix socket (SCM_RIGHTS), with what
the server knows of it (:class:`Moving`: who said hello, the rooms it follows and the
last event each was sent, the rooms it is attached to, whether it watches the lobby),
and that process serves it from then on. The client sees nothing, except that a lobby
watcher is sent the lobby's list again.

A connection moves only between two of its client's frames (:mod:`server.wsconn`),
with nothing of its own under way (a request, a catch-up, a queue, a hint), once the
kernel has taken every frame written for it. The new process attaches it to its rooms
before the old attachment goes (presence never drops), and follows each room from the
last event the old process sent (gap-free). Notices that reach the old process
meanwhile are passed on. A refusal (the sibling is stopping, say) leaves it where it
was, its rooms caught up; a sibling that took the socket and never answered has it (or
nobody has, and the client reconnects as after any drop).

Which one moves: an AI seat's connection never does; otherwise the one of the player in
the room's second seat goes to the first seat's process. Two processes looking at once
(both players of a quick match arrive together) read the same room, so they agree; and
the kernel put the first seat's player on either process alike, so the games end up
spread evenly (a rule by instance id had brought every split game to one process). When
its own connection is the one that stays, a process asks the sibling to send the other
over (:class:`Pull`).

Siblings find each other by instance id (an abstract Unix socket named after the
processes' shared key and the id) and prove they are siblings with the key, which the
supervisor gives only them; only the same user may connect.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec

from server import background
from server.metrics import Metrics
from server.notices import Notice, decode_notice, encode_notice
from server.service import RoomService
from server.sessions import SessionRecord
from server.store import Store, StoreUnavailable
from server.wsconn import GuardedConnection, MovableConnection

log = logging.getLogger("gomoku.server")

REPLY_TIMEOUT_S = 5.0
"""How long a process waits for the sibling's word on a connection it handed over."""
DRAIN_TIMEOUT_S = 1.0
"""How long a connection may take to have its written frames taken by the kernel
before it moves (longer: it stays)."""
PLACEMENT_TRIES = 3
"""How many more times a connection that could not move (its client had sent more
frames, say) tries again, each after its next request."""
MAX_MESSAGE = 1 << 20
_YES, _NO = b"y", b"n"


class Moving(msgspec.Struct, tag="move", kw_only=True):
    """A connection handed over (its socket goes with this message)."""

    key: str
    conn_id: str
    """Its id in the store's attachments on the process it leaves."""
    address: str
    """The client's address, as the per-address limits count it."""
    subprotocol: str | None
    """The encoding its handshake chose."""
    identity: bytes
    """Its session record (:func:`server.sessions.encode_session`)."""
    token_hash: str | None
    rooms: dict[str, int]
    """The rooms it follows, and the seq of the last event it was sent in each."""
    attached: list[str]
    """The rooms it is attached to (where its player is present through it)."""
    lobby: bool


class Pull(msgspec.Struct, tag="pull", kw_only=True):
    """Send your connection ``conn_id`` over to instance ``to``."""

    key: str
    conn_id: str
    to: str


class Late(msgspec.Struct, tag="late", kw_only=True):
    """Notices that reached the old process while the connection moved."""

    notices: list[bytes]


class Connection(Protocol):
    """What a handoff needs of a connection (:class:`server.connection.Connection`)."""

    ws: GuardedConnection
    identity: SessionRecord | None
    conn_id: str
    busy: bool
    wanted: str | None
    placement_due: list[str]
    placement_tries: int

    @property
    def player(self) -> str: ...

    def waiting_bytes(self) -> int: ...

    def movable(self) -> bool: ...

    def start_moving(self) -> None: ...

    def moving_state(self, key: str) -> Moving: ...

    def moved_away(self) -> list[Notice]: ...

    def stay(self) -> None: ...

    def spawn(self, coro: Awaitable[Any]) -> None: ...

    async def notice(self, notice: Notice) -> None: ...


_Message = Moving | Pull | Late
_decoder = msgspec.msgpack.Decoder(_Message)
_encoder = msgspec.msgpack.Encoder()

Adopt = Callable[[socket.socket, Moving], Awaitable[Connection | None]]
"""Serve a socket handed over (the listener's): the connection, or None if refused
(the socket is then closed)."""
Find = Callable[[str], Connection | None]
"""This process's connection with a given id."""


class Handoff:
    """This process's end of the handoffs: it listens for sockets its siblings hand
    over, and moves its own connections (see the module)."""

    def __init__(
        self,
        key: str,
        instance_id: Callable[[], str],
        store: Store,
        rooms: RoomService,
        metrics: Metrics,
    ) -> None:
        self.key = key
        self.instance_id = instance_id
        self.store = store
        self.rooms = rooms
        self.metrics = metrics
        self.adopt: Adopt | None = None
        self.find: Find | None = None
        self._tag = hashlib.sha256(key.encode()).hexdigest()[:16]
        self._listening: socket.socket | None = None
        self._peers: set[socket.socket] = set()
        """Sockets of siblings being answered (closed at a stop, answered or not)."""
        self._tasks: set[asyncio.Task[None]] = set()

    def address(self, instance: str) -> bytes:
        """The abstract Unix socket where sibling ``instance`` takes connections."""
        return f"\0gomoku-{self._tag}-{instance}".encode()

    # -- the listening end ---------------------------------------------------------

    def start(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.bind(self.address(self.instance_id()))
        sock.listen(64)
        sock.setblocking(False)
        self._listening = sock
        self._spawn(self._accept(sock))

    async def stop(self) -> None:
        if self._listening is not None:
            self._listening.close()
            self._listening = None
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for peer in self._peers:
            peer.close()
        self._peers.clear()

    def _spawn(self, coro: Awaitable[None]) -> None:
        background.start(
            coro,
            self._tasks,
            expected=(asyncio.CancelledError, ConnectionError, StoreUnavailable),
            failed=lambda: self.metrics.inc("gomoku_errors_internal_total"),
            log=log,
            what="a handoff",
        )

    async def _accept(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            peer, _ = await loop.sock_accept(sock)
            self._peers.add(peer)
            self._spawn(self._answer(peer))

    async def _answer(self, peer: socket.socket) -> None:
        try:
            await self._take(peer)
        finally:
            self._peers.discard(peer)
            peer.close()

    async def _take(self, peer: socket.socket) -> None:
        """Answer one sibling: a connection it hands over, or its ask for one of ours.
        Anything else (another user's process, a wrong key, no socket with a handoff)
        is closed unanswered, with whatever socket came with it."""
        peer.setblocking(False)
        if not _same_user(peer):
            return
        message, fds = await _receive(peer)
        handed = socket.socket(fileno=fds.pop()) if len(fds) == 1 else None
        for fd in fds:
            os.close(fd)
        trusted = isinstance(message, Moving | Pull) and hmac.compare_digest(
            message.key.encode(), self.key.encode()
        )
        if isinstance(message, Pull) and trusted:
            conn = None if self.find is None else self.find(message.conn_id)
            if conn is not None and conn.busy:
                conn.wanted = message.to  # its read loop moves it after the request
            elif conn is not None:
                await self.move(conn, message.to)
        if not (isinstance(message, Moving) and trusted and handed is not None):
            if handed is not None:
                handed.close()
            return
        conn = None if self.adopt is None else await self.adopt(handed, message)
        peer.send(_YES if conn is not None else _NO)
        if conn is None:
            return
        self.metrics.inc("gomoku_connections_adopted_total")
        late, _ = await _receive(peer, REPLY_TIMEOUT_S)
        if isinstance(late, Late):
            for data in late.notices:
                conn.spawn(conn.notice(decode_notice(data)))

    # -- moving a connection of this process -----------------------------------------

    async def place(self, conn: Connection) -> None:
        """``conn`` was attached to rooms (:attr:`Connection.placement_due`): where it
        sits in one with an opponent connected to a sibling, move one of the two."""
        rooms, conn.placement_due = conn.placement_due, []
        if conn.identity is None:
            return
        here = self.instance_id()
        for room_id in rooms:
            loaded = await self.rooms.load(room_id)
            if loaded is None:
                continue
            room = loaded[1]
            if room.state == "over" or room.seat_of(conn.player) is None:
                continue
            others = [s for s in room.seats if s is not None and s.id != conn.player]
            if not others:
                continue
            theirs = await self.store.connections_of(room_id, others[0].id)
            if len(theirs) != 1:
                continue
            there = theirs[0].partition("/")[0]
            if there == here:
                return
            first = room.seats[0]
            stays = not others[0].bot and first is not None and first.id == conn.player
            if conn.identity.worker is not None or stays:
                await self._pull(there, theirs[0])
            elif not await self.move(conn, there) and conn.placement_tries < PLACEMENT_TRIES:
                conn.placement_tries += 1
                conn.placement_due.append(room_id)  # after its next request, say
            return

    async def _pull(self, there: str, conn_id: str) -> None:
        sock = await self._connect(there)
        if sock is None:
            return
        with sock, contextlib.suppress(OSError):
            pull = Pull(key=self.key, conn_id=conn_id, to=self.instance_id())
            sock.send(_encoder.encode(pull))

    async def move(self, conn: Connection, there: str) -> bool:
        """Hand ``conn`` to sibling ``there`` if it can go now; whether it went."""
        ws = conn.ws
        if not isinstance(ws, MovableConnection) or not conn.movable() or not ws.between_frames():
            return False
        ws.transport.pause_reading()  # no await since the look: nothing came meanwhile
        conn.start_moving()
        went = False
        try:
            went = await self._hand_over(conn, there)
        finally:
            if not went:
                conn.stay()
        return went

    async def _hand_over(self, conn: Connection, there: str) -> bool:
        if not await _drained(conn):
            return False
        sock = await self._connect(there)
        if sock is None:
            return False
        with sock:
            loop = asyncio.get_running_loop()
            moving = conn.moving_state(self.key)
            fd = conn.ws.transport.get_extra_info("socket").fileno()
            try:
                socket.send_fds(sock, [_encoder.encode(moving)], [fd])
            except OSError:
                return False
            try:
                async with asyncio.timeout(REPLY_TIMEOUT_S):
                    reply = await loop.sock_recv(sock, 1)
            except (TimeoutError, OSError):
                reply = b""
            if reply == _NO:
                return False
            # Taken (or handed and never answered: then the sibling has it, or nobody
            # has and the client reconnects). This process writes nothing more to it.
            notices = conn.moved_away()
            with contextlib.suppress(OSError):
                sock.send(_encoder.encode(Late(notices=[encode_notice(n) for n in notices])))
            conn.ws.transport.abort()
            await asyncio.sleep(0)  # its connection_lost: websockets sees it closed
            self.metrics.inc("gomoku_connections_handed_off_total")
            log.debug("connection %s handed to %s", conn.conn_id, there)
            return True

    async def _connect(self, there: str) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, self.address(there))
        except OSError:  # not a sibling, or gone
            sock.close()
            return None
        return sock


def _same_user(peer: socket.socket) -> bool:
    """Whether the process at the other end runs as this one's user."""
    credentials = struct.Struct("3i")
    _pid, uid, _gid = credentials.unpack(
        peer.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, credentials.size)
    )
    return bool(uid == os.getuid())


async def _receive(
    peer: socket.socket, within_s: float | None = None
) -> tuple[_Message | None, list[int]]:
    """The next message on ``peer`` and the descriptors that came with it (the message
    None if it is not one, or nothing came within ``within_s``)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(peer.fileno(), readable)
    try:
        async with asyncio.timeout(within_s):
            await ready
    except TimeoutError:
        return None, []
    finally:
        loop.remove_reader(peer.fileno())
    try:
        data, fds, flags, _ = socket.recv_fds(peer, MAX_MESSAGE, 1)
    except OSError:
        return None, []
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
        for fd in fds:
            os.close(fd)
        return None, []
    try:
        return _decoder.decode(data), list(fds)
    except msgspec.DecodeError:
        return None, list(fds)


async def _drained(conn: Connection) -> bool:
    """Wait until the kernel took every frame written for ``conn``; False if it did not
    within :data:`DRAIN_TIMEOUT_S` (a slow reader stays where it is)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + DRAIN_TIMEOUT_S
    while conn.waiting_bytes():
        if loop.time() > until:
            return False
        await asyncio.sleep(0.005)
    return True
