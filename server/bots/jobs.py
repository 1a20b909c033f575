"""What the server instances tell each other through the AI pool (:mod:`server.store.pool`):
the jobs, the answers, and the records of workers and instances. Pure values and their
encodings (MessagePack arrays); an undecodable value is :class:`BadRecord`.

Queues: ``seat:LEVEL`` for AI seats to play at a level, ``hint`` for hints.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TypeVar

import msgspec

from engine import Rule

log = logging.getLogger("gomoku.server")

HINT_QUEUE = "hint"
SEAT_QUEUE_PREFIX = "seat:"


def seat_queue(level: str) -> str:
    """The queue of AI seats to play at ``level``."""
    return SEAT_QUEUE_PREFIX + level


class SeatJob(msgspec.Struct, array_like=True, frozen=True):
    """An AI seat to play: the instance that takes it gives it to one of its workers
    (``bot_seat``). It applies only while the seat's recorded token is this one (a
    handover gives the seat a new token, and the old job is dropped when taken)."""

    player: str
    token: str
    name: str
    room: str
    level: str


class HintJob(msgspec.Struct, array_like=True, frozen=True):
    """A position to find the best move in, for the asker waiting under ``reply`` until
    ``until_ms`` (epoch ms; a job taken later is dropped: nobody waits for it)."""

    reply: str
    room: str
    rule: Rule
    size: int
    moves: list[str]
    time_ms: int
    until_ms: int


class HintAnswer(msgspec.Struct, array_like=True, frozen=True):
    """A hint's answer: the point (None: none found) and why."""

    point: str | None
    reason: str


class WorkerRecord(msgspec.Struct, array_like=True, frozen=True):
    """A connected worker as the cluster sees it: its instance, offer and seats held."""

    instance: str
    seats: int
    levels: list[str]
    held: int
    name: str = ""
    """The name the worker said hello with ("" in a record from a version without it)."""


class InstanceRecord(msgspec.Struct, array_like=True, frozen=True):
    """What an instance publishes about itself: its address, when it started, its own
    connections, players and AI workers, and when it published this (``heard_ms``; 0 in
    a record from a version without it). A record stays listed for three heartbeats
    after it was published, so an instance that was killed shows for that long: the
    time it was last heard from tells it apart from a live one."""

    address: str
    started_ms: int
    connections: int
    players: int
    workers: int
    heard_ms: int = 0
    draining: bool = False
    """Stopping: ``/healthz`` answers 503 while its players are still served (False in a
    record from a version without it)."""


class BadRecord(ValueError):
    """A pool value that cannot be decoded (written by another version, or damaged)."""


_T = TypeVar("_T", bound=msgspec.Struct)


def encode(value: msgspec.Struct) -> bytes:
    return msgspec.msgpack.encode(value)


def decode(data: bytes, kind: type[_T]) -> _T:
    """``data`` as a ``kind``; raises :class:`BadRecord`."""
    try:
        return msgspec.msgpack.decode(data, type=kind)
    except msgspec.DecodeError as error:
        raise BadRecord(f"not a {kind.__name__}: {error}") from None


def decode_records(records: Mapping[str, bytes], kind: type[_T]) -> dict[str, _T]:
    """Records read from the store, decoded; one that cannot be is left out (and logged)."""
    found = {}
    for name, data in records.items():
        try:
            found[name] = decode(data, kind)
        except BadRecord as error:
            log.warning("%s in the store ignored: %s", name, error)
    return found
