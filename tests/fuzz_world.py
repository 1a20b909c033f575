"""What the fuzzer of tests/test_fuzz.py knows and draws: the rooms and players it has
seen (a model of what the server should hold), its peers (live WebSocket connections),
and the hypothesis strategies for the messages, wrong values and garbage it sends."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Any

import msgspec
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as sync_connect

from engine import Board, Rule
from engine.errors import IllegalMoveError
from engine.notation import parse_point
from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.errors import ProtocolError

REPLY_WAIT_S = 15.0  # how long a peer waits for a reply it must get (only a hang takes this)


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
