"""Every Redis key and pub/sub channel name the server uses, built here and only here.

Layout (``gomoku:`` is the default prefix, so one Redis can hold other data too):

- one room: ``gomoku:{room:ID}:state`` (hash: version, seq, state, deadline, the
  spectator count announced and when, a held announcement's due time),
  ``gomoku:{room:ID}:events`` (stream; entry id ``<seq>-0``), its last chat lines
  ``gomoku:{room:ID}:chat`` (list of ``<seq>:<event>``, trimmed to the snapshot's 30,
  written with the chat's event), the attachments
  ``gomoku:{room:ID}:conns`` (hash: connection -> player) and
  ``gomoku:{room:ID}:people`` (hash: ``players`` attached, per player ``n:ID`` connections
  and ``left:ID`` when the last left, per instance ``i:ID`` connections, per connection
  that detached ``d:CONN`` the answer its detach gave), and the
  doorbell channel ``gomoku:{room:ID}:bell``. The ``{room:ID}`` hash tag puts all
  of them in one Redis Cluster slot, so one script may touch them together
  and rooms spread over the cluster's nodes.
- server instances: ``gomoku:{instances}:leases`` (sorted set, instance -> lease end) and
  ``gomoku:instance:ID:rooms`` (set: rooms where the instance has connections attached);
  ``gomoku:epoch`` (string: the data's random id, made again if Redis lost its data).
- every room: ``gomoku:rooms`` (sorted set, room -> when its keys expire, epoch ms;
  ``+inf`` while they do not), so the cluster's rooms can be counted without a scan;
  ``gomoku:games`` (set: rooms whose game has begun and is not over, for the count of
  games in progress).
- clock deadlines: ``gomoku:{clocks}:due`` (sorted set, room -> due epoch ms),
  ``gomoku:{clocks}:parked`` (sorted set: rooms taken out of ``due`` when they had no
  deadline, by when to look at them once more), and the instances' heartbeat
  ``gomoku:{clocks}:beat`` (hash: last beat, latest outage).
- lobby: ``gomoku:{lobby}:rooms`` (hash, room -> summary), channel ``gomoku:lobby``.
- matchmaking: ``gomoku:{queue:NAME}:ratings`` (sorted set, player -> rating) and
  ``gomoku:{queue:NAME}:since`` (hash, player -> ms) share a tag so a pairing
  transaction may cover both; ``gomoku:queues`` lists queue names ever used.
- sessions and players: ``gomoku:session:HASH``, ``gomoku:player:ID:rooms``
  (set), ``gomoku:player:ID:owned`` (sorted set: the open rooms the player asked for,
  by when each was counted, for the cap on open rooms), channel
  ``gomoku:player:ID``; invites: ``gomoku:invite:CODE``.
- AI seats in play: ``gomoku:ai:seats`` (hash, AI seat player -> its record), so a
  restarted server knows the seats it must hand over if their worker is gone.
- the shared AI pool, under one hash tag (one take reads several queues):
  ``gomoku:{ai}:jobs:QUEUE`` (stream per queue, consumer group ``takers``),
  ``gomoku:{ai}:queues`` (set of queue names), ``gomoku:{ai}:workers`` (hash, worker ->
  record) with ``gomoku:{ai}:worker-leases`` (sorted set, worker -> lease end); answers
  ``gomoku:ai:answer:REPLY`` (list, expires); instances' own figures
  ``gomoku:{instances}:info`` (hash) with ``gomoku:{instances}:info-leases``.
- ratings: ``gomoku:{rating:POOL}:players`` (hash, player -> standing),
  ``gomoku:{rating:POOL}:board`` (leaderboard), ``gomoku:{rating:POOL}:unsettled``
  (those not settled yet) and ``gomoku:{rating:POOL}:game:ID`` (rated-once marker)
  share a tag, so one transaction updates both players.
- history: ``gomoku:record:GAME`` (a finished game's JSON record, kept),
  ``gomoku:player:ID:games`` (sorted set of game ids by end time),
  ``gomoku:finished`` (every finished game by end time, for ``/games.csv``) and
  ``gomoku:names`` (hash, player -> display name, for leaderboards and profiles).

A hash tag is the text between the first ``{`` and the next ``}``, so an id put
into a key has its braces escaped (``%7B``, ``%7D``, and ``%`` itself as ``%25``):
ids come from clients too (a ``join`` names any room), and a brace in one must
neither break the tag nor fail the lookup; it names a room that does not exist.
Ids the server makes contain none of these characters, so their keys spell them
as they are. An empty id, or a prefix with a brace, is refused with
:class:`KeyNameError`.
"""

from __future__ import annotations

DEFAULT_PREFIX = "gomoku"


class KeyNameError(ValueError):
    """An empty id, or a prefix with a brace (which would break every hash tag)."""


def _part(value: str, what: str) -> str:
    """``value`` as part of a key: not empty, with ``%``, ``{`` and ``}`` escaped (so
    distinct ids still give distinct keys, and none can end or open a hash tag)."""
    if not value:
        raise KeyNameError(f"{what} {value!r} cannot be part of a Redis key")
    if "%" in value or "{" in value or "}" in value:
        return value.replace("%", "%25").replace("{", "%7B").replace("}", "%7D")
    return value


class Keys:
    """Key builder for one prefix; all methods return plain ``str`` names."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        if not prefix or "{" in prefix or "}" in prefix:
            raise KeyNameError(f"prefix {prefix!r} cannot be part of a Redis key")
        self.prefix = prefix

    def __repr__(self) -> str:
        return f"Keys({self.prefix!r})"

    # -- one room: one hash tag ------------------------------------------------

    def _room(self, room_id: str) -> str:
        return f"{self.prefix}:{{room:{_part(room_id, 'room id')}}}"

    def room_state(self, room_id: str) -> str:
        return f"{self._room(room_id)}:state"

    def room_events(self, room_id: str) -> str:
        return f"{self._room(room_id)}:events"

    def room_chat(self, room_id: str) -> str:
        """List: the room's last chat lines, each ``<seq>:<event>``, oldest first."""
        return f"{self._room(room_id)}:chat"

    def room_conns(self, room_id: str) -> str:
        """Hash: attached connection -> its player."""
        return f"{self._room(room_id)}:conns"

    def room_people(self, room_id: str) -> str:
        """Hash: attachment counts (``players``, ``n:PLAYER``, ``left:PLAYER``, ``i:INSTANCE``)
        and the answers of detaches (``d:CONN``)."""
        return f"{self._room(room_id)}:people"

    def room_followers(self, room_id: str) -> str:
        """Set: the stores (server processes) that follow the room's bell. A commit rings
        the bell only if a store other than its own is in it."""
        return f"{self._room(room_id)}:followers"

    def room_keys(self, room_id: str) -> list[str]:
        """Every key of one room (its bell is a channel, not a key)."""
        return [
            self.room_state(room_id),
            self.room_events(room_id),
            self.room_chat(room_id),
            self.room_conns(room_id),
            self.room_people(room_id),
            self.room_followers(room_id),
        ]

    def room_bell(self, room_id: str) -> str:
        """Pub/sub channel rung after each commit that appended events and that a store
        other than the committer's follows (:meth:`room_followers`), and after each append."""
        return f"{self._room(room_id)}:bell"

    @property
    def rooms(self) -> str:
        """Sorted set: every room -> when its keys expire (``+inf``: not yet)."""
        return f"{self.prefix}:rooms"

    @property
    def games(self) -> str:
        """Set: rooms whose game has begun and is not over (a room's expiry takes it out;
        a member whose room has expired is dropped when the set is counted)."""
        return f"{self.prefix}:games"

    # -- server instances ----------------------------------------------------------

    @property
    def data_epoch(self) -> str:
        """String: a random id made when the data is new; another one means Redis lost
        its data (restarted without persistence)."""
        return f"{self.prefix}:epoch"

    @property
    def instance_leases(self) -> str:
        """Sorted set: instance -> when its lease ends (epoch ms)."""
        return f"{self.prefix}:{{instances}}:leases"

    def instance_rooms(self, instance_id: str) -> str:
        """Set: rooms where the instance has (or had) connections attached."""
        return f"{self.prefix}:instance:{_part(instance_id, 'instance id')}:rooms"

    # -- clocks ------------------------------------------------------------------

    @property
    def deadlines(self) -> str:
        return f"{self.prefix}:{{clocks}}:due"

    @property
    def parked(self) -> str:
        """Sorted set: room -> when to look once more at a room whose entry left
        :attr:`deadlines` because it had no deadline (same slot as that index)."""
        return f"{self.prefix}:{{clocks}}:parked"

    @property
    def clock_beat(self) -> str:
        """Hash: the latest heartbeat of any instance and the latest outage."""
        return f"{self.prefix}:{{clocks}}:beat"

    # -- lobby -------------------------------------------------------------------

    @property
    def lobby(self) -> str:
        return f"{self.prefix}:{{lobby}}:rooms"

    @property
    def lobby_channel(self) -> str:
        return f"{self.prefix}:lobby"

    # -- matchmaking -------------------------------------------------------------

    def _queue(self, queue: str) -> str:
        return f"{self.prefix}:{{queue:{_part(queue, 'queue name')}}}"

    def queue_ratings(self, queue: str) -> str:
        return f"{self._queue(queue)}:ratings"

    def queue_since(self, queue: str) -> str:
        return f"{self._queue(queue)}:since"

    @property
    def queue_names(self) -> str:
        return f"{self.prefix}:queues"

    # -- sessions, players, invites ----------------------------------------------

    def session(self, token_hash: str) -> str:
        return f"{self.prefix}:session:{_part(token_hash, 'token hash')}"

    def player_rooms(self, player_id: str) -> str:
        return f"{self.prefix}:player:{_part(player_id, 'player id')}:rooms"

    def owned_rooms(self, player_id: str) -> str:
        return f"{self.prefix}:player:{_part(player_id, 'player id')}:owned"

    def player_channel(self, player_id: str) -> str:
        return f"{self.prefix}:player:{_part(player_id, 'player id')}"

    def invite(self, code: str) -> str:
        return f"{self.prefix}:invite:{_part(code, 'invite code')}"

    @property
    def ai_seats(self) -> str:
        """Hash: AI seat player id -> its record (token hash, worker, name, level)."""
        return f"{self.prefix}:ai:seats"

    # -- the shared AI pool ------------------------------------------------------------

    def ai_jobs(self, queue: str) -> str:
        """Stream: the jobs of one queue (a level, or ``hint``), consumer group ``takers``."""
        return f"{self.prefix}:{{ai}}:jobs:{_part(queue, 'AI queue')}"

    @property
    def ai_queues(self) -> str:
        """Set: every AI queue name ever used."""
        return f"{self.prefix}:{{ai}}:queues"

    def ai_answer(self, reply: str) -> str:
        """List: answers posted for one asker (expires)."""
        return f"{self.prefix}:ai:answer:{_part(reply, 'reply id')}"

    @property
    def ai_workers(self) -> str:
        """Hash: AI worker -> its record (instance, levels, seats)."""
        return f"{self.prefix}:{{ai}}:workers"

    @property
    def ai_worker_leases(self) -> str:
        """Sorted set: AI worker -> when its record stops counting (epoch ms)."""
        return f"{self.prefix}:{{ai}}:worker-leases"

    @property
    def instance_info(self) -> str:
        """Hash: server instance -> the figures it publishes about itself."""
        return f"{self.prefix}:{{instances}}:info"

    @property
    def instance_info_leases(self) -> str:
        """Sorted set: server instance -> when its published figures stop counting."""
        return f"{self.prefix}:{{instances}}:info-leases"

    # -- ratings and finished games ----------------------------------------------

    def _pool(self, pool: str) -> str:
        return f"{self.prefix}:{{rating:{_part(pool, 'rating pool')}}}"

    def ratings(self, pool: str) -> str:
        """Hash: player -> encoded standing (rating, RD, volatility, wins, losses, draws)."""
        return f"{self._pool(pool)}:players"

    def rated_at(self, pool: str) -> str:
        """Hash: player -> when their last rated game in the pool ended (ms), from which
        their RD widens with time away (kept apart from the standing, whose encoding
        older servers read)."""
        return f"{self._pool(pool)}:played"

    def leaderboard(self, pool: str) -> str:
        """Sorted set: established (non-provisional) players by rating."""
        return f"{self._pool(pool)}:board"

    def unsettled(self, pool: str) -> str:
        """Sorted set: players provisional after their last rated game, by rating."""
        return f"{self._pool(pool)}:unsettled"

    def rated_game(self, pool: str, game_id: str) -> str:
        """Marker that a game was rated, so a retried update never counts it twice."""
        return f"{self._pool(pool)}:game:{_part(game_id, 'game id')}"

    def record(self, game_id: str) -> str:
        return f"{self.prefix}:record:{_part(game_id, 'game id')}"

    def player_games(self, player_id: str) -> str:
        return f"{self.prefix}:player:{_part(player_id, 'player id')}:games"

    @property
    def finished(self) -> str:
        """Sorted set: every finished game by when it ended (an operator's list)."""
        return f"{self.prefix}:finished"

    @property
    def names(self) -> str:
        """Hash: player -> display name (players who finished a game)."""
        return f"{self.prefix}:names"
