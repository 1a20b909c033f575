"""The embedded server's data file: what a player expects to find after a restart
(their identity, ratings, finished games) in one SQLite database.

Why SQLite (the standard library's ``sqlite3``): every write is a transaction, so a
crash or ``kill -9`` at any moment leaves the file as of the last finished write, never
half of one; the file format is stable and documented, and the ``sqlite3`` shell reads
it. In WAL mode with ``synchronous=NORMAL`` a commit is a ``write()`` to the log without
an fsync: it survives the process being killed, and a power cut can lose the last
moments, never the file's consistency.

What is kept: sessions (under the SHA-256 of their resume token, as in every store;
one unused for ``session_ttl_ms`` is refused, and deleted at the next opening),
Glicko-2 standings per pool with the games already rated, finished games' records
listed per player, and display names.
Live rooms are not kept: a restart ends them.

All SQLite work runs on one thread of its own, never on the event loop: a call costs
the loop a hand-over to that thread and back, and an fsync at a checkpoint, a slow
disk or a big page never stalls other players. One thread also serialises the calls,
so each method is atomic as the store contract asks (``rate`` is one transaction).
The file is locked while a server has it open (``locking_mode=EXCLUSIVE``): a second
server on the same file is refused at start-up instead of splitting the players.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import msgspec

from server.rating import PROVISIONAL_RD, PlayerRating, Rating
from server.store.archive import LEADERBOARD_SIZE, RatedGame, apply_game, now_ms, standing_at
from server.store.base import StoreUnavailable

T = TypeVar("T")

log = logging.getLogger("gomoku.server")

WAL_PAGES = 256
"""Pages (4 KiB) the write-ahead log beside the file takes before SQLite folds it into the
file; it is cut back to :data:`WAL_MOST_BYTES` after (SQLite's 1000 pages let it reach 4
MB and stay there, which filled a 2 MB disk on its own)."""
WAL_MOST_BYTES = 1 << 20

SCHEMA_VERSION = 1
KEPT_VERSION = 2
"""The data version of a file that holds games a stop kept (:meth:`DataFile.keep_games`)
until a start takes them up: a gomoku-server from before they were kept (2026-11-29)
reads version 1 only, so it refuses the file in one line, where it opened it and told
the players their games were gone (and a later start brought them back, clocks and all).
Back to version 1 once they are taken up, so such a version may open the file again."""
DAY_MS = 86_400_000
APPLICATION_ID = 0x476D6B41  # "GmkA": SQLite's header field that names a file's program

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    used_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_use ON sessions (used_ms);
CREATE TABLE IF NOT EXISTS ratings (
    pool TEXT NOT NULL,
    player TEXT NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    volatility REAL NOT NULL,
    wins INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    PRIMARY KEY (pool, player)
);
CREATE INDEX IF NOT EXISTS ratings_board ON ratings (pool, rating);
CREATE TABLE IF NOT EXISTS rated_at (
    pool TEXT NOT NULL,
    player TEXT NOT NULL,
    played_ms INTEGER NOT NULL,
    PRIMARY KEY (pool, player)
);
CREATE TABLE IF NOT EXISTS rated_games (
    pool TEXT NOT NULL,
    game TEXT NOT NULL,
    standings BLOB NOT NULL,
    PRIMARY KEY (pool, game)
);
CREATE TABLE IF NOT EXISTS records (
    game TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS player_games (
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    ended_ms INTEGER NOT NULL,
    PRIMARY KEY (player, game)
);
CREATE INDEX IF NOT EXISTS player_games_by_end ON player_games (player, ended_ms);
CREATE TABLE IF NOT EXISTS names (
    player TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kept_games (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    data BLOB NOT NULL,
    kept_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS running (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    since_ms INTEGER NOT NULL
);
"""


_TABLES = frozenset(
    line.split()[5] for line in _SCHEMA.splitlines() if line.startswith("CREATE TABLE")
)
"""The tables of a data file (``sessions``, ``ratings``...)."""


class DataFileError(Exception):
    """The data file cannot be used (not a database, a newer version, in use, unwritable)."""


class DataFile:
    """One open data file and the thread that does all its work.

    :meth:`open` (blocking, at start-up) creates or checks the file and raises
    :class:`DataFileError` with a one-line reason; the coroutines then read and write
    it; :meth:`close` finishes the queued work and releases the file.
    """

    def __init__(self, path: Path, *, session_ttl_ms: int = 30 * DAY_MS) -> None:
        self.path = path
        self.session_ttl_ms = session_ttl_ms
        self._refresh_after_ms = max(1, session_ttl_ms // 30)
        """A session read this long after its last recorded use is marked used again."""
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gomoku-data")
        self._db: sqlite3.Connection | None = None
        self._failing = False
        """The last write failed (a full disk): :meth:`writable` tries one again."""
        self._logs_before: frozenset[Path] = frozenset()
        """SQLite's files beside the data file (``-wal``, ``-shm``) that were there before
        it was opened: a refusal removes those that opening it made."""
        self._identity: tuple[int, int] | None = None
        """The opened file's device and inode: another file at its path, or none, means
        it was moved or deleted while the server runs (:meth:`_keep_in_place`)."""
        self._told_replaced = False
        self.unclean_since_ms: int | None = None
        """When the last server that had this file open started, if it did not close it
        (a ``kill -9``, a crash, the machine gone): its games in progress are gone, and
        the next start says so (they went without a word in the log)."""

    def __repr__(self) -> str:
        return f"DataFile({str(self.path)!r})"

    # -- lifecycle (on the data thread) ---------------------------------------------------

    def open(self) -> None:
        """Open (creating it if need be) and lock the file; blocking. On failure the
        data thread is gone too: nothing is left running."""
        try:
            self._thread.submit(self._open).result()
        except BaseException:
            self._thread.shutdown(wait=True)
            raise

    def _open(self) -> None:
        logs = (Path(f"{self.path}-wal"), Path(f"{self.path}-shm"))
        self._logs_before = frozenset(beside for beside in logs if beside.exists())
        try:
            self._open_checked()
        except DataFileError:
            # A file refused is left as it was: without the logs that SQLite made beside
            # it while looking (an empty -wal and a -shm were left after each refusal).
            for made in set(logs) - self._logs_before:
                with contextlib.suppress(OSError):  # (none made: no folder, say)
                    made.unlink()
            raise

    def _open_checked(self) -> None:
        try:
            # Only its owner may read it (private games' records are in it); SQLite gives
            # its log files the database file's mode.
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            db = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        except OSError as exc:
            raise DataFileError(f"cannot open {self.path}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise DataFileError(f"cannot open {self.path}: {exc}") from None
        try:
            self._check_read_only()
        except DataFileError:
            db.close()  # nothing read or written through it: it changes nothing
            raise
        try:
            self._set_up(db)
            db.execute("BEGIN IMMEDIATE")  # takes the lock now, and keeps it
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > KEPT_VERSION:
                raise DataFileError(
                    f"{self.path} was written by a newer gomoku-server (data version "
                    f"{version}; this one reads {SCHEMA_VERSION} and {KEPT_VERSION})"
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version={max(version, SCHEMA_VERSION)}")
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            before = db.execute("SELECT since_ms FROM running WHERE id = 1").fetchone()
            self.unclean_since_ms = None if before is None else int(before[0])
            db.execute("INSERT OR REPLACE INTO running VALUES (1, ?)", (now_ms(),))
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            db.close()
            raise self._refusal(exc) from None
        except DataFileError:
            db.close()
            raise
        self._db = db
        self._identity = self._identity_now()
        self._expire_sessions()

    def _set_up(self, db: sqlite3.Connection) -> None:
        """How the server uses its file: locked for this connection alone, with a
        write-ahead log kept under :data:`WAL_MOST_BYTES`."""
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
            raise DataFileError(f"{self.path}: cannot use a write-ahead log there")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
        db.execute(f"PRAGMA journal_size_limit={WAL_MOST_BYTES}")

    def _identity_now(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (found.st_dev, found.st_ino)

    def _keep_in_place(self) -> None:
        """Before each write and at the close (on the data thread): a data file deleted
        while the server runs is written again at its path, from what the server has,
        and used from then on. Deleted, it took every player, rating and game with it
        at the stop, without a word (SQLite writes on into a file no longer named).
        Another file put at its path is not overwritten: said once, and the server
        keeps the one it opened (``/healthz`` answers 503, :meth:`writable`)."""
        now = self._identity_now()
        if now == self._identity or self._db is None:
            self._told_replaced = False  # (the file put back: said again if replaced again)
            return
        if now is not None:
            if not self._told_replaced:
                self._told_replaced = True
                log.error(
                    "the data file %s was replaced by another file while the server runs: "
                    "the server goes on with the one it opened, which nothing names any "
                    "more; stop the server and put the file you want there",
                    self.path,
                )
            return
        rebuilt = self.path.with_name(f"{self.path.name}.restoring")
        os.close(os.open(rebuilt, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600))
        copy = sqlite3.connect(rebuilt, timeout=0, isolation_level=None)
        try:
            self._db.backup(copy)
        except BaseException:
            copy.close()
            rebuilt.unlink(missing_ok=True)  # (a full disk: tried again at the next write)
            raise
        copy.close()
        self._db.close()  # (its own -wal, if still named, goes with it)
        self._db = None
        os.replace(rebuilt, self.path)
        db = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        self._set_up(db)
        db.execute("BEGIN IMMEDIATE")
        db.execute("COMMIT")
        self._db = db
        self._identity = self._identity_now()
        log.error(
            "the data file %s was deleted while the server runs: written there again from "
            "what the server had, and kept from now on",
            self.path,
        )

    def _check_read_only(self) -> None:
        """:meth:`_check_ours` through a connection that cannot write: a file refused is
        left as it was. Refused after a connection that could write had read it, a file
        beside a write-ahead log (``-wal``) got that log written into it as it closed,
        and the log deleted: an operator who had just restored a copy over a file a
        crash left with its log had the copy damaged by the old log."""
        try:
            reader = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=0)
        except sqlite3.Error as exc:
            raise DataFileError(f"cannot open {self.path}: {exc}") from None
        try:
            self._check_ours(reader)
        except sqlite3.Error as exc:
            raise self._refusal(exc) from None
        finally:
            reader.close()

    def _refusal(self, exc: sqlite3.Error) -> DataFileError:
        """Why SQLite's ``exc`` while opening means the file cannot be used, in one line."""
        if isinstance(exc, sqlite3.OperationalError):
            if "locked" in str(exc):
                return DataFileError(
                    f"{self.path} is locked by another program (another gomoku-server on "
                    "the same file?)"
                )
            folder = self.path.resolve().parent
            if "readonly" in str(exc) and not os.access(folder, os.W_OK):
                return DataFileError(
                    f"cannot use {self.path}: its folder {folder} is not writable (SQLite "
                    "keeps two files beside it, -wal and -shm)"
                )
            return DataFileError(f"cannot use {self.path}: {exc}")
        if isinstance(exc, sqlite3.DatabaseError) and "malformed" in str(exc):
            return self._damaged(str(exc))  # a database, cut short or damaged
        return DataFileError(
            f"{self.path} is not a gomoku-server data file ({exc}): name another file, or, "
            "if it was this server's, it is damaged: restore a copy"
        )

    def _damaged(self, detail: str) -> DataFileError:
        """A damaged file, and what to do: a ``-wal`` beside it is part of it (a crash
        leaves one, and SQLite applies it), and one left from before a restored copy
        damages that copy."""
        wal = Path(f"{self.path}-wal")
        restore = "restore a copy"
        if wal in self._logs_before:
            restore = (
                f"if you restored a copy, remove {wal.name} and {wal.name[:-4]}-shm beside it "
                "(they belong to the file you replaced); otherwise restore a copy"
            )
        return DataFileError(
            f"{self.path} is damaged ({detail}); {restore}, or move it away to start with an "
            "empty one"
        )

    def _check_ours(self, db: sqlite3.Connection) -> None:
        """Refuse a database that is not ours, or is damaged, before changing anything in
        it: another program's file was taken over (our tables added, its journal mode
        changed), and one damaged inside started, then failed request after request.
        Ours: marked by its application id, or (written before the mark) holding only
        our tables; a new, empty file becomes ours."""
        application = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {
            name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        foreign = {t for t in tables - _TABLES if not t.startswith("sqlite_")}  # ANALYZE's
        if application not in (0, APPLICATION_ID) or (application == 0 and foreign):
            names = ", ".join(sorted(foreign)[:5]) or "none of ours"
            raise DataFileError(
                f"{self.path} is another program's database, not a gomoku-server data file "
                f"(its tables: {names}); name another file"
            )
        problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            said = "; ".join(" ".join(problem.split()) for problem in problems)  # one line
            raise self._damaged(f"SQLite's check: {said}")

    async def close(self) -> None:
        """Finish what is queued, then close and unlock the file."""
        if self._db is not None:
            await self._call(self._close)
        self._thread.shutdown(wait=True)

    def _close(self) -> None:
        assert self._db is not None
        try:
            self._keep_in_place()
        except (OSError, sqlite3.Error) as exc:
            log.error("the data file %s, deleted, could not be written again: %s", self.path, exc)
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):  # (a full disk: the next start says so)
                self._write(_stopped)
            self._db.close()
        self._db = None

    async def _call(self, work: Callable[[], T]) -> T:
        """``work`` on the data thread. SQLite's failures (a full disk, a file damaged
        while the server runs) are :class:`StoreUnavailable`: the request is answered
        ``unavailable`` and the cause logged in one line, as for a store that cannot be
        reached (they were internal errors, each with a traceback).

        ``work`` must not return a cursor: the caller drops it on the event loop's
        thread, and a cursor's end resets its statement there, while the data thread may
        be running the same (cached) statement for the next request: SQLite refused that
        one as "bad parameter or other API misuse" (a finished game's archive, about
        one in a thousand under load)."""
        try:
            result = await asyncio.get_running_loop().run_in_executor(self._thread, work)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"the data file {self.path}: {exc}") from exc
        if isinstance(result, sqlite3.Cursor):  # pragma: no cover - a bug of ours
            raise TypeError("a data file cursor left the data thread")
        return result

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one transaction."""
        try:
            self._keep_in_place()
        except OSError as exc:  # (its folder gone too: said as a failed write)
            self._failing = True
            raise sqlite3.OperationalError(f"cannot write {self.path} again: {exc}") from exc
        db = self._database()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # SQLite rolls back by itself on a full disk: its
                    db.execute("ROLLBACK")  # error is the one to raise, not "no transaction"
                raise
        except sqlite3.Error:
            self._failing = True
            raise
        self._failing = False
        return result

    async def writable(self) -> bool:
        """Whether the file takes writes: after a write failed, a page is written to see
        (the disk may have room again); otherwise the last write's word is taken."""
        try:  # (a file deleted is written again here, if no write has done it yet)
            await self._call(self._keep_in_place)
        except (StoreUnavailable, OSError):
            return False
        if self._identity_now() != self._identity:  # (another file there: until it goes)
            return False
        if not self._failing:
            return True

        def probe(db: sqlite3.Connection) -> None:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            db.execute(f"PRAGMA user_version={version}")  # rewrites the first page

        try:
            await self._call(lambda: self._write(probe))
        except StoreUnavailable:
            return False
        return True

    def _database(self) -> sqlite3.Connection:
        if self._db is None:
            raise DataFileError(f"{self.path} is not open")
        return self._db

    # -- sessions ------------------------------------------------------------------

    async def put_session(self, token_hash: str, data: bytes) -> None:
        def put(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?) ON CONFLICT (token_hash) "
                "DO UPDATE SET data = excluded.data, used_ms = excluded.used_ms",
                (token_hash, data, now_ms()),
            )

        await self._call(lambda: self._write(put))

    async def get_session(self, token_hash: str) -> bytes | None:
        return await self._call(lambda: self._get_session(token_hash))

    def _get_session(self, token_hash: str) -> bytes | None:
        now = now_ms()
        db = self._database()
        row = db.execute(
            "SELECT data, used_ms FROM sessions WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        if row is None or row[1] <= now - self.session_ttl_ms:
            return None
        if row[1] <= now - self._refresh_after_ms:  # in use: keep it another TTL
            self._write(
                lambda db: db.execute(
                    "UPDATE sessions SET used_ms = ? WHERE token_hash = ?", (now, token_hash)
                )
            )
        data: bytes = row[0]
        return data

    async def delete_session(self, token_hash: str) -> None:
        def delete(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))

        await self._call(lambda: self._write(delete))

    async def expire_sessions(self) -> int:
        """Drop sessions unused for ``session_ttl_ms``; how many."""
        return await self._call(self._expire_sessions)

    def _expire_sessions(self) -> int:
        cutoff = now_ms() - self.session_ttl_ms
        return self._write(
            lambda db: db.execute("DELETE FROM sessions WHERE used_ms <= ?", (cutoff,)).rowcount
        )

    # -- ratings ---------------------------------------------------------------------

    async def rating(self, pool: str, player_id: str) -> PlayerRating:
        return await self._call(lambda: _standing(self._database(), pool, player_id, now_ms()))

    async def rate(
        self,
        pool: str,
        game_id: str,
        black: str,
        white: str,
        black_score: float,
        *,
        ended_ms: int | None = None,
    ) -> RatedGame | None:
        ended = now_ms() if ended_ms is None else ended_ms

        def rate(db: sqlite3.Connection) -> RatedGame:
            done = db.execute(
                "SELECT standings FROM rated_games WHERE pool = ? AND game = ?", (pool, game_id)
            ).fetchone()
            if done is not None:  # rated already: what it did then
                rows = _rated_decoder.decode(done[0])
                return RatedGame(
                    (_from_row(rows[0]), _from_row(rows[1])),
                    (_from_row(rows[2]), _from_row(rows[3])),
                )
            before = (_standing(db, pool, black, ended), _standing(db, pool, white, ended))
            rated = RatedGame(before, apply_game(*before, black_score))
            for player_id, standing in zip((black, white), rated.after, strict=True):
                db.execute(
                    "INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (pool, player_id, *_row(standing)),
                )
                db.execute(
                    "INSERT INTO rated_at VALUES (?, ?, ?) ON CONFLICT (pool, player) "
                    "DO UPDATE SET played_ms = max(played_ms, excluded.played_ms)",
                    (pool, player_id, ended),
                )
            standings = msgspec.msgpack.encode([_row(s) for s in (*rated.before, *rated.after)])
            db.execute("INSERT INTO rated_games VALUES (?, ?, ?)", (pool, game_id, standings))
            return rated

        return await self._call(lambda: self._write(rate))

    async def leaderboard(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        def board() -> list[tuple[str, PlayerRating]]:
            # In the board's order, the first ``limit`` players still established now
            # (time away may have made some provisional again).
            rows = self._database().execute(
                f"SELECT r.player, {_STANDINGS} WHERE r.pool = ? AND r.rd <= ? "
                "ORDER BY r.rating DESC, r.player",
                (pool, PROVISIONAL_RD),
            )
            at, found = now_ms(), []
            for row in rows:
                standing = standing_at(_from_row(row[1:7]), row[7], at)
                if not standing.rating.provisional:
                    found.append((row[0], standing))
                    if len(found) == limit:
                        break
            return found

        return await self._call(board)

    async def unsettled(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        def board() -> list[tuple[str, PlayerRating]]:
            # The stored RD is the one their last rated game left: provisional then.
            rows = self._database().execute(
                f"SELECT r.player, {_STANDINGS} WHERE r.pool = ? AND r.rd > ? "
                "ORDER BY r.rating DESC, r.player LIMIT ?",
                (pool, PROVISIONAL_RD, limit),
            )
            at = now_ms()
            return [(row[0], standing_at(_from_row(row[1:7]), row[7], at)) for row in rows]

        return await self._call(board)

    # -- finished games and names ------------------------------------------------------

    async def keep_games(self, data: bytes) -> None:
        """Keep the games being played (:mod:`server.store.kept`) until a start serves
        them (:meth:`kept_games`, :meth:`forget_kept_games`); what an earlier stop kept
        and no start took up is replaced."""

        def put(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO kept_games VALUES (1, ?, ?)", (data, now_ms()))
            db.execute(f"PRAGMA user_version={KEPT_VERSION}")

        await self._call(lambda: self._write(put))

    async def kept_games(self) -> bytes | None:
        """The games a stop kept (:meth:`keep_games`); they stay in the file until
        :meth:`forget_kept_games`: a start that fails after reading them (its port taken,
        say) leaves them for the next one."""

        def read() -> bytes | None:
            row = self._database().execute("SELECT data FROM kept_games WHERE id = 1").fetchone()
            return None if row is None else bytes(row[0])

        return await self._call(read)

    async def forget_kept_games(self) -> None:
        """The kept games were taken up by a start that now serves them: one start takes
        them up, never two."""

        def forget(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM kept_games")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

        await self._call(lambda: self._write(forget))

    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        def put(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO records VALUES (?, ?)", (game_id, record))
            db.executemany(
                "INSERT OR REPLACE INTO player_games VALUES (?, ?, ?)",
                [(player_id, game_id, ended_ms) for player_id in player_ids],
            )

        await self._call(lambda: self._write(put))

    async def get_record(self, game_id: str) -> bytes | None:
        def get() -> bytes | None:
            row = (
                self._database()
                .execute("SELECT data FROM records WHERE game = ?", (game_id,))
                .fetchone()
            )
            return None if row is None else bytes(row[0])

        return await self._call(get)

    async def player_games(
        self, player_id: str, limit: int = 20, before_ms: int | None = None
    ) -> list[str]:
        def games() -> list[str]:
            before = (1 << 62) if before_ms is None else before_ms
            rows = self._database().execute(
                "SELECT game FROM player_games WHERE player = ? AND ended_ms < ? "
                "ORDER BY ended_ms DESC, game DESC LIMIT ?",
                (player_id, before, limit),
            )
            return [row[0] for row in rows]

        return await self._call(games)

    async def recent_games(self, limit: int = 100, since_ms: int = 0) -> list[tuple[str, int]]:
        def games() -> list[tuple[str, int]]:
            rows = self._database().execute(
                "SELECT game, MAX(ended_ms) AS ended FROM player_games WHERE ended_ms >= ? "
                "GROUP BY game ORDER BY ended DESC, game DESC LIMIT ?",
                (since_ms, limit),
            )
            return [(row[0], int(row[1])) for row in rows]

        return await self._call(games)

    async def put_names(self, names: Mapping[str, str]) -> None:
        if not names:
            return
        rows = list(names.items())

        def put(db: sqlite3.Connection) -> None:
            db.executemany("INSERT OR REPLACE INTO names VALUES (?, ?)", rows)

        await self._call(lambda: self._write(put))

    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        def known() -> dict[str, str]:
            db = self._database()
            found: dict[str, str] = {}
            for player_id in dict.fromkeys(player_ids):
                row = db.execute("SELECT name FROM names WHERE player = ?", (player_id,))
                name = row.fetchone()
                if name is not None:
                    found[player_id] = name[0]
            return found

        return await self._call(known)


_STANDINGS = (
    "r.rating, r.rd, r.volatility, r.wins, r.losses, r.draws, t.played_ms "
    "FROM ratings r LEFT JOIN rated_at t ON t.pool = r.pool AND t.player = r.player"
)
"""Standings with when each player's last rated game ended: a standing's columns in
:func:`_from_row`'s order, then ``played_ms`` (None where not kept)."""


def _standing(db: sqlite3.Connection, pool: str, player_id: str, at_ms: int) -> PlayerRating:
    """The player's standing at ``at_ms`` (:func:`~server.store.archive.standing_at`)."""
    row = db.execute(
        f"SELECT {_STANDINGS} WHERE r.pool = ? AND r.player = ?", (pool, player_id)
    ).fetchone()
    return PlayerRating() if row is None else standing_at(_from_row(row[:6]), row[6], at_ms)


_Row = tuple[float, float, float, int, int, int]
_rated_decoder = msgspec.msgpack.Decoder(tuple[_Row, _Row, _Row, _Row])
"""What a rated game did: Black's and White's standings before it, then after it."""


def _row(standing: PlayerRating) -> _Row:
    r = standing.rating
    return (r.rating, r.rd, r.volatility, standing.wins, standing.losses, standing.draws)


def _from_row(row: Sequence[float]) -> PlayerRating:
    rating, rd, volatility, wins, losses, draws = row
    return PlayerRating(Rating(rating, rd, volatility), int(wins), int(losses), int(draws))


def _stopped(db: sqlite3.Connection) -> None:
    """This server closes the file: no word of a run that did not stop at the next start."""
    db.execute("DELETE FROM running")


def default_path() -> Path:
    """Where the embedded server keeps its data file unless told otherwise: the user's
    data directory (``~/.local/share/gomoku-arena/server.sqlite3`` on Linux, following
    ``$XDG_DATA_HOME``; the platform's own place on macOS and Windows)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("gomoku-arena", appauthor=False)) / "server.sqlite3"


__all__ = ["DataFile", "DataFileError", "default_path"]
