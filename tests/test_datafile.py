"""The embedded server's data file (server/store/datafile.py): what it keeps across a
reopen, how sessions expire, and the files it refuses with one clear reason. (The store
and archive contracts run on it too; tests/test_embedded_restart.py restarts a real
server on it.)"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.rating import WIN
from server.store import Store
from server.store.datafile import SCHEMA_VERSION, DataFile, DataFileError
from server.store.embedded import EmbeddedStore
from server.store.redis import RedisStore


async def test_everything_kept_is_there_after_a_reopen(tmp_path: Path) -> None:
    """Sessions, standings, rated-once markers, records, game lists and names survive
    closing and opening the file again."""
    path = tmp_path / "server.sqlite3"
    first = DataFile(path)
    first.open()
    assert path.stat().st_mode & 0o777 == 0o600  # private games' records are in it
    await first.put_session("hash-ann", b"ann's session")
    rated = await first.rate("renju", "g1", "ann", "bob", WIN)
    await first.put_record("g1", b"{record}", ["ann", "bob"], 1_000)
    await first.put_names({"ann": "Ann", "bob": "Bob"})
    await first.close()
    second = DataFile(path)
    second.open()
    try:
        assert await second.get_session("hash-ann") == b"ann's session"
        assert rated is not None
        standings = (await second.rating("renju", "ann"), await second.rating("renju", "bob"))
        assert standings == rated.after
        assert await second.rate("renju", "g1", "ann", "bob", WIN) == rated  # rated once
        assert await second.get_record("g1") == b"{record}"
        assert await second.player_games("bob") == ["g1"]
        assert await second.names(["ann", "bob", "cy"]) == {"ann": "Ann", "bob": "Bob"}
    finally:
        await second.close()


@pytest.fixture(params=["embedded", "redis"])
async def short_sessions(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A store whose sessions live 1 s after their last use."""
    store: Store
    if request.param == "embedded":
        data = DataFile(request.getfixturevalue("tmp_path") / "server.sqlite3", session_ttl_ms=1000)
        data.open()
        store = EmbeddedStore(data)
    else:
        store = RedisStore(request.getfixturevalue("redis_url"), session_ttl_ms=1000)
    await store.start()
    try:
        yield store
    finally:
        await store.close()


async def test_a_session_lives_while_it_is_used(short_sessions: Store) -> None:
    """A token used now and then stays valid past its time to live; one left unused for
    longer is gone (the data file and Redis keep the same rule)."""
    store = short_sessions
    await store.put_session("used", b"u")
    await store.put_session("idle", b"i")
    for _ in range(3):  # 1.5 s in all, each look within the time to live
        await asyncio.sleep(0.5)
        assert await store.get_session("used") == b"u"
    assert await store.get_session("idle") is None
    await asyncio.sleep(1.2)
    assert await store.get_session("used") is None


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 100)
    with pytest.raises(DataFileError, match="is not a gomoku-server data file"):
        DataFile(path).open()
    assert path.read_text().startswith("shopping list")  # and left as it was


def test_a_file_from_a_newer_server_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(DataFileError, match="newer gomoku-server"):
        DataFile(path).open()


async def test_a_file_in_use_is_refused(tmp_path: Path) -> None:
    """Two servers on one file would split the players: the second is refused while the
    first has it, and may have it once the first is done."""
    path = tmp_path / "server.sqlite3"
    first = DataFile(path)
    first.open()
    second = DataFile(path)
    with pytest.raises(DataFileError, match="in use by another gomoku-server"):
        second.open()
    await first.close()
    third = DataFile(path)
    third.open()
    await third.close()


def test_a_place_no_file_can_be_made_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(DataFileError, match=r"cannot open .*Not a directory"):
        DataFile(tmp_path / "a-file" / "server.sqlite3").open()
