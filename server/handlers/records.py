"""What outlives a game: ``get_leaderboard``, ``get_profile``, ``list_games`` (a
player's finished games, another player's private ones left out) and ``get_record``
(a finished game exported as JSON, PSQ or a move list)."""

from __future__ import annotations

import logging

from engine import Rule
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.values import GameSummary, LeaderboardEntry
from server import history
from server.handlers.base import Refused, Session
from server.rating import PlayerRating, shown_rd

log = logging.getLogger("gomoku.server")


async def on_get_leaderboard(session: Session, msg: m.GetLeaderboard) -> None:
    store = session.services.store
    pool = history.pool(msg.rule)
    board = await store.leaderboard(pool, msg.limit)
    unsettled = await store.unsettled(pool, msg.limit)
    names = await store.names([player for player, _ in board + unsettled])

    def listed(players: list[tuple[str, PlayerRating]]) -> list[LeaderboardEntry]:
        return [
            LeaderboardEntry(
                rank=rank,
                player=player,
                name=names.get(player, player),
                rating=round(standing.rating.rating),
                rd=shown_rd(standing.rating.rd),
                games=standing.games,
            )
            for rank, (player, standing) in enumerate(players, 1)
        ]

    session.send(
        m.Leaderboard(rule=msg.rule, entries=listed(board), unsettled=listed(unsettled), re=msg.id)
    )


async def on_get_profile(session: Session, msg: m.GetProfile) -> None:
    store = session.services.store
    player = msg.player or session.player
    if player == session.player:
        assert session.identity is not None
        name = session.identity.name
    else:
        known = (await store.names([player])).get(player)
        if known is None:
            raise Refused(ErrorCode.NO_SUCH_PLAYER, "no player with that id has finished a game")
        name = known
    ratings = [
        history.standing(rule, await store.rating(history.pool(rule), player)) for rule in Rule
    ]
    session.send(m.Profile(player=player, name=name, ratings=ratings, re=msg.id))


async def on_list_games(session: Session, msg: m.ListGames) -> None:
    store = session.services.store
    player = msg.player or session.player
    items: list[GameSummary] = []
    before = msg.before_ms
    # Another player's private games are left out, so a page may take a few looks.
    for _ in range(4):
        ids = await store.player_games(player, msg.limit, before)
        looked_from = before
        for game_id in ids:
            data = await store.get_record(game_id)
            if data is None:
                continue
            try:
                item = history.summary(data)
                private = bool(history.facts(data).get("private"))
            except history.BadRecord as exc:
                log.warning("game %s: %s", game_id, exc)
                continue
            before = item.ended_ms
            if private and session.player not in (item.black.id, item.white.id):
                continue
            if len(items) < msg.limit:
                items.append(item)
        if len(ids) < msg.limit or len(items) >= msg.limit or before == looked_from:
            break
    session.send(m.Games(player=player, items=items, re=msg.id))


async def on_get_record(session: Session, msg: m.GetRecord) -> None:
    data = await session.services.store.get_record(msg.game)
    try:
        if data is None:
            raise history.BadRecord("no record")
        facts = history.facts(data)
        if facts.get("private") and session.player not in (facts.get("black"), facts.get("white")):
            raise history.BadRecord("a private game of other players")
        text = history.export(data, msg.format)
    except history.BadRecord:
        raise Refused(  # (a private game is not told apart from a missing one)
            ErrorCode.NO_SUCH_GAME,
            "no finished game with that id here (a running game has no record yet; a "
            "private game's record is for its players)",
        ) from None
    session.send(m.Record(game=msg.game, format=msg.format, text=text, re=msg.id))
