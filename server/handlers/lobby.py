"""The lobby and quick match: ``lobby_watch`` (the list of public rooms, then its
changes), ``queue`` (wait for a match, optionally falling back to an AI after a while)
and ``unqueue``."""

from __future__ import annotations

import asyncio
import logging

import msgspec

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.values import RoomSummary
from server import game
from server.game import GameError
from server.handlers.base import Refused, Session, refuse_ai_seat
from server.matchmaking import queue_name
from server.notices import Notice, encode_notice
from server.service import now_ms
from server.store import QueueEntry

log = logging.getLogger("gomoku.server")


async def on_lobby_watch(session: Session, msg: m.LobbyWatch) -> None:
    session.follow_lobby(msg.on)
    if msg.on:
        await send_lobby(session, msg.id)


async def send_lobby(session: Session, re: int | None) -> None:
    """The lobby's whole list, in parts: the answer to ``lobby_watch`` (``re``), or sent
    unasked (None) to a watcher that may have missed changes (it moved between the
    processes of ``gomoku-server --processes``)."""
    listing = await session.services.store.lobby_list()
    summaries = sorted((_decode_summary(v) for v in listing.values()), key=lambda s: s.id)
    size = max(1, session.services.config.lobby_part_rooms)
    parts = [summaries[i : i + size] for i in range(0, len(summaries), size)] or [[]]
    last = len(parts) - 1
    session.send_together(
        [m.Lobby(rooms=rooms, re=re, part=i, more=i < last) for i, rooms in enumerate(parts)]
    )


def _decode_summary(data: bytes) -> RoomSummary:
    return msgspec.msgpack.decode(data, type=RoomSummary)


async def on_queue(session: Session, msg: m.Queue) -> None:
    refuse_ai_seat(session, "a quick match")
    if session.queue is not None:
        raise Refused(ErrorCode.ALREADY_QUEUED, "you are already waiting for a match")
    name = queue_name(msg.rule, msg.time)
    assert session.identity is not None
    rating = await session.rating(msg.rule)  # quick match pairs by the rating under the rule
    now = now_ms()
    entry = QueueEntry(session.player, rating, now, session.identity.name)
    waited = 0
    store = session.services.store
    if not await store.queue_add(name, entry):
        if not _take_place(session, name):
            raise Refused(ErrorCode.ALREADY_QUEUED, "you are already waiting for a match")
        # The place moved here from another connection of the player's: its waiting
        # time too, as protocol.md says (it started again from 0).
        held = [e for e in await store.queue_entries(name) if e.player_id == session.player]
        waited = max(0, now - held[0].since_ms) if held else 0
    session.queue = name
    session.queue_ticket += 1
    session.send(
        m.Queued(
            rule=msg.rule, time=msg.time, since_ms=waited, ai_after_ms=msg.ai_after_ms, re=msg.id
        )
    )
    session.services.matchmaker.wake()
    if msg.ai_after_ms is not None:
        session.spawn(_ai_after_wait(session, msg, entry, name, session.queue_ticket))


def _take_place(session: Session, queue: str) -> bool:
    """Whether the player waits in ``queue`` from another connection of theirs here; it
    hands its place (and its waiting time) over to this one. A client that reconnected
    asks again before the server has noticed its old connection is gone (a network
    that stopped carrying anything): refused, it then lost the place with that
    connection's end, while it went on showing the search."""
    for other in session.services.players.connections(session.player):
        if other is not session and other.queue == queue:
            other.queue = None
            other.send(m.Unqueued())  # if it is there after all, it waits no longer
            return True
    return False


async def _ai_after_wait(
    session: Session, msg: m.Queue, entry: QueueEntry, name: str, ticket: int
) -> None:
    """Nobody came within ``ai_after_ms``: take the player out of the queue (unless a
    match got there first) and seat them against an AI. With no AI free, they go on
    waiting for a person, are told so once, and an AI is tried again every
    ``ai_retry_s`` (:class:`server.config.Matchmaking`) while they wait: one try left
    them waiting for a person only, while both clients still showed the AI to come."""
    assert msg.ai_after_ms is not None
    await asyncio.sleep(msg.ai_after_ms / 1000)
    store = session.services.store
    retry_s = session.services.config.matchmaking.ai_retry_s
    told = False
    while True:
        if session.queue_ticket != ticket or session.queue != name:
            return
        if not await store.queue_remove(name, session.player):
            return  # matched with a person meanwhile
        try:
            room = await session.services.ai.ai_room(
                game.RoomSettings(rule=msg.rule, time=msg.time),
                levels=[msg.ai_level],
                people=[await session.rated_seat(msg.rule)],
            )
        except GameError as exc:
            await store.queue_add(name, entry)
            if not told:
                told = True
                said = f"still waiting for a player; an AI is tried again every {retry_s:g} s"
                session.error(exc.code, f"{exc.message}; {said}", re=msg.id)
            await asyncio.sleep(retry_s)
            continue
        break
    waited = now_ms() - entry.since_ms
    log.info("room %s: %s waited %d ms and plays an AI", room.id, session.player, waited)
    await store.publish_player(session.player, encode_notice(Notice(kind="matched", room=room.id)))


async def give_up_queue(session: Session) -> None:
    """Take the connection's player out of the quick-match queue, if they wait there,
    and say so (``unqueued``): a player who sits down in a game of their own no longer
    wants a match, and the match would have pulled them out of that game into a rated
    one, leaving its seat taken. (A match made a moment before is not undone: its
    ``unqueued`` and snapshot come as for any match.)"""
    name = session.queue
    if name is None:
        return
    session.queue = None
    session.queue_ticket += 1  # no AI fallback for a wait given up
    if await session.services.store.queue_remove(name, session.player):
        session.send(m.Unqueued())


async def on_unqueue(session: Session, msg: m.Unqueue) -> None:
    if session.queue is None or not await session.services.store.queue_remove(
        session.queue, session.player
    ):
        session.queue = None
        raise Refused(ErrorCode.NOT_QUEUED, "you are not waiting for a match")
    session.queue = None
    session.send(m.Unqueued(re=msg.id))
