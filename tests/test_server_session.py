"""Sessions, resume, presence, lobby, private rooms, quick match and clocks over the wire."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Sequence

import msgspec
from server_fixtures import Connect, make_config, play_moves, seated_pair

from engine import Rule
from protocol import messages as m
from protocol.events import (
    ChatPosted,
    GameOver,
    GameStarted,
    Moved,
    Offered,
    PlayerJoined,
    Presence,
    SpectatorCount,
)
from protocol.values import TimeControl
from server.app import GomokuServer
from server.game import GameRules
from server.store import CommitResult, MemoryStore, StoreUnavailable
from server.store.base import KEEP_DEADLINE, RoomState

MakeServer = Callable[..., Awaitable[GomokuServer]]


async def test_resume_after_drop_misses_no_event(connect: Connect) -> None:
    """A dropped player resumes with the token and gets every missed event, then live ones."""
    alice, bob, room = await seated_pair(connect)
    await alice.move(room, "h8")
    await bob.event(Moved, room)
    await bob.move(room, "a1")
    seen = await bob.expect(m.Event)
    last_seq = seen.seq
    await alice.event(Moved, room)
    await alice.event(Moved, room)
    bob.ws.transport.abort()  # the network drops, no close handshake
    offline = await alice.event(Presence, room)
    assert (offline.player, offline.online) == (bob.player, False)
    # what is left of the 60 s grace, counted from when bob's connection was found gone
    assert offline.deadline_ms is not None
    assert 59_000 < offline.deadline_ms <= 60_000
    await alice.move(room, "h9")
    await alice.send(m.Chat(room=room, text="are you there?"))
    await alice.event(Moved, room)
    await alice.event(ChatPosted, room)

    bob2 = await connect()
    welcome = await bob2.hello("bob", token=bob.token)
    assert (welcome.player, welcome.resumed, welcome.rooms) == (bob.player, True, [room])
    await alice.silent()  # a hello is not a return to the room: resuming it is
    await bob2.send(m.Resume(room=room, after=last_seq))
    online = await alice.event(Presence, room)
    assert (online.player, online.online) == (bob.player, True)
    missed = await bob2.events(4)
    assert [seq for seq, _ in missed] == list(range(last_seq + 1, last_seq + 5))
    kinds = [type(event) for _, event in missed]
    assert kinds == [Presence, Moved, ChatPosted, Presence]
    await bob2.move(room, "a2")
    live = await bob2.expect(m.Event)
    assert live.seq == last_seq + 5
    assert isinstance(live.event, Moved)


async def test_welcome_lists_a_finished_game_until_its_player_leaves_it(connect: Connect) -> None:
    """protocol.md: ``welcome.rooms`` lists a finished game the player has not left. A
    player who had left it was still sent it at every hello (a client announced the end
    again at each launch); a running game left for the lobby stays listed. A finished game
    may be left from a connection that does not watch it (a lobby told of its end)."""
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Leave(room=room))
    await alice.expect(m.Left)
    again = await (await connect()).hello("alice", token=alice.token)
    assert again.rooms == [room]  # running: left for the lobby, still to come back to
    await bob.send(m.Resign(room=room))
    await bob.until_event(GameOver)
    again = await (await connect()).hello("bob", token=bob.token)
    assert again.rooms == [room]  # over, not left: how it ended is still to be seen
    await bob.send(m.Leave(room=room))
    await bob.expect(m.Left)
    again = await (await connect()).hello("bob", token=bob.token)
    assert again.rooms == []
    elsewhere = await connect()  # a connection that does not watch the room
    await elsewhere.hello("alice", token=alice.token)
    await elsewhere.send(m.Leave(room=room))
    await elsewhere.expect(m.Left)
    again = await (await connect()).hello("alice", token=alice.token)
    assert again.rooms == []
    await elsewhere.send(m.Leave(room="r-nosuchroom"))
    await elsewhere.expect_error("not_in_room")


async def test_bad_token_is_refused(connect: Connect) -> None:
    """An unknown resume token is refused and the connection stays unidentified."""
    stranger = await connect()
    await stranger.send(m.Hello(name="eve", token="not-a-real-token"))
    await stranger.expect_error("bad_token")
    await stranger.send(m.Move(room="r-1", point="h8"))
    await stranger.expect_error("not_hello")
    welcome = await stranger.hello("eve")
    assert not welcome.resumed


async def test_ping_is_answered_with_pong_before_and_after_hello(connect: Connect) -> None:
    """``ping`` gets ``pong`` carrying its id, before hello and after; nothing else."""
    client = await connect()
    await client.send(m.Ping(id=7))
    assert await client.expect(m.Pong) == m.Pong(re=7)
    await client.hello("eve")
    await client.send(m.Ping(id=8))
    assert await client.expect(m.Pong) == m.Pong(re=8)
    await client.silent()


async def test_resume_from_a_trimmed_log_gets_a_snapshot(
    make_server: MakeServer, connect: Connect
) -> None:
    """Resuming from before the kept log sends a fresh snapshot instead of events."""
    server = await make_server(store=MemoryStore(max_events=4))
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    for i, point in enumerate(["h8", "a1", "h9", "a2", "h10"]):
        await (alice if i % 2 == 0 else bob).move(room, point)
        await bob.until_event(Moved)
    await bob.send(m.Resume(room=room, after=3))  # events 4..8 kept? only the last 4
    snap = await bob.expect(m.Snapshot)
    assert snap.room.moves == ["h8", "a1", "h9", "a2", "h10"]
    assert snap.room.seq == 8
    await bob.send(m.Resume(room=room, after=6))
    replay = await bob.events(2)
    assert [seq for seq, _ in replay] == [7, 8]


async def test_resuming_a_timed_game_gets_the_clocks_of_now(connect: Connect) -> None:
    """Back after a drop in a timed game, a player gets a snapshot whose clocks are
    now's: the events replayed carried those of when they happened, and the client
    counted down from them (after a 45 s drop, 0:44 shown and the game lost on time)."""
    alice = await connect("alice")
    bob = await connect("bob")
    room = (await alice.create(seat="black", time=TimeControl(base_ms=60_000, inc_ms=0))).room.id
    await bob.join(room)
    await alice.move(room, "h8")
    seen = await bob.expect(m.Event)
    while not isinstance(seen.event, Moved):
        seen = await bob.expect(m.Event)
    last_seq = seen.seq
    bob.ws.transport.abort()
    await alice.until_event(Presence)
    await asyncio.sleep(1.2)  # bob's clock runs on meanwhile
    bob2 = await connect()
    await bob2.hello("bob", token=bob.token)
    await bob2.send(m.Resume(room=room, after=last_seq))
    snap = await bob2.expect(m.Snapshot)
    assert snap.room.moves == ["h8"]
    assert snap.room.clocks is not None
    assert snap.room.clocks.white_ms <= 60_000 - 1_200


async def test_a_snapshot_counts_down_to_the_abort_of_a_game_nobody_began(
    connect: Connect,
) -> None:
    """A timed game's first stone has 30 s (welcome's ``first_stone_ms``): the snapshot
    says how long is left (the clients showed clocks standing at 1:00 and nothing else,
    and a first stone clicked at 29.7 s arrived to an aborted game); none after it."""
    alice = await connect("alice")
    bob = await connect("bob")
    assert alice.welcome is not None
    assert alice.welcome.limits.first_stone_ms == 30_000
    room = (await alice.create(seat="black", time=TimeControl(base_ms=60_000, inc_ms=0))).room.id
    snap = await bob.join(room)
    assert snap.room.abort_in_ms is not None
    assert 25_000 < snap.room.abort_in_ms <= 30_000
    await alice.move(room, "h8")
    await bob.until_event(Moved)
    cy = await connect("cy")
    assert (await cy.join(room, role="spectator")).room.abort_in_ms is None


async def test_presence_grace_then_claim(make_server: MakeServer, connect: Connect) -> None:
    """After the grace period the remaining player may claim the win."""
    # A second of grace: the claims before it must reach the server within it, even on a
    # busy machine (at 300 ms a slow moment would let the first claim win).
    server = await make_server(game=GameRules(grace_ms=1_000, offline_after_ms=0))
    alice, bob, room = await seated_pair(connect, to=server)
    await alice.send(m.Claim(room=room))
    await alice.expect_error("not_claimable")
    await bob.ws.close()
    presence = await alice.event(Presence, room)
    # what is left of the grace when the event was made, counted from when bob's last
    # connection left: the grace, or a little less once time has gone by
    assert presence.deadline_ms is not None
    assert 0 < presence.deadline_ms <= 1_000
    await alice.send(m.Claim(room=room))
    await alice.expect_error("not_claimable")
    await asyncio.sleep(1.05)
    await alice.send(m.Claim(room=room))
    over = await alice.event(GameOver, room)
    assert (over.winner, over.reason) == ("black", "abandon")


class SlowArchive(MemoryStore):
    """The memory store, keeping a finished game's record a second late (a busy disk)."""

    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        await asyncio.sleep(1.0)
        await super().put_record(game_id, record, player_ids, ended_ms)


async def test_a_player_who_leaves_as_the_game_ends_is_gone_to_the_room(
    make_server: MakeServer, connect: Connect
) -> None:
    """Bob leaves the moment Alice's five ends the game, while its record is being kept:
    Alice hears he went, after the game_over (his going was dropped, and he stayed
    present: an AI seat in Alice's place waited 20 s for a rematch)."""
    server = await make_server(store=SlowArchive())
    alice, bob, room = await seated_pair(connect, to=server)
    await play_moves(alice, bob, room, ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"])
    await alice.move(room, "l8")
    assert (await bob.until_event(Moved)).point == "l8"
    await bob.send(m.Leave(room=room))
    await bob.expect(m.Left)
    over = await alice.until_event(GameOver)
    assert over.winner == "black"
    gone = await alice.until_event(Presence)
    assert (gone.player, gone.online) == (bob.player, False)


async def test_a_reload_is_no_news_to_the_opponent(
    make_server: MakeServer, connect: Connect
) -> None:
    """Bob gone and back within the server's offline_after (a page reloaded): Alice is
    told nothing; gone for longer, Alice hears it once the wait is over, with the grace
    counted from when he left."""
    server = await make_server(game=GameRules(grace_ms=60_000, offline_after_ms=1_500))
    alice, bob, room = await seated_pair(connect, to=server)
    await bob.ws.close()
    again = await connect(to=server)
    await again.hello("bob", token=bob.token)
    await again.send(m.Resume(room=room, after=0))
    await again.until_event(GameStarted)
    await alice.silent(2.0)  # past the wait: no "offline", no "back"

    await again.ws.close()
    gone_at = asyncio.get_running_loop().time()
    offline = await alice.event(Presence, room)
    assert (offline.player, offline.online) == (bob.player, False)
    assert asyncio.get_running_loop().time() - gone_at >= 1.4
    assert offline.deadline_ms is not None
    assert 57_000 < offline.deadline_ms <= 58_500


async def test_a_waiting_room_and_its_code_outlive_a_reload(
    make_server: MakeServer, connect: Connect
) -> None:
    """A page reloaded (or a network dropped) just after making a private room closed it
    at once: the opponent's right code got "no room has that invite code". The room now
    waits the grace period for its player: joined meanwhile, the game starts and the
    player resumes into it; a public one's lobby line says its player is offline; not
    back by then, the room is gone."""
    server = await make_server(game=GameRules(grace_ms=1_500, offline_after_ms=0))
    ann = await connect("ann", to=server)
    made = await ann.create(private=True, seat="black")
    await ann.ws.close()
    await asyncio.sleep(0.3)
    bob = await connect("bob", to=server)
    await bob.send(m.Join(code=made.room.code))
    snap = await bob.expect(m.Snapshot)
    assert (snap.room.id, snap.room.state) == (made.room.id, "playing")
    again = await connect(to=server)
    welcome = await again.hello("ann", token=ann.token)
    assert welcome.rooms == [made.room.id]
    await again.send(m.Resume(room=made.room.id, after=made.room.seq))
    await again.until_event(GameStarted)  # missed while away
    back = await bob.event(Presence, made.room.id)
    assert (back.player, back.online) == (ann.player, True)

    eve = await connect("eve", to=server)  # a public room's line says its player is away
    await eve.send(m.LobbyWatch(on=True))
    await eve.expect(m.Lobby)
    flo = await connect("flo", to=server)
    public = await flo.create(seat="black")
    await flo.ws.close()
    line = await eve.until(
        lambda message: (
            isinstance(message, m.LobbyRoom)
            and message.room.id == public.room.id
            and message.room.players.black is not None
            and not message.room.players.black.online
        )
    )
    assert isinstance(line, m.LobbyRoom)

    cat = await connect("cat", to=server)
    made = await cat.create(private=True, seat="black")
    await cat.ws.close()
    await asyncio.sleep(1.5 + 0.5)  # the grace, and the ticker's look
    dan = await connect("dan", to=server)
    await dan.send(m.Join(code=made.room.code))
    await dan.expect_error("no_such_room")


async def test_a_long_lobby_comes_in_parts(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect
) -> None:
    """A lobby longer than one part arrives as several frames that add up to every room."""
    server = await make_server(make_config(lobby_part_rooms=2))
    rooms = []
    for i in range(5):
        creator = await connect(f"p{i}", to=server)
        rooms.append((await creator.create()).room.id)
    carol = await connect("carol", to=server)
    await carol.send(m.LobbyWatch(on=True, id=9))
    parts = [await carol.expect(m.Lobby) for _ in range(3)]
    assert [(p.part, p.more, p.re, len(p.rooms)) for p in parts] == [
        (0, True, 9, 2),
        (1, True, 9, 2),
        (2, False, 9, 1),
    ]
    assert [r.id for p in parts for r in p.rooms] == sorted(rooms)


async def test_lobby_lists_public_rooms_and_updates_live(connect: Connect) -> None:
    """The lobby lists public rooms and sends changes while watched; private rooms stay out."""
    alice = await connect("alice")
    public = await alice.create(rule="renju", time=TimeControl(base_ms=300_000, inc_ms=3000))
    hidden = await connect("hidden")
    await hidden.create(private=True)
    carol = await connect("carol")
    await carol.send(m.LobbyWatch(on=True))
    lobby = await carol.expect(m.Lobby)
    assert [r.id for r in lobby.rooms] == [public.room.id]
    summary = lobby.rooms[0]
    assert (summary.rule, summary.state, summary.time) == (
        "renju",
        "waiting",
        TimeControl(base_ms=300_000, inc_ms=3000),
    )
    bob = await connect("bob")
    await bob.join(public.room.id)
    changed = await carol.expect(m.LobbyRoom)
    assert changed.room.state == "playing"
    assert changed.room.players.white is not None
    await bob.send(m.Resign(room=public.room.id))
    gone = await carol.expect(m.LobbyGone)
    assert gone.room == public.room.id
    await carol.send(m.LobbyWatch(on=False))
    await connect("dave")
    await carol.silent()


async def test_private_room_by_invite_code(connect: Connect) -> None:
    """A private room is reached by its code only; its players see the code, others don't."""
    alice = await connect("alice")
    snap = await alice.create(private=True, seat="white")
    code = snap.room.code
    assert code is not None
    assert code is not None
    bob = await connect("bob")
    await bob.send(m.Join(room=snap.room.id))
    await bob.expect_error("no_such_room")
    await bob.send(m.Join(code="WRO-NG2-345"))
    await bob.expect_error("no_such_room")
    await bob.send(m.Join(code=code.lower()))
    joined = await bob.expect(m.Snapshot)
    assert joined.room.state == "playing"
    assert joined.room.code == code
    assert joined.room.players.black is not None
    assert joined.room.players.black.id == bob.player
    carol = await connect("carol")
    await carol.send(m.Join(code=code, role="spectator"))
    watching = await carol.expect(m.Snapshot)
    assert watching.room.code is None


async def test_a_spectator_of_a_private_room_may_join_it_again_by_its_id(
    connect: Connect,
) -> None:
    """protocol.md's advice after an up-to-date ``resume`` (``join`` the room for a
    snapshot) holds for a spectator who came in by the code: being in the room, she
    is let in by its id, as a resume lets her in."""
    alice = await connect("alice")
    snap = await alice.create(private=True, seat="black")
    assert snap.room.code is not None
    carol = await connect("carol")
    await carol.send(m.Join(code=snap.room.code, role="spectator"))
    seq = (await carol.expect(m.Snapshot)).room.seq
    await carol.send(m.Resume(room=snap.room.id, after=seq))
    await carol.send(m.Join(room=snap.room.id, role="spectator", id=7))
    again = await carol.expect(m.Snapshot)
    assert (again.re, again.room.id, again.room.code) == (7, snap.room.id, None)


async def test_an_action_from_outside_the_room_is_refused_as_not_in_room(
    connect: Connect,
) -> None:
    """A spectator who asks for a swap2 choice or a rematch in a game she does not play is
    told she is not in it, not that the game is in the wrong phase for it."""
    alice, _bob, room = await seated_pair(connect)
    carol = await connect("carol")
    await carol.join(room, "spectator")
    await carol.send(m.Choose(room=room, choice="black"))
    await carol.expect_error("not_in_room")
    await carol.send(m.Offer(room=room, kind="rematch"))
    await carol.expect_error("not_in_room")
    await alice.send(m.Choose(room=room, choice="black"))  # a player: the phase is wrong
    refusal = await alice.until(lambda x: isinstance(x, m.Error))  # after carol's arrival
    assert isinstance(refusal, m.Error)
    assert refusal.code == "wrong_phase"


async def test_a_private_rooms_rematch_has_an_invite_code_of_its_own(connect: Connect) -> None:
    """A private game's rematch is private too, with a new code that its players see and
    that lets a spectator follow them to the next game."""
    alice = await connect("alice")
    first = (await alice.create(private=True, seat="white")).room
    assert first.code is not None
    bob = await connect("bob")
    await bob.send(m.Join(code=first.code))
    await bob.expect(m.Snapshot)
    await alice.send(m.Resign(room=first.id))
    await bob.until_event(GameOver)
    await alice.send(m.Offer(room=first.id, kind="rematch"))
    await bob.until_event(Offered)
    await bob.send(m.Answer(room=first.id, kind="rematch", accept=True))
    snapshot = await bob.until(lambda x: isinstance(x, m.Snapshot))
    assert isinstance(snapshot, m.Snapshot)
    second = snapshot.room
    assert second.private
    assert second.code is not None
    assert second.code != first.code
    carol = await connect("carol")
    await carol.send(m.Join(room=second.id, role="spectator"))
    await carol.expect_error("no_such_room")
    await carol.send(m.Join(code=second.code, role="spectator"))
    watching = await carol.expect(m.Snapshot)
    assert watching.room.id == second.id


async def test_invite_codes_are_easy_to_pass_on_and_hard_to_guess(connect: Connect) -> None:
    """Codes are 3 groups of 3 from 31 characters without 0/O, 1/I/L (44 bits), all
    different; joining ignores case, spaces and dashes, of any kind (an en dash, a
    no-break space, the long-vowel mark a Japanese keyboard's dash key types), and takes
    the full-width letters a CJK keyboard types."""
    alice = await connect("alice")
    codes = set()
    for _ in range(4):
        snap = await alice.create(private=True)
        assert snap.room.code is not None
        assert re.fullmatch(r"([2-9A-HJKMNP-Z]{3}-){2}[2-9A-HJKMNP-Z]{3}", snap.room.code)
        codes.add(snap.room.code)
    assert len(codes) == 4
    code = snap.room.code
    assert code is not None
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in code)  # as a CJK keyboard types it
    for typed in (
        code.lower(),
        code.replace("-", ""),
        code.replace("-", " ").lower(),
        code.replace("-", "\u2013"),
        code.replace("-", "\u00a0"),
        code.replace("-", "\u2212"),
        code.replace("-", "\u30fc"),
        code.replace("-", "\uff70"),  # the half-width one
        full_width,
    ):
        bob = await connect("bob")
        await bob.send(m.Join(code=f" {typed} ", role="spectator"))
        assert (await bob.expect(m.Snapshot)).room.id == snap.room.id


async def test_sitting_down_in_a_game_of_your_own_leaves_the_queue(connect: Connect) -> None:
    """A player waiting for a quick match who creates a room, or sits down in one, is
    taken out of the queue and told so; the next player to queue waits instead of being
    matched with them (the match pulled them out of their game into a rated one, and the
    game they had sat down in kept their seat)."""
    alice = await connect("alice")
    carol = await connect("carol")
    await alice.send(m.Queue(rule=Rule.FREESTYLE))
    await alice.expect(m.Queued)
    snap = await alice.create(seat="black")
    assert (await alice.expect(m.Unqueued)).re is None
    await carol.send(m.Queue(rule=Rule.FREESTYLE))
    await carol.expect(m.Queued)
    await carol.silent(0.5)  # no match: alice is not waiting any more
    await alice.silent()
    await carol.send(m.Unqueue())
    await carol.expect(m.Unqueued)

    bob = await connect("bob")
    await bob.send(m.Queue(rule=Rule.FREESTYLE))
    await bob.expect(m.Queued)
    await bob.join(snap.room.id)
    assert (await bob.expect(m.Unqueued)).re is None
    await carol.send(m.Queue(rule=Rule.FREESTYLE))
    await carol.expect(m.Queued)
    await carol.silent(0.5)
    await bob.send(m.Unqueue())
    await bob.expect_error("not_queued")


async def test_a_reconnected_player_queued_again_keeps_the_place(connect: Connect) -> None:
    """A client back on a new connection asks for its quick match again before the
    server has noticed the old connection is gone: the new one takes the place over (it
    was refused, then the place went with the old connection's end) with its waiting
    time, and is matched."""
    old = await connect("alice")
    await old.send(m.Queue())
    await old.expect(m.Queued)
    await asyncio.sleep(0.5)
    new = await connect()
    await new.hello("alice", token=old.token)
    await new.send(m.Queue())
    moved = await new.expect(m.Queued)
    assert moved.since_ms is not None
    assert moved.since_ms >= 500  # the waiting time moved with the place (it said 0)
    await old.ws.close()  # the server notices the old connection's end only now
    await asyncio.sleep(0.2)
    bob = await connect("bob")
    await bob.send(m.Queue())
    await bob.expect(m.Queued)
    await new.expect(m.Unqueued)
    snapshot = await new.expect(m.Snapshot)
    assert snapshot.room.state == "playing"


async def test_quick_match_pairs_two_waiting_players(connect: Connect) -> None:
    """Two players queueing for the same rule and time are put in one started room."""
    alice = await connect("alice")
    bob = await connect("bob")
    loner = await connect("loner")
    await alice.send(m.Unqueue())
    await alice.expect_error("not_queued")
    await loner.send(m.Queue(rule=Rule.RENJU))
    await loner.expect(m.Queued)
    await alice.send(m.Queue(rule=Rule.FREESTYLE, time=TimeControl(base_ms=60_000, inc_ms=0)))
    queued = await alice.expect(m.Queued)
    assert queued.rule == "freestyle"
    await alice.send(m.Queue(rule=Rule.FREESTYLE))
    await alice.expect_error("already_queued")
    await bob.send(m.Queue(rule=Rule.FREESTYLE, time=TimeControl(base_ms=60_000, inc_ms=0)))
    await bob.expect(m.Queued)
    rooms = set()
    for client in (alice, bob):
        await client.expect(m.Unqueued)
        snap = await client.expect(m.Snapshot)
        assert snap.room.state == "playing"
        assert snap.room.time == TimeControl(base_ms=60_000, inc_ms=0)
        rooms.add(snap.room.id)
        seated = {snap.room.players.black.id, snap.room.players.white.id}  # type: ignore[union-attr]
        assert seated == {alice.player, bob.player}
    assert len(rooms) == 1
    await loner.silent(0.2)  # a different queue: still waiting
    await loner.send(m.Unqueue())
    await loner.expect(m.Unqueued)


async def test_clock_runs_out_on_a_short_time_control(connect: Connect) -> None:
    """With 300 ms on the clock, a player who does not move loses on time, unprompted."""
    alice, bob, room = await seated_pair(connect, time=TimeControl(base_ms=300, inc_ms=0))
    await alice.move(room, "h8")
    moved = await bob.event(Moved, room)
    assert moved.clocks is not None
    assert moved.clocks.white_ms == 300
    started = time.monotonic()
    over = await bob.event(GameOver, room)
    assert (over.winner, over.reason) == ("black", "timeout")
    assert time.monotonic() - started >= 0.2
    await bob.move(room, "a1")
    await bob.expect_error("game_over")


async def test_increment_is_added_after_each_move(connect: Connect) -> None:
    """Remaining times come with every move and include the mover's increment."""
    tc = TimeControl(base_ms=10_000, inc_ms=2_000)
    alice, bob, room = await seated_pair(connect, time=tc)
    await alice.move(room, "h8")
    first = await alice.event(Moved, room)
    assert first.clocks is not None
    assert first.clocks.black_ms == 12_000  # no time used before the first stone
    await asyncio.sleep(0.1)
    await bob.move(room, "a1")
    await alice.event(Moved, room)
    second = await bob.until_event(Moved)
    second = await bob.event(Moved, room)
    assert second.clocks is not None
    assert 11_000 <= second.clocks.white_ms <= 11_950


async def test_game_over_carries_the_clocks_as_they_stood_at_the_end(connect: Connect) -> None:
    """A player who thinks, then resigns, was charged the thought: game_over's clocks say
    so (a page that kept the clocks of the turn's start showed the time jump back); a
    flag that fell shows 0."""
    tc = TimeControl(base_ms=10_000, inc_ms=2_000)
    alice, bob, room = await seated_pair(connect, time=tc)
    await alice.move(room, "h8")
    await bob.move(room, "a1")
    await alice.until_event(Moved)
    await alice.event(Moved, room)
    await asyncio.sleep(0.3)  # Black thinks, then resigns
    await alice.send(m.Resign(room=room))
    over = await bob.until_event(GameOver)
    assert over.clocks is not None
    assert 11_000 <= over.clocks.black_ms <= 11_750  # 12 s at the turn's start, 0.3 s used
    assert 11_000 <= over.clocks.white_ms <= 12_000  # stopped where Bob's move left it
    alice, bob, room = await seated_pair(connect, time=TimeControl(base_ms=300, inc_ms=0))
    await alice.move(room, "h8")
    flagged = await bob.until_event(GameOver)
    assert flagged.reason == "timeout"
    assert flagged.clocks is not None
    assert flagged.clocks.white_ms == 0


async def test_spectator_leaving_updates_count(connect: Connect) -> None:
    """A spectator who leaves (or disconnects) is no longer counted."""
    alice, _bob, room = await seated_pair(connect)
    carol = await connect("carol")
    await carol.join(room, "spectator")
    assert (await alice.event(SpectatorCount, room)).count == 1
    await carol.send(m.Leave(room=room))
    left = await carol.expect(m.Left)
    assert left.room == room
    assert (await alice.event(SpectatorCount, room)).count == 0


async def test_a_spectator_who_takes_the_free_seat_is_no_longer_counted(
    connect: Connect,
) -> None:
    """Bob watches Alice's room, then sits down in it: the count goes 1, then 0."""
    alice = await connect("alice")
    room = (await alice.create(seat="black")).room.id
    bob = await connect("bob")
    await bob.join(room, "spectator")
    assert (await alice.event(SpectatorCount, room)).count == 1
    await bob.send(m.Join(room=room, role="player"))
    assert (await alice.until_event(SpectatorCount)).count == 0


def test_config_defaults_match_the_protocol() -> None:
    """The default settings are the documented ones (port 8765, 60 s grace, 4 KiB frames)."""
    config = make_config(port=8765)
    assert config.port == 8765
    assert config.game.grace_ms == 60_000
    assert config.limits.max_frame == 4096


async def test_bot_key_marks_a_bot_and_wrong_keys_are_refused(
    make_server: MakeServer, connect: Connect
) -> None:
    """A configured bot key seats the connection as a bot; an unknown key is refused."""
    server = await make_server(bot_keys=frozenset({"s3cret"}))
    impostor = await connect(to=server)
    await impostor.send(m.Hello(name="bot", bot_key="guess"))
    await impostor.expect_error("bad_bot_key")
    alice = await connect("alice", to=server)
    room = (await alice.create(seat="black")).room.id
    bot = await connect(to=server)
    await bot.send(m.Hello(name="gomoku-ai", bot_key="s3cret"))
    await bot.expect(m.Welcome)
    snap = await bot.join(room)
    assert snap.room.players.white is not None
    assert snap.room.players.white.bot
    joined = await alice.event(PlayerJoined, room)
    assert joined.bot


class FirstGameFails(MemoryStore):
    """The memory store, failing the first commit that creates a started game (the
    matchmaker's), as an unreachable Redis would."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def commit(
        self,
        room_id: str,
        expected_version: int,
        state: RoomState,
        events: Sequence[bytes] = (),
        *,
        deadline_ms: int | None = KEEP_DEADLINE,
    ) -> CommitResult:
        started = any(b"game_started" in e for e in events)
        if expected_version == 0 and started and not self.failed:
            self.failed = True
            raise StoreUnavailable("injected: the store went away")
        return await super().commit(
            room_id, expected_version, state, events, deadline_ms=deadline_ms
        )


async def test_a_match_the_store_could_not_start_keeps_both_players_queued(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect
) -> None:
    """Paired, but the game could not be stored: both wait on and are matched next time."""
    store = FirstGameFails()
    server = await make_server(store=store)
    alice, bob = await connect("alice", to=server), await connect("bob", to=server)
    for client in (alice, bob):
        await client.send(m.Queue(rule=Rule.FREESTYLE))
        await client.expect(m.Queued)
    rooms = set()
    for client in (alice, bob):
        await client.expect(m.Unqueued)
        rooms.add((await client.expect(m.Snapshot)).room.id)
    assert store.failed
    assert len(rooms) == 1
    assert server.metrics.counters["gomoku_errors_internal_total"] == 0


async def test_a_seated_player_back_under_another_name_chats_under_the_seats(
    connect: Connect,
) -> None:
    """zed comes back mid-game as "cy" (his opponent's name): his chat goes out under
    the name his seat shows, zed, not beside the real cy's lines as "cy"; a spectator's
    goes out under the name they said hello with."""
    cy = await connect("cy")
    zed = await connect("zed")
    room = (await cy.create(seat="black")).room.id
    await zed.join(room)
    await zed.ws.close()
    again = await connect()
    await again.hello("cy", token=zed.token)
    await again.send(m.Resume(room=room, after=0))
    await again.send(m.Chat(room=room, text="I resign, you win"))
    said = await cy.until_event(ChatPosted)
    assert (said.player, said.name) == (zed.player, "zed")
    eve = await connect("eve")
    await eve.join(room, role="spectator")
    await eve.send(m.Chat(room=room, text="hi"))
    assert (await cy.until_event(ChatPosted)).name == "eve"


async def test_names_are_kept_in_nfc_and_chat_takes_text_in_any_script(
    connect: Connect,
) -> None:
    """A name typed with a decomposed accent is welcomed in NFC, as seats show it; a
    blank-looking name is refused with the reason; chat carries an emoji family and a
    no-break space as sent, and refuses a direction override (bad_value) while the
    connection goes on."""
    jose = await connect("Jose\u0301")
    assert jose.welcome is not None
    assert jose.welcome.name == "José"
    long = await connect("e\u0301" * 24)  # 48 code points as typed, 24 letters kept
    assert long.welcome is not None
    assert long.welcome.name == "é" * 24
    snap = await jose.create(seat="black")
    assert snap.room.players.black is not None
    assert snap.room.players.black.name == "José"

    blank = await connect()
    await blank.send_raw(msgspec.msgpack.encode({"type": "hello", "name": "\u3164"}))
    error = await blank.expect_error("bad_value")
    assert "a name needs a character one can see" in error.message

    said = "family \U0001f468\u200d\U0001f469\u200d\U0001f467, merci\u00a0!"
    await jose.send(m.Chat(room=snap.room.id, text=said))
    assert (await jose.event(ChatPosted)).text == said
    await jose.send_raw(
        msgspec.msgpack.encode({"type": "chat", "room": snap.room.id, "text": "\u202egg"})
    )
    error = await jose.expect_error("bad_value")
    assert "direction controls" in error.message
    await jose.send(m.Chat(room=snap.room.id, text="gg"))
    assert (await jose.event(ChatPosted)).text == "gg"


async def test_a_random_seat_and_a_quick_match_draw_the_colours(connect: Connect) -> None:
    """A room made with seat "random" seats its maker as Black or as White, drawn (with
    "any", the forms' default, the maker was Black every time); a quick match draws the
    colours too (it gave Black to whoever had waited longer: always the first to come)."""
    alice = await connect("alice")
    made = set()
    for _ in range(16):
        snap = await alice.create(seat="random")
        made.add("black" if snap.room.players.black is not None else "white")
        await alice.send(m.Leave(room=snap.room.id))
        await alice.expect(m.Left)
    assert made == {"black", "white"}
    first_came = set()
    for i in range(16):
        early = await connect(f"early{i}")
        await early.send(m.Queue())
        await early.expect(m.Queued)
        late = await connect(f"late{i}")
        await late.send(m.Queue())
        await early.expect(m.Unqueued)
        players = (await early.expect(m.Snapshot)).room.players
        assert players.black is not None
        first_came.add("black" if players.black.id == early.player else "white")
        if first_came == {"black", "white"}:
            break
    assert first_came == {"black", "white"}
