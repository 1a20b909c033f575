"""The room service over the memory store: the rooms it hands out stay as they were
read, whatever is done to the room afterwards (the service gives the same object to
every reader and to the next action as its room before)."""

from __future__ import annotations

import json

import pytest

from engine import Color, Opening, Reason, Result, Rule, parse_point
from engine.record import GameRecord, Players, TimedMove, record_from_dict, record_to_dict
from protocol.events import Undone
from protocol.values import TimeControl
from server import game, history
from server.config import ServerConfig
from server.metrics import Metrics
from server.room import Room, Seat, encode_room
from server.service import RoomService
from server.store.memory import MemoryStore

A, B = "p-a", "p-b"


async def _loaded(service: RoomService, room_id: str) -> Room:
    loaded = await service.load(room_id)
    assert loaded is not None
    return loaded[1]


async def five_for_black(service: RoomService, size: int, moves: list[str]) -> Room:
    """A freestyle game of ``size`` between A (Black) and B played through ``service``
    with ``moves`` (Black's five last): the finished room."""
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.FREESTYLE, size=size),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    for i, point in enumerate(moves):
        await service.act(room.id, game.Move(A if i % 2 == 0 else B, point))
    return await _loaded(service, room.id)


async def test_a_loaded_room_is_not_changed_by_the_actions_that_follow() -> None:
    """Moves, a refused move, a takeback and a resignation leave every room loaded
    before them as it was loaded (its stones, their times, seats and clocks)."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.FREESTYLE),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    seen: list[tuple[Room, bytes]] = []

    async def look() -> None:
        loaded = await _loaded(service, room.id)
        seen.append((loaded, encode_room(loaded)))

    actions: list[game.GameAction] = [
        game.Move(A, "h8"),
        game.Move(B, "a1"),
        game.Move(A, "h9"),
        game.Offer(B, "takeback"),
        game.Answer(A, "takeback", True),
        game.Move(B, "a2"),
        game.Resign(A),
    ]
    for action in actions:
        await look()
        await service.act(room.id, action)
    await look()
    with pytest.raises(game.GameError):
        await service.act(room.id, game.Move(B, "a3"))  # the game is over
    for loaded, as_read in seen:
        assert encode_room(loaded) == as_read
    final = seen[-1][0]
    assert final.moves == ["h8", "a2"]  # the takeback took back a1 and h9
    assert len(final.move_ms) == 2


async def test_a_takeback_gains_nobody_the_increments_of_the_stones_it_removes() -> None:
    """In a 1+20 game, an accepted takeback of two stones leaves each player the time they
    had before those stones were placed, less the time spent since: the increments the
    two stones earned are taken back."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    base, inc = 60_000, 20_000
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.FREESTYLE, time=TimeControl(base_ms=base, inc_ms=inc)),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    for action in [game.Move(A, "h8"), game.Move(B, "a1"), game.Move(A, "h9")]:
        await service.act(room.id, action)
    await service.act(room.id, game.Offer(B, "takeback"))
    outcome, _ = await service.act(room.id, game.Answer(A, "takeback", True))
    undone = outcome.events[-1]
    assert isinstance(undone, Undone)
    assert undone.points == ["h9", "a1"]
    assert undone.clocks is not None
    spent_at_most = 5_000  # a few ms in fact: the test's actions follow one another
    assert base + inc - spent_at_most < undone.clocks.black_ms <= base + inc  # h8's stays
    assert base - spent_at_most < undone.clocks.white_ms <= base
    assert (await _loaded(service, room.id)).clocks_ms == outcome.room.clocks_ms


async def test_the_archived_record_is_the_engines_record_of_the_game() -> None:
    """The record a finished game is archived as (written from the room's own notation)
    is what the engine's own record of the same moves, times and result gives, plus the
    server's ``game`` key, and it replays."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    over = await five_for_black(
        service, 19, ["k10", "a1", "k11", "a2", "k12", "a19", "k13", "s1", "k14"]
    )
    assert over.result is not None
    assert over.result.reason == "five"
    stored = json.loads(history.record_bytes(over))
    times = history.move_times(over)
    assert len(times) == 9
    assert all(t is not None for t in times)
    engine_record = GameRecord(
        rule=Rule.FREESTYLE,
        size=19,
        opening=Opening.FREE,
        players=Players("a", "b"),
        moves=tuple(
            TimedMove(parse_point(p, 19), t) for p, t in zip(over.moves, times, strict=True)
        ),
        result=Result(
            Color.BLACK, Reason.FIVE, tuple(parse_point(p, 19) for p in over.result.line or ())
        ),
        started_at=stored["started_at"],
    )
    game_facts = stored.pop(history.GAME_KEY)
    assert game_facts["id"] == over.id
    assert (game_facts["black"], game_facts["white"]) == (A, B)
    assert (game_facts["time"], game_facts["clocks"]) == (None, None)  # no clock
    assert stored == json.loads(json.dumps(record_to_dict(engine_record)))
    assert record_from_dict(stored) == engine_record


async def test_a_game_archived_twice_is_counted_once() -> None:
    """The ticker's retry (or another instance) archiving a game already kept writes
    the same record again and counts nothing: /metrics said 628 games archived when the
    data file held 616 (a long soak)."""
    metrics = Metrics()
    service = RoomService(MemoryStore(), ServerConfig(), metrics)
    over = await five_for_black(
        service, 15, ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]
    )
    assert await service.archive(over)
    assert metrics.counters["gomoku_games_archived_total"] == 1
    assert await service.archive(over)  # again, as a racing retry would
    assert metrics.counters["gomoku_games_archived_total"] == 1


async def test_a_swap2_games_record_says_who_opened_and_how_the_opening_went() -> None:
    """a opens (three stones), b places two more, a takes White: the record says the
    opener ended as White and the opening placed five stones, which the moves alone do
    not tell a renju player studying it; a free game's record has no such story."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.RENJU, opening=Opening.SWAP2),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    for point in ("h8", "h9", "i9"):
        await service.act(room.id, game.Move(A, point))
    await service.act(room.id, game.Choose(B, "place2"))
    for point in ("j10", "k10"):
        await service.act(room.id, game.Move(B, point))
    await service.act(room.id, game.Choose(A, "white"))
    await service.act(room.id, game.Resign(B))
    over = await _loaded(service, room.id)
    facts = json.loads(history.record_bytes(over))[history.GAME_KEY]
    assert facts["swap2"] == {"opener": "white", "stones": 5}
    assert facts["white"] == A
    free = await five_for_black(
        service, 15, ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]
    )
    assert json.loads(history.record_bytes(free))[history.GAME_KEY]["swap2"] is None
    # Resigned before the choice: nobody had a colour, and three stones were placed.
    early = await service.open(
        "r-2",
        game.RoomSettings(rule=Rule.STANDARD, opening=Opening.SWAP2),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    for point in ("h8", "h9", "i9"):
        await service.act(early.id, game.Move(A, point))
    await service.act(early.id, game.Resign(B))
    ended = json.loads(history.record_bytes(await _loaded(service, early.id)))
    assert ended[history.GAME_KEY]["swap2"] == {"opener": None, "stones": 3}


async def test_a_timed_games_record_keeps_its_time_control_and_final_clocks() -> None:
    """A 5+3 game's record says 5+3 and how much time each side had left at the end (a
    5+3 game lost on time and a 4-second one read alike)."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.FREESTYLE, time=TimeControl(base_ms=300_000, inc_ms=3_000)),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    for i, point in enumerate(["h8", "a1", "h9"]):
        await service.act(room.id, game.Move(A if i % 2 == 0 else B, point))
    await service.act(room.id, game.Resign(B))
    over = await _loaded(service, room.id)
    facts = json.loads(history.record_bytes(over))[history.GAME_KEY]
    assert facts["time"] == {"base_ms": 300_000, "inc_ms": 3_000}
    clocks = facts["clocks"]
    assert clocks == {"black_ms": over.clocks_ms[0], "white_ms": over.clocks_ms[1]}
    assert 300_000 < clocks["black_ms"] <= 306_000  # two increments, little spent


async def test_refused_stones_leave_the_position_the_next_stones_are_judged_on() -> None:
    """A stone on an occupied point, one off the board and one out of turn are refused,
    and the game goes on from the position as it was: Black's five after them wins,
    and a stone on a point played before them is still occupied."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.FREESTYLE),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    black, white = ["h8", "h9", "h10", "h11", "h12"], ["a1", "a2", "a3", "a4"]
    for i in range(4):
        await service.act(room.id, game.Move(A, black[i]))
        for refused in (game.Move(B, black[i]), game.Move(B, "z99"), game.Move(A, "o15")):
            with pytest.raises(game.GameError):
                await service.act(room.id, refused)
        await service.act(room.id, game.Move(B, white[i]))
    with pytest.raises(game.GameError) as occupied:
        await service.act(room.id, game.Move(A, "a3"))
    assert occupied.value.code == "occupied"
    outcome, _ = await service.act(room.id, game.Move(A, black[4]))
    assert outcome.room.state == "over"
    assert outcome.room.result is not None
    assert outcome.room.result.winner == "black"
    assert outcome.room.moves == [p for pair in zip(black, white, strict=False) for p in pair] + [
        "h12"
    ]
