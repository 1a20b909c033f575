"""Ratings and finished games over real WebSockets, on both store backends: a rated quick
match moves both Glicko-2 ratings once, and every finished game is listed per player and
exported as JSON, PSQ and a move list that the engine reads back."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest
from server_fixtures import Connect, TestClient, play_moves, seated_pair

from engine import Color, Opening, Reason, Rule
from engine.record import parse_json, parse_move_list, parse_psq
from protocol import messages as m
from protocol.codec import decode_event
from protocol.events import GameOver, GameStarted, Offered, PlayerJoined, RatingChange
from protocol.values import Standing, TimeControl
from server import game, history
from server.app import GomokuServer
from server.game import GameRules
from server.rating import LOSS, WIN, PlayerRating, shown_rd
from server.room import Seat, encode_room
from server.service import now_ms
from server.store.archive import apply_game
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]
RULES = GameRules()


@pytest.fixture(params=["memory", "redis"])
async def arena(request: pytest.FixtureRequest, make_server: MakeServer) -> GomokuServer:
    """A server on each store backend (Redis: a real redis-server, emptied first)."""
    if request.param == "memory":
        return await make_server()
    url = request.getfixturevalue("redis_url")
    return await make_server(store=RedisStore(url, poll_interval_s=0.2))


async def _ask(client: TestClient, message: m.ClientMessage) -> m.ServerMessage:
    """Send a request; its reply (room events still on their way are skipped)."""
    await client.send(message)
    return await client.until(lambda x: not isinstance(x, m.Event))


def _freestyle(profile: m.ServerMessage) -> Standing:
    assert isinstance(profile, m.Profile), profile
    assert [s.rule for s in profile.ratings] == list(Rule)
    return profile.ratings[0]


def _shown(standing: PlayerRating) -> tuple[int, int, int, int, int]:
    r = standing.rating
    return round(r.rating), shown_rd(r.rd), standing.wins, standing.losses, standing.draws


async def test_rated_quick_match_updates_both_ratings_once(
    arena: GomokuServer, connect: Connect
) -> None:
    """Two established players meet in a quick match: their seats show their ratings, the
    result moves both ratings by Glicko-2 (profiles, the leaderboard and both players'
    histories show it), and archiving the same game again changes nothing."""
    alice = await connect("alice", to=arena)
    bob = await connect("bob", to=arena)
    for i in range(30):  # earlier rated games, so both are established (on the leaderboard)
        score = WIN if i % 2 else LOSS  # and close in rating, so quick match pairs them at once
        await arena.store.rate("freestyle", f"earlier-{i}", alice.player, bob.player, score)
    before = {p: await arena.store.rating("freestyle", p) for p in (alice.player, bob.player)}

    for client in (alice, bob):
        await client.send(m.Queue(rule=Rule.FREESTYLE))
        await client.expect(m.Queued)
    views = []
    for client in (alice, bob):
        await client.expect(m.Unqueued)
        views.append((await client.expect(m.Snapshot)).room)
    room = views[0]
    assert room.rated
    assert room.players.black is not None
    assert room.players.white is not None
    for ref in (room.players.black, room.players.white):
        assert ref.rating == round(before[ref.id].rating.rating)
        assert not ref.provisional  # shown without the "?" of a new player's rating
    black, white = (alice, bob) if room.players.black.id == alice.player else (bob, alice)

    # White wins: Black scatters stones down the a-file, White makes five on the h-file.
    await play_moves(
        black, white, room.id, ["a1", "h8", "a3", "h9", "a5", "h10", "a7", "h11", "a9"]
    )
    await white.move(room.id, "h12")
    for client in (black, white):
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason) == ("white", "five")
    assert over.ratings is not None

    # White's requests are handled after its winning move, archiving included.
    new_black, new_white = apply_game(before[black.player], before[white.player], LOSS)
    mine = _freestyle(await _ask(white, m.GetProfile(id=1)))
    theirs = _freestyle(await _ask(white, m.GetProfile(player=black.player, id=2)))
    for shown, expected in ((mine, new_white), (theirs, new_black)):
        assert (shown.rating, shown.rd, shown.wins, shown.losses, shown.draws) == _shown(expected)
        assert shown.games == 31
        assert not shown.provisional
    board = await _ask(white, m.GetLeaderboard(rule=Rule.FREESTYLE, id=3))
    assert isinstance(board, m.Leaderboard)
    listed = {e.player: (e.name, e.rating, e.games) for e in board.entries}
    assert listed == {
        black.player: ("alice" if black is alice else "bob", theirs.rating, 31),
        white.player: ("alice" if white is alice else "bob", mine.rating, 31),
    }
    assert [e.rank for e in board.entries] == [1, 2]
    assert board.entries[0].rating >= board.entries[1].rating
    for client in (black, white):  # each history says what the game did, as game_over did
        games = await _ask(client, m.ListGames(id=4))
        assert isinstance(games, m.Games)
        [item] = games.items
        assert item.ratings == over.ratings
        assert [(c.player, c.after) for c in item.ratings or ()] == [
            (black.player, theirs.rating),
            (white.player, mine.rating),
        ]

    # A rematch shows both players' new ratings in its seats.
    await white.send(m.Offer(room=room.id, kind="rematch"))
    await black.until_event(Offered)
    await black.send(m.Answer(room=room.id, kind="rematch", accept=True))
    rematch = await black.until(lambda x: isinstance(x, m.Snapshot))
    assert isinstance(rematch, m.Snapshot)
    seats = [rematch.room.players.black, rematch.room.players.white]
    assert {(ref.id, ref.rating) for ref in seats if ref is not None} == {
        (white.player, mine.rating),
        (black.player, theirs.rating),
    }

    # A second archiving of the game (another instance, a retry) does not rate it again.
    loaded = await arena.service.load(room.id)
    assert loaded is not None
    assert loaded[1].archive_at_ms is None  # archived and marked so
    await arena.service.archive(loaded[1])
    assert await arena.store.rating("freestyle", white.player) == new_white
    assert await arena.store.rating("freestyle", black.player) == new_black


async def _seated(
    arena: GomokuServer, connect: Connect, **room: object
) -> tuple[TestClient, TestClient, str]:
    alice = await connect("alice", to=arena)
    bob = await connect("bob", to=arena)
    snap = await alice.create(seat="black", **room)
    await bob.send(m.Join(room=None if snap.room.code else snap.room.id, code=snap.room.code))
    await bob.expect(m.Snapshot)
    await alice.event(PlayerJoined)
    await alice.event(GameStarted)
    return alice, bob, snap.room.id


async def test_finished_game_is_listed_and_exported(arena: GomokuServer, connect: Connect) -> None:
    """A finished standard game is in both players' histories and comes back as JSON, PSQ
    and a move list that the engine replays to the same stones and result."""
    alice, bob, room = await _seated(
        arena, connect, rule=Rule.STANDARD, time=TimeControl(base_ms=60_000, inc_ms=1_000)
    )
    await play_moves(alice, bob, room, ["h8", "a1"])
    running = await _ask(alice, m.GetRecord(game=room, id=1))
    assert isinstance(running, m.Error)
    assert running.code == "no_such_game"  # a running game has no record yet

    moves = ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]
    await play_moves(alice, bob, room, moves[2:])
    await alice.until_event(GameOver)

    for client, player in ((alice, None), (bob, alice.player)):
        games = await _ask(client, m.ListGames(player=player, id=2))
        assert isinstance(games, m.Games)
        assert games.player == alice.player
        [item] = games.items
        assert (item.id, item.rule, item.size, item.opening) == (room, "standard", 15, "free")
        assert (item.black.id, item.black.name) == (alice.player, "alice")
        assert (item.white.id, item.white.name) == (bob.player, "bob")
        assert (item.result.winner, item.result.reason, item.moves) == ("black", "five", 9)
        assert not item.rated
        assert not item.rated_room  # a casual game
        assert item.ratings is None
        assert not item.aborted
        assert item.ended_ms > 0
    older = await _ask(bob, m.ListGames(before_ms=item.ended_ms, id=3))
    assert isinstance(older, m.Games)
    assert older.items == []  # paging back past the only game

    texts = {}
    for fmt in ("json", "psq", "moves"):
        reply = await _ask(bob, m.GetRecord(game=room, format=fmt, id=4))
        assert isinstance(reply, m.Record), reply
        assert (reply.game, reply.format) == (room, fmt)
        texts[fmt] = reply.text
    record = parse_json(texts["json"])
    assert (record.rule, record.size) == (Rule.STANDARD, 15)
    assert (record.players.black, record.players.white) == ("alice", "bob")
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Color.BLACK, Reason.FIVE)
    times = [move.t for move in record.moves if move.t is not None]
    assert len(times) == len(moves)
    assert times == sorted(times)
    psq = parse_psq(texts["psq"], rule=Rule.STANDARD)
    listed = parse_move_list(texts["moves"], size=15, rule=Rule.STANDARD)
    for replayed in (psq, listed):
        assert replayed.points == record.points
        result = replayed.board().result
        assert result is not None
        assert (result.winner, result.reason) == (Color.BLACK, Reason.FIVE)
    assert texts["moves"] == " ".join(moves)
    assert (psq.players.black, psq.players.white) == ("alice", "bob")


async def test_an_aborted_game_says_so_in_the_list_and_the_record(
    make_server: MakeServer, connect: Connect
) -> None:
    """A timed game nobody began is aborted: its result reads as a draw by abandonment
    does (a tournament director's standings script counted it half a point each), so
    list_games and the JSON record say ``aborted``; a game decided on the board does
    not."""
    server = await make_server(game=GameRules(grace_ms=60_000, first_stone_ms=300))
    alice, bob, room = await _seated(
        server, connect, time=TimeControl(base_ms=60_000, inc_ms=0), rated=True
    )
    over = await alice.until_event(GameOver)
    assert (over.winner, over.reason) == (None, "abandon")
    games = await _ask(bob, m.ListGames(player=alice.player, id=1))
    assert isinstance(games, m.Games)
    [item] = games.items
    assert (item.id, item.aborted, item.rated) == (room, True, False)
    assert item.rated_room  # set up rated, it did not count: no casual game
    reply = await _ask(alice, m.GetRecord(game=room, format="json", id=2))
    assert isinstance(reply, m.Record)
    kept = json.loads(reply.text)
    assert kept["game"]["aborted"] is True
    assert (kept["game"]["rated"], kept["game"]["rated_room"]) == (False, True)
    assert kept["game"]["ratings"] is None  # it changed none
    assert item.ratings is None
    del kept["game"]["aborted"], kept["game"]["rated_room"]  # as records kept before read
    del kept["game"]["ratings"]
    old = history.summary(json.dumps(kept).encode())
    assert old.aborted
    assert not old.rated_room  # unknown then: a game that counted was rated, others unsaid


async def test_private_games_and_unknown_players(arena: GomokuServer, connect: Connect) -> None:
    """A private room's game is listed and exported only to its players; a player who never
    finished a game has no profile for others, but always one for themselves."""
    alice, bob, room = await _seated(arena, connect, private=True)
    await bob.send(m.Resign(room=room))
    await alice.until_event(GameOver)
    await bob.until_event(GameOver)
    carol = await connect("carol", to=arena)

    own = await _ask(alice, m.ListGames(id=1))
    assert isinstance(own, m.Games)
    assert [g.id for g in own.items] == [room]
    seen = await _ask(carol, m.ListGames(player=alice.player, id=2))
    assert isinstance(seen, m.Games)
    assert seen.items == []
    hidden = await _ask(carol, m.GetRecord(game=room, id=3))
    assert isinstance(hidden, m.Error)
    assert hidden.code == "no_such_game"
    assert "a private game's record is for its players" in hidden.message  # not "running"

    stranger = await _ask(alice, m.GetProfile(player=carol.player, id=4))
    assert isinstance(stranger, m.Error)
    assert stranger.code == "no_such_player"
    fresh = await _ask(carol, m.GetProfile(id=5))
    assert isinstance(fresh, m.Profile)
    assert (fresh.player, fresh.name) == (carol.player, "carol")
    assert {(s.rating, s.rd, s.games, s.provisional) for s in fresh.ratings} == {
        (1500, 500, 0, True)
    }
    known = await _ask(carol, m.GetProfile(player=bob.player, id=6))
    assert isinstance(known, m.Profile)
    assert known.name == "bob"
    assert all(s.games == 0 for s in known.ratings)  # unrated: no rating changed


async def test_a_rename_shows_in_the_profile_others_read_at_once(
    arena: GomokuServer, connect: Connect
) -> None:
    """Alice, who has a finished game, says hello again with her token and a new name:
    Bob reads the new name in her profile at once (he read the old one until her next
    finished game, while her own profile showed the new one)."""
    alice, bob, room = await seated_pair(connect, to=arena)
    await alice.send(m.Resign(room=room))
    await bob.until_event(GameOver)
    await alice.ws.close()
    renamed = await connect(to=arena)
    await renamed.hello("alicia", token=alice.token)
    seen = await _ask(bob, m.GetProfile(player=alice.player, id=1))
    assert isinstance(seen, m.Profile)
    assert seen.name == "alicia"
    carol = await connect("carol", to=arena)
    await carol.ws.close()
    again = await connect(to=arena)
    await again.hello("caroline", token=carol.token)  # no finished game: not looked up
    unknown = await _ask(bob, m.GetProfile(player=carol.player, id=2))
    assert isinstance(unknown, m.Error)
    assert unknown.code == "no_such_player"


async def test_a_game_begun_before_a_rename_does_not_bring_the_old_name_back(
    arena: GomokuServer, connect: Connect
) -> None:
    """Alice (a finished game behind her) is in a second game when she renames herself;
    that game ends: Bob still reads the new name in her profile (the game's end wrote
    the name she sat down with over it, and a rude name a teacher had a pupil drop came
    back)."""
    alice, bob, room = await seated_pair(connect, to=arena)
    await alice.send(m.Resign(room=room))
    await bob.until_event(GameOver)
    await alice.until_event(GameOver)
    second = (await alice.create(seat="black")).room.id
    await bob.join(second)
    await alice.ws.close()
    renamed = await connect(to=arena)
    await renamed.hello("alicia", token=alice.token)
    await bob.send(m.Resign(room=second))
    await bob.until_event(GameOver)
    seen = await _ask(bob, m.GetProfile(player=alice.player, id=1))
    assert isinstance(seen, m.Profile)
    assert seen.name == "alicia"


async def test_a_game_left_unarchived_is_archived_by_the_clock_ticker(
    arena: GomokuServer,
) -> None:
    """A finished game whose archiving never happened (its instance died right after the
    last move) is archived by the ticker of a running instance: record and ratings."""
    now = now_ms()
    room = game.new_room(
        "r-orphan",
        rule=Rule.RENJU,
        size=15,
        opening=Opening.FREE,
        time=None,
        rated=True,
        private=False,
        code=None,
        now_ms=now,
    )
    for player in ("p-ann", "p-bob"):
        room = game.apply(room, game.Join(Seat(id=player, name=player[2:])), now, RULES).room
    for i, point in enumerate(["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]):
        room = game.apply(room, game.Move(("p-ann", "p-bob")[i % 2], point), now, RULES).room
    assert room.state == "over"
    room.ended_ms, room.archive_at_ms = now, now - 1  # due: the retry time has come
    room.game_over_held = True  # and its game_over was never logged
    # The dead instance got as far as rating the game: the ratings are not applied
    # twice, and game_over tells what the first rating did.
    first = await arena.store.rate("renju", room.id, "p-ann", "p-bob", WIN)
    assert first is not None
    await arena.store.commit(
        room.id, 0, encode_room(room), [], deadline_ms=room.due_ms(RULES.grace_ms)
    )

    # Archiving writes the record, then the ratings, then marks the room archived:
    # wait for that last step before looking at what came before it.
    for _ in range(200):
        loaded = await arena.service.load(room.id)
        assert loaded is not None
        if loaded[1].archive_at_ms is None:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the ticker never archived the game")
    assert await arena.store.get_record(room.id) is not None
    ann = await arena.store.rating("renju", "p-ann")
    assert (ann.wins, ann.games) == (1, 1)
    assert await arena.store.player_games("p-bob") == [room.id]
    logged = await arena.store.read_events(room.id, 0)
    assert logged is not None
    [over] = [decode_event(e.data) for e in logged]
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == ("black", "five")
    assert over.ratings == [
        RatingChange(
            player="p-ann", before=1500, after=round(first.after[0].rating.rating), provisional=True
        ),
        RatingChange(
            player="p-bob", before=1500, after=round(first.after[1].rating.rating), provisional=True
        ),
    ]


@pytest.mark.parametrize("layout", ["memory", "redis", "redis, two instances"])
async def test_game_over_carries_the_ratings_that_a_profile_then_shows(
    layout: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """A rated game's game_over names both rating changes, and each player's profile asked
    for the moment game_over arrives, on the player's own instance, already shows them (the
    loser's instance is not the one that ended the game when there are two). New players'
    ratings are provisional, before and after; a spectator who comes afterwards sees the
    ratings after the game in the seats, as the players saw them change."""
    if layout == "memory":
        here = there = await make_server()
    else:
        url = request.getfixturevalue("redis_url")
        here = await make_server(store=RedisStore(url, poll_interval_s=0.2))
        there = here
        if layout.endswith("two instances"):
            there = await make_server(store=RedisStore(url, poll_interval_s=0.2))
    alice = await connect("alice", to=here)
    bob = await connect("bob", to=there)
    created = await alice.create(seat="black", rated=True)
    assert created.room.players.black is not None
    assert (created.room.players.black.rating, created.room.players.black.provisional) == (
        1500,
        True,
    )
    room = created.room.id
    await bob.join(room)
    joined = await alice.event(PlayerJoined)
    assert (joined.rating, joined.provisional) == (1500, True)
    await alice.event(GameStarted)
    await play_moves(alice, bob, room, ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4"])
    await alice.move(room, "h12")
    won, lost = apply_game(PlayerRating(), PlayerRating(), WIN)
    expected = [
        RatingChange(
            player=alice.player, before=1500, after=round(won.rating.rating), provisional=True
        ),
        RatingChange(
            player=bob.player, before=1500, after=round(lost.rating.rating), provisional=True
        ),
    ]
    for client, mine in ((bob, lost), (alice, won)):
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason, over.ratings) == ("black", "five", expected)
        shown = _freestyle(await _ask(client, m.GetProfile(id=1)))
        assert (shown.rating, shown.games) == (round(mine.rating.rating), 1)
    cy = await connect("cy", to=there)
    seats = (await cy.join(room, role="spectator")).room.players
    assert seats.black is not None
    assert seats.white is not None
    assert [(ref.rating, ref.provisional) for ref in (seats.black, seats.white)] == [
        (change.after, True) for change in expected
    ]
