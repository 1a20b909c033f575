"""AI workers playing real games on a real server: every rule, spreading seats over
workers, AI-vs-AI with spectators, hints, quick match with an AI fallback, offers."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable

import pytest
from server_fixtures import Connect, TestClient
from worker_fixtures import BOT_KEY, FAST_BOTS, Person, StartWorker, ai_config, eventually

from engine import Board, Color, Rule, parse_point
from protocol import messages as m
from protocol.events import (
    Answered,
    Chose,
    GameOver,
    GameStarted,
    Moved,
    OpeningPhase,
    PlayerJoined,
    Rematch,
    Undone,
)
from protocol.values import TimeControl
from server.app import GomokuServer


@pytest.fixture
async def server(ai_server: GomokuServer) -> GomokuServer:
    """The ``connect`` fixture's server: the one that accepts the test bot key."""
    return ai_server


async def room_with_ai(
    connect: Connect, level: str, *, name: str = "ann", seat: str = "white", **room: object
) -> tuple[TestClient, Person]:
    """A person creates a room, asks for an AI, and sees it sit down."""
    client = await connect(name)
    snapshot = await client.create(seat=seat, **room)
    person = Person(client, snapshot.room.id, snapshot.room.rule)
    person.follow(snapshot)
    await client.send(m.SeatAi(room=person.room, level=level, id=7))
    joined = await client.event(PlayerJoined, person.room)
    assert joined.bot
    await client.event(GameStarted, person.room)
    return client, person


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU])
async def test_ai_plays_a_whole_game_for_each_rule(
    connect: Connect, start_worker: StartWorker, rule: Rule
) -> None:
    """The AI (Black) plays a legal game to its win within its clock, in every rule."""
    worker = await start_worker()
    _, person = await room_with_ai(
        connect, "advanced", rule=rule, time=TimeControl(base_ms=20_000, inc_ms=0)
    )
    await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")
    board = person.replay()  # every move legal under the rule
    assert board.result is not None
    if rule is Rule.RENJU:  # no foul by Black, checked point by point
        replay = Board(15, rule)
        for point in person.moves:
            if replay.turn is Color.BLACK:
                assert replay.foul(parse_point(point, 15)) is None
            replay.play(parse_point(point, 15))
    assert worker.stats.refused == 0
    assert person.clocks_after_ai
    assert min(person.clocks_after_ai) > 15_000  # thought within its budget, far from flagging
    assert worker.stats.moves == len(person.ai_moves())


async def test_seats_spread_over_workers_and_busy_workers_say_so(
    connect: Connect, start_worker: StartWorker, ai_server: GomokuServer
) -> None:
    """Four requests at once go two to each worker, all start at once; a fifth is refused."""
    first = await start_worker(seats=2)
    second = await start_worker(seats=2)
    clients = [await connect(f"p{i}") for i in range(5)]
    rooms = [(await c.create(seat="white")).room.id for c in clients]
    await asyncio.gather(
        *(
            c.send(m.SeatAi(room=r, level="novice", id=1))
            for c, r in zip(clients, rooms, strict=True)
        )
    )
    # Which four of the five get an AI depends on the order the requests reach the store.
    answers = [
        await c.until(
            lambda msg: (
                isinstance(msg, m.Error)
                or (isinstance(msg, m.Event) and isinstance(msg.event, Moved))
            )
        )
        for c in clients
    ]
    refused = [a for a in answers if isinstance(a, m.Error)]
    assert len(refused) == 1
    assert refused[0].code == "no_ai_available"
    assert "busy" in refused[0].message
    for answer in answers:  # the others' AI moved at once: nobody waits
        assert isinstance(answer, m.Error) or (
            isinstance(answer, m.Event)
            and isinstance(answer.event, Moved)
            and answer.event.color == "black"
        )
    held = sorted(len(w.held) for w in ai_server.bots.workers.values())
    assert held == [2, 2]
    assert first.stats.games == second.stats.games == 2


async def test_ai_versus_ai_to_the_end_with_spectators(
    connect: Connect, start_worker: StartWorker, ai_server: GomokuServer
) -> None:
    """Two AIs play a swap2 game to the end; the creator and a late spectator see it all;
    then both seats are free again."""
    await start_worker(seats=2)
    await start_worker(seats=2)
    creator = await connect("cy")
    await creator.send(
        m.CreateAiGame(black="novice", white="intermediate", opening="swap2", id=3)  # type: ignore[arg-type]
    )
    snapshot = await creator.expect(m.Snapshot)
    view = snapshot.room
    assert snapshot.re == 3
    assert view.players.black is not None
    assert view.players.black.bot
    assert view.players.white is not None
    assert view.players.white.bot
    assert (view.state, view.rated, view.spectators) == ("opening", False, 1)
    seen: list[str] = []
    late: TestClient | None = None
    late_view = None
    last = view.seq
    while True:
        message = await creator.recv(30)
        if not isinstance(message, m.Event) or message.room != view.id:
            continue
        assert message.seq == last + 1  # nothing missed, nothing twice
        last = message.seq
        if isinstance(message.event, Moved):
            seen.append(message.event.point)
            if late is None:  # a second spectator arrives mid-game
                late = await connect("dee")
                late_view = (await late.join(view.id, "spectator")).room
        if isinstance(message.event, GameOver):
            over = message.event
            break
    assert over.reason in ("five", "board-full", "overline", "agreement")
    assert late is not None
    assert late_view is not None
    moves = list(late_view.moves)
    result = late_view.result
    outcome = None if result is None else (result.winner, result.reason)
    while outcome is None:
        envelope = await late.expect(m.Event)
        if isinstance(envelope.event, Moved):
            moves.append(envelope.event.point)
        if isinstance(envelope.event, GameOver):
            outcome = (envelope.event.winner, envelope.event.reason)
    assert moves == seen
    assert outcome == (over.winner, over.reason)
    await eventually(lambda: not ai_server.bots.owner, 5)  # no rematch to wait for


async def test_hint_in_a_casual_game_but_not_in_a_rated_one(
    connect: Connect, start_worker: StartWorker
) -> None:
    """A casual game's hint is a legal move for the side to move; a rated game gets none."""
    await start_worker()
    client, person = await room_with_ai(connect, "novice")
    opening = await client.until_event(Moved)  # the AI opened
    await client.send(m.Hint(room=person.room, id=11))
    suggestion = await client.expect(m.Suggestion)
    assert (suggestion.re, suggestion.room, suggestion.move_no) == (11, person.room, 1)
    assert suggestion.reason in ("win", "block", "threat", "positional")
    board = Board.from_moves(opening.point)
    assert board.is_legal(parse_point(suggestion.point, 15))
    rated_a = await connect("rae")
    rated_b = await connect("rob")
    rated = (await rated_a.create(seat="black", rated=True)).room.id
    await rated_b.join(rated)
    await rated_b.send(m.Hint(room=rated, id=12))
    refused = await rated_b.expect_error("hint_not_allowed")
    assert refused.re == 12
    await rated_a.send(m.Hint(room=rated, id=13))
    late_refusal = await rated_a.until(lambda x: isinstance(x, m.Error))
    assert isinstance(late_refusal, m.Error)
    assert (late_refusal.code, late_refusal.re) == ("hint_not_allowed", 13)


async def test_no_hint_in_a_swap2_opening(connect: Connect) -> None:
    """A hint while the opener places three stones gave the strongest Black move, the
    wrong advice for an opening meant to leave the choice balanced: it is refused."""
    ann, bob = await connect("ann"), await connect("bob")
    room = (await ann.create(seat="black", opening="swap2")).room.id
    await bob.join(room)
    await ann.move(room, "h8")
    await ann.send(m.Hint(room=room, id=5))
    refused = await ann.until(lambda x: isinstance(x, m.Error))
    assert isinstance(refused, m.Error)
    assert (refused.code, refused.re) == ("wrong_phase", 5)
    assert refused.message == "no hints in the swap2 opening: it is placed to be balanced"


async def test_a_hint_being_thought_over_holds_up_nothing_else(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect, start_worker: StartWorker
) -> None:
    """While the AI thinks over a hint (1.5 s here), the asker's move is played at once
    and a second hint is refused as throttled; the suggestion follows."""
    slow = await make_server(ai_config(bots=dataclasses.replace(FAST_BOTS, hint_ms=1_500)))
    await start_worker(to=slow)
    client = await connect("ann", to=slow)
    room = (await client.create(seat="black")).room.id
    await client.send(m.SeatAi(room=room, level="novice", id=1))
    await client.until_event(GameStarted)
    asked = time.monotonic()
    await client.send(m.Hint(room=room, id=2))
    await client.send(m.Hint(room=room, id=3))
    await client.move(room, "h8")
    refused = await client.until(lambda x: isinstance(x, m.Error))
    assert isinstance(refused, m.Error)
    assert (refused.code, refused.re) == ("throttled", 3)
    moved = await client.until_event(Moved)
    assert moved.point == "h8"
    assert time.monotonic() - asked < 1.0
    suggestion = await client.until(lambda x: isinstance(x, m.Suggestion))
    assert isinstance(suggestion, m.Suggestion)
    assert (suggestion.re, suggestion.move_no) == (2, 0)


async def test_quick_match_falls_back_to_an_ai(connect: Connect, start_worker: StartWorker) -> None:
    """Nobody else queues: after ai_after_ms the player is matched with an AI, unrated."""
    await start_worker()
    client = await connect("solo")
    await client.send(m.Queue(rule=Rule.RENJU, ai_after_ms=150, ai_level="novice", id=4))
    queued = await client.expect(m.Queued)
    assert (queued.re, queued.ai_after_ms) == (4, 150)
    await client.expect(m.Unqueued)
    snapshot = await client.expect(m.Snapshot)
    view = snapshot.room
    assert (view.rule, view.rated, view.state) == (Rule.RENJU, False, "playing")
    seats = [view.players.black, view.players.white]
    assert sorted(bool(s and s.bot) for s in seats) == [False, True]
    person = Person(client, view.id, Rule.RENJU)
    person.follow(snapshot)
    await person.play()
    assert person.over is not None


async def test_takeback_accepted_draw_declined_rematch_accepted(
    connect: Connect, start_worker: StartWorker
) -> None:
    """The AI grants a takeback, declines a draw in a live position, and plays a rematch."""
    await start_worker()
    client, person = await room_with_ai(connect, "novice")
    await person.play(until=lambda p: len(p.moves) >= 3)  # AI, us, AI
    await client.send(m.Offer(room=person.room, kind="takeback"))
    await client.until_event(Answered)
    undone = await client.until_event(Undone)
    assert len(undone.points) == 2  # our stone and the AI's answer to it
    person.moves = person.moves[: len(person.moves) - 2]
    await client.send(m.Offer(room=person.room, kind="draw"))
    declined = await client.until_event(Answered)
    assert (declined.kind, declined.accept) == ("draw", False)
    await client.move(person.room, person.next_point())
    await person.play()
    assert person.over is not None
    await client.send(m.Offer(room=person.room, kind="rematch"))
    accepted = await client.until_event(Answered)
    assert (accepted.kind, accepted.accept) == ("rematch", True)
    rematch = await client.until_event(Rematch)
    snapshot = await client.until(lambda x: isinstance(x, m.Snapshot))
    assert isinstance(snapshot, m.Snapshot)
    assert snapshot.room.id == rematch.room
    again = Person(client, rematch.room)
    again.follow(snapshot)
    assert again.color == "black"  # colours swapped: we open now
    await again.play()
    assert again.over is not None


@pytest.mark.parametrize("gone", ["leaves the room", "disconnects"])
async def test_a_person_gone_from_a_finished_game_frees_the_ai_at_once(
    connect: Connect, start_worker: StartWorker, gone: str
) -> None:
    """The AI waits for a rematch from a person still in the room, not from one who
    left it: its seat is free again for the next game at once, not after the linger
    time ("every AI is busy" for 20 s to a player who went back to the lobby)."""
    await start_worker(seats=1, linger_s=60)
    client, person = await room_with_ai(connect, "novice")
    await client.until_event(Moved)  # the worker plays the seat (Black)
    await client.send(m.Resign(room=person.room))
    await client.until_event(GameOver)
    other = await connect("bo")
    room = (await other.create(seat="white")).room.id
    await other.send(m.SeatAi(room=room, level="novice", id=8))
    busy = await other.expect(m.Error)
    assert "busy" in busy.message  # it waits for a rematch from ann, in the room
    if gone == "leaves the room":
        await client.send(m.Leave(room=person.room))
    else:
        await client.ws.close()
    started = time.monotonic()
    while True:
        await other.send(m.SeatAi(room=room, level="novice", id=9))
        answer = await other.until(
            lambda msg: (
                isinstance(msg, m.Error)
                or (isinstance(msg, m.Event) and isinstance(msg.event, PlayerJoined))
            )
        )
        if isinstance(answer, m.Event):
            break
        assert isinstance(answer, m.Error)
        assert "busy" in answer.message
        assert time.monotonic() - started < 10, "the seat was held for the linger time"
        await asyncio.sleep(0.2)


async def test_no_worker_means_a_clear_error(connect: Connect) -> None:
    """Without a worker every AI request fails at once with no_ai_available."""
    client = await connect("ann")
    room = (await client.create(seat="black")).room.id
    await client.send(m.SeatAi(room=room, level="master", id=1))
    error = await client.expect_error("no_ai_available")
    assert "no AI worker" in error.message
    await client.send(m.CreateAiGame(id=2))
    await client.expect_error("no_ai_available")
    await client.send(m.Queue(ai_after_ms=50, id=3))
    await client.expect(m.Queued)
    late = await client.expect_error("no_ai_available")
    assert late.re == 3
    assert "still waiting" in late.message
    await client.send(m.Unqueue(id=4))
    assert (await client.expect(m.Unqueued)).re == 4  # still queued for a person


async def test_a_quick_match_waiting_for_a_busy_ai_gets_one_once_it_is_free(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect, start_worker: StartWorker
) -> None:
    """No AI free when ann's wait is over: she is told so once and waits on; a worker
    that comes later seats an AI against her (one try left her waiting for good)."""
    config = ai_config()
    retry = dataclasses.replace(config.matchmaking, ai_retry_s=0.3)
    server = await make_server(dataclasses.replace(config, matchmaking=retry))
    ann = await connect("ann", to=server)
    await ann.send(m.Queue(ai_after_ms=50, ai_level="novice", id=1))
    await ann.expect(m.Queued)
    refused = await ann.expect_error("no_ai_available")
    assert "an AI is tried again every 0.3 s" in refused.message
    await asyncio.sleep(1.0)  # three more tries: none is told
    await start_worker(to=server)
    await ann.expect(m.Unqueued)
    view = (await ann.expect(m.Snapshot)).room
    assert view.state == "playing"
    assert [bool(s and s.bot) for s in (view.players.black, view.players.white)].count(True) == 1


async def test_unknown_level_and_rated_room_are_refused(
    connect: Connect, start_worker: StartWorker
) -> None:
    """A level no worker offers and an AI in a rated room are refused with clear codes."""
    await start_worker(levels=("novice",))
    client = await connect("ann")
    room = (await client.create(seat="black")).room.id
    await client.send(m.SeatAi(room=room, level="master", id=1))
    error = await client.expect_error("no_ai_available")
    assert "novice" in error.message
    rated = (await client.create(seat="black", rated=True)).room.id
    await client.send(m.SeatAi(room=rated, level="novice", id=2))
    await client.expect_error("ai_not_allowed")


async def test_ordinary_players_cannot_pose_as_workers(connect: Connect) -> None:
    """Worker messages need the bot key; a wrong key and a seat token without it are refused."""
    player = await connect("mallory")
    await player.send(m.BotReady(seats=10, levels=["master"], id=1))
    await player.expect_error("not_a_bot")
    impostor = await connect()
    await impostor.send(m.Hello(name="bot", bot_key="guess", id=1))
    await impostor.expect_error("bad_bot_key")
    worker = await connect()  # a worker written from protocol.md, by hand
    await worker.send(m.Hello(name="hand-made bot", bot_key=BOT_KEY, id=1))
    await worker.expect(m.Welcome)
    await worker.send(m.BotReady(seats=1, levels=["hand"], id=2))
    accepted = await worker.expect(m.BotAccepted)
    assert accepted.re == 2
    person = await connect("ann")
    room = (await person.create(seat="white")).room.id
    await person.send(m.SeatAi(room=room, level="hand"))
    order = await worker.expect(m.BotSeat)
    assert (order.room, order.level, order.name) == (room, "hand", "AI hand")
    thief = await connect()
    await thief.send(m.Hello(name=order.name, token=order.token, id=1))
    await thief.expect_error("bad_bot_key")
    seat = await connect()
    await seat.send(m.Hello(name=order.name, token=order.token, bot_key=BOT_KEY, id=1))
    welcome = await seat.expect(m.Welcome)
    assert (welcome.player, welcome.resumed, welcome.rooms) == (order.player, True, [room])
    view = (await seat.join(room)).room
    assert view.players.black is not None
    assert view.players.black.id == order.player
    await seat.move(room, "h8")
    moved = await person.until_event(Moved)
    assert (moved.point, moved.color) == ("h8", "black")


async def next_room_event(client: TestClient, room: str, *kinds: type) -> object:
    """The next event of the room of one of ``kinds``, skipping other messages."""
    while True:
        message = await client.recv(30)
        if (
            isinstance(message, m.Event)
            and message.room == room
            and isinstance(message.event, kinds)
        ):
            return message.event


async def test_ai_plays_both_swap2_roles_in_rooms(
    connect: Connect, start_worker: StartWorker
) -> None:
    """As the second player, facing an even opening, the AI places two stones and lets
    the opener choose; as the opener it places three stones and, after the person's
    two, takes a colour (and plays the sixth stone if it takes White)."""
    await start_worker(move_time_s=3.0)  # room for a full-strength swap2 judgement
    # The AI is the second player (the person, in the black seat, is the opener).
    client, person = await room_with_ai(connect, "master", seat="black", opening="swap2")
    room = person.room
    for point in ("h8", "i8", "i7"):  # an even shape (see tests/test_ai_swap2.py)
        await client.move(room, point)
    chose = await next_room_event(client, room, Chose)
    assert isinstance(chose, Chose)
    assert (chose.player != client.player, chose.choice) == (True, "place2")
    placed = [await next_room_event(client, room, Moved) for _ in range(2)]
    assert [e.color for e in placed if isinstance(e, Moved)] == ["white", "black"]
    phase = await next_room_event(client, room, OpeningPhase)
    assert isinstance(phase, OpeningPhase)
    assert (phase.to_act, phase.phase) == (client.player, "choose")
    await client.send(m.Choose(room=room, choice="black"))
    sixth = await next_room_event(client, room, Moved)
    assert isinstance(sixth, Moved)
    assert sixth.color == "white"  # the AI's, as the person took Black
    # The AI is the opener (it sits Black, the person White).
    other, second = await room_with_ai(connect, "master", name="bo", seat="white", opening="swap2")
    room = second.room
    stones = [await next_room_event(other, room, Moved) for _ in range(3)]
    assert [e.color for e in stones if isinstance(e, Moved)] == ["black", "white", "black"]
    phase = await next_room_event(other, room, OpeningPhase)
    assert isinstance(phase, OpeningPhase)
    assert phase.to_act == other.player
    await other.send(m.Choose(room=room, choice="place2"))
    mine = await next_room_event(other, room, Chose)
    assert isinstance(mine, Chose)
    assert (mine.player, mine.choice) == (other.player, "place2")
    for point in ("a1", "o15"):  # two stones that change nothing
        await other.move(room, point)
    chose = await next_room_event(other, room, Chose)
    assert isinstance(chose, Chose)
    assert chose.player != other.player
    assert chose.choice in ("black", "white")
    if chose.choice == "white":
        sixth = await next_room_event(other, room, Moved)
        assert isinstance(sixth, Moved)
        assert (sixth.color, sixth.point) != ("white", "a1")


async def test_a_private_ai_game_can_be_shared_and_come_back_to(
    connect: Connect, start_worker: StartWorker
) -> None:
    """The creator of a private AI-vs-AI game is shown its invite code, so others can
    watch it, and may come back into it by its id from a new connection; a stranger
    may not."""
    await start_worker(seats=2)
    creator = await connect("cy")
    await creator.send(m.CreateAiGame(black="beginner", white="beginner", private=True, id=2))
    view = (await creator.expect(m.Snapshot)).room
    assert view.private
    assert view.code is not None
    friend = await connect("dee")
    await friend.send(m.Join(code=view.code, role="spectator", id=3))
    watching = (await friend.expect(m.Snapshot)).room
    assert (watching.id, watching.code) == (view.id, None)  # he did not make it
    stranger = await connect("eve")
    await stranger.send(m.Join(room=view.id, role="spectator", id=4))
    await stranger.expect_error("no_such_room")
    await creator.ws.close()
    again = await connect()
    await again.hello("cy", token=creator.token)
    await again.send(m.Join(room=view.id, role="spectator", id=5))
    back = await again.until(lambda x: isinstance(x, m.Snapshot | m.Error))
    assert isinstance(back, m.Snapshot), back
    assert back.room.code == view.code
