"""The embedded server's data file (server/store/datafile.py): what it keeps across a
reopen, how sessions expire, and the files it refuses with one clear reason. (The store
and archive contracts run on it too; tests/test_embedded_restart.py restarts a real
server on it.)"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sqlite3
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from server_fixtures import TestClient, make_config
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.events import ChatPosted, GameOver, GameStarted, Moved
from protocol.values import TimeControl
from server.app import GomokuServer
from server.config import Timers
from server.rating import WIN
from server.store import Store
from server.store.base import StoreUnavailable
from server.store.datafile import KEPT_VERSION, SCHEMA_VERSION, DataFile, DataFileError
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


async def test_writes_one_after_another_never_trip_over_each_other(tmp_path: Path) -> None:
    """Names and session deletions asked for back to back all succeed: the cursor of one
    was dropped on the event loop's thread while the data thread ran the next one's
    statement, which SQLite refused ("bad parameter or other API misuse": about one
    finished game in a thousand lost its archive under load; here 50 of 10,000)."""
    data = DataFile(tmp_path / "server.sqlite3")
    data.open()
    try:
        for _ in range(10):
            names = (data.put_names({f"p-{i}": f"n{i}", f"p-{i + 1}": "m"}) for i in range(500))
            deletions = (data.delete_session(f"t-{i}") for i in range(500))
            done = await asyncio.gather(*names, *deletions, return_exceptions=True)
            assert [r for r in done if r is not None] == []
    finally:
        await data.close()


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 100)
    with pytest.raises(DataFileError, match="is not a gomoku-server data file"):
        DataFile(path).open()
    assert path.read_text().startswith("shopping list")  # and left as it was


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """Our tables were added to it and its journal mode changed, without a word."""
    path = tmp_path / "notes.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        db.execute("INSERT INTO notes (body) VALUES ('buy milk')")
    db.close()
    before = path.read_bytes()
    with pytest.raises(DataFileError, match=r"another program's database.*tables: notes"):
        DataFile(path).open()
    assert path.read_bytes() == before
    assert not path.with_name("notes.db-wal").exists()


async def data_file_of_games(path: Path, games: int, record_bytes: int) -> None:
    """A closed data file holding ``games`` finished games of ``record_bytes`` each."""
    data = DataFile(path)
    data.open()
    for game in range(games):
        await data.put_record(f"g{game}", bytes(record_bytes), ["ann", "bob"], game)
    await data.close()


async def test_a_file_damaged_inside_is_refused(tmp_path: Path) -> None:
    """A file damaged in the middle is refused at opening (it started, then failed its
    requests one by one: "database disk image is malformed", "internal server error")."""
    path = tmp_path / "server.sqlite3"
    await data_file_of_games(path, 200, 1000)
    with path.open("r+b") as file:
        file.seek(5 * 4096)  # inside the records, past the header and the schema
        file.write(b"\xa5" * 3000)
    with pytest.raises(DataFileError, match="is damaged"):
        DataFile(path).open()


CRASHED_WRITER = """
import asyncio, os, sys
from pathlib import Path
from server.store.datafile import DataFile

async def main() -> None:
    data = DataFile(Path(sys.argv[1]))
    data.open()
    for game in range(50):
        await data.put_record(f"late{game}", bytes(1000), ["ann", "bob"], game)
    os._exit(0)  # as kill -9: the write-ahead log stays beside the file

asyncio.run(main())
"""


async def test_a_damaged_file_refused_is_left_as_it_was_with_its_log(tmp_path: Path) -> None:
    """A file refused as damaged beside a crash's write-ahead log keeps its bytes and
    its log, and the refusal says the log belongs to it (refusing it wrote the log into
    it and deleted the log: an operator's restored copy was damaged by the old log)."""
    path = tmp_path / "server.sqlite3"
    await data_file_of_games(path, 200, 1000)
    crashed = await asyncio.create_subprocess_exec(sys.executable, "-c", CRASHED_WRITER, str(path))
    assert await crashed.wait() == 0
    wal = tmp_path / "server.sqlite3-wal"
    assert wal.stat().st_size > 0
    with path.open("r+b") as file:
        file.seek(5 * 4096)
        file.write(b"\xa5" * 3000)
    before = (path.read_bytes(), wal.read_bytes())
    with pytest.raises(DataFileError) as refused:
        DataFile(path).open()
    assert "is damaged" in str(refused.value)
    assert "\n" not in str(refused.value)  # one line, as every refusal
    assert "if you restored a copy, remove server.sqlite3-wal and server.sqlite3-shm" in str(
        refused.value
    )
    assert (path.read_bytes(), wal.read_bytes()) == before


async def test_a_data_file_cut_short_is_called_damaged(tmp_path: Path) -> None:
    """A file cut short is refused as damaged, and left as it was: no -wal or -shm beside
    it that were not there (refusing it left both behind), and no word of removing them."""
    path = tmp_path / "server.sqlite3"
    await data_file_of_games(path, 50, 1000)
    with path.open("r+b") as file:
        file.truncate(4 * 4096)
    with pytest.raises(DataFileError, match="is damaged") as refused:
        DataFile(path).open()
    assert "-wal" not in str(refused.value)
    assert os.listdir(tmp_path) == ["server.sqlite3"]


async def test_a_data_file_deleted_while_the_server_runs_is_written_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The data file and its log are deleted while the server runs (a clean-up script):
    the next write puts it back at its path with all it held, said in the log, and what
    is written after is in it too; deleted again just before the stop, the stop puts it
    back. Deleted, it took every player, rating and game with it at the stop, silently."""
    path = tmp_path / "server.sqlite3"
    data = DataFile(path)
    data.open()
    await data.put_record("before", b"{}", ["ann", "bob"], 1)
    for name in os.listdir(tmp_path):
        os.unlink(tmp_path / name)
    with caplog.at_level(logging.ERROR, logger="gomoku.server"):
        await data.put_record("after", b"{}", ["ann", "bob"], 2)
    assert f"the data file {path} was deleted while the server runs" in caplog.text
    assert path.exists()
    await data.put_names({"p-1": "ann"})
    path.unlink()
    await data.close()
    again = DataFile(path)
    again.open()
    try:
        assert [await again.get_record(g) for g in ("before", "after")] == [b"{}", b"{}"]
        assert await again.names(["p-1"]) == {"p-1": "ann"}
    finally:
        await again.close()


async def test_a_data_file_replaced_while_the_server_runs_is_not_overwritten(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another file put at the data file's path while the server runs is left alone: the
    log says so once, and the file is said to take no writes (/healthz answers 503)."""
    path = tmp_path / "server.sqlite3"
    data = DataFile(path)
    data.open()
    try:
        os.rename(path, tmp_path / "moved.sqlite3")
        path.write_bytes(b"another file")
        with caplog.at_level(logging.ERROR, logger="gomoku.server"):
            assert not await data.writable()
            await data.put_record("g1", b"{}", ["ann", "bob"], 1)
            assert not await data.writable()
        said = [r for r in caplog.records if "was replaced by another file" in r.getMessage()]
        assert len(said) == 1
        assert path.read_bytes() == b"another file"
    finally:
        await data.close()
    assert path.read_bytes() == b"another file"


async def test_the_write_ahead_log_stays_under_a_megabyte(tmp_path: Path) -> None:
    """Five megabytes of records written: the -wal beside the file stays near 1 MB (it
    reached 4 MB and stayed there, which filled a 2 MB disk by itself)."""
    path = tmp_path / "server.sqlite3"
    data = DataFile(path)
    data.open()
    try:
        largest = 0
        for game in range(500):
            await data.put_record(f"g{game}", bytes(10_000), ["ann", "bob"], game)
            largest = max(largest, (tmp_path / "server.sqlite3-wal").stat().st_size)
        assert largest < 1_300_000, largest
    finally:
        await data.close()


async def test_a_file_damaged_while_the_server_runs_answers_unavailable(tmp_path: Path) -> None:
    """SQLite's failures come out as the store being unavailable (the request is answered
    ``unavailable``, the cause logged in one line), not as internal errors."""
    path = tmp_path / "server.sqlite3"
    games = 1500  # 6 MB: more than SQLite keeps in its cache after the check at opening
    await data_file_of_games(path, games, 4000)
    data = DataFile(path)
    data.open()
    try:
        with path.open("r+b") as file:
            file.seek(path.stat().st_size // 3)
            file.write(b"\xa5" * 20_000)

        async def read_every_record() -> None:
            for game in range(games):
                await data.get_record(f"g{game}")

        with pytest.raises(StoreUnavailable, match="malformed"):
            await read_every_record()
    finally:
        await data.close()


async def test_a_data_file_from_before_the_mark_is_still_ours(tmp_path: Path) -> None:
    """Files written before data files were marked (application id 0, our tables), also
    after someone ran ANALYZE on one (SQLite's own sqlite_stat1 table)."""
    path = tmp_path / "server.sqlite3"
    data = DataFile(path)
    data.open()
    await data.put_names({"ann": "Ann"})
    await data.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA application_id=0")
        db.execute("ANALYZE")
    db.close()
    again = DataFile(path)
    again.open()
    try:
        assert await again.names(["ann"]) == {"ann": "Ann"}
    finally:
        await again.close()


def test_a_file_from_a_newer_server_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version={KEPT_VERSION + 1}")
    db.close()
    with pytest.raises(DataFileError, match="newer gomoku-server"):
        DataFile(path).open()


async def test_a_file_holding_kept_games_is_one_an_older_server_refuses(tmp_path: Path) -> None:
    """While the file holds games a stop kept, its data version is 2, which a server
    from before games were kept (it reads 1) refuses in one line: one opened the file,
    told the players their games were gone, and a later start brought them back. Taken
    up, the file is version 1 again; and this server opens a version 2 file."""
    path = tmp_path / "server.sqlite3"

    def version() -> int:
        with contextlib.closing(sqlite3.connect(path)) as db:
            return int(db.execute("PRAGMA user_version").fetchone()[0])

    store = DataFile(path)
    store.open()
    await store.keep_games(b"games")
    await store.close()
    assert version() == KEPT_VERSION
    store = DataFile(path)
    store.open()  # read as it is
    assert await store.kept_games() == b"games"
    await store.forget_kept_games()
    await store.close()
    assert version() == SCHEMA_VERSION


async def test_a_file_in_use_is_refused(tmp_path: Path) -> None:
    """Two servers on one file would split the players: the second is refused while the
    first has it, and may have it once the first is done."""
    path = tmp_path / "server.sqlite3"
    first = DataFile(path)
    first.open()
    second = DataFile(path)
    with pytest.raises(
        DataFileError,
        match=r"is locked by another program \(another gomoku-server on the same file\?\)",
    ):
        second.open()
    await first.close()
    third = DataFile(path)
    third.open()
    await third.close()


def test_a_place_no_file_can_be_made_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(DataFileError, match=r"cannot open .*Not a directory"):
        DataFile(tmp_path / "a-file" / "server.sqlite3").open()


async def read_only(data: DataFile, on: bool) -> None:
    """Make every write to ``data`` fail (as on a full disk), or work again."""

    def pragma() -> None:
        data._database().execute(f"PRAGMA query_only={int(on)}")

    await data._call(pragma)


@contextlib.asynccontextmanager
async def serving(
    data: DataFile, *names: str, timers: Timers | None = None
) -> AsyncIterator[list[TestClient]]:
    """A server on ``data`` (opened here) and a client said hello for each of ``names``;
    the clients go and the server stops (as an operator stops it) at the end."""
    data.open()
    config = make_config() if timers is None else make_config(timers=timers)
    server = GomokuServer(config, store=EmbeddedStore(data))
    await server.start()
    players: list[TestClient] = []
    try:
        for name in names:
            ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
            players.append(TestClient(ws))
            await players[-1].hello(name)
        yield players
    finally:
        for player in players:
            await player.ws.close()
        await server.stop()


async def resigned_on_a_full_disk(data: DataFile, alice: TestClient, bob: TestClient) -> str:
    """A casual game of alice (Black) and bob that alice resigns while every write to
    ``data`` fails, as on a full disk: its room."""
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.until_event(GameStarted)
    await read_only(data, True)
    await alice.send(m.Resign(room=room))
    return room


async def rated_two_stones(alice: TestClient, bob: TestClient) -> str:
    """A rated room alice (Black) made and bob joined, with h8 and a1 played: its id."""
    room = (await alice.create(seat="black", rated=True)).room.id
    await bob.join(room)
    await alice.until_event(GameStarted)
    await alice.move(room, "h8")
    await bob.until_event(Moved)
    await bob.move(room, "a1")
    await alice.until_event(Moved)
    await alice.until_event(Moved)
    return room


async def test_the_log_names_a_finished_games_players_and_whether_it_counts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A game's end in the log says who played which colour and that it was rated (a
    tournament director read room ids only and matched them by hand)."""
    caplog.set_level(logging.INFO, logger="gomoku.server")
    async with serving(DataFile(tmp_path / "server.sqlite3"), "alice", "bob") as players:
        alice, bob = players
        room = await rated_two_stones(alice, bob)
        await bob.send(m.Resign(room=room))
        await alice.until_event(GameOver)
    said = [r.getMessage() for r in caplog.records]
    ann, bob_id = alice.player, bob.player
    assert (
        f"room {room}: game over (black, resign): black alice ({ann}) vs white bob ({bob_id}), "
        "rated"
    ) in said
    # the room's story before it, for an operator asked "my move disappeared"
    assert f"room {room}: bob ({bob_id}) sat as white" in said
    assert f"room {room}: game started, black alice ({ann}) vs white bob ({bob_id})" in said


async def test_a_finished_game_the_full_disk_kept_out_is_named_when_the_server_stops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A game that could not be archived (the disk full; here the file taken read-only)
    waits for a retry; a stop before the retry succeeds says in the log that it is lost
    (it went without a word, after warnings that said "will retry")."""
    data = DataFile(tmp_path / "server.sqlite3")
    async with serving(data, "alice", "bob") as (alice, bob):
        room = await resigned_on_a_full_disk(data, alice, bob)
        for _ in range(200):
            if "archiving the finished game failed" in caplog.text:
                break
            await asyncio.sleep(0.05)
        assert "readonly database" in caplog.text
    lost = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert lost == [
        f"room {room}: the finished game could not be kept before this stop; its record "
        "and rating changes are lost"
    ]


async def test_a_game_kept_out_once_is_kept_even_if_its_room_was_due_to_go(
    tmp_path: Path,
) -> None:
    """A finished room due to go before the archive's retry (a short
    --finished-room-ttl) stays until its game is kept: it went first, and the game was
    lost for good, record and rating change, without a word in the log."""
    data = DataFile(tmp_path / "server.sqlite3")
    timers = Timers(tick_interval_s=0.02, finished_room_ttl_ms=100, archive_retry_ms=800)
    async with serving(data, "alice", "bob", timers=timers) as (alice, bob):
        room = await resigned_on_a_full_disk(data, alice, bob)
        over = await alice.until_event(GameOver)  # at once: not held for the archive
        assert over.reason == "resign"
        await asyncio.sleep(0.4)  # past the room's 100 ms, before the retry
        await read_only(data, False)
        assert await archived_soon(data, room)


async def archived_soon(data: DataFile, room: str) -> bool:
    """Whether ``room``'s game is archived within 10 s."""
    for _ in range(200):
        if await data.get_record(room) is not None:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_game_the_full_disk_keeps_out_ends_at_once_its_ratings_pending(
    tmp_path: Path,
) -> None:
    """A rated game ends while the disk is full (the file taken read-only): its players
    get game_over at once, the ratings said to be pending (they saw "ann to move" under
    a five until space came back, and their moves refused as "the game is over"); once
    the file takes writes, the ratings are kept, and no second game_over comes."""
    data = DataFile(tmp_path / "server.sqlite3")
    timers = Timers(tick_interval_s=0.02, archive_retry_ms=200)
    async with serving(data, "alice", "bob", timers=timers) as (alice, bob):
        room = await rated_two_stones(alice, bob)
        await read_only(data, True)
        await bob.send(m.Resign(room=room))
        over = await alice.until_event(GameOver)
        assert (over.winner, over.ratings, over.ratings_pending) == ("black", None, True)
        await read_only(data, False)
        assert await archived_soon(data, room)
        standing = await data.rating("freestyle", alice.player)
        assert (standing.games, standing.wins) == (1, 1)
        await alice.send(m.Chat(room=room, text="gg"))
        said = await alice.until(
            lambda x: isinstance(x, m.Event) and isinstance(x.event, (GameOver, ChatPosted))
        )
        assert isinstance(said, m.Event)
        assert isinstance(said.event, ChatPosted)  # (no second game_over came before it)


async def test_a_game_held_by_a_full_disk_is_said_once_and_again_when_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A finished game the full disk keeps out is retried quietly: its failure is logged
    once (a full disk's five minutes logged 2,087 warnings, one a held game each retry),
    and its archiving once space is back, with the tries it took."""
    data = DataFile(tmp_path / "server.sqlite3")
    timers = Timers(tick_interval_s=0.02, archive_retry_ms=100)
    caplog.set_level(logging.INFO, logger="gomoku.server")
    async with serving(data, "alice", "bob", timers=timers) as (alice, bob):
        room = await resigned_on_a_full_disk(data, alice, bob)
        await asyncio.sleep(1.0)  # several retries
        await read_only(data, False)
        assert await archived_soon(data, room)
    failed = [r for r in caplog.records if "archiving the finished game failed" in r.getMessage()]
    assert [r.levelno for r in failed] == [logging.WARNING]
    kept = [r.getMessage() for r in caplog.records if "is archived, after" in r.getMessage()]
    assert len(kept) == 1
    assert kept[0].startswith(f"room {room}: the finished game is archived, after ")


async def test_a_stop_on_a_full_disk_says_its_games_need_room_to_be_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stop's first signal while the data file takes no writes (a full disk) says the
    games in progress are kept only if it takes writes before the drain ends: it said
    they "will be kept", then, three seconds on, that they could not be."""
    data = DataFile(tmp_path / "server.sqlite3")
    data.open()
    server = GomokuServer(make_config(), store=EmbeddedStore(data))
    await server.start()
    try:
        alice = TestClient(await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None))
        bob = TestClient(await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None))
        await alice.hello("alice")
        await bob.hello("bob")
        room = (await alice.create(seat="black")).room.id
        await bob.join(room)
        await alice.until_event(GameStarted)
        await read_only(data, True)
        with pytest.raises(StoreUnavailable):
            await data.put_names({"p-1": "ann"})
        caplog.set_level(logging.INFO, logger="gomoku.server")
        await server.warn_before_stop()
        said = [r for r in caplog.records if room in r.getMessage()]
        assert [r.levelno for r in said] == [logging.WARNING]
        assert "kept in the data file only if it takes writes again" in said[0].getMessage()
        await read_only(data, False)
        await alice.ws.close()
        await bob.ws.close()
    finally:
        await server.stop()


async def test_healthz_says_when_the_data_file_takes_no_writes(tmp_path: Path) -> None:
    """/healthz answers 503 while the data file takes no writes (a full disk; here the
    file made read-only) and 200 again once it does: it said ok while every new player
    and every game's end was answered unavailable."""
    data = DataFile(tmp_path / "server.sqlite3")
    data.open()
    server = GomokuServer(make_config(), store=EmbeddedStore(data))
    await server.start()

    def healthz() -> int:
        url = f"http://127.0.0.1:{server.port}/healthz"
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as refused:
            return refused.code

    try:
        assert await asyncio.to_thread(healthz) == 200
        await read_only(data, True)
        with pytest.raises(StoreUnavailable):
            await data.put_names({"p-1": "ann"})
        assert await asyncio.to_thread(healthz) == 503
        await read_only(data, False)
        assert await asyncio.to_thread(healthz) == 200
    finally:
        await server.stop()


async def test_a_game_being_played_goes_on_after_the_server_restarts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stop keeps the games being played between people in the data file, and the
    next start on it takes them up: a club's server restarted between rounds ended every
    game on its boards, unrecorded. The players come back with their tokens, resume and
    play on; the clock that ran while the server was down gets that time back; the log
    names the games kept."""
    caplog.set_level(logging.INFO, logger="gomoku.server")
    data = tmp_path / "server.sqlite3"
    five_minutes = TimeControl(base_ms=300_000, inc_ms=0)
    async with serving(DataFile(data), "alice", "bob", "cy") as players:
        alice, bob, cy = players
        room = (await alice.create(seat="black", time=five_minutes)).room.id
        await bob.join(room)
        await alice.until_event(GameStarted)
        for player, point in ((alice, "h8"), (bob, "a1"), (alice, "h9")):
            await player.move(room, point)
            for seen in (alice, bob):
                assert (await seen.until_event(Moved)).point == point
        tokens = [("alice", alice.token), ("bob", bob.token)]
        await cy.create(seat="black")  # waiting for an opponent: no game to keep
    said = [r.getMessage() for r in caplog.records]
    kept = f"in progress in the data file, to go on when the server starts again on it: {room}"
    assert any(line.startswith("kept 1 game") and kept in line for line in said), said
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    await asyncio.sleep(2.5)  # down longer than an outage's 2 s
    store = DataFile(data)
    store.open()
    server = GomokuServer(make_config(), store=EmbeddedStore(store))
    await server.start()
    again: list[TestClient] = []
    try:
        for name, token in tokens:
            ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
            again.append(TestClient(ws))
            welcome = await again[-1].hello(name, token)
            assert welcome.rooms == [room]
            await again[-1].send(m.Resume(room=room, after=5))
        alice, bob = again
        await bob.move(room, "a2")
        moved = await alice.until_event(Moved)
        assert (moved.point, moved.move_no) == ("a2", 4)
        assert moved.clocks is not None
        # White's clock ran from h9 on, through the stop, 2.5 s down and the start: the
        # time down is given back.
        assert moved.clocks.white_ms > 300_000 - 2_000, moved.clocks
    finally:
        for client in again:
            await client.ws.close()
        await server.stop()


async def test_games_kept_by_a_stop_outlive_a_start_that_fails(tmp_path: Path) -> None:
    """A start that fails after reading the kept games (its port taken by another
    program) and ends without a stop (killed) leaves them in the data file: the next
    start takes them up; once one serves them, they are gone from the file."""
    data = tmp_path / "server.sqlite3"
    async with serving(DataFile(data), "alice", "bob") as players:
        alice, bob = players
        room = (await alice.create(seat="black")).room.id
        await bob.join(room)
        await alice.until_event(GameStarted)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        store = DataFile(data)
        store.open()
        failed = GomokuServer(make_config(port=taken.getsockname()[1]), store=EmbeddedStore(store))
        with pytest.raises(OSError, match="address"):
            await failed.start()
        await store.close()  # the process ends here, no stop keeping its rooms again
    finally:
        taken.close()
    store = DataFile(data)
    store.open()
    server = GomokuServer(make_config(), store=EmbeddedStore(store))
    await server.start()
    try:
        assert await server.store.load_room(room) is not None
        # Served: no longer in the file (a crash now loses them, as documented).
        assert await store.kept_games() is None
    finally:
        await server.stop()
