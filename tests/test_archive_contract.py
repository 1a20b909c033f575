"""The archive contract (ratings, leaderboard, finished games): both backends, unchanged."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.rating import DRAW, LOSS, WIN, PlayerRating, Rating, rate_game
from server.store.archive import Archive, MemoryArchive
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
