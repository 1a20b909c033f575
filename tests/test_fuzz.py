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

import pytest
from fuzz_world import (
    COLUMNS,
    INDEX,
    RULES,
    VALID_KINDS,
    Oversize,
    Peer,
    RoomModel,
    World,
    garbage,
    message_fields,
    pack,
    pick,
    wrong_values,
)
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from live_server import LiveServer, live_server
from redis_fixtures import running_redis
from websockets.exceptions import InvalidHandshake

from engine import Board
from engine.errors import IllegalMoveError
from engine.notation import format_point, parse_point
from engine.types import Point
from protocol import events as ev
from protocol import messages as m

TARGET_FRAMES = {
    "memory": int(os.environ.get("GOMOKU_FUZZ_FRAMES", "100000")),
    "redis": int(os.environ.get("GOMOKU_FUZZ_REDIS_FRAMES", "100000")),
}
SHRINK = os.environ.get("GOMOKU_FUZZ_SHRINK", "") == "1"
PEERS = 6
STEPS = 60
EXAMPLES_PER_ROUND = 10


# --- the server process ------------------------------------------------------------------

UNLIMITED = ["--rate-limit", "100000", "--rate-burst", "100000", "--max-conns-per-ip", "0"]
UNLIMITED += ["--max-rooms-per-player", "1000000", "--max-code-failures", "1000000"]
UNLIMITED += ["--max-code-failures-per-ip", "1000000", "--new-players-per-ip", "0"]
UNLIMITED += ["--rooms-per-ip", "0"]
"""The rate limits lifted: the fuzzer is one very busy client per connection, and its few
players open many rooms (tests/test_abuse_rooms.py checks the limits)."""


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


def check_not_stuck(server: ServerProcess, world: World, view: Any, looks: int = 3) -> None:
    """The side to act in a running game can act (or the game is over). A refusal that
    comes because the room moved on since ``view`` (a stone of a peer's last burst, still
    in flight when the view was read) is looked at again, with the room as it is now."""
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
        if isinstance(reply, m.Error) and reply.code != "game_over" and looks > 1:
            # Joining one's own seat answers with the room's snapshot (a resume with no
            # "after" was itself refused, and the check waited out its 15 s).
            player.send(pack({"type": "join", "room": view.id, "id": 3}))
            now = player.wait_for(lambda x: isinstance(x, m.Snapshot | m.Error) and x.re == 3)
            assert isinstance(now, m.Snapshot | None), f"room {view.id}: looked at again: {now}"
            if isinstance(now, m.Snapshot) and now.room.seq > view.seq:
                check_not_stuck(server, world, now.room, looks - 1)
                return
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
