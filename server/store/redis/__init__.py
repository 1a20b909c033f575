"""The Redis store (:class:`RedisStore`): the same contract as the memory store, shared
by every server instance. Key names: :mod:`server.keys`; Lua scripts: ``lua/`` (read
once, :mod:`.scripts`).

How each part maps onto Redis (one module each, put together in :mod:`.store`):

* **Rooms** (:mod:`.rooms`): a hash (version, last seq, state, deadline) and a stream
  (the event log, entry ids ``<seq>-0``) per room under one hash tag, written together
  by one commit script with a version check; chat and spectator counts are appended
  without one, and a chat line also onto a short list of the room's last lines, which
  snapshots read instead of the log.
* **Fan-out** (:mod:`.feed`, :mod:`.bus`): each commit or append rings the room's bell
  (pub/sub) with the events it logged and a commit's new state; one pub/sub connection
  per instance, and per watched room one feed that hands the bell's events to every
  local subscriber, and reads the log after its cursor only when a bell does not follow
  on (or every ``poll_interval_s``). This instance's own commits are handed over
  without reading them back, and the room's record is remembered from its own commits
  and from the bells.
* **The hot path** (:mod:`.lane`, :mod:`.push`): the commands of a move and of a game's
  bookkeeping that may run twice, and the clock ticker's beat and look for due rooms
  (every instance, many times a second), go over one pipelined connection (hiredis, no
  redis-py per call), and the bus reads pub/sub without redis-py; a ``rediss://`` URL
  keeps redis-py for both.
* **Clock deadlines** (:mod:`.clocks`): the room hash holds the deadline, a sorted set
  indexes when to look (only ever early); due rooms are claimed with a lease, so one
  instance flags each clock. A beat finds outages.
* **Presence** (:mod:`.presence`): the connections of any instance attached to a room,
  and each instance's lease (a dead instance's attachments are reaped).
* **Lobby** (:mod:`.lobby`): a hash plus a pub/sub channel, written together.
* **Sessions, seats, owned rooms, invites, AI seats** (:mod:`.identity`): strings,
  sets and hashes.
* **Player messages** (:mod:`.mail`): one pub/sub channel per player.
* **Matchmaking** (:mod:`.queues`): per queue a sorted set (rating) and a hash (since);
  pairing under WATCH/MULTI by the rule every backend shares.
* **The AI pool** (:mod:`.pool`): a stream per job queue with a consumer group; worker
  and instance records with leases.
* **Ratings and records** (:mod:`.archive`): standings, leaderboard and rated-once
  markers per pool under one hash tag (WATCH/MULTI); records and per-player game lists.

The store keeps working when Redis restarts: commands reconnect on their own
(redis-py's pool with retries; the lane writes again what was under way), and the bus
re-subscribes every channel and re-reads every watched room and the lobby after a
reconnect. Values and replies are decoded in
:mod:`.codecs`.
"""

from server.store.redis.store import RedisStore

__all__ = ["RedisStore"]
