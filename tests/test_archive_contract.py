"""The archive contract (ratings, leaderboard, finished games): both backends, unchanged."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.rating import (
    DAY_MS,
    DRAW,
    LOSS,
    PROVISIONAL_RD,
    WIN,
    PlayerRating,
    Rating,
    rate_game,
)
from server.store.archive import Archive, MemoryArchive, now_ms
from server.store.datafile import DataFile
from server.store.embedded import EmbeddedStore
from server.store.redis import RedisStore


@pytest.fixture(params=["memory", "embedded", "redis"])
async def archive(request: pytest.FixtureRequest) -> AsyncIterator[Archive]:
    """A fresh, empty archive of each backend."""
    if request.param == "memory":
        yield MemoryArchive()
        return
    store: EmbeddedStore | RedisStore
    if request.param == "embedded":
        data = DataFile(request.getfixturevalue("tmp_path") / "server.sqlite3")
        data.open()
        store = EmbeddedStore(data)
    else:
        store = RedisStore(request.getfixturevalue("redis_url"))
    await store.start()
    try:
        yield store
    finally:
        await store.close()


async def test_new_player_has_the_default_rating(archive: Archive) -> None:
    """Someone who never played a rated game is 1500 / RD 500 with no results."""
    assert await archive.rating("renju", "nobody") == PlayerRating()


async def test_rated_game_updates_both_players_by_glicko2(archive: Archive) -> None:
    """A win moves both ratings exactly as Glicko-2 says and counts the result."""
    rated = await archive.rate("renju", "g1", "ann", "bob", WIN)
    assert rated is not None
    assert rated.before == (PlayerRating(), PlayerRating())
    black, white = rated.after
    expected_black, expected_white = rate_game(Rating(), Rating(), WIN)
    assert black == PlayerRating(expected_black, wins=1)
    assert white == PlayerRating(expected_white, losses=1)
    assert await archive.rating("renju", "ann") == black
    assert await archive.rating("renju", "bob") == white
    assert await archive.rating("freestyle", "ann") == PlayerRating()  # pools are separate


async def test_a_game_is_rated_only_once(archive: Archive) -> None:
    """Rating the same game again (a retry) changes nothing and answers what the first
    rating did, even after the players' ratings moved on with another game."""
    first = await archive.rate("renju", "g1", "ann", "bob", DRAW)
    assert first is not None
    await archive.rate("renju", "g2", "ann", "bob", WIN)
    assert await archive.rate("renju", "g1", "ann", "bob", DRAW) == first
    assert (await archive.rating("renju", "ann")).games == 2


async def test_concurrent_games_of_one_player_both_count(archive: Archive) -> None:
    """Two games of one player rated at once: neither update is lost."""
    await asyncio.gather(
        *(archive.rate("renju", f"g{i}", "ann", f"opp{i}", WIN) for i in range(10))
    )
    ann = await archive.rating("renju", "ann")
    assert (ann.wins, ann.games) == (10, 10)


async def test_leaderboard_lists_established_players_best_first(archive: Archive) -> None:
    """Only non-provisional players appear, highest rating first, limited in length."""
    for i in range(30):  # ann beats bob often enough for both to become established
        await archive.rate("renju", f"g{i}", "ann", "bob", WIN if i % 4 else LOSS)
    await archive.rate("renju", "fresh", "cat", "dan", DRAW)  # still provisional
    board = await archive.leaderboard("renju", limit=10)
    assert [player for player, _ in board] == ["ann", "bob"]
    assert board[0][1].rating.rating > board[1][1].rating.rating
    assert await archive.leaderboard("renju", limit=1) == board[:1]
    assert await archive.leaderboard("freestyle") == []


async def test_players_not_settled_yet_are_listed_apart_best_first(archive: Archive) -> None:
    """After a club's first evening nobody is established: the players whose rating has
    not settled are listed, highest first (with their standing now), and leave that list
    for the leaderboard once settled; away long enough, a settled player is in neither."""
    await archive.rate("renju", "e1", "ann", "bob", WIN)
    await archive.rate("renju", "e2", "cat", "dan", DRAW)
    await archive.rate("renju", "e3", "eve", "fay", LOSS)
    assert await archive.leaderboard("renju") == []
    unsettled = await archive.unsettled("renju")
    assert [player for player, _ in unsettled] == ["ann", "fay", "cat", "dan", "bob", "eve"]
    assert unsettled[0] == ("ann", await archive.rating("renju", "ann"))
    assert all(standing.rating.provisional for _, standing in unsettled)
    assert [p for p, _ in await archive.unsettled("renju", limit=2)] == ["ann", "fay"]
    assert await archive.unsettled("freestyle") == []
    long_ago = now_ms() - 500 * DAY_MS
    for i in range(30):
        await archive.rate("renju", f"g{i}", "ann", "bob", WIN if i % 4 else LOSS)
        score = WIN if i % 4 else LOSS
        await archive.rate("renju", f"o{i}", "gus", "hal", score, ended_ms=long_ago)
    board = [player for player, _ in await archive.leaderboard("renju")]
    assert board == ["ann", "bob"]
    assert [p for p, _ in await archive.unsettled("renju")] == ["fay", "cat", "dan", "eve"]


async def test_time_away_widens_rd_day_by_day(archive: Archive) -> None:
    """A rating read the day of the last rated game is as that game left it; ten days
    later its RD is wider (lichess's Glicko-2), its rating and results the same."""
    today = await archive.rate("renju", "g1", "ann", "bob", WIN)
    assert today is not None
    assert await archive.rating("renju", "ann") == today.after[0]
    earlier = await archive.rate("renju", "g2", "cat", "dan", WIN, ended_ms=now_ms() - 10 * DAY_MS)
    assert earlier is not None
    cat = await archive.rating("renju", "cat")
    assert cat.rating.rd > earlier.after[0].rating.rd
    assert (cat.rating.rating, cat.rating.volatility) == (
        earlier.after[0].rating.rating,
        earlier.after[0].rating.volatility,
    )
    assert (cat.wins, cat.losses, cat.draws) == (1, 0, 0)


async def test_a_player_back_after_long_away_is_provisional_and_off_the_board(
    archive: Archive,
) -> None:
    """Two settled players last rated 500 days ago read as provisional again and leave
    the leaderboard to those who play; their next game starts from the widened RD, so it
    moves their ratings as much as a newcomer's."""
    long_ago = now_ms() - 500 * DAY_MS
    for i in range(30):
        score = WIN if i % 4 else LOSS
        await archive.rate("renju", f"old{i}", "ann", "bob", score, ended_ms=long_ago)
        await archive.rate("renju", f"new{i}", "cat", "dan", score)
    ann = await archive.rating("renju", "ann")
    assert ann.rating.provisional
    assert ann.games == 30
    board = await archive.leaderboard("renju", limit=10)
    assert [player for player, _ in board] == ["cat", "dan"]
    assert [player for player, _ in await archive.leaderboard("renju", limit=1)] == ["cat"]

    back = await archive.rate("renju", "back", "ann", "bob", WIN)
    assert back is not None
    assert back.before[0] == ann
    settled = await archive.rating("renju", "cat")
    assert settled.rating.rd <= PROVISIONAL_RD
    assert back.after[0].rating.rating - ann.rating.rating > 2 * (
        rate_game(settled.rating, Rating(), WIN)[0].rating - settled.rating.rating
    )


async def test_the_leaderboard_looks_past_many_players_gone_away(archive: Archive) -> None:
    """Sixty settled players rated above everyone, all gone 500 days, do not keep the
    two who play now off a leaderboard of ten."""
    long_ago = now_ms() - 500 * DAY_MS
    for pair in range(60):
        for i in range(24):  # the first of each pair wins three in four: rated above 1500
            score = WIN if i % 4 else LOSS
            await archive.rate(
                "renju", f"o{pair}-{i}", f"a{pair:02}", f"b{pair:02}", score, ended_ms=long_ago
            )
    for i in range(20):
        await archive.rate("renju", f"n{i}", "cat", "dan", WIN if i % 2 else LOSS)
    assert not (await archive.rating("renju", "cat")).rating.provisional
    assert [p for p, _ in await archive.leaderboard("renju", limit=10)] == ["cat", "dan"]


async def test_a_game_rated_late_does_not_age_a_later_one(archive: Archive) -> None:
    """A game rated after a later game of the same player (an archiving retry) leaves
    the later game as the last one: the rating read now is not aged from the older."""
    await archive.rate("renju", "g2", "ann", "bob", WIN)
    late = await archive.rate("renju", "g1", "ann", "cat", WIN, ended_ms=now_ms() - 30 * DAY_MS)
    assert late is not None
    ann = await archive.rating("renju", "ann")
    assert ann.games == 2
    assert ann == late.after[0]  # as the late game left it, not 30 days older
    rated_now = await archive.rate("renju", "g3", "ann", "dan", DRAW)
    assert rated_now is not None
    assert rated_now.before[0] == ann


async def test_records_are_kept_and_listed_per_player_newest_first(archive: Archive) -> None:
    """Finished games are fetched by id and listed per player, newest first, with paging."""
    await archive.put_record("g1", b'{"moves": 1}', ["ann", "bob"], ended_ms=1_000)
    await archive.put_record("g2", b'{"moves": 2}', ["ann", "cat"], ended_ms=2_000)
    await archive.put_record("g3", b'{"moves": 3}', ["ann", "bob"], ended_ms=3_000)
    assert await archive.get_record("g2") == b'{"moves": 2}'
    assert await archive.get_record("nope") is None
    assert await archive.player_games("ann") == ["g3", "g2", "g1"]
    assert await archive.player_games("ann", limit=2) == ["g3", "g2"]
    assert await archive.player_games("ann", before_ms=2_000) == ["g1"]
    assert await archive.player_games("bob") == ["g3", "g1"]
    assert await archive.player_games("nobody") == []


async def test_every_finished_game_is_listed_newest_first_once(archive: Archive) -> None:
    """The server-wide list of finished games (a teacher's list of a lesson's games):
    each game once, whatever its players, newest first, from a time on, at most a limit."""
    await archive.put_record("g1", b"{}", ["ann", "bob"], ended_ms=1_000)
    await archive.put_record("g2", b"{}", ["cat", "dan"], ended_ms=2_000)
    await archive.put_record("g3", b"{}", ["ann", "cat"], ended_ms=3_000)
    await archive.put_record("g3", b"{}", ["ann", "cat"], ended_ms=3_000)  # a retry
    assert await archive.recent_games() == [("g3", 3_000), ("g2", 2_000), ("g1", 1_000)]
    assert await archive.recent_games(limit=2) == [("g3", 3_000), ("g2", 2_000)]
    assert await archive.recent_games(since_ms=2_000) == [("g3", 3_000), ("g2", 2_000)]
    assert await archive.recent_games(since_ms=4_000) == []


async def test_names_are_remembered_and_replaced(archive: Archive) -> None:
    """Display names are kept per player, the latest wins, and unknown ids are left out."""
    assert await archive.names(["ann"]) == {}
    await archive.put_names({"ann": "Ann", "bob": "Bob"})
    await archive.put_names({"ann": "Annie"})
    assert await archive.names(["ann", "bob", "nobody"]) == {"ann": "Annie", "bob": "Bob"}
    assert await archive.names([]) == {}
