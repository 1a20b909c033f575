"""The Redis store's Lua scripts, read once (when this module is imported) from the
``lua/`` files shipped in this package (package data, see pyproject.toml).

Each script's header says what its KEYS and ARGV are and what it answers. A script that
needs a shared function (``lua/lib/``) runs with that file's text put in front of its
own. Scripts run with EVALSHA (redis-py's registered scripts load them on first use),
except the rare ones the store EVALs as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

_LUA = files(__package__) / "lua"


def source(name: str, *, uses: Sequence[str] = ()) -> str:
    """The text of script ``name``: the library files it ``uses``, then its own."""
    parts = [(_LUA / "lib" / f"{library}.lua").read_text(encoding="utf-8") for library in uses]
    return "".join(parts) + (_LUA / f"{name}.lua").read_text(encoding="utf-8")


COMMIT = source("commit")
FOLLOW = source("follow")
SET_DEADLINE = source("set_deadline")
EXPIRE_ROOM = source("expire_room")
APPEND = source("append", uses=["append_events"])
ANNOUNCE = source("announce", uses=["append_events"])
ATTACH = source("attach")
DETACH = source("detach", uses=["drop_conn"])
REAP = source("reap", uses=["drop_conn"])
CLAIM = source("claim")
BEAT = source("beat")
LOBBY_PUT = source("lobby_put")
LOBBY_REMOVE = source("lobby_remove")
QUEUE_ADD = source("queue_add")
QUEUE_REMOVE = source("queue_remove")
OWN_ROOM = source("own_room")
INVITE_REPLACE = source("invite_replace")
PUT_AI_SEAT = source("put_ai_seat")
"""EVALed as it is: a handover is rare (see ``RedisIdentity.put_ai_seat``)."""


class Scripts:
    """The scripts registered with one Redis client: call one as
    ``await scripts.commit(keys, args)`` (or with ``client=pipeline``)."""

    def __init__(self, redis: Redis) -> None:
        self.commit: AsyncScript = redis.register_script(COMMIT)
        self.follow: AsyncScript = redis.register_script(FOLLOW)
        self.set_deadline: AsyncScript = redis.register_script(SET_DEADLINE)
        self.expire_room: AsyncScript = redis.register_script(EXPIRE_ROOM)
        self.append: AsyncScript = redis.register_script(APPEND)
        self.announce: AsyncScript = redis.register_script(ANNOUNCE)
        self.attach: AsyncScript = redis.register_script(ATTACH)
        self.detach: AsyncScript = redis.register_script(DETACH)
        self.reap: AsyncScript = redis.register_script(REAP)
        self.claim: AsyncScript = redis.register_script(CLAIM)
        self.beat: AsyncScript = redis.register_script(BEAT)
        self.lobby_put: AsyncScript = redis.register_script(LOBBY_PUT)
        self.lobby_remove: AsyncScript = redis.register_script(LOBBY_REMOVE)
        self.queue_add: AsyncScript = redis.register_script(QUEUE_ADD)
        self.queue_remove: AsyncScript = redis.register_script(QUEUE_REMOVE)
        self.invite_replace: AsyncScript = redis.register_script(INVITE_REPLACE)
        self.own_room: AsyncScript = redis.register_script(OWN_ROOM)
