"""A stateful fuzzer against a real ``gomoku-server`` process.

Hypothesis drives several live connections (sync WebSocket clients) with a mix
of valid messages in random orders (moves that are legal in the rooms it has
seen, offers, answers, chat, joins, resumes, queues, reconnects...), valid
messages with one field replaced by a wrong value, and random bytes (including
text frames and oversized frames). After every example it checks what a player
would notice if the server had gone wrong:

* the process is alive and ``/healthz`` answers;
* no handler raised an unexpected exception: ``gomoku_errors_internal_total``
  in ``/metrics`` is 0, no ``internal`` error frame was sent, and the server
  logged no traceback;
* every frame the server sent decodes as a valid protocol message;
* every room's event log is numbered 1, 2, 3... without gaps, replaying its
  ``moved``/``undone`` events gives the snapshot's move list, and that list is
  legal under the room's rule (replayed with :class:`engine.Board`);
* no room is stuck: each running game accepts a legal move (or the swap2
  choice) from the side to act, or has ended.

The test runs once per store, with the same rules and checks: against the memory
store, and against the Redis store (``--redis``, on a redis-server of its own on a
free port). Each run sends at least ``GOMOKU_FUZZ_FRAMES`` frames with the memory
store and ``GOMOKU_FUZZ_REDIS_FRAMES`` with Redis (both 100,000 by default), in as
many rounds of examples as that takes; raise them for a longer run. On the 2-core
development machine 100,000 frames took about 22 s with the memory store and 41 to
53 s with Redis (a frame that reaches a room costs Redis round trips); lower
``GOMOKU_FUZZ_REDIS_FRAMES`` if the suite must be quicker. Shrinking is off by
default (the server's state carries over between examples, so a shrunk case may
not fail on its own); set ``GOMOKU_FUZZ_SHRINK=1`` to turn it on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from live_server import LiveServer, live_server
from redis_fixtures import running_redis
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as sync_connect

from engine import Board, Rule
from engine.errors import IllegalMoveError
from engine.notation import format_point, parse_point
from engine.types import Point
from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.errors import ProtocolError

TARGET_FRAMES = {
    "memory": int(os.environ.get("GOMOKU_FUZZ_FRAMES", "100000")),
    "redis": int(os.environ.get("GOMOKU_FUZZ_REDIS_FRAMES", "100000")),
}
SHRINK = os.environ.get("GOMOKU_FUZZ_SHRINK", "") == "1"
PEERS = 6
STEPS = 60
EXAMPLES_PER_ROUND = 10
REPLY_WAIT_S = 15.0


# --- the server process ------------------------------------------------------------------

UNLIMITED = ["--rate-limit", "100000", "--rate-burst", "100000", "--max-conns-per-ip", "0"]
UNLIMITED += ["--max-rooms-per-player", "1000000", "--max-code-failures", "1000000"]
UNLIMITED += ["--max-code-failures-per-ip", "1000000"]
"""The rate limits lifted: the fuzzer is one very busy client per connection, and its few
players open many rooms (test_abuse checks the limits)."""


@dataclasses.dataclass
class ServerProcess(LiveServer):
    """A live server and the store it keeps its games in."""

    store: str = "memory"
    """``memory`` or ``redis``."""


@pytest.fixture(params=["memory", "redis"])
def server_process(request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """The real server with each store (in memory, or on a redis-server of its own), its
    rate limits lifted and a 1 s grace period, so abandoned games can be claimed within
    an example."""
    with contextlib.ExitStack() as stack:
        args = ["--grace", "1", *UNLIMITED]
        if request.param == "redis":
            args += ["--redis", stack.enter_context(running_redis()).url]
        live = stack.enter_context(live_server(args))
        yield ServerProcess(live.process, live.port, live.log, request.param)


# --- what the fuzzer knows about the world ------------------------------------------------


@dataclasses.dataclass
class RoomModel:
    """The fuzzer's picture of a room, kept from snapshots and events (best effort:
    it only steers the valid messages towards interesting ones)."""

    id: str
    size: int = 15
    rule: Rule = Rule.FREESTYLE
    code: str | None = None
    seq: int = 0
    state: str = "waiting"
    black: str | None = None
    white: str | None = None
    moves: list[str] = dataclasses.field(default_factory=list)
    board: Board | None = None

    def apply_view(self, view: Any) -> None:
        if view.seq < self.seq:
            return
        self.size, self.rule, self.seq, self.state = view.size, view.rule, view.seq, view.state
        self.code = view.code or self.code
        self.black = view.players.black.id if view.players.black else None
        self.white = view.players.white.id if view.players.white else None
        self.moves = list(view.moves)
        self.board = None

    def apply_event(self, seq: int, event: Any) -> None:
        if seq != self.seq + 1:
            if seq > self.seq + 1:
                self.seq = seq  # missed some: the picture is rough until the next snapshot
                self.board = None
            return
        self.seq = seq
        if isinstance(event, ev.Moved):
            self.moves.append(event.point)
            if self.board is not None:
                try:
                    self.board.play(parse_point(event.point, self.size))
                except (IllegalMoveError, ValueError):
                    self.board = None
        elif isinstance(event, ev.Undone):
            del self.moves[len(self.moves) - len(event.points) :]
            self.board = None
        elif isinstance(event, ev.GameStarted):
            self.black, self.white, self.state = event.black, event.white, "playing"
        elif isinstance(event, ev.Chose) and event.black and event.white:
            self.black, self.white = event.black, event.white
        elif isinstance(event, ev.GameOver):
            self.state = "over"
        elif isinstance(event, ev.PlayerJoined):
            setattr(self, event.seat, event.player)

    def current_board(self) -> Board | None:
        if self.board is None:
            try:
                self.board = Board.from_moves(" ".join(self.moves), size=self.size, rule=self.rule)
            except (IllegalMoveError, ValueError):
                return None
        return self.board

    def to_move(self) -> str | None:
        return self.white if len(self.moves) % 2 else self.black


class World:
    """Everything the peers of one example have learnt."""

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}  # player id -> resume token
        self.rooms: dict[str, RoomModel] = {}
        self.internal_errors: list[m.Error] = []
        self.undecodable: list[str] = []
        self.stream_errors: list[str] = []

    def room(self, room_id: str) -> RoomModel:
        if room_id not in self.rooms:
            self.rooms[room_id] = RoomModel(room_id)
        return self.rooms[room_id]

    def learn(self, message: m.ServerMessage) -> None:
        if isinstance(message, m.Snapshot):
            self.room(message.room.id).apply_view(message.room)
        elif isinstance(message, m.Event):
            self.room(message.room).apply_event(message.seq, message.event)
        elif isinstance(message, m.Welcome):
            self.tokens[message.player] = message.token
        elif isinstance(message, m.Error) and message.code == "internal":
            self.internal_errors.append(message)
        elif isinstance(message, m.LobbyRoom):
            self.room(message.room.id)


class Peer:
    """One connection of one player; reopened (with the player's token) when the
    server closes it."""

    def __init__(self, url: str, world: World, name: str) -> None:
        self.url = url
        self.world = world
        self.name = name
        self.player: str | None = None
        self.ws: ClientConnection | None = None
        self.watching: set[str] = set()
        """Rooms whose events this connection receives (as far as it can tell)."""
        self.seen: dict[str, int] = {}
        """Per room, the seq of the last event (or snapshot) this connection received."""
        self.resumed_after: dict[str, set[int]] = {}
        """Per room, the ``after`` of every resume sent: where a stream may restart."""

    def connect(self, *, hello: bool) -> None:
        self.close()
        self.watching.clear()
        self.seen.clear()
        self.resumed_after.clear()
        self.ws = sync_connect(
            self.url,
            compression=None,
            max_size=None,
            max_queue=None,
            open_timeout=10,
            legacy=True,
        )
        if hello:
            token = self.world.tokens.get(self.player or "")
            self.send(encode(m.Hello(name=self.name, token=token)))
            welcome = self.wait_for(lambda x: isinstance(x, m.Welcome | m.Error))
            if isinstance(welcome, m.Welcome):
                self.player = welcome.player
                for room in welcome.rooms:  # as a client does: follow its games again
                    after = self.world.room(room).seq
                    self.send(encode(m.Resume(room=room, after=after)))

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    def send(self, frame: bytes | str) -> bool:
        """Send a frame; False (and reconnect later) if the server closed us."""
        if self.ws is None:
            self.connect(hello=True)
        assert self.ws is not None
        if isinstance(frame, bytes) and b"resume" in frame:
            self._note_resume(frame)
        try:
            self.ws.send(frame)
        except (ConnectionClosed, OSError):
            self.ws = None
            return False
        return True

    def receive(self, frame: bytes | str) -> m.ServerMessage | None:
        try:
            message = decode_server(frame)
        except ProtocolError as exc:
            self.world.undecodable.append(f"{exc}: {frame!r}"[:500])
            return None
        self.world.learn(message)
        if isinstance(message, m.Welcome):
            self.player = message.player
        elif isinstance(message, m.Snapshot):
            self.watching.add(message.room.id)
            self.seen[message.room.id] = message.room.seq
        elif isinstance(message, m.Event):
            self.watching.add(message.room)
            self._check_stream(message)
        elif isinstance(message, m.Left):
            self.watching.discard(message.room)
        return message

    def _note_resume(self, frame: bytes) -> None:
        with contextlib.suppress(msgspec.DecodeError, ValueError, TypeError, RecursionError):
            fields = msgspec.msgpack.decode(frame)
            if isinstance(fields, dict) and fields.get("type") == "resume":
                room, after = fields.get("room"), fields.get("after")
                if isinstance(room, str) and isinstance(after, int):
                    self.resumed_after.setdefault(room, set()).add(after)

    def _check_stream(self, event: m.Event) -> None:
        """Each connection gets a room's events in order without gaps; a stream may
        restart only where a resume asked it to."""
        last = self.seen.get(event.room)
        restart = event.seq - 1 in self.resumed_after.get(event.room, ())
        if last is not None and event.seq != last + 1 and not restart:
            self.world.stream_errors.append(
                f"{self.name}: room {event.room} event {event.seq} after {last}"
            )
        self.seen[event.room] = event.seq

    def drain(self) -> None:
        """Read everything that has arrived, without waiting."""
        while self.ws is not None:
            try:
                frame = self.ws.recv(timeout=0)
            except TimeoutError:
                return
            except ConnectionClosed:
                self.ws = None
                return
            self.receive(frame)

    def wait_for(
        self, predicate: Any, wait_s: float = REPLY_WAIT_S, *, must: bool = True
    ) -> m.ServerMessage | None:
        """Read until a message satisfies ``predicate``; None if the connection closed
        (or, unless ``must``, if nothing came in time)."""
        deadline = time.monotonic() + wait_s
        while self.ws is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                if not must:
                    return None
                raise AssertionError(f"{self.name}: no expected reply within {wait_s} s")
            try:
                frame = self.ws.recv(timeout=left)
            except TimeoutError:
                continue
            except ConnectionClosed:
                self.ws = None
                return None
            message = self.receive(frame)
            if message is not None and predicate(message):
                return message
        return None


# --- strategies ---------------------------------------------------------------------------

COLUMNS = "abcdefghijklmnopqrstuvwxyz"
RULES = ["freestyle", "standard", "renju"]
KINDS = ["draw", "takeback", "rematch"]
LEVELS = ["beginner", "intermediate", "master", "nonsense"]

any_point = st.builds(
    lambda c, r: f"{c}{r}", st.sampled_from(COLUMNS), st.integers(min_value=1, max_value=26)
)
time_controls = st.one_of(
    st.none(),
    st.builds(
        lambda b, i: {"base_ms": b, "inc_ms": i},
        st.sampled_from([1, 200, 2_000, 300_000]),
        st.sampled_from([0, 100, 3_000]),
    ),
)
wrong_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.lists(st.integers(min_value=-5, max_value=5), max_size=4),
    st.dictionaries(st.text(max_size=6), st.integers(min_value=-5, max_value=5), max_size=3),
    st.just("h8"),
    st.just("a" * 5000),
)
MSGPACK_PREFIXES = [b"\x81", b"\x82", b"\xde\x00\x03", b"\x81\xa4type", b"\x82\xa4type\xa4move"]
garbage = st.one_of(
    st.binary(max_size=120),
    st.builds(bytes.__add__, st.sampled_from(MSGPACK_PREFIXES), st.binary(max_size=60)),
    st.text(max_size=60),  # a text frame
    st.builds(lambda n: Oversize(n), st.integers(min_value=4097, max_value=9000)),
)


@dataclasses.dataclass(frozen=True)
class Oversize:
    """A frame over the 4096-byte limit (the server closes with 1009); kept short in
    hypothesis's reports."""

    size: int

    def frame(self) -> bytes:
        return b"\x00" * self.size


INDEX = st.integers(min_value=0, max_value=2**16)


def pick(index: int, items: list[Any]) -> Any:
    """``items[index]`` wrapped around, None if there are none. The fuzzer draws an index
    and picks afterwards, so what it draws never depends on the server's replies (the
    choices hypothesis records must replay the same way)."""
    return items[index % len(items)] if items else None


def message_fields(draw: Any, kind: str, world: World, peer: Peer) -> dict[str, Any]:
    """A well-typed message of ``kind`` aimed at the rooms the fuzzer has seen."""
    rooms = sorted(world.rooms)
    mine = sorted(r.id for r in world.rooms.values() if peer.player in (r.black, r.white))
    room_index, where = draw(INDEX), draw(st.integers(0, 9))
    if where == 0 or not rooms:
        room = "r-0000000000"
    elif where < 6 and mine:
        room = pick(room_index, mine)  # a room the peer plays in: the valid paths
    else:
        room = pick(room_index, rooms)
    model = world.rooms.get(room)
    msg_id = draw(st.one_of(st.none(), st.integers(min_value=0, max_value=2**53 - 1)))
    fields: dict[str, Any] = {"type": kind, "id": msg_id}
    if kind == "hello":
        token_index, with_token = draw(INDEX), draw(st.booleans())
        token = pick(token_index, sorted(world.tokens.values())) if with_token else None
        fields |= {"name": peer.name, "token": token}
    elif kind == "lobby_watch":
        fields["on"] = draw(st.booleans())
    elif kind == "create_room":
        fields |= {
            "rule": draw(st.sampled_from(RULES)),
            "size": draw(st.sampled_from([15, 15, 15, 19, 9, 5, 26])),
            "opening": draw(st.sampled_from(["free", "free", "swap2"])),
            "time": draw(time_controls),
            "private": draw(st.booleans()),
            "rated": draw(st.booleans()),
            "seat": draw(st.sampled_from(["any", "black", "white"])),
        }
    elif kind == "join":
        by_code = draw(st.booleans())
        if model is not None and model.code and by_code:
            fields["code"] = model.code
        else:
            fields["room"] = room
        fields["as"] = draw(st.sampled_from(["player", "spectator"]))
    elif kind == "resume":
        top = model.seq + 1 if model is not None else 3
        fields |= {"room": room, "after": draw(st.integers(min_value=0, max_value=99)) % (top + 1)}
    elif kind == "queue":
        fields |= {"rule": draw(st.sampled_from(RULES)), "time": draw(time_controls)}
    elif kind == "move":
        fields |= {"room": room, "point": draw(any_point)}
    elif kind == "choose":
        fields |= {"room": room, "choice": draw(st.sampled_from(["black", "white", "place2"]))}
    elif kind in ("offer", "answer"):
        fields |= {"room": room, "kind": draw(st.sampled_from(KINDS))}
        if kind == "answer":
            fields["accept"] = draw(st.booleans())
    elif kind == "chat":
        fields |= {"room": room, "text": draw(st.text(min_size=1, max_size=30))}
    elif kind == "seat_ai":
        fields |= {"room": room, "level": draw(st.sampled_from(LEVELS))}
    elif kind in ("leave", "resign", "claim", "hint"):
        fields["room"] = room
    return fields


VALID_KINDS = (
    ["move"] * 6
    + ["chat"] * 2
    + ["create_room"] * 2
    + ["join"] * 2
    + ["offer", "answer", "resume", "leave", "lobby_watch", "queue", "unqueue", "choose"]
    + ["resign", "claim", "hello", "seat_ai", "hint"]
)


def pack(fields: dict[str, Any]) -> bytes:
    return msgspec.msgpack.encode({k: v for k, v in fields.items() if v is not None})


# --- the state machine --------------------------------------------------------------------


class FuzzServer(RuleBasedStateMachine):
    """Several players hammering one server; see the module docstring."""

    server: ServerProcess
    frames_sent = 0

    def __init__(self) -> None:
        super().__init__()
        self.world = World()
        self.peers: list[Peer] = []

    @initialize()
    def open_peers(self) -> None:
        for i in range(PEERS):
            peer = Peer(self.server.url, self.world, f"fuzz{i}")
            peer.connect(hello=True)
            self.peers.append(peer)
        host = self.peers[0]
        host.send(pack({"type": "create_room", "seat": "black"}))
        host.wait_for(lambda x: isinstance(x, m.Snapshot))

    def _send(self, peer: Peer, frame: bytes | str) -> None:
        FuzzServer.frames_sent += 1
        peer.send(frame)

    def _peer(self, data: st.DataObject) -> Peer:
        peer: Peer = self.peers[data.draw(st.integers(0, PEERS - 1), label="peer")]
        peer.drain()
        return peer

    @rule(data=st.data())
    def valid_message(self, data: st.DataObject) -> None:
        peer = self._peer(data)
        kind = data.draw(st.sampled_from(VALID_KINDS), label="kind")
        self._send(peer, pack(message_fields(data.draw, kind, self.world, peer)))

    @rule(data=st.data())
    def start_game(self, data: st.DataObject) -> None:
        """Two peers sit down in a new room (a valid path that leads to real games)."""
        host, guest = self._peer(data), self._peer(data)
        rule = data.draw(st.sampled_from(RULES), label="rule")
        opening = data.draw(st.sampled_from(["free", "free", "swap2"]), label="opening")
        if host is guest or not host.player or not guest.player:
            return
        self._send(host, pack({"type": "create_room", "rule": rule, "opening": opening, "id": 7}))
        snap = host.wait_for(lambda x: isinstance(x, m.Snapshot | m.Error) and x.re == 7)
        if isinstance(snap, m.Snapshot):
            self._send(guest, pack({"type": "join", "room": snap.room.id, "id": 8}))

    @rule(data=st.data())
    def legal_moves(self, data: st.DataObject) -> None:
        """The sides to move in a running game play empty points, one after the other."""
        room_index = data.draw(INDEX, label="room")
        count = data.draw(st.integers(min_value=1, max_value=30), label="moves")
        rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
        running = sorted(
            r.id for r in self.world.rooms.values() if r.state in ("playing", "opening")
        )
        if not running:
            return
        model = self.world.rooms[pick(room_index, running)]
        for _ in range(count):
            if not self._play_one(model, rng):
                return

    def _play_one(self, model: RoomModel, rng: random.Random) -> bool:
        board = model.current_board()
        mover = next((p for p in self.peers if p.player and p.player == model.to_move()), None)
        if board is None or mover is None or mover.ws is None or model.state == "over":
            return False
        for _ in range(20):
            point = Point(rng.randrange(model.size), rng.randrange(model.size))
            if board.is_legal(point):
                mover.drain()
                if model.id not in mover.watching:  # follow the game first, as a client does
                    self._send(mover, pack({"type": "resume", "room": model.id, "after": 0}))
                    mover.watching.add(model.id)
                seq = model.seq
                move = {"type": "move", "room": model.id, "point": format_point(point, model.size)}
                self._send(mover, pack(move))
                reply = mover.wait_for(
                    lambda x, seq=seq: model.seq > seq or isinstance(x, m.Error), 0.5, must=False
                )
                return reply is not None and not isinstance(reply, m.Error)
        return False

    @rule(data=st.data())
    def wrong_value(self, data: st.DataObject) -> None:
        """A valid message with one field missing, retyped or out of range."""
        peer = self._peer(data)
        kind = data.draw(st.sampled_from(VALID_KINDS), label="kind")
        fields = message_fields(data.draw, kind, self.world, peer)
        key = pick(data.draw(INDEX, label="field"), [*sorted(fields), "extra"])
        if data.draw(st.integers(0, 4), label="delete") == 0:
            fields.pop(key, None)
        else:
            fields[key] = data.draw(wrong_values, label="value")
        self._send(peer, pack(fields))

    @rule(data=st.data())
    def random_bytes(self, data: st.DataObject) -> None:
        peer = self._peer(data)
        frame = data.draw(garbage, label="frame")
        self._send(peer, frame.frame() if isinstance(frame, Oversize) else frame)

    @rule(data=st.data())
    def burst(self, data: st.DataObject) -> None:
        """Many frames from one peer without reading in between."""
        peer = self._peer(data)
        count = data.draw(st.integers(min_value=5, max_value=150), label="count")
        rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
        rooms = sorted(self.world.rooms) or ["r-0000000000"]
        for _ in range(count):
            room = rng.choice(rooms)
            roll = rng.random()
            if roll < 0.5:
                frame: bytes = pack({"type": "move", "room": room, "point": rng.choice(POINTS)})
            elif roll < 0.7:
                frame = pack({"type": rng.choice(VALID_KINDS), "room": room, "kind": "draw"})
            elif roll < 0.8:
                frame = pack({"type": "chat", "room": room, "text": "spam" * rng.randrange(80)})
            elif roll < 0.9:
                frame = pack({"type": "resume", "room": room, "after": rng.randrange(5)})
            else:
                frame = rng.randbytes(rng.randrange(60))
            self._send(peer, frame)

    @rule(data=st.data())
    def reconnect(self, data: st.DataObject) -> None:
        """Drop a connection (cleanly or not) and come back with the token, or as a
        new player, or without saying hello at all."""
        peer = self._peer(data)
        how = data.draw(st.sampled_from(["close", "abort", "new", "silent"]), label="how")
        if how == "abort" and peer.ws is not None:
            with contextlib.suppress(OSError):  # the server may have closed it already
                peer.ws.socket.shutdown(socket.SHUT_RDWR)  # no closing handshake
            peer.ws = None
        if how == "new":
            peer.player = None
        try:
            peer.connect(hello=how != "silent")
        except (InvalidHandshake, OSError, TimeoutError) as exc:  # pragma: no cover
            raise AssertionError(f"the server refused a connection: {exc}") from exc

    def teardown(self) -> None:
        try:
            for peer in self.peers:
                peer.drain()
            check_world(self.server, self.world, self.peers)
        finally:
            for peer in self.peers:
                peer.close()


POINTS = [f"{c}{r}" for c in COLUMNS[:15] for r in range(1, 16)]


# --- the checks after each example --------------------------------------------------------


def check_world(server: ServerProcess, world: World, peers: list[Peer]) -> None:
    assert server.process.poll() is None, f"the server died:\n{server.log_text()[-3000:]}"
    assert server.http("/healthz") == (200, "ok\n")
    assert not world.internal_errors, world.internal_errors[:3]
    assert not world.undecodable, world.undecodable[:3]
    assert not world.stream_errors, world.stream_errors[:5]
    assert server.metric("gomoku_errors_internal_total") == 0, server.log_text()[-3000:]
    checker = Peer(server.url, world, "checker")
    checker.connect(hello=True)
    try:
        for model in list(world.rooms.values()):
            view = check_room_log(checker, model)
            if view is not None:
                check_not_stuck(server, world, view)
    finally:
        checker.close()


def check_room_log(checker: Peer, model: RoomModel) -> Any:
    """The room's log is gap-free and agrees with its snapshot, whose moves are legal.
    Returns the snapshot's room view (None if the room is gone)."""
    join = {"type": "join", "as": "spectator", "id": 1}
    join |= {"code": model.code} if model.code else {"room": model.id}
    checker.send(pack(join))
    reply = checker.wait_for(lambda x: isinstance(x, m.Snapshot | m.Error) and x.re == 1)
    if isinstance(reply, m.Error):
        assert reply.code == "no_such_room", reply  # expired, or private without its code
        return None
    assert isinstance(reply, m.Snapshot)
    view = reply.room
    checker.send(pack({"type": "resume", "room": view.id, "after": 0, "id": 2}))
    seqs: list[int] = []
    moves: list[str] = []
    trimmed = False
    while not seqs or seqs[-1] < view.seq:
        got = checker.wait_for(
            lambda x: (
                (isinstance(x, m.Event) and x.room == view.id)
                or (isinstance(x, m.Snapshot | m.Error) and x.re == 2)
            )
        )
        assert got is not None, f"room {view.id}: the checker was disconnected"
        if isinstance(got, m.Error):
            # Gone since the join: a room is forgotten once its last seat empties, and the
            # server may still be closing an earlier example's connections.
            assert got.code == "no_such_room", got
            return None
        if isinstance(got, m.Snapshot):
            trimmed = True  # the log no longer starts at 1: a snapshot stands in for it
            break
        assert isinstance(got, m.Event)
        if got.seq > view.seq and not seqs:
            continue  # a live event that raced the resume
        seqs.append(got.seq)
        if isinstance(got.event, ev.Moved):
            moves.append(got.event.point)
            assert got.event.move_no == len(moves), (view.id, got)
        elif isinstance(got.event, ev.Undone):
            assert moves[len(moves) - len(got.event.points) :] == got.event.points[::-1]
            del moves[len(moves) - len(got.event.points) :]
    if not trimmed:
        assert seqs[: view.seq] == list(range(1, view.seq + 1)), (view.id, seqs)
        assert moves[: len(view.moves)] == view.moves, (view.id, moves, view.moves)
    board = Board(view.size, view.rule)
    for point in view.moves:
        try:
            board.play(parse_point(point, view.size))
        except IllegalMoveError as exc:
            raise AssertionError(f"room {view.id}: illegal move {point} in {view.moves}") from exc
    if view.state == "over" and view.result is not None and view.result.reason == "five":
        assert board.result is not None, f"room {view.id}: over by five without one"
    checker.send(pack({"type": "leave", "room": view.id, "id": 3}))
    checker.wait_for(lambda x: isinstance(x, m.Left | m.Error) and x.re == 3)
    return view


def check_not_stuck(server: ServerProcess, world: World, view: Any) -> None:
    """The side to act in a running game can act (or the game is over)."""
    if view.state not in ("playing", "opening"):
        return
    seats = {"black": view.players.black, "white": view.players.white}
    if view.swap2 is not None:  # the opening: stones of both colours come from one player
        actor = next((s for s in seats.values() if s and s.id == view.swap2.to_act), None)
    elif view.to_move is not None:
        actor = seats[view.to_move]
    else:
        raise AssertionError(f"room {view.id} is running but nobody is to act: {view}")
    if actor is None or actor.bot or actor.id not in world.tokens:
        return  # an AI's seat (no worker runs here), or a player we never met
    player = Peer(server.url, world, actor.name)
    player.player = actor.id
    player.connect(hello=True)
    try:
        player.send(pack({"type": "resume", "room": view.id, "after": view.seq, "id": 1}))
        if view.to_move is not None:
            board = Board.from_moves(" ".join(view.moves), size=view.size, rule=view.rule)
            legal = board.legal_moves()
            assert legal, f"room {view.id}: running with no legal move"
            point = format_point(legal[len(legal) // 2], view.size)
            player.send(pack({"type": "move", "room": view.id, "point": point, "id": 2}))

            def answered(x: m.ServerMessage) -> bool:
                return (
                    isinstance(x, m.Event)
                    and x.room == view.id
                    and isinstance(x.event, ev.Moved | ev.GameOver)
                ) or (isinstance(x, m.Error) and x.re == 2)

        else:
            assert view.swap2 is not None
            choice = view.swap2.choices[0]
            player.send(pack({"type": "choose", "room": view.id, "choice": choice, "id": 2}))

            def answered(x: m.ServerMessage) -> bool:
                return (
                    isinstance(x, m.Event)
                    and x.room == view.id
                    and isinstance(x.event, ev.Chose | ev.GameOver)
                ) or (isinstance(x, m.Error) and x.re == 2)

        reply = player.wait_for(answered)
        assert reply is not None, f"room {view.id}: disconnected while acting"
        if isinstance(reply, m.Error):
            assert reply.code == "game_over", f"room {view.id} is stuck: {reply} ({view})"
    finally:
        player.close()


# --- the test -------------------------------------------------------------------------------


@pytest.mark.timeout(600)
def test_fuzz_the_live_server(server_process: ServerProcess) -> None:
    """Random valid, wrong and garbage frames from several live connections leave the
    server alive, error-free, with gap-free logs, legal games and no stuck room."""
    FuzzServer.server = server_process
    FuzzServer.frames_sent = 0
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if SHRINK:
        phases.append(Phase.shrink)
    config = settings(
        max_examples=EXAMPLES_PER_ROUND,
        stateful_step_count=STEPS,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    target = TARGET_FRAMES[server_process.store]
    started = time.monotonic()
    while FuzzServer.frames_sent < target:
        run_state_machine_as_test(FuzzServer, settings=config)
    elapsed = time.monotonic() - started
    assert server_process.metric("gomoku_errors_internal_total") == 0
    assert "Traceback" not in server_process.log_text(), server_process.log_text()[-3000:]
    _, metrics = server_process.http("/metrics")
    counts = dict(re.findall(r"^(gomoku_\w+(?:\{[^}]*\})?) (\d+)$", metrics, re.MULTILINE))
    print(
        f"fuzz ({server_process.store} store): {FuzzServer.frames_sent} frames "
        f"in {elapsed:.1f} s; server counters: {counts}"
    )
