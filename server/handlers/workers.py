"""What AI workers send: ``bot_ready`` (its offer of seats and levels),
``bot_heartbeat`` and ``hint_result``; only a connection that said hello with a bot key
(and is not an AI seat) may."""

from __future__ import annotations

import contextlib

from protocol import messages as m
from protocol.errors import ErrorCode
from server.handlers.base import Refused, Session
from server.notices import Notice, encode_notice
from server.store import StoreUnavailable


def _require_bot(session: Session) -> str:
    assert session.identity is not None
    if session.identity.worker is not None:  # (its hello had the key: say what it is not)
        raise Refused(
            ErrorCode.NOT_A_BOT, "only a worker's own connection, not an AI seat's, may do that"
        )
    if not session.identity.bot:
        raise Refused(ErrorCode.NOT_A_BOT, "only an AI worker (hello with a bot key) may do that")
    return session.identity.player


async def on_bot_ready(session: Session, msg: m.BotReady) -> None:
    worker_id = _require_bot(session)
    session.worker = True
    name = session.identity.name if session.identity is not None else ""
    session.services.workers.register(worker_id, session, msg.seats, msg.levels, name)
    # Its old connection may be held by another instance (the worker reconnected through
    # another one while the old link was half-open): that one closes it too.
    notice = Notice(kind="worker", conn=session.conn_id)
    with contextlib.suppress(StoreUnavailable):
        await session.services.store.publish_player(worker_id, encode_notice(notice))
    await session.services.taker.publish()  # its seats count in the cluster from now on
    bots = session.services.config.bots
    session.send(
        m.BotAccepted(
            worker=worker_id, heartbeat_ms=bots.heartbeat_ms, lease_ms=bots.lease_ms, re=msg.id
        )
    )


async def on_bot_heartbeat(session: Session, msg: m.BotHeartbeat) -> None:
    worker_id = _require_bot(session)
    if not session.services.workers.is_worker(worker_id, session):
        raise Refused(ErrorCode.WRONG_PHASE, "send bot_ready first")
    session.services.workers.heartbeat(worker_id)


async def on_hint_result(session: Session, msg: m.HintResult) -> None:
    worker_id = _require_bot(session)
    if not session.services.workers.is_worker(worker_id, session):
        raise Refused(ErrorCode.WRONG_PHASE, "send bot_ready first")  # as a heartbeat is
    session.services.workers.heartbeat(worker_id)
    session.services.hints.hint_result(worker_id, msg)
