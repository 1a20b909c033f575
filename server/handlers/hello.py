"""``hello``: who the connection is (a new player, a returning one by resume token, a
worker with a bot key, an AI seat's connection), answered by ``welcome`` with the
limits the server holds the client to."""

from __future__ import annotations

import logging

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.limits import PROTOCOL_VERSION
from protocol.text import normal_name
from protocol.values import Limits
from server.config import ServerConfig
from server.handlers.base import Refused, Session, per_address, seconds
from server.service import now_ms
from server.sessions import (
    SessionRecord,
    decode_session,
    encode_session,
    new_player_id,
    new_token,
    token_hash,
)

log = logging.getLogger("gomoku.server")


async def on_ping(session: Session, msg: m.Ping) -> None:
    """``pong`` at once, in any phase: a page's check that its connection is alive."""
    session.send(m.Pong(re=msg.id))


async def on_hello(session: Session, msg: m.Hello) -> None:
    """Identify the connection as a new player, or as the player a resume token names.

    All or nothing: the connection counts as identified (``session.identity`` set) once
    ``welcome`` is sent, and only then. A hello that fails part-way (the store
    unreachable, say) is taken back by :func:`_undo_hello` before its error goes out,
    so the client may say hello again, and nothing else is handled until one succeeds.
    A hello attaches the connection to no room: its player is present in a room once a
    connection of theirs resumes or joins it (or acts there), so ``welcome`` lists the
    rooms to resume.
    """
    if session.identity is not None:
        raise Refused(ErrorCode.WRONG_PHASE, "already said hello on this connection")
    if msg.version != PROTOCOL_VERSION:
        raise Refused(
            ErrorCode.UNSUPPORTED_VERSION,
            f"this server speaks protocol {PROTOCOL_VERSION}, not {msg.version}",
        )
    services = session.services
    name = normal_name(msg.name)  # "José" typed either way is one name, shown alike
    bot = False
    if msg.bot_key is not None:
        await _check_key(session, msg)
        bot = True
    store = services.store
    resumed = False
    if msg.token is not None:
        data = await store.get_session(token_hash(msg.token))
        if data is None:
            raise Refused(ErrorCode.BAD_TOKEN, "unknown or expired resume token; hello without it")
        record = decode_session(data)
        if record.worker is not None and not bot:
            raise Refused(ErrorCode.BAD_BOT_KEY, "an AI seat's token needs the bot key with it")
        token = msg.token
        resumed = True
        if record.worker is not None:
            record.seen_ms = now_ms()
        renamed = record.name != name
        if renamed or record.bot != bot or record.worker is not None:
            record.name, record.bot = name, bot or record.bot
            await store.put_session(token_hash(token), encode_session(record))
        if renamed and record.worker is None and await store.names([record.player]):
            # Others see the new name at once (profile, leaderboard): a renamed player
            # read their new name on their own profile while others read the old one
            # until their next finished game. Kept only for a player others may look up.
            await store.put_names({record.player: name})
    else:
        if not bot:  # (a worker that proved its key is the operator's, not a stranger)
            per_address(session, services.new_players, "new players", now_ms())
        token = new_token()
        record = SessionRecord(
            player=new_player_id(),
            name=name,
            rating=services.config.matchmaking.default_rating,
            bot=bot,
        )
        await store.put_session(token_hash(token), encode_session(record))
    session.identity = record
    session.token_hash = token_hash(token)
    try:
        await services.players.attach(record.player, session)
        if record.worker is not None:
            services.workers.seat_online(record, session.token_hash)
        rooms = await store.player_rooms(record.player)
    except Exception:
        await _undo_hello(session, record)
        raise
    # The address (a trusted proxy's client, as the per-address limits count it) is what
    # an operator can block at the firewall or proxy; names are not unique.
    said = "resumed" if resumed else "hello"
    log.info("%s %s (%s) from %s", said, record.player, record.name, session.address)
    session.send(
        m.Welcome(
            player=record.player,
            name=record.name,
            token=token,
            resumed=resumed,
            rooms=rooms,
            server=f"{services.config.server_name} {services.version}",
            limits=wire_limits(services.config),
            re=msg.id,
        )
    )
    session.measure_lag()


async def _check_key(session: Session, msg: m.Hello) -> None:
    """Refuse a bot key the server does not accept, and guessing: after as many wrong
    keys from one address as wrong invite codes (``code_failures_per_ip`` a window), its
    keys, right or wrong, are refused with ``rate_limited`` a while. The operator hears
    of each refusal the limit lets through (a worker with an old key; someone guessing):
    150 guesses in 2 s wrote 150 warnings.

    A hello whose token the server gave to a connection that proved a key before (a
    worker's, or its AI seat's) is not a guess, and is judged by its key alone: an old
    worker guessing from the same host had locked a running worker's seats out, and its
    players faced an AI that never moved."""
    failures, now = session.services.key_failures, now_ms()
    wait = failures.wait_ms(session.limit_key, now)
    if wait and not await _keyed_before(session, msg.token):
        raise Refused(
            ErrorCode.RATE_LIMITED, f"too many wrong bot keys; try again in {seconds(wait)} s"
        )
    if msg.bot_key in session.services.bot_keys:
        return
    failures.add(session.limit_key, now)
    log.warning("refused a bot key from %s (hello as %r)", session.address, msg.name)
    raise Refused(ErrorCode.BAD_BOT_KEY, "unknown bot key")


async def _keyed_before(session: Session, token: str | None) -> bool:
    """Whether ``token`` names a worker's or an AI seat's session (given only after a
    right bot key)."""
    if token is None:
        return False
    data = await session.services.store.get_session(token_hash(token))
    if data is None:
        return False
    record = decode_session(data)
    return record.bot or record.worker is not None


async def _undo_hello(session: Session, record: SessionRecord) -> None:
    """Put a connection whose hello failed part-way back as it was before: not
    identified, not known as the player's, not watching or attached to any room (a notice
    may have started one); an AI seat counts as away again unless another connection of
    it is here, as when a connection closes (:meth:`Connection._cleanup`). A session
    record already written stays: a new player's is never used (its token was not sent),
    and a returning player's only holds the name they asked for."""
    for room_id in list(session.rooms):
        session.unwatch(room_id)
    for room_id in sorted(session.attached):
        await session.detach(room_id)
    session.identity = None
    session.token_hash = None
    if session.services.players.detach(record.player, session):
        return
    if record.worker is not None:
        session.services.workers.seat_offline(record.player)


def wire_limits(config: ServerConfig) -> Limits:
    """The limits ``welcome`` announces: what this server holds every client to."""
    limits = config.limits
    return Limits(
        max_frame=limits.max_frame,
        rate_per_s=int(limits.rate_per_s),
        rate_burst=limits.rate_burst,
        chat_per_window=limits.chat_per_window,
        chat_window_ms=limits.chat_window_ms,
        ping_interval_ms=int((limits.ping_interval_s or 0) * 1000),
        ping_timeout_ms=int((limits.ping_timeout_s or 0) * 1000),
        grace_ms=config.game.grace_ms,
        untimed_move_ms=config.game.untimed_move_ms,
        first_stone_ms=config.game.first_stone_ms,
    )
