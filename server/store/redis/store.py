"""The Redis store: the same contract as the memory store, shared by every server instance.

How each part maps onto Redis (key names: :mod:`server.keys`):

* **Rooms.** A hash holds version, last seq, the encoded state and the clock
  deadline; a stream holds the event log with entry ids ``<seq>-0``, so a
  stream id *is* the sequence number clients resume from. One Lua script checks
  the expected version and writes state, events and deadline together; both
  keys share the ``{room:ID}`` hash tag, so the script is valid on Redis Cluster.
  Each commit carries a random token kept in the hash: if a connection drops and
  redis-py resends a commit that had in fact landed, the script recognises its own
  token and answers the original result instead of a conflict (no lost and no
  double-applied move, even on retry). The log is trimmed to ``max_events``
  exactly (``MAXLEN =``), so what is retained is predictable.
* **Fan-out.** Each commit PUBLISHes the room's last seq and new version on the
  room's "bell" channel (inside the script). An instance keeps one pub/sub connection
  for all its bells, and per watched room one reader that XRANGEs after its cursor when
  the bell rings and hands events to every local subscriber. Events this instance
  commits itself are handed over from the commit, without reading them back, and
  the reader also keeps the room's record as this instance last wrote or read it:
  while no bell announced a newer version (and for at most ``poll_interval_s``),
  :meth:`RedisStore.load_room` answers from it without a round trip. A stale record
  can only cost a conflict (the commit's version check) and a fresh read. The stream is the
  truth and pub/sub only a wake-up, so a lost message costs latency, not events:
  readers also poll every ``poll_interval_s`` and re-read after a reconnect. We
  chose this over XREAD BLOCK because a blocked connection serves one request:
  one per watched room would need a connection per room, and one XREAD over all
  rooms' keys is cross-slot on a cluster and must be interrupted to change its key list.
* **Clock deadlines.** The room hash holds the authoritative deadline; the
  sorted set ``{clocks}:due`` is an index of when to look at a room. It lives in
  another slot than the rooms, so it cannot be written in the commit script on a
  cluster. Instead, before the commit the new deadline is added with ``ZADD LT``
  (the index may only move *earlier*, never past the real deadline), and
  :meth:`claim_due` checks every due index entry against its room: truly due
  rooms are claimed with a lease (atomically, so one instance wins), others are
  re-filed at ``min(real deadline, now + lease)``. A crash anywhere can only make
  the index early, which costs one extra check, never a missed flag.
* **Lobby**: a hash plus a pub/sub channel, written together by one script.
* **Sessions, seats, invites**: plain strings and sets.
* **Matchmaking**: per queue a sorted set (rating) and a hash (since); pairing
  runs :func:`pair_queue` under WATCH/MULTI, so every backend pairs by one rule.
* **Player messages**: one pub/sub channel per player.
* **Ratings** (:class:`~server.store.archive.Archive`): per pool a hash of standings,
  a leaderboard sorted set and rated-once markers under one hash tag, updated by
  a WATCH/MULTI transaction (Glicko-2 runs in Python, :mod:`server.rating`).
* **Records**: one string per finished game (no expiry) and per player a sorted
  set of game ids by end time. Live room keys expire (``expire_room``); these stay.

The store keeps working when Redis restarts: commands reconnect on their own
(redis-py's pool with retries), and the pub/sub listener re-subscribes every
channel and re-reads every watched room and the lobby after a reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, ParamSpec, TypeVar, cast

import msgspec
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.keys import Keys
from server.rating import PlayerRating, Rating
from server.store.archive import LEADERBOARD_SIZE, Archive, RatedGame, apply_game, ranked
from server.store.base import (
    KEEP_DEADLINE,
    OWNED_ROOM_PENDING_MS,
    Announced,
    Attachment,
    Attendance,
    CommitResult,
    Conflict,
    LobbyChange,
    Outage,
    PlayerInbox,
    PlayerMessage,
    QueueEntry,
    RoomRecord,
    Store,
    StoredEvent,
    StoreUnavailable,
    pair_queue,
)

log = logging.getLogger("gomoku.store")

_T = TypeVar("_T")
_CLOSED = None
DAY_MS = 86_400_000
OWNED_ROOMS_TTL_MS = 7 * DAY_MS
"""A player's count of open rooms is forgotten a week after the last room was counted."""

# KEYS: state hash, event stream. ARGV: expected version, state, deadline mode
# ("k"eep / "s"et / "c"lear), deadline, max events, bell channel, commit token, events...
_COMMIT = """
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then
  if redis.call('HGET', KEYS[1], 'token') == ARGV[7] then
    local done = redis.call('HMGET', KEYS[1], 'version', 'first', 'seq')
    return {tonumber(done[1]), tonumber(done[2]), tonumber(done[3])}
  end
  return {-1, version}
end
if version == 0 then
  redis.call('DEL', KEYS[2])
end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
local first = seq + 1
for i = 8, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[2], 'MAXLEN', '=', ARGV[5], seq .. '-0', 'd', ARGV[i])
end
version = version + 1
redis.call('HSET', KEYS[1], 'version', version, 'seq', seq, 'first', first,
           'state', ARGV[2], 'token', ARGV[7])
if ARGV[3] == 's' then
  redis.call('HSET', KEYS[1], 'deadline', ARGV[4])
elseif ARGV[3] == 'c' then
  redis.call('HDEL', KEYS[1], 'deadline')
end
if seq >= first then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
end
redis.call('PUBLISH', ARGV[6], seq .. ':' .. version)
return {version, first, seq}
"""

# KEYS: state hash. ARGV: deadline or "" to clear. Only an existing room gets a deadline.
_SET_DEADLINE = """
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'deadline')
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'deadline', ARGV[1])
end
return 0
"""

# KEYS: state hash, event stream, conns, people. ARGV: ttl ms. Returns 1 if the room exists.
_EXPIRE_ROOM = """
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 1 then
  for i = 2, #KEYS do
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
  end
  return 1
end
return 0
"""

# Appends events without a version check (chat, spectator counts): shared by the scripts
# below. KEYS[1] state hash, KEYS[2] event stream; `events` a list; returns first, last.
_APPEND_EVENTS = """
local function append_events(events, maxlen, bell)
  local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
  local first = seq + 1
  for i = 1, #events do
    seq = seq + 1
    redis.call('XADD', KEYS[2], 'MAXLEN', '=', maxlen, seq .. '-0', 'd', events[i])
  end
  redis.call('HSET', KEYS[1], 'seq', seq)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
  redis.call('PUBLISH', bell, seq .. ':' .. (redis.call('HGET', KEYS[1], 'version') or '0'))
  return {first, seq}
end
"""

# KEYS: state hash, event stream. ARGV: max events, bell channel, events...
_APPEND = (
    _APPEND_EVENTS
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
local events = {}
for i = 3, #ARGV do
  events[#events + 1] = ARGV[i]
end
return append_events(events, ARGV[1], ARGV[2])
"""
)

# KEYS: state hash, event stream. ARGV: count, now, every ms, event, max events, bell,
# due ("1": the room fell due). Returns {kind, value}: kind 1 appended (value: seq), 2 held
# (value: when it falls due), 0 nothing, -1 no such room.
_ANNOUNCE = (
    _APPEND_EVENTS
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
if ARGV[7] == '1' then
  redis.call('HDEL', KEYS[1], 'count_due')
end
local count = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local shown = tonumber(redis.call('HGET', KEYS[1], 'shown') or '0')
if count == shown or redis.call('HEXISTS', KEYS[1], 'count_due') == 1 then
  return {0, 0}
end
local at = tonumber(redis.call('HGET', KEYS[1], 'shown_at') or '0')
if at > 0 and now < at + tonumber(ARGV[3]) then
  local due = at + tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], 'count_due', due)
  return {2, due}
end
redis.call('HSET', KEYS[1], 'shown', count, 'shown_at', now)
local done = append_events({ARGV[4]}, ARGV[5], ARGV[6])
return {1, done[2]}
"""
)

# KEYS: state hash, conns, people. ARGV: connection, player, instance.
# Returns the player's attached connections, or -1 when there is no such room.
_ATTACH = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
  return tonumber(redis.call('HGET', KEYS[3], 'n:' .. ARGV[2]) or '0')
end
local n = redis.call('HINCRBY', KEYS[3], 'n:' .. ARGV[2], 1)
if n == 1 then
  redis.call('HINCRBY', KEYS[3], 'players', 1)
end
redis.call('HINCRBY', KEYS[3], 'i:' .. ARGV[3], 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return n
"""

# Detaches one connection; shared by the scripts below. KEYS[1] conns, KEYS[2] people.
# Returns the player, their connections left, and the instance's connections left here.
_DROP_CONN = """
local function drop_conn(conn, now)
  local player = redis.call('HGET', KEYS[1], conn)
  if not player then
    return nil
  end
  redis.call('HDEL', KEYS[1], conn)
  local n = redis.call('HINCRBY', KEYS[2], 'n:' .. player, -1)
  if n <= 0 then
    redis.call('HDEL', KEYS[2], 'n:' .. player)
    redis.call('HINCRBY', KEYS[2], 'players', -1)
    redis.call('HSET', KEYS[2], 'left:' .. player, now)
    n = 0
  end
  local instance = 'i:' .. string.match(conn, '^[^/]*')
  local mine = redis.call('HINCRBY', KEYS[2], instance, -1)
  if mine <= 0 then
    redis.call('HDEL', KEYS[2], instance)
    mine = 0
  end
  return {player, n, mine}
end
"""

# KEYS: conns, people. ARGV: connection, now. Returns {player's connections left, the
# instance's connections left here}, or {-1, -1} when the connection was not attached.
_DETACH = (
    _DROP_CONN
    + """
local done = drop_conn(ARGV[1], ARGV[2])
if not done then
  return {-1, -1}
end
return {done[2], done[3]}
"""
)

# KEYS: conns, people. ARGV: instance id, now. Detaches every connection of the instance;
# returns the players whose last connection it was.
_REAP = (
    _DROP_CONN
    + """
local prefix = ARGV[1] .. '/'
local conns = redis.call('HKEYS', KEYS[1])
local gone = {}
for i = 1, #conns do
  if string.sub(conns[i], 1, #prefix) == prefix then
    local done = drop_conn(conns[i], ARGV[2])
    if done[2] == 0 then
      gone[#gone + 1] = done[1]
    end
  end
end
return gone
"""
)

# KEYS: deadline index. ARGV: room, score seen, action, new score.
# "claim": lease it if still due. "move": re-file it if nobody touched it since we
# looked. "drop": remove it under the same condition (its room is gone).
_CLAIM = """
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current then
  return 0
end
current = tonumber(current)
if ARGV[3] == 'claim' then
  if current <= tonumber(ARGV[2]) then
    redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
    return 1
  end
  return 0
end
if current ~= tonumber(ARGV[2]) then
  return 0
end
if ARGV[3] == 'drop' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
end
return 0
"""

# KEYS: beat hash. ARGV: now, gap. The beat only moves forward; a gap longer than `gap`
# since the previous beat is recorded as the latest outage. Returns the latest outage.
_BEAT = """
local now = tonumber(ARGV[1])
local previous = tonumber(redis.call('HGET', KEYS[1], 'beat') or '')
if previous == nil or now > previous then
  redis.call('HSET', KEYS[1], 'beat', ARGV[1])
end
if previous ~= nil and now - previous > tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'start', previous, 'end', ARGV[1])
end
return redis.call('HMGET', KEYS[1], 'start', 'end')
"""

# KEYS: lobby hash. ARGV: channel, room, summary, message for subscribers.
_LOBBY_PUT = """
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PUBLISH', ARGV[1], ARGV[4])
return 0
"""

# KEYS: lobby hash. ARGV: channel, room, message.
_LOBBY_REMOVE = """
if redis.call('HDEL', KEYS[1], ARGV[2]) == 1 then
  redis.call('PUBLISH', ARGV[1], ARGV[3])
end
return 0
"""

# KEYS: queue ratings, queue since. ARGV: player, rating, (since, name) as MessagePack.
_QUEUE_ADD = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
"""

# KEYS: queue ratings, queue since. ARGV: player.
_QUEUE_REMOVE = """
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
"""

# KEYS: a player's owned rooms. ARGV: room, now ms, limit, ttl ms. Counts the room if the
# player owns fewer than `limit` (or it is counted already); the key outlives its last
# room by `ttl` (a room whose end was never released cannot hold a slot for ever).
_OWN_ROOM = """
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
    return 0
  end
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS: invite. ARGV: room id it pointed at (gone), new room id.
_INVITE_REPLACE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

# KEYS: AI seats hash. ARGV: player, new record, the record it must replace.
_PUT_AI_SEAT = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and current ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _runs_to_completion(
    method: Callable[_P, Coroutine[Any, Any, _R]],
) -> Callable[_P, Coroutine[Any, Any, _R]]:
    """Run the store call in its own task and shield it from the caller's cancellation.

    redis-py 8.1 can absorb a task's cancellation that arrives while a command is in
    flight (the command then returns normally), which would make a cancelled server
    loop run on and ``asyncio.timeout`` around a store call never fire. Shielded, the
    caller gets CancelledError at once, and the Redis command still completes (so a
    commit is never cut in half between sending it and reading its reply).

    The store keeps each such task until it ends, and :meth:`RedisStore.close` waits for
    them before it closes the connection pool: a call whose caller was cancelled goes on
    in its task, and closing the pool under it would leave redis-py to reconnect a
    connection that nobody closes afterwards (an unclosed socket). A call made after
    ``close`` is refused with :class:`StoreUnavailable`.

    A Redis that cannot be reached (after redis-py's own retries) is reported as
    :class:`StoreUnavailable`, the store-neutral error the server turns into the
    ``unavailable`` error code.
    """

    @functools.wraps(method)
    async def shielded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        store = args[0]
        assert isinstance(store, RedisStore)
        if store._closed:
            raise StoreUnavailable("the redis store is closed")
        task = asyncio.ensure_future(method(*args, **kwargs))
        store._inflight.add(task)
        task.add_done_callback(store._call_done)
        try:
            return await asyncio.shield(task)
        except StoreUnavailable:
            raise
        except (RedisConnectionError, RedisTimeoutError, ConnectionError) as exc:
            raise StoreUnavailable(f"redis is unreachable: {exc}") from exc

    return shielded


def _bell(data: bytes) -> tuple[int, int]:
    """A room bell's ``seq:version`` (0 for what cannot be read: it still wakes the reader)."""
    seq, _, version = data.partition(b":")
    try:
        return int(seq), int(version or 0)
    except ValueError:
        return 1 << 62, 0


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _seq_of(entry_id: bytes | str) -> int:
    return int(_text(entry_id).split("-", 1)[0])


def _events(entries: list[Any]) -> list[StoredEvent]:
    return [StoredEvent(_seq_of(entry_id), fields[b"d"]) for entry_id, fields in entries]


MAX_REDIS_CONNECTIONS = 256
"""Redis connections one server instance opens at most (commands beyond wait for one)."""


class RedisStore(Store, Archive):
    """The store on a Redis server (or cluster-compatible layout) at ``url``.

    ``max_events`` caps each room's log; ``session_ttl_ms`` is how long a resume
    token stays valid after its last use; ``poll_interval_s`` bounds how late a
    watched room's reader notices events if a pub/sub wake-up was lost.
    """

    def __init__(
        self,
        url: str,
        *,
        max_events: int = 2000,
        prefix: str = "gomoku",
        session_ttl_ms: int = 30 * DAY_MS,
        poll_interval_s: float = 5.0,
    ) -> None:
        self.url = url
        self.max_events = max_events
        self.keys = Keys(prefix)
        self.session_ttl_ms = session_ttl_ms
        self.poll_interval_s = poll_interval_s
        # A blocking pool: when every connection is busy (a burst of players), a command
        # waits for one instead of failing with "Too many connections" (redis-py's
        # default pool holds 100 and refuses the 101st command in flight).
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=MAX_REDIS_CONNECTIONS,
            timeout=5.0,
            socket_timeout=5.0,
            socket_connect_timeout=2.0,
            health_check_interval=10,
            retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), retries=3),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
            client_name="gomoku-server",
        )
        self.redis: Redis = Redis(connection_pool=pool)
        self._commit = self.redis.register_script(_COMMIT)
        self._set_deadline = self.redis.register_script(_SET_DEADLINE)
        self._expire = self.redis.register_script(_EXPIRE_ROOM)
        self._append = self.redis.register_script(_APPEND)
        self._announce = self.redis.register_script(_ANNOUNCE)
        self._attach = self.redis.register_script(_ATTACH)
        self._detach = self.redis.register_script(_DETACH)
        self._reap = self.redis.register_script(_REAP)
        self._claim = self.redis.register_script(_CLAIM)
        self._beat = self.redis.register_script(_BEAT)
        self._lobby_put = self.redis.register_script(_LOBBY_PUT)
        self._lobby_remove = self.redis.register_script(_LOBBY_REMOVE)
        self._queue_add = self.redis.register_script(_QUEUE_ADD)
        self._queue_remove = self.redis.register_script(_QUEUE_REMOVE)
        self._invite_replace = self.redis.register_script(_INVITE_REPLACE)
        self._own_room = self.redis.register_script(_OWN_ROOM)
        self._bus = _Bus(self)
        self._feeds: dict[str, _RoomFeed] = {}
        self._feeds_lock = asyncio.Lock()
        self._lobby_followers: set[asyncio.Queue[LobbyChange | None]] = set()
        self._lobby_mirror: dict[str, bytes] | None = None
        self._inboxes: set[_RedisInbox] = set()
        self._player_refs: dict[str, int] = {}
        self._inflight: set[asyncio.Future[Any]] = set()
        """Store calls under way in their own tasks (see ``_runs_to_completion``)."""
        self._closed = False

    def _call_done(self, task: asyncio.Future[Any]) -> None:
        """A store call's task ended. Its outcome went to its caller, unless the caller was
        cancelled meanwhile: then nobody wants it (an error is not worth a log line)."""
        self._inflight.discard(task)
        if not task.cancelled():
            task.exception()

    def __repr__(self) -> str:
        parts = urllib.parse.urlsplit(self.url)
        url = self.url
        if parts.password is not None:  # never log a password
            url = urllib.parse.urlunsplit(
                parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
            )
        return f"RedisStore({url!r})"

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()
        await self._bus.start()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._bus.close()
        for feed in list(self._feeds.values()):
            await feed.stop()
        self._feeds.clear()
        for lobby_queue in self._lobby_followers:
            lobby_queue.put_nowait(_CLOSED)
        for inbox in self._inboxes:
            inbox.queue.put_nowait(_CLOSED)
        if self._inflight:  # calls whose callers were cancelled: let them return their connection
            await asyncio.wait(set(self._inflight), timeout=10.0)
        await self.redis.aclose(close_connection_pool=True)  # the pool is ours

    async def healthy(self) -> bool:
        """Redis answers PING, and this instance's pub/sub connection (its live fan-out) is up."""
        try:
            async with asyncio.timeout(2.0):
                pong = await asyncio.shield(self.redis.ping())
            return bool(pong) and self._bus.connected.is_set()
        except (RedisError, OSError, TimeoutError):
            return False

    # -- rooms -----------------------------------------------------------------

    async def load_room(self, room_id: str, *, fresh: bool = False) -> RoomRecord | None:
        feed = self._feeds.get(room_id)
        if feed is not None and not fresh:
            known = feed.current_record()
            if known is not None:
                return known._replace(remembered=True)
        record = await self._load_room(room_id)
        if feed is not None and record is not None and self._feeds.get(room_id) is feed:
            feed.remember(record)
        return record

    @_runs_to_completion
    async def _load_room(self, room_id: str) -> RoomRecord | None:
        fields: list[Any] = await self.redis.hmget(
            self.keys.room_state(room_id), ["version", "seq", "state"]
        )
        version, seq, state = fields
        if version is None:
            return None
        return RoomRecord(int(version), int(seq), state)

    async def commit(
        self,
        room_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[bytes] = (),
        *,
        deadline_ms: int | None = KEEP_DEADLINE,
    ) -> CommitResult:
        feed = self._feeds.get(room_id)
        if feed is None:
            return await self._write_room(room_id, expected_version, state, events, deadline_ms)
        feed.local_commits += 1  # its own bell need not wake the reader
        try:
            result = await self._write_room(room_id, expected_version, state, events, deadline_ms)
            feed.remember(RoomRecord(result.version, result.last_seq, state))
            if events and result.last_seq - result.first_seq + 1 == len(events):
                feed.committed(result.first_seq, events)
            return result
        except Conflict:
            feed.forget()
            raise
        finally:
            feed.local_commits -= 1
            feed.settle()

    @_runs_to_completion
    async def _write_room(
        self,
        room_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[bytes],
        deadline_ms: int | None,
    ) -> CommitResult:
        keys = [self.keys.room_state(room_id), self.keys.room_events(room_id)]
        if deadline_ms is None:
            mode, deadline = "c", 0
        elif deadline_ms == KEEP_DEADLINE:
            mode, deadline = "k", 0
        else:
            mode, deadline = "s", deadline_ms
        args: list[bytes | str | int] = [
            expected_version,
            state,
            mode,
            deadline,
            self.max_events,
            self.keys.room_bell(room_id),
            os.urandom(8).hex(),
            *events,
        ]
        if mode == "s" or expected_version == 0:
            # File the deadline in the index first (only ever earlier: LT), so no crash
            # between the two steps can leave a running clock that nobody will flag; and
            # a new room in the index of rooms (NX: a create that conflicts names a room
            # that is there anyway, and must not lose its expiry time).
            async with self.redis.pipeline(transaction=False) as pipe:
                if mode == "s":
                    pipe.zadd(self.keys.deadlines, {room_id: deadline}, lt=True)
                if expected_version == 0:
                    pipe.zadd(self.keys.rooms, {room_id: "+inf"}, nx=True)
                await self._commit(keys, args, client=pipe)
                reply = (await pipe.execute())[-1]
        else:
            reply = await self._commit(keys, args)
        if reply[0] == -1:
            raise Conflict(
                f"room {room_id}: expected version {expected_version}, found {reply[1] or None}"
            )
        return CommitResult(int(reply[0]), int(reply[1]), int(reply[2]))

    @_runs_to_completion
    async def read_events(self, room_id: str, after_seq: int) -> list[StoredEvent] | None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(self.keys.room_state(room_id), "seq")
            pipe.xrange(self.keys.room_events(room_id), min=f"{after_seq + 1}-0")
            seq, entries = await pipe.execute()
        if seq is None:
            return None
        if after_seq >= int(seq):
            return []
        events = _events(entries)
        if not events or events[0].seq != after_seq + 1:
            return None  # trimmed: the reader needs a snapshot
        return events

    async def _read_range(self, room_id: str, after_seq: int, upto: int | None) -> list[Any]:
        return cast(
            list[Any],
            await self.redis.xrange(
                self.keys.room_events(room_id),
                min=f"{after_seq + 1}-0",
                max="+" if upto is None else f"{upto}-0",
            ),
        )

    @asynccontextmanager
    async def _listening(self, room_id: str, listener: _Listener) -> AsyncIterator[None]:
        """Attach ``listener`` to the room's feed for the context: the retained events
        after its ``last`` first, then every new one (ended at once if there is no room)."""
        feed = await self._feed(room_id)
        if feed is None:
            listener.end()
            yield
            return
        cursor = feed.cursor  # the feed hands everything after this to the listener
        feed.listeners.add(listener)
        try:
            backlog = []
            if cursor > listener.last:
                backlog = _events(await self._read_range(room_id, listener.last, cursor))
            listener.open(backlog)
            yield
        finally:
            feed.listeners.discard(listener)
            if not feed.listeners:
                async with self._feeds_lock:
                    if not feed.listeners and self._feeds.get(room_id) is feed:
                        del self._feeds[room_id]
                        await feed.stop()

    @asynccontextmanager
    async def _follow_room(
        self, room_id: str, after_seq: int
    ) -> AsyncIterator[AsyncIterator[StoredEvent]]:
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue()
        listener = _Listener(queue.put_nowait, lambda: queue.put_nowait(_CLOSED), after_seq)
        async with self._listening(room_id, listener):
            yield _drain(queue)

    def subscribe_room(
        self, room_id: str, after_seq: int
    ) -> AbstractAsyncContextManager[AsyncIterator[StoredEvent]]:
        return self._follow_room(room_id, after_seq)

    @asynccontextmanager
    async def _listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AsyncIterator[asyncio.Future[None]]:
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def end() -> None:
            if not ended.done():
                ended.set_result(None)

        async with self._listening(room_id, _Listener(deliver, end, after_seq)):
            yield ended

    def listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AbstractAsyncContextManager[asyncio.Future[None]]:
        """Events reach ``deliver`` straight from the room's feed (from the commit for this
        instance's own commits), without a queue and a task switch per event."""
        return self._listen_room(room_id, after_seq, deliver)

    async def _feed(self, room_id: str) -> _RoomFeed | None:
        """This instance's reader of the room's log, started on first use; None if no room."""
        async with self._feeds_lock:
            feed = self._feeds.get(room_id)
            if feed is not None:
                return feed
            bell = self.keys.room_bell(room_id)
            feed = _RoomFeed(self, room_id, bell)
            await self._bus.subscribe(bell, feed.ring)
            seq = await self.redis.hget(self.keys.room_state(room_id), "seq")
            if seq is None:
                await self._bus.unsubscribe(bell)
                return None
            feed.cursor = int(seq)
            feed.start()
            self._feeds[room_id] = feed
            return feed

    @_runs_to_completion
    async def expire_room(self, room_id: str, ttl_ms: int, *, invite: str | None = None) -> None:
        feed = self._feeds.get(room_id)
        if feed is not None:
            feed.forget()  # the record must not outlive the room
        ttl_ms = max(1, ttl_ms)
        if await self._expire(self.keys.room_keys(room_id), [ttl_ms]):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self.keys.rooms, {room_id: int(time.time() * 1000) + ttl_ms})
                if invite is not None:
                    pipe.pexpire(self.keys.invite(invite), ttl_ms)
                await pipe.execute()

    async def append(self, room_id: str, events: Sequence[bytes]) -> CommitResult | None:
        feed = self._feeds.get(room_id)
        if feed is None:
            return await self._append_events(room_id, events)
        feed.local_commits += 1  # its own bell need not wake the reader
        try:
            result = await self._append_events(room_id, events)
            if result is not None:
                feed.appended(result.last_seq)
                if result.last_seq - result.first_seq + 1 == len(events):
                    feed.committed(result.first_seq, events)
            return result
        finally:
            feed.local_commits -= 1
            feed.settle()

    @_runs_to_completion
    async def _append_events(self, room_id: str, events: Sequence[bytes]) -> CommitResult | None:
        keys = [self.keys.room_state(room_id), self.keys.room_events(room_id)]
        args: list[bytes | str | int] = [self.max_events, self.keys.room_bell(room_id), *events]
        first, last = await self._append(keys, args)
        if first == -1:
            return None
        return CommitResult(0, int(first), int(last))

    async def announce_count(
        self, room_id: str, count: int, event: bytes, now_ms: int, every_ms: int, *, due: bool
    ) -> Announced:
        feed = self._feeds.get(room_id)
        if feed is None:
            return await self._announce_count(room_id, count, event, now_ms, every_ms, due)
        feed.local_commits += 1
        try:
            done = await self._announce_count(room_id, count, event, now_ms, every_ms, due)
            if done.seq:
                feed.appended(done.seq)
                feed.committed(done.seq, [event])
            return done
        finally:
            feed.local_commits -= 1
            feed.settle()

    @_runs_to_completion
    async def _announce_count(
        self, room_id: str, count: int, event: bytes, now_ms: int, every_ms: int, due: bool
    ) -> Announced:
        keys = [self.keys.room_state(room_id), self.keys.room_events(room_id)]
        args: list[bytes | str | int] = [count, now_ms, every_ms, event, self.max_events]
        args += [self.keys.room_bell(room_id), "1" if due else "0"]
        kind, value = await self._announce(keys, args)
        if kind == -1:
            return Announced(room_gone=True)
        if kind == 1:
            return Announced(seq=int(value))
        if kind == 2:
            # File the held announcement's due time (only ever earlier: LT).
            await self.redis.zadd(self.keys.deadlines, {room_id: int(value)}, lt=True)
            return Announced(due_ms=int(value))
        return Announced()

    # -- attachments (presence) --------------------------------------------------

    @_runs_to_completion
    async def attach(self, room_id: str, player_id: str, conn_id: str) -> int | None:
        instance = conn_id.partition("/")[0]
        keys = [
            self.keys.room_state(room_id),
            self.keys.room_conns(room_id),
            self.keys.room_people(room_id),
        ]
        # The instance's index first: a crash in between leaves an index entry for a room
        # where it has nothing attached, which its reaping skips.
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(self.keys.instance_rooms(instance), room_id)
            await self._attach(keys, [conn_id, player_id, instance], client=pipe)
            count = (await pipe.execute())[-1]
        return None if count == -1 else int(count)

    @_runs_to_completion
    async def detach(self, room_id: str, conn_id: str, now_ms: int) -> int | None:
        keys = [self.keys.room_conns(room_id), self.keys.room_people(room_id)]
        count, mine = await self._detach(keys, [conn_id, now_ms])
        if count == -1:
            return None
        if mine == 0:  # this instance has nothing attached there any more
            await self.redis.srem(self.keys.instance_rooms(conn_id.partition("/")[0]), room_id)
        return int(count)

    @_runs_to_completion
    async def attendance(self, room_id: str, players: Sequence[str]) -> Attendance:
        fields = ["players"]
        for player in players:
            fields += [f"n:{player}", f"left:{player}"]
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(self.keys.room_people(room_id), fields)
            pipe.hget(self.keys.room_state(room_id), "shown")
            found, shown = await pipe.execute()
        seated: dict[str, Attachment] = {}
        for i, player in enumerate(players):
            conns, left = found[1 + 2 * i], found[2 + 2 * i]
            if conns is not None or left is not None:
                seated[player] = Attachment(int(conns or 0), None if left is None else int(left))
        return Attendance(int(found[0] or 0), seated, int(shown or 0))

    @_runs_to_completion
    async def instance_beat(self, instance_id: str, until_ms: int) -> None:
        await self.redis.zadd(self.keys.instance_leases, {instance_id: until_ms})

    @_runs_to_completion
    async def expired_instances(self, now_ms: int, lease_ms: int) -> list[str]:
        leases = self.keys.instance_leases
        seen: list[Any] = await self.redis.zrangebyscore(
            leases, "-inf", now_ms, start=0, num=20, withscores=True
        )
        if not seen:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for member, _score in seen:
                await self._claim(
                    [leases], [member, now_ms, "claim", now_ms + lease_ms], client=pipe
                )
            won = await pipe.execute()
        return [_text(member) for (member, _), ok in zip(seen, won, strict=True) if ok == 1]

    @_runs_to_completion
    async def reap_instance(self, instance_id: str, now_ms: int) -> dict[str, list[str]]:
        index = self.keys.instance_rooms(instance_id)
        rooms = sorted(_text(r) for r in await self.redis.smembers(index))
        gone: dict[str, list[str]] = {}
        for room_id in rooms:
            keys = [self.keys.room_conns(room_id), self.keys.room_people(room_id)]
            players = await self._reap(keys, [instance_id, now_ms])
            if players:
                gone[room_id] = [_text(p) for p in players]
        # Forgotten only once every room is done: a reaper that dies half-way leaves the
        # rest to the next one (the lease of the dead instance is still in the index).
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(index)
            pipe.zrem(self.keys.instance_leases, instance_id)
            await pipe.execute()
        return gone

    @_runs_to_completion
    async def purge(self) -> None:
        await self.redis.zremrangebyscore(self.keys.rooms, "-inf", int(time.time() * 1000))

    @_runs_to_completion
    async def count_rooms(self) -> int:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(self.keys.rooms, "-inf", int(time.time() * 1000))
            pipe.zcard(self.keys.rooms)
            _, count = await pipe.execute()
        return int(count)

    @_runs_to_completion
    async def count_lobby(self) -> int:
        return int(await self.redis.hlen(self.keys.lobby))

    # -- clock deadlines -------------------------------------------------------

    @_runs_to_completion
    async def set_deadline(self, room_id: str, deadline_ms: int | None) -> None:
        state_key = self.keys.room_state(room_id)
        if deadline_ms is None:
            await self._set_deadline([state_key], [""])
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self.keys.deadlines, {room_id: deadline_ms}, lt=True)
            await self._set_deadline([state_key], [deadline_ms], client=pipe)
            await pipe.execute()

    @_runs_to_completion
    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        claimed: list[tuple[int, str]] = []
        for _ in range(3):  # each round re-files or leases what it saw, so rounds progress
            want = limit - len(claimed)
            if want <= 0:
                break
            seen: list[Any] = await self.redis.zrangebyscore(
                self.keys.deadlines, "-inf", now_ms, start=0, num=want, withscores=True
            )
            if not seen:
                break
            rooms = [(_text(member), int(score)) for member, score in seen]
            async with self.redis.pipeline(transaction=False) as pipe:
                for room_id, _score in rooms:
                    pipe.hmget(self.keys.room_state(room_id), ["version", "deadline", "count_due"])
                facts = await pipe.execute()
            actions: list[tuple[str, int, str, int, int | None]] = []
            for (room_id, score), (version, *dues) in zip(rooms, facts, strict=True):
                known = [int(d) for d in dues if d is not None]
                real = min(known) if known else None
                if version is None:
                    actions.append((room_id, score, "drop", 0, None))
                elif real is None:
                    actions.append((room_id, score, "move", now_ms + lease_ms, None))
                elif real <= now_ms:
                    actions.append((room_id, now_ms, "claim", now_ms + lease_ms, real))
                else:
                    actions.append((room_id, score, "move", min(real, now_ms + lease_ms), None))
            async with self.redis.pipeline(transaction=False) as pipe:
                for room_id, score, action, new_score, _real in actions:
                    await self._claim(
                        [self.keys.deadlines], [room_id, score, action, new_score], client=pipe
                    )
                won = await pipe.execute()
            claimed += [
                (real, room_id)
                for (room_id, _s, action, _n, real), ok in zip(actions, won, strict=True)
                if action == "claim" and ok == 1 and real is not None
            ]
            if len(seen) < want:
                break
        return [room_id for _, room_id in sorted(claimed)]

    @_runs_to_completion
    async def beat(self, now_ms: int, gap_ms: int) -> Outage | None:
        start, end = await self._beat([self.keys.clock_beat], [now_ms, gap_ms])
        return None if start is None or end is None else Outage(int(start), int(end))

    # -- lobby -----------------------------------------------------------------

    @_runs_to_completion
    async def lobby_put(self, room_id: str, summary: bytes) -> None:
        message = msgspec.msgpack.encode((room_id, summary))
        await self._lobby_put(
            [self.keys.lobby], [self.keys.lobby_channel, room_id, summary, message]
        )

    @_runs_to_completion
    async def lobby_remove(self, room_id: str) -> None:
        message = msgspec.msgpack.encode((room_id, None))
        await self._lobby_remove([self.keys.lobby], [self.keys.lobby_channel, room_id, message])

    @_runs_to_completion
    async def lobby_list(self) -> dict[str, bytes]:
        rooms: dict[Any, Any] = await self.redis.hgetall(self.keys.lobby)
        return {_text(room_id): summary for room_id, summary in rooms.items()}

    def _on_lobby(self, message: bytes) -> None:
        room_id, summary = msgspec.msgpack.decode(message, type=tuple[str, bytes | None])
        self._tell_lobby(LobbyChange(room_id, summary))

    def _tell_lobby(self, change: LobbyChange) -> None:
        if self._lobby_mirror is not None:
            if change.summary is None:
                self._lobby_mirror.pop(change.room_id, None)
            else:
                self._lobby_mirror[change.room_id] = change.summary
        for lobby_queue in self._lobby_followers:
            lobby_queue.put_nowait(change)

    async def _resync_lobby(self) -> None:
        """After a pub/sub outage, tell lobby followers what changed while we were deaf."""
        if self._lobby_mirror is None:
            return
        before, now = dict(self._lobby_mirror), await self.lobby_list()
        for room_id, summary in now.items():
            if before.get(room_id) != summary:
                self._tell_lobby(LobbyChange(room_id, summary))
        for room_id in before.keys() - now.keys():
            self._tell_lobby(LobbyChange(room_id, None))

    @asynccontextmanager
    async def _follow_lobby(self) -> AsyncIterator[AsyncIterator[LobbyChange]]:
        queue: asyncio.Queue[LobbyChange | None] = asyncio.Queue()
        if self._lobby_mirror is None:
            self._lobby_mirror = await self.lobby_list()
        self._lobby_followers.add(queue)
        try:
            yield _drain(queue)
        finally:
            self._lobby_followers.discard(queue)
            if not self._lobby_followers:
                self._lobby_mirror = None

    def subscribe_lobby(self) -> AbstractAsyncContextManager[AsyncIterator[LobbyChange]]:
        return self._follow_lobby()

    # -- sessions, seats and invites ------------------------------------------

    @_runs_to_completion
    async def put_session(self, token_hash: str, data: bytes) -> None:
        await self.redis.set(self.keys.session(token_hash), data, px=self.session_ttl_ms)

    @_runs_to_completion
    async def get_session(self, token_hash: str) -> bytes | None:
        # A session in use lives on: each look at it starts its time to live again.
        data: Any = await self.redis.getex(self.keys.session(token_hash), px=self.session_ttl_ms)
        return cast(bytes | None, data)

    @_runs_to_completion
    async def delete_session(self, token_hash: str) -> None:
        await self.redis.delete(self.keys.session(token_hash))

    @_runs_to_completion
    async def add_player_room(self, player_id: str, room_id: str) -> None:
        # The seat list lives as long as the player's session may (rooms that are gone are
        # dropped from it as it is read).
        key = self.keys.player_rooms(player_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(key, room_id)
            pipe.pexpire(key, self.session_ttl_ms)
            await pipe.execute()

    @_runs_to_completion
    async def remove_player_room(self, player_id: str, room_id: str) -> None:
        await self.redis.srem(self.keys.player_rooms(player_id), room_id)

    @_runs_to_completion
    async def player_rooms(self, player_id: str) -> list[str]:
        key = self.keys.player_rooms(player_id)
        rooms = sorted(_text(r) for r in await self.redis.smembers(key))
        if not rooms:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in rooms:
                pipe.exists(self.keys.room_state(room_id))
            alive = await pipe.execute()
        gone = [room_id for room_id, ok in zip(rooms, alive, strict=True) if not ok]
        if gone:
            await self.redis.srem(key, *gone)
        return [room_id for room_id, ok in zip(rooms, alive, strict=True) if ok]

    @_runs_to_completion
    async def add_owned_room(self, player_id: str, room_id: str, limit: int, now_ms: int) -> bool:
        key = self.keys.owned_rooms(player_id)
        args: list[str | int] = [room_id, now_ms, limit, OWNED_ROOMS_TTL_MS]
        if await self._own_room([key], args):
            return True
        # At the cap: forget rooms counted long enough ago that are gone, then look again.
        # (The rooms live in other cluster slots, so this cannot be part of the script;
        # forgetting a gone room twice is harmless.)
        counted: list[Any] = await self.redis.zrangebyscore(
            key, "-inf", now_ms - OWNED_ROOM_PENDING_MS
        )
        settled = [_text(r) for r in counted]
        if not settled:
            return False
        async with self.redis.pipeline(transaction=False) as pipe:
            for owned in settled:
                pipe.exists(self.keys.room_state(owned))
            alive = await pipe.execute()
        gone = [r for r, ok in zip(settled, alive, strict=True) if not ok]
        if not gone:
            return False
        await self.redis.zrem(key, *gone)
        return bool(await self._own_room([key], args))

    @_runs_to_completion
    async def remove_owned_room(self, player_id: str, room_id: str) -> None:
        await self.redis.zrem(self.keys.owned_rooms(player_id), room_id)

    @_runs_to_completion
    async def owned_rooms(self, player_id: str) -> list[str]:
        owned: list[Any] = await self.redis.zrange(self.keys.owned_rooms(player_id), 0, -1)
        return sorted(_text(r) for r in owned)

    @_runs_to_completion
    async def put_invite(self, code: str, room_id: str) -> bool:
        key = self.keys.invite(code)
        if await self.redis.set(key, room_id, nx=True):
            return True
        holder = await self.redis.get(key)
        if holder is not None and await self.redis.exists(self.keys.room_state(_text(holder))):
            return False
        # The code belonged to a room that is gone: take it over, unless someone else just did.
        return bool(await self._invite_replace([key], [holder or b"", room_id]))

    @_runs_to_completion
    async def get_invite(self, code: str) -> str | None:
        room_id = await self.redis.get(self.keys.invite(code))
        if room_id is None or not await self.redis.exists(self.keys.room_state(_text(room_id))):
            return None
        return _text(room_id)

    # -- AI seats in play --------------------------------------------------------

    @_runs_to_completion
    async def put_ai_seat(
        self, player_id: str, data: bytes, *, replacing: bytes | None = None
    ) -> bool:
        key = self.keys.ai_seats
        if replacing is None:
            await self.redis.hset(key, player_id, data)
            return True
        # EVAL rather than a registered script: a handover is rare, and the check and
        # the write must be one step so that two instances never both win.
        written: Any = await self.redis.eval(_PUT_AI_SEAT, 1, key, player_id, data, replacing)
        return bool(written)

    @_runs_to_completion
    async def drop_ai_seat(self, player_id: str) -> None:
        await self.redis.hdel(self.keys.ai_seats, player_id)

    @_runs_to_completion
    async def ai_seats(self) -> dict[str, bytes]:
        seats: dict[Any, Any] = await self.redis.hgetall(self.keys.ai_seats)
        return {_text(player_id): data for player_id, data in seats.items()}

    # -- player messages -------------------------------------------------------

    @_runs_to_completion
    async def publish_player(self, player_id: str, data: bytes) -> None:
        await self.redis.publish(self.keys.player_channel(player_id), data)

    async def _watch_player(self, player_id: str) -> None:
        self._player_refs[player_id] = self._player_refs.get(player_id, 0) + 1
        if self._player_refs[player_id] == 1:
            await self._bus.subscribe(
                self.keys.player_channel(player_id),
                lambda data: self._on_player(player_id, data),
            )

    async def _unwatch_player(self, player_id: str) -> None:
        refs = self._player_refs.get(player_id, 0) - 1
        if refs > 0:
            self._player_refs[player_id] = refs
            return
        self._player_refs.pop(player_id, None)
        await self._bus.unsubscribe(self.keys.player_channel(player_id))

    def _on_player(self, player_id: str, data: bytes) -> None:
        message = PlayerMessage(player_id, data)
        for inbox in self._inboxes:
            if player_id in inbox.players:
                inbox.queue.put_nowait(message)

    @asynccontextmanager
    async def _inbox(self) -> AsyncIterator[PlayerInbox]:
        inbox = _RedisInbox(self)
        self._inboxes.add(inbox)
        try:
            yield inbox
        finally:
            self._inboxes.discard(inbox)
            for player_id in list(inbox.players):
                await inbox.remove(player_id)

    def subscribe_players(self) -> AbstractAsyncContextManager[PlayerInbox]:
        return self._inbox()

    # -- matchmaking -------------------------------------------------------------

    def _queue_keys(self, queue: str) -> list[str]:
        return [self.keys.queue_ratings(queue), self.keys.queue_since(queue)]

    @_runs_to_completion
    async def queue_add(self, queue: str, entry: QueueEntry) -> bool:
        waiting = msgspec.msgpack.encode((entry.since_ms, entry.name))
        args: list[str | bytes] = [entry.player_id, repr(float(entry.rating)), waiting]
        added = bool(await self._queue_add(self._queue_keys(queue), args))
        if added:
            await self.redis.sadd(self.keys.queue_names, queue)
        return added

    @_runs_to_completion
    async def queue_remove(self, queue: str, player_id: str) -> bool:
        return bool(await self._queue_remove(self._queue_keys(queue), [player_id]))

    @_runs_to_completion
    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrange(self.keys.queue_ratings(queue), 0, -1, withscores=True)
            pipe.hgetall(self.keys.queue_since(queue))
            ratings, since = await pipe.execute()
        return _entries(ratings, since)

    @_runs_to_completion
    async def queue_names(self) -> list[str]:
        names = sorted(_text(n) for n in await self.redis.smembers(self.keys.queue_names))
        if not names:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.zcard(self.keys.queue_ratings(name))
            sizes = await pipe.execute()
        return [name for name, size in zip(names, sizes, strict=True) if size]

    @_runs_to_completion
    async def queue_pair(
        self, queue: str, now_ms: int, *, base_gap: float, gap_per_second: float
    ) -> list[tuple[QueueEntry, QueueEntry]]:
        ratings_key, since_key = self._queue_keys(queue)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(ratings_key, since_key)
                    ratings: Any = await pipe.zrange(ratings_key, 0, -1, withscores=True)
                    since: Any = await pipe.hgetall(since_key)
                    pairs = pair_queue(
                        _entries(ratings, since),
                        now_ms,
                        base_gap=base_gap,
                        gap_per_second=gap_per_second,
                    )
                    if not pairs:
                        return []  # leaving the block resets the pipeline and its WATCH
                    pipe.multi()  # type: ignore[no-untyped-call]
                    taken = [e.player_id for pair in pairs for e in pair]
                    pipe.zrem(ratings_key, *taken)
                    pipe.hdel(since_key, *taken)
                    await pipe.execute()
                    return pairs
                except WatchError:
                    await asyncio.sleep(0)  # another instance paired first: look again
                    continue

    # -- ratings and records (Archive) -----------------------------------------

    @_runs_to_completion
    async def rating(self, pool: str, player_id: str) -> PlayerRating:
        data: Any = await self.redis.hget(self.keys.ratings(pool), player_id)
        return _decode_standing(data)

    @_runs_to_completion
    async def rate(
        self, pool: str, game_id: str, black: str, white: str, black_score: float
    ) -> RatedGame | None:
        ratings, board = self.keys.ratings(pool), self.keys.leaderboard(pool)
        marker = self.keys.rated_game(pool, game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(ratings, marker)
                    done: Any = await pipe.get(marker)
                    if done is not None:
                        return _decode_rated(done)
                    stored: Any = await pipe.hmget(ratings, [black, white])
                    before = (_decode_standing(stored[0]), _decode_standing(stored[1]))
                    new = apply_game(*before, black_score)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    for player_id, standing in zip((black, white), new, strict=True):
                        pipe.hset(ratings, player_id, _encode_standing(standing))
                        if standing.rating.provisional:
                            pipe.zrem(board, player_id)
                        else:
                            pipe.zadd(board, {player_id: standing.rating.rating})
                    rated = RatedGame(before, new)
                    pipe.set(marker, _encode_rated(rated), px=RATED_MARKER_TTL_MS)
                    await pipe.execute()
                    return rated
                except WatchError:
                    await asyncio.sleep(0)  # another game of these players landed first

    @_runs_to_completion
    async def leaderboard(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        board = self.keys.leaderboard(pool)
        top: Any = await self.redis.zrevrange(board, 0, limit - 1, withscores=True)
        if not top:
            return []
        # Ties at the cut are decided by player id, as everywhere: fetch all of them.
        lowest = top[-1][1]
        tied: Any = await self.redis.zrangebyscore(board, lowest, lowest)
        players = sorted({_text(p) for p, _ in top} | {_text(p) for p in tied})
        data: Any = await self.redis.hmget(self.keys.ratings(pool), players)
        return ranked({p: _decode_standing(d) for p, d in zip(players, data, strict=True)}, limit)

    @_runs_to_completion
    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        # The record first: a crash in between leaves an unlisted record, never a dangling id.
        await self.redis.set(self.keys.record(game_id), record)
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(self.keys.player_games(player_id), {game_id: ended_ms})
            await pipe.execute()

    @_runs_to_completion
    async def get_record(self, game_id: str) -> bytes | None:
        data: Any = await self.redis.get(self.keys.record(game_id))
        return cast(bytes | None, data)

    @_runs_to_completion
    async def player_games(
        self, player_id: str, limit: int = 20, before_ms: int | None = None
    ) -> list[str]:
        newest = "+inf" if before_ms is None else f"({before_ms}"
        games: Any = await self.redis.zrevrangebyscore(
            self.keys.player_games(player_id), newest, "-inf", start=0, num=limit
        )
        return [_text(game_id) for game_id in games]

    @_runs_to_completion
    async def put_names(self, names: Mapping[str, str]) -> None:
        if names:
            await self.redis.hset(self.keys.names, mapping=cast(Any, dict(names)))

    @_runs_to_completion
    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        if not player_ids:
            return {}
        found: Any = await self.redis.hmget(self.keys.names, list(player_ids))
        return {p: _text(n) for p, n in zip(player_ids, found, strict=True) if n is not None}

    # -- pub/sub plumbing --------------------------------------------------------

    async def _after_reconnect(self) -> None:
        for feed in list(self._feeds.values()):
            feed.ring(b"")
        await self._resync_lobby()


RATED_MARKER_TTL_MS = 30 * DAY_MS
"""How long a rated game is remembered to refuse rating it twice, with what it did to both
ratings (retries come within seconds)."""


def _encode_standing(standing: PlayerRating) -> bytes:
    r = standing.rating
    return msgspec.msgpack.encode(
        (r.rating, r.rd, r.volatility, standing.wins, standing.losses, standing.draws)
    )


def _encode_rated(rated: RatedGame) -> bytes:
    return msgspec.msgpack.encode([_encode_standing(s) for s in (*rated.before, *rated.after)])


def _decode_rated(data: bytes) -> RatedGame | None:
    """A rated-once marker's record of what the game did; None for a marker written
    before markers kept the figures (it holds ``1``)."""
    parts = msgspec.msgpack.decode(data)
    if not isinstance(parts, list) or len(parts) != 4:
        return None
    black, white, new_black, new_white = (_decode_standing(p) for p in parts)
    return RatedGame((black, white), (new_black, new_white))


def _decode_standing(data: bytes | None) -> PlayerRating:
    if data is None:
        return PlayerRating()
    rating, rd, volatility, wins, losses, draws = msgspec.msgpack.decode(
        data, type=tuple[float, float, float, int, int, int]
    )
    return PlayerRating(Rating(rating, rd, volatility), wins, losses, draws)


def _entries(ratings: list[tuple[bytes, float]], since: dict[bytes, bytes]) -> list[QueueEntry]:
    entries = []
    for player, score in ratings:
        waiting = since.get(player)
        since_ms, name = (0, "") if waiting is None else _decode_waiting(waiting)
        entries.append(QueueEntry(_text(player), float(score), since_ms, name))
    return sorted(entries, key=lambda e: (e.rating, e.since_ms))


def _decode_waiting(data: bytes) -> tuple[int, str]:
    return msgspec.msgpack.decode(data, type=tuple[int, str])


class _RoomFeed:
    """One instance's reader of one room's log, shared by its local subscribers."""

    def __init__(self, store: RedisStore, room_id: str, bell: str) -> None:
        self.store = store
        self.room_id = room_id
        self.bell = bell
        self.cursor = 0
        self.listeners: set[_Listener] = set()
        self.local_commits = 0
        """This instance's commits to the room in flight (their bells wake nobody)."""
        self._bell_seq = 0
        """The highest seq a bell announced while a local commit was in flight."""
        self.heard_version = 0
        """The newest version of the room a bell announced."""
        self._record: RoomRecord | None = None
        self._record_at = 0.0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def ring(self, data: bytes) -> None:
        """The room's bell: a commit of any instance, after which the log ends at
        ``seq`` and the room is at ``version``. Events this instance commits itself are
        delivered by the commit, so their bell wakes nobody."""
        seq, version = _bell(data)
        self.heard_version = max(self.heard_version, version)
        if self._record is not None and self._record.version == version:
            self.appended(seq)  # an append elsewhere: same state, a longer log
        if seq <= self.cursor:
            return
        if self.local_commits:
            self._bell_seq = max(self._bell_seq, seq)
            return
        self._wake.set()

    def settle(self) -> None:
        """A local commit ended: wake the reader for what other commits' bells announced
        meanwhile (or what this one did not deliver itself)."""
        if not self.local_commits and self._bell_seq > self.cursor:
            self._wake.set()

    def current_record(self) -> RoomRecord | None:
        """The room as this instance last wrote or read it, if no bell announced a newer
        version since, the bell connection stayed up, and it is recent; else None."""
        record = self._record
        if (
            record is None
            or record.version < self.heard_version
            or not self.store._bus.connected.is_set()
            or time.monotonic() - self._record_at > self.store.poll_interval_s
        ):
            return None
        return record

    def appended(self, last_seq: int) -> None:
        """Events were appended without a version change (chat, a count): the remembered
        record, still current, now ends at ``last_seq``."""
        record = self._record
        if record is not None and record.seq < last_seq:
            self._record = record._replace(seq=last_seq)

    def remember(self, record: RoomRecord) -> None:
        if record.version >= self.heard_version:
            self._record, self._record_at = record, time.monotonic()

    def forget(self) -> None:
        self._record = None

    def committed(self, first_seq: int, events: Sequence[bytes]) -> None:
        """This instance just committed ``events`` as ``first_seq``...: deliver them now,
        without reading them back, if they follow what the feed has delivered (else the
        feed reads them from the log as usual, on the bell)."""
        if first_seq != self.cursor + 1:
            return
        for seq, data in enumerate(events, first_seq):
            self._deliver(StoredEvent(seq, data))

    def _deliver(self, event: StoredEvent) -> None:
        if event.seq <= self.cursor:
            return  # delivered already (read back while its commit delivered it)
        self.cursor = event.seq
        for listener in list(self.listeners):
            listener.take(event)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-feed-{self.room_id}")

    async def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await _stop_task(self._task)
            self._task = None
        with contextlib.suppress(RedisError, OSError):
            await self.store._bus.unsubscribe(self.bell)
        for listener in self.listeners:
            listener.end()

    async def _run(self) -> None:
        while not self._stopping:
            self._wake.clear()  # a bell rung after this line wakes the wait below at once
            try:
                entries = await self.store._read_range(self.room_id, self.cursor, None)
                if entries:
                    for event in _events(entries):
                        self._deliver(event)
                    continue
                if not await self._wait() and not await self._room_exists():
                    self._room_gone()
                    return
            except (RedisError, OSError) as exc:
                log.warning("reading room %s from redis failed: %s; retrying", self.room_id, exc)
                await asyncio.sleep(min(self.store.poll_interval_s, 0.5))

    async def _wait(self) -> bool:
        """Wait for the bell; False if the poll interval passed without one."""
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
        # coincides with the bell, and stop() would then wait forever.
        try:
            async with asyncio.timeout(self.store.poll_interval_s):
                await self._wake.wait()
        except TimeoutError:
            return False
        return True

    async def _room_exists(self) -> bool:
        return bool(await self.store.redis.exists(self.store.keys.room_state(self.room_id)))

    def _room_gone(self) -> None:
        """The room expired: end every local subscription and let a new feed start if needed."""
        if self.store._feeds.get(self.room_id) is self:
            del self.store._feeds[self.room_id]
        self.store._bus.forget(self.bell)
        for listener in self.listeners:
            listener.end()


class _Listener:
    """One local subscriber of a room feed: each event after ``last`` once, in order.
    Until :meth:`open` hands it the backlog read from the log, live events wait."""

    def __init__(
        self, deliver: Callable[[StoredEvent], None], end: Callable[[], None], after_seq: int
    ) -> None:
        self.deliver = deliver
        self.end = end
        """Called when the feed ends (the room is gone, or the store closes)."""
        self.last = after_seq
        self._held: list[StoredEvent] | None = []

    def take(self, event: StoredEvent) -> None:
        if self._held is not None:
            self._held.append(event)
        else:
            self._give(event)

    def open(self, backlog: list[StoredEvent]) -> None:
        held, self._held = self._held or [], None
        for event in [*backlog, *held]:
            self._give(event)

    def _give(self, event: StoredEvent) -> None:
        if event.seq <= self.last:
            return
        self.last = event.seq
        try:
            self.deliver(event)
        except Exception:  # one subscriber's failure must not stop the others
            log.exception("delivering event %d failed", event.seq)


class _RedisInbox(PlayerInbox):
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.players: set[str] = set()
        self.queue: asyncio.Queue[PlayerMessage | None] = asyncio.Queue()

    async def add(self, player_id: str) -> None:
        if player_id not in self.players:
            self.players.add(player_id)
            await self.store._watch_player(player_id)

    async def remove(self, player_id: str) -> None:
        if player_id in self.players:
            self.players.discard(player_id)
            await self.store._unwatch_player(player_id)

    def __aiter__(self) -> AsyncIterator[PlayerMessage]:
        return _drain(self.queue)


class _Bus:
    """The instance's single pub/sub connection: channel -> handler, re-subscribed on reconnect.

    :meth:`subscribe` returns once Redis confirmed the subscription, so a message
    published right after it is not missed.
    """

    RECONNECT_DELAYS_S = (0.05, 0.1, 0.2, 0.5, 1.0)

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.handlers: dict[str, Callable[[bytes], None]] = {}
        self._pubsub: PubSub | None = None
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._closing = False
        self.connected = asyncio.Event()

    async def start(self) -> None:
        self.handlers[self.store.keys.lobby_channel] = self.store._on_lobby
        await self._connect()
        self._task = asyncio.create_task(self._listen(), name="redis-pubsub")

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            await _stop_task(self._task)
        for task in list(self._background):
            await _stop_task(task)
        await self._drop_connection()

    async def _connect(self) -> None:
        pubsub = self.store.redis.pubsub()
        # Published before the snapshot of channels, so a concurrent subscribe() either is
        # in the snapshot or sends its own SUBSCRIBE on this connection.
        self._pubsub = pubsub
        channels = list(self.handlers)
        waits = [self._expect(channel) for channel in channels]
        await pubsub.subscribe(*channels)
        for feed in self.store._feeds.values():
            feed.forget()  # bells may have been missed while the connection was down
        # Confirmations are read by the listener; on the first connect nobody reads yet.
        if self._task is None:
            await self._read_until_confirmed(pubsub, waits)
        self.connected.set()

    async def _read_until_confirmed(
        self, pubsub: PubSub, waits: list[asyncio.Future[None]]
    ) -> None:
        while not all(w.done() for w in waits):
            message = await pubsub.get_message(timeout=1.0)
            if message is not None:
                self._dispatch(message)

    async def _drop_connection(self) -> None:
        self.connected.clear()
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _expect(self, channel: str) -> asyncio.Future[None]:
        future = self._confirmed.get(channel)
        if future is None or future.done():
            future = asyncio.get_running_loop().create_future()
            self._confirmed[channel] = future
        return future

    async def subscribe(self, channel: str, handler: Callable[[bytes], None]) -> None:
        self.handlers[channel] = handler
        pubsub = self._pubsub
        if pubsub is None:
            return  # not connected: the reconnect subscribes every handler's channel
        confirmed = self._expect(channel)
        try:
            await pubsub.subscribe(channel)
        except (RedisError, OSError) as exc:  # the listener reconnects, then subscribes it
            log.info("subscribing to %s failed (%s); it follows the reconnect", channel, exc)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await asyncio.shield(confirmed)

    def forget(self, channel: str) -> None:
        """Stop dispatching a channel now; the UNSUBSCRIBE follows in the background."""
        self.handlers.pop(channel, None)
        if self._pubsub is not None:
            task = asyncio.create_task(self._quiet_unsubscribe(channel))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _quiet_unsubscribe(self, channel: str) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self.unsubscribe(channel)

    async def unsubscribe(self, channel: str) -> None:
        self.handlers.pop(channel, None)
        self._confirmed.pop(channel, None)
        if self._pubsub is not None:
            # Without a handler the channel is neither dispatched nor subscribed again
            # on reconnect, so a connection that fails now loses nothing.
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.unsubscribe(channel)

    def _dispatch(self, message: dict[str, Any]) -> None:
        channel = _text(message["channel"])
        if message["type"] == "subscribe":
            future = self._confirmed.get(channel)
            if future is not None and not future.done():
                future.set_result(None)
        elif message["type"] == "message":
            handler = self.handlers.get(channel)
            if handler is not None:
                try:
                    handler(message["data"])
                except Exception:  # one bad message must not stop every instance's fan-out
                    log.exception("bad pub/sub message on %s", channel)

    async def _listen(self) -> None:
        while not self._closing:
            pubsub = self._pubsub
            try:
                if pubsub is None:
                    raise RedisConnectionError("pub/sub is not connected")
                message = await pubsub.get_message(timeout=1.0)
                if message is not None:
                    self._dispatch(message)
            except (RedisError, OSError) as exc:
                log.warning("redis pub/sub connection lost (%s); reconnecting", exc)
                await self._reconnect()

    async def _reconnect(self) -> None:
        await self._drop_connection()
        attempt = 0
        while not self._closing:
            delay = self.RECONNECT_DELAYS_S[min(attempt, len(self.RECONNECT_DELAYS_S) - 1)]
            await asyncio.sleep(delay)
            attempt += 1
            try:
                await self._connect()
                await self.store._after_reconnect()
            except (RedisError, OSError) as exc:
                await self._drop_connection()
                if attempt in (1, 10) or attempt % 60 == 0:
                    log.warning("redis still unreachable (%s); retrying", exc)
                continue
            log.info("redis pub/sub reconnected after %d attempt(s)", attempt)
            return


async def _stop_task(task: asyncio.Task[None]) -> None:
    """Cancel a background task and wait for it to end.

    redis-py can absorb a cancellation that arrives while a command is in flight,
    so the loops also check a stop flag; the wait is bounded in case a command hangs.
    """
    task.cancel()
    await asyncio.wait({task}, timeout=10.0)
    if task.done() and not task.cancelled() and task.exception() is not None:
        log.warning("background task %s failed: %r", task.get_name(), task.exception())


async def _drain(queue: asyncio.Queue[_T | None]) -> AsyncIterator[_T]:
    while (item := await queue.get()) is not None:
        yield item
