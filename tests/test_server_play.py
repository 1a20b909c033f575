"""Complete games over real WebSocket connections: every rule, swap2, spectators, offers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from server_fixtures import (
    Connect,
    TestClient,
    agree_rematch,
    make_config,
    private_pair,
    seated_pair,
)

from protocol import messages as m
from protocol.events import (
    Answered,
    ChatPosted,
    Chose,
    GameOver,
    Moved,
    Offered,
    OpeningPhase,
    Presence,
    Rematch,
    SpectatorCount,
    Undone,
)
from protocol.values import TimeControl
from server.app import GomokuServer
from server.game import GameRules


async def play(
    room: str, players: list[TestClient], watchers: list[TestClient], moves: str, start: int = 1
) -> None:
    """Play ``moves`` alternately by players[0], players[1]; everyone sees each Moved."""
    for i, point in enumerate(moves.split(), start - 1):
        await players[i % 2].move(room, point)
        for client in players + watchers:
            moved = await client.event(Moved, room)
            assert moved.point == point
            assert moved.move_no == i + 1


async def test_hello_welcome_and_create(connect: Connect) -> None:
    """Hello gives a player id and token; creating a room seats you and sends a snapshot."""
    alice = await connect()
    welcome = await alice.hello("alice")
    assert welcome.player
    assert welcome.token
    assert not welcome.resumed
    snap = await alice.create(rule="renju", seat="black")
    assert snap.room.state == "waiting"
    assert snap.room.players.black is not None
    assert snap.room.players.black.id == welcome.player
    assert (snap.room.rule, snap.room.seq) == ("renju", 1)


async def test_freestyle_game_to_five(connect: Connect) -> None:
    """Black makes five in a row; both players see every move and the result."""
    alice, bob, room = await seated_pair(connect)
    await play(room, [alice, bob], [], "h8 a1 h9 a2 h10 a3 h11 a4")
    await alice.move(room, "h12")
    for client in (alice, bob):
        moved = await client.event(Moved, room)
        assert (moved.point, moved.color, moved.move_no) == ("h12", "black", 9)
        over = await client.event(GameOver, room)
        assert (over.winner, over.reason) == ("black", "five")
        assert sorted(over.line or []) == ["h10", "h11", "h12", "h8", "h9"]


async def test_freestyle_overline_wins(connect: Connect) -> None:
    """In freestyle six in a row wins, reported as an overline."""
    alice, bob, room = await seated_pair(connect, rule="freestyle")
    await play(room, [alice, bob], [], "h8 a1 i8 a2 j8 a3 k8 a4 m8 a14")
    await alice.move(room, "l8")
    await alice.event(Moved, room)
    over = await alice.event(GameOver, room)
    assert (over.winner, over.reason) == ("black", "overline")


async def test_standard_overline_does_not_win_then_white_wins(connect: Connect) -> None:
    """In standard an overline wins for nobody; the game goes on until a real five."""
    alice, bob, room = await seated_pair(connect, rule="standard")
    await play(room, [alice, bob], [], "h8 a1 i8 a2 j8 a3 k8 a4 m8 a14 l8")
    await bob.move(room, "a5")
    for client in (alice, bob):
        await client.event(Moved, room)
        over = await client.event(GameOver, room)
        assert (over.winner, over.reason) == ("white", "five")


async def test_renju_forbidden_move_refused_with_foul(connect: Connect) -> None:
    """Renju: Black's double-three is refused naming the foul, then White wins normally."""
    alice, bob, room = await seated_pair(connect, rule="renju")
    await play(room, [alice, bob], [], "g8 a1 h8 a2 i9 a3 i10 a4")
    await alice.send(m.Move(room=room, point="i8", id=7))
    error = await alice.expect_error("forbidden")
    assert (error.foul, error.re, error.room) == ("double-three", 7, room)
    assert "double-three" in error.message
    await bob.silent()  # nothing happened in the room
    await alice.move(room, "o15")
    await bob.move(room, "a5")
    for client in (alice, bob):
        await client.event(Moved, room)
        await client.event(Moved, room)
        over = await client.event(GameOver, room)
        assert (over.winner, over.reason) == ("white", "five")


async def test_swap2_opening_place2_then_choice(connect: Connect) -> None:
    """Swap2: the opener places three, the other places two more, the opener picks White;
    a later snapshot says the five opening stones are the opening's."""
    alice, bob, room = await seated_pair(connect, opening="swap2")
    first = await alice.event(OpeningPhase, room)
    assert (first.phase, first.to_act) == ("place3", alice.player)
    snap = await bob.join(room)  # joining again just re-sends the snapshot
    assert snap.room.state == "opening"
    assert snap.room.swap2 is not None
    assert (snap.room.swap2.phase, snap.room.swap2.to_act) == ("place3", alice.player)
    assert snap.room.opening_stones == 0  # none settled yet
    for point in ("h8", "h9", "i8"):
        await alice.move(room, point)
    for client in (alice, bob):
        await client.events(3)
        phase = await client.event(OpeningPhase, room)
        assert (phase.phase, phase.to_act) == ("choose", bob.player)
        assert phase.choices == ["black", "white", "place2"]
    await bob.move(room, "a1")  # a stone while a choice is awaited
    await bob.expect_error("wrong_phase")
    await alice.send(m.Choose(room=room, choice="white"))
    await alice.expect_error("not_your_turn")
    await bob.send(m.Choose(room=room, choice="place2"))
    for client in (alice, bob):
        chose = await client.event(Chose, room)
        assert (chose.choice, chose.black) == ("place2", None)
        phase = await client.event(OpeningPhase, room)
        assert (phase.phase, phase.to_act) == ("place2", bob.player)
    await bob.move(room, "j10")
    await bob.move(room, "g7")
    for client in (alice, bob):
        await client.events(2)
        phase = await client.event(OpeningPhase, room)
        assert (phase.phase, phase.to_act, phase.choices) == (
            "choose",
            alice.player,
            ["black", "white"],
        )
    await alice.send(m.Choose(room=room, choice="white"))
    for client in (alice, bob):
        chose = await client.event(Chose, room)
        assert (chose.black, chose.white) == (bob.player, alice.player)
    # Five stones are down, so White (now Alice) moves next.
    await bob.move(room, "k11")
    await bob.expect_error("not_your_turn")
    await alice.move(room, "a1")
    moved = await bob.event(Moved, room)
    assert (moved.color, moved.move_no) == ("white", 6)
    watcher = await connect("watcher")
    snap = await watcher.join(room, "spectator")
    assert snap.room.state == "playing"
    assert snap.room.players.black is not None
    assert snap.room.players.black.id == bob.player
    assert snap.room.moves == ["h8", "h9", "i8", "j10", "g7", "a1"]
    assert snap.room.opening_stones == 5


async def test_spectators_receive_everything_in_order(connect: Connect) -> None:
    """A spectator sees the same gap-free event sequence as the players, chat included."""
    alice, bob, room = await seated_pair(connect)
    carol = await connect("carol")
    snap = await carol.join(room, "spectator")
    start = snap.room.seq
    for client in (alice, bob):
        assert (await client.event(SpectatorCount, room)).count == 1
    await play(room, [alice, bob], [carol], "h8 a1 h9")
    await carol.send(m.Chat(room=room, text="nice"))
    chats = [await c.event(ChatPosted, room) for c in (alice, bob, carol)]
    assert {(c.player, c.name, c.text) for c in chats} == {(carol.player, "carol", "nice")}
    await play(room, [alice, bob], [carol], "a2", start=4)
    late = await connect("dave")
    snap = await late.join(room, "spectator")
    assert snap.room.moves == ["h8", "a1", "h9", "a2"]
    assert snap.room.spectators == 2
    await alice.move(room, "h10")
    seqs = []
    for client in (alice, bob, carol, late):
        message = await client.until(
            lambda x: isinstance(x, m.Event) and isinstance(x.event, Moved)
        )
        assert isinstance(message, m.Event)
        seqs.append(message.seq)
    assert len(set(seqs)) == 1
    # 3 moves, chat, a move, this move, and dave's spectator count unless it was held
    # back (carol's count went out less than 500 ms before)
    assert seqs[0] in (start + 6, start + 7)


async def test_draw_offer_declined_then_accepted(connect: Connect) -> None:
    """A declined draw leaves the game running; an accepted one ends it by agreement."""
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Answer(room=room, kind="draw", accept=True))
    await alice.expect_error("no_offer")  # accepting a draw nobody offered
    await alice.send(m.Offer(room=room, kind="draw"))
    for client in (alice, bob):
        offered = await client.event(Offered, room)
        assert (offered.kind, offered.by) == ("draw", alice.player)
    await alice.send(m.Offer(room=room, kind="draw"))
    await alice.expect_error("offer_pending")
    await alice.send(m.Answer(room=room, kind="draw", accept=True))
    await alice.expect_error("no_offer")  # your own offer is not yours to answer
    await bob.send(m.Answer(room=room, kind="draw", accept=False))
    for client in (alice, bob):
        answered = await client.event(Answered, room)
        assert (answered.by, answered.accept) == (bob.player, False)
    await play(room, [alice, bob], [], "h8 a1")
    await bob.send(m.Offer(room=room, kind="draw"))
    await alice.send(m.Answer(room=room, kind="draw", accept=True))
    for client in (alice, bob):
        await client.event(Offered, room)
        await client.event(Answered, room)
        over = await client.event(GameOver, room)
        assert (over.winner, over.reason) == (None, "agreement")


async def test_takeback_accepted_then_declined_requests_throttled(connect: Connect) -> None:
    """An accepted takeback undoes back to the requester's move; declines throttle retries."""
    alice, bob, room = await seated_pair(connect)
    await play(room, [alice, bob], [], "h8 a1")
    await alice.send(m.Offer(room=room, kind="takeback"))
    await bob.send(m.Answer(room=room, kind="takeback", accept=True))
    for client in (alice, bob):
        await client.event(Offered, room)
        await client.event(Answered, room)
        undone = await client.event(Undone, room)
        assert undone.points == ["a1", "h8"]
    await play(room, [alice, bob], [], "i9 a1")  # Black moves again: the board was emptied
    await alice.send(m.Offer(room=room, kind="takeback"))
    await bob.send(m.Answer(room=room, kind="takeback", accept=False))
    await alice.event(Offered, room)
    await alice.event(Answered, room)
    await alice.send(m.Offer(room=room, kind="takeback"))
    error = await alice.expect_error("throttled")
    assert "wait" in error.message
    await bob.events(2)
    await bob.send(m.Offer(room=room, kind="takeback"))  # Bob has his own allowance
    offered = await bob.event(Offered, room)
    assert offered.by == bob.player


async def test_resign_then_rematch_with_colours_swapped(connect: Connect) -> None:
    """After a resignation, an accepted rematch opens a new room with colours swapped."""
    alice, bob, room = await seated_pair(connect)
    await bob.send(m.Offer(room=room, kind="rematch"))
    await bob.expect_error("wrong_phase")  # no rematch while the game runs
    await alice.send(m.Resign(room=room))
    for client in (alice, bob):
        over = await client.event(GameOver, room)
        assert (over.winner, over.reason) == ("white", "resign")
    await alice.move(room, "h8")
    await alice.expect_error("game_over")
    await alice.send(m.Offer(room=room, kind="rematch"))
    await alice.event(Offered, room)
    await bob.event(Offered, room)
    await bob.send(m.Answer(room=room, kind="rematch", accept=True))
    for client in (alice, bob):
        got = [await client.recv() for _ in range(3)]
        events = [x.event for x in got if isinstance(x, m.Event) and x.room == room]
        snaps = [x for x in got if isinstance(x, m.Snapshot)]
        assert [type(e) for e in events] == [Answered, Rematch]
        rematch = events[-1]
        assert isinstance(rematch, Rematch)
        assert len(snaps) == 1
        new = snaps[0].room
        assert new.id == rematch.room
        assert new.state == "playing"
        assert new.players.black is not None
        assert new.players.black.id == bob.player
    await bob.move(new.id, "h8")
    moved = await alice.event(Moved, new.id)
    assert moved.color == "black"


async def test_the_rematch_of_a_swap2_game_is_opened_by_the_other_player(
    connect: Connect,
) -> None:
    """Alice opens, Bob takes Black, Alice ends White: the rematch is Bob's to open. It
    went by colour (White opens the next), so an opener who took White opened again."""
    alice, bob, room = await seated_pair(connect, opening="swap2")
    for point in ("h8", "h9", "i8"):
        await alice.move(room, point)
    await bob.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, OpeningPhase)
                    and x.event.phase == "choose")  # fmt: skip
    await bob.send(m.Choose(room=room, choice="black"))
    chose = await alice.until_event(Chose)
    assert (chose.black, chose.white) == (bob.player, alice.player)
    await bob.send(m.Resign(room=room))
    await alice.until_event(GameOver)
    await alice.send(m.Offer(room=room, kind="rematch"))
    await bob.until_event(Offered)
    await bob.send(m.Answer(room=room, kind="rematch", accept=True))
    snapshot = await bob.until(lambda x: isinstance(x, m.Snapshot))
    assert isinstance(snapshot, m.Snapshot)
    assert snapshot.room.swap2 is not None
    assert snapshot.room.swap2.to_act == bob.player  # bob places the three stones


async def test_a_spectator_of_a_private_game_watches_its_rematch_by_the_code_given(
    connect: Connect,
) -> None:
    """A private room is watched only by its code: the rematch event gives a private
    game's spectators the rematch's code, and they watch it with that (by the room's id
    they were refused, and the page's "Watch the rematch" said the room did not exist)."""
    alice, bob, snap = await private_pair(connect)
    assert snap.room.code is not None
    room = snap.room.id
    carol = await connect("carol")
    await carol.send(m.Join(code=snap.room.code, role="spectator"))
    await carol.expect(m.Snapshot)
    await alice.send(m.Resign(room=room))
    await carol.until_event(GameOver)
    await agree_rematch(alice, bob, room)
    rematch = await carol.until_event(Rematch)
    assert rematch.code is not None
    assert rematch.code != snap.room.code
    await carol.send(m.Join(room=rematch.room, role="spectator"))
    await carol.expect_error("no_such_room")  # a private room, not by its id
    await carol.send(m.Join(code=rematch.code, role="spectator"))
    watched = await carol.expect(m.Snapshot)
    assert (watched.room.id, watched.room.state) == (rematch.room, "playing")


async def test_one_who_opens_a_finished_game_later_is_shown_its_rematch(
    connect: Connect,
) -> None:
    """A spectator who comes to a finished private game after its rematch began finds
    the rematch (and its code) in the snapshot, as the rematch event gave it to those
    who were watching: the page showed them the finished board and nothing more."""
    alice, bob, snap = await private_pair(connect)
    assert snap.room.code is not None
    await alice.send(m.Resign(room=snap.room.id))
    await agree_rematch(alice, bob, snap.room.id)
    rematch = await alice.until_event(Rematch)
    dora = await connect("dora")
    await dora.send(m.Join(code=snap.room.code, role="spectator"))
    late = await dora.expect(m.Snapshot)
    assert (late.room.state, late.room.rematch_room) == ("over", rematch.room)
    assert late.room.rematch_code == rematch.code


async def test_a_public_rematch_has_no_code(connect: Connect) -> None:
    """A public game's rematch is watched by its id: its event carries no code."""
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Resign(room=room))
    await agree_rematch(alice, bob, room)
    rematch = await alice.until_event(Rematch)
    assert rematch.code is None


async def test_no_rematch_offer_to_an_opponent_who_has_left(connect: Connect) -> None:
    """Once the opponent has left a finished game, a rematch offer is refused at once
    (nobody is there to answer it); back in the room, they can be asked again."""
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Resign(room=room))
    for client in (alice, bob):
        await client.event(GameOver, room)
    await bob.send(m.Leave(room=room))
    await bob.expect(m.Left)
    while True:
        presence = await alice.event(Presence, room)
        if presence.player == bob.player and not presence.online:
            break
    await alice.send(m.Offer(room=room, kind="rematch"))
    error = await alice.expect_error("wrong_phase")
    assert "bob" in error.message
    assert "left" in error.message
    await bob.join(room)  # back (his seat is kept)
    await alice.event(Presence, room)
    await alice.send(m.Offer(room=room, kind="rematch"))
    offered = await bob.event(Offered, room)
    assert offered.kind == "rematch"


async def test_a_snapshot_recalls_what_was_said(connect: Connect) -> None:
    """A spectator who comes late reads the chat said before (oldest first, with each
    line's seq and speaker); a move in between is not a chat line."""
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Chat(room=room, text="good luck"))
    await alice.move(room, "h8")
    await bob.send(m.Chat(room=room, text="you too"))
    said = [await bob.until_event(ChatPosted), await bob.until_event(ChatPosted)]
    carol = await connect("carol")
    snap = await carol.join(room, "spectator")
    lines = [(c.name, c.text) for c in snap.room.chat]
    assert lines == [("alice", "good luck"), ("bob", "you too")]
    assert snap.room.chat[1].player == bob.player
    assert snap.room.chat[1].seq <= snap.room.seq
    assert [c.text for c in said] == ["good luck", "you too"]


async def test_room_full_and_join_as_spectator(connect: Connect) -> None:
    """A third player cannot take a seat in a running game but may watch it."""
    _alice, bob, room = await seated_pair(connect)
    carol = await connect("carol")
    await carol.send(m.Join(room=room))
    await carol.expect_error("room_full")
    snap = await carol.join(room, "spectator")
    assert snap.room.players.white is not None
    assert snap.room.players.white.id == bob.player


async def test_a_crowd_of_spectators_is_counted_in_one_event(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect
) -> None:
    """The first arrival is announced at once; the next ones, held back, in one count."""
    rules = GameRules(spectator_count_every_ms=1_500)
    server = await make_server(make_config(game=rules))
    alice, bob = await connect("alice", to=server), await connect("bob", to=server)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    first = await connect("s0", to=server)
    await first.join(room, "spectator")
    counts = [(await alice.until_event(SpectatorCount)).count]
    crowd = [await connect(f"s{i}", to=server) for i in range(1, 4)]
    for spectator in crowd:
        await spectator.join(room, "spectator")
    counts.append((await alice.until_event(SpectatorCount)).count)
    assert counts == [1, 4]  # never 2 or 3: one event for the three of them
    await alice.send(m.LobbyWatch(on=True))
    lobby = await alice.until(lambda x: isinstance(x, m.Lobby))
    assert isinstance(lobby, m.Lobby)
    assert [r.spectators for r in lobby.rooms if r.id == room] == [4]


async def test_a_move_meant_for_another_position_is_refused_not_played(
    connect: Connect,
) -> None:
    """A move carrying the number its stone takes is played only there: one held back
    (a dead connection's, delivered late) after the game went on is refused with
    stale_move, and the board is as it was; without move_no a move is the next."""
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Move(room=room, point="h8", move_no=1))
    assert (await alice.event(Moved)).move_no == 1
    await bob.event(Moved)
    await bob.send(m.Move(room=room, point="a1", move_no=1))  # meant for the empty board
    error = await bob.expect_error("stale_move")
    assert error.message == (
        "not played: the game had moved on when this move arrived "
        "(it was meant as stone 1; the board has 1 stone now)"
    )
    await bob.send(m.Move(room=room, point="a1", move_no=2))
    assert (await bob.event(Moved)).point == "a1"
    await alice.event(Moved)
    await alice.send(m.Move(room=room, point="h9"))  # no move_no: the next stone
    assert (await alice.event(Moved)).move_no == 3


async def test_a_timed_game_nobody_begins_is_aborted_by_itself(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect
) -> None:
    """A rated timed game whose first stone does not come in time ends with nobody
    acting: aborted (game_over abandon with no winner and no stone), no rating change,
    for both players (it stayed "playing", clocks full, for good)."""
    rules = GameRules(grace_ms=60_000, first_stone_ms=300)
    server = await make_server(make_config(game=rules))
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    five = TimeControl(base_ms=300_000, inc_ms=0)
    room = (await alice.create(seat="black", rated=True, time=five)).room.id
    await bob.join(room)
    for client in (alice, bob):
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason, over.ratings) == (None, "abandon", None)
    await alice.send(m.Move(room=room, point="h8"))
    await alice.expect_error("game_over")
