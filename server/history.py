"""Finished games as records: what the archive keeps for a room whose game ended,
what a rated game does to ratings, and the exports a client may ask for.

A record is the engine's JSON record (:func:`engine.record.record_to_dict`: rule,
size, opening, players' names, moves with their times since the game began,
result) plus one key of the server's own, ``"game"``: the game's id, the
players' ids, whether it was rated and private, and when it ended. The engine
reads such a record as it is (it ignores keys it does not know), so the stored
text is also the JSON export. Pure functions; the room service does the I/O.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from typing import Any

import msgspec

from engine import Color, Opening, Reason, Result, Rule, parse_point
from engine.record import (
    GameRecord,
    Players,
    format_move_list,
    format_psq,
    move_entry,
    record_from_dict,
    record_to_dict,
)
from protocol.events import RatingChange
from protocol.limits import ABORTED_BELOW_STONES, RATED_MIN_STONES
from protocol.values import GameResult, GameSummary, RecordFormat, Standing
from server.rating import DRAW, LOSS, WIN, PlayerRating, shown_rd
from server.room import Room, Seat
from server.store.archive import RatedGame

_record_encoder = msgspec.json.Encoder()

GAME_KEY = "game"
"""The key of the server's own facts in a stored record."""


class BadRecord(ValueError):
    """A stored record the server cannot read (written by something else, or damaged)."""


def pool(rule: str) -> str:
    """The rating list a game under ``rule`` counts in: one list per rule."""
    return str(rule)


def colour_seats(room: Room) -> tuple[Seat, Seat]:
    """The seats that held Black and White (after a swap2 choice, the final colours)."""
    black = room.seats[room.seat_at(Color.BLACK)]
    white = room.seats[room.seat_at(Color.WHITE)]
    assert black is not None, "a finished game has both seats"
    assert white is not None, "a finished game has both seats"
    return black, white


def aborted(room: Room) -> bool:
    """Whether the room's game was aborted: both players left it (within the grace period
    of each other) before each had made two moves."""
    result = room.result
    return (
        result is not None
        and result.reason is Reason.ABANDON
        and result.winner is None
        and len(room.moves) < ABORTED_BELOW_STONES
    )


def black_score(room: Room) -> float | None:
    """What a finished game counts for Black in the ratings (1, 0.5 or 0), or None when
    it does not count: an unrated room, an AI in a seat, a game that ended before its
    second stone (a player who never showed up, as lichess aborts such games), or an
    aborted one (:func:`aborted`). A game both players left later is a draw."""
    if not room.rated or room.result is None or len(room.moves) < RATED_MIN_STONES or aborted(room):
        return None
    if any(seat is None or seat.bot for seat in room.seats):
        return None
    winner = room.result.winner
    return DRAW if winner is None else WIN if winner == "black" else LOSS


def rating_changes(room: Room, rated: RatedGame) -> list[RatingChange]:
    """What ``game_over`` says a rated game did: each player's rounded rating before and
    after it, Black's first."""
    black, white = colour_seats(room)
    return [
        RatingChange(
            player=seat.id,
            before=round(old.rating.rating),
            after=round(new.rating.rating),
            provisional=new.rating.provisional,
        )
        for seat, old, new in zip((black, white), rated.before, rated.after, strict=True)
    ]


def move_times(room: Room) -> list[int | None]:
    """When each stone of the room's game was placed, in ms since the game began (None
    for all of them when the times were not kept in step with the moves)."""
    times: list[int | None] = [None] * len(room.moves)
    if room.started_ms is not None and len(room.move_ms) == len(room.moves):
        last = 0
        for i, stamp in enumerate(room.move_ms):
            last = max(last, stamp - room.started_ms)  # a wall clock may step back
            times[i] = last
    return times


def _swap2_story(room: Room) -> dict[str, object] | None:
    """A swap2 game's opening, which its moves alone do not tell: the final colour of
    the player who placed the first three stones (seat 0, the opener), and how many of
    the moves the opening placed (3: the other player then chose a colour; 5: they
    placed two more, and the opener chose). A game that ended before the choice has no
    opener's colour (None: nobody had one) and the stones placed by then. None for a
    free opening."""
    if room.opening is not Opening.SWAP2:
        return None
    if not room.opening_stones:  # it ended during the opening
        return {"opener": None, "stones": len(room.moves)}
    return {"opener": str(room.color_of(0)), "stones": room.opening_stones}


def record_bytes(room: Room, ratings: Sequence[RatingChange] | None = None) -> bytes:
    """What the archive keeps for the finished game in ``room``: the engine's JSON record
    (:func:`engine.record.record_to_dict`, its fields in its order), its moves written
    from the room's own notation (the engine's: ``server.game.play`` formats each stone
    it accepts), and the server's ``"game"`` key: ids, whether rated (it counted) and
    set up rated (``rated_room``: a rated game too short to count), what it did to both
    ratings (``ratings``, as ``game_over`` says it: a player's history shows it), aborted (a
    standings script counted an aborted game as a draw) and private, when it ended, its
    time control and both clocks at its end (null without a clock): a 5+3 game lost on
    time and a 4-second one read alike without them; and a swap2 game's opening
    (:func:`_swap2_story`), which a renju player studies and the moves do not say."""
    black, white = colour_seats(room)
    header = GameRecord(
        rule=room.rule,
        size=room.size,
        opening=room.opening,
        players=Players(black.name, white.name),
        result=_engine_result(room.result, room.size),
        started_at=_iso(room.started_ms),
    )
    data = record_to_dict(header)
    data["moves"] = [
        move_entry(move, t) for move, t in zip(room.moves, move_times(room), strict=True)
    ]
    data[GAME_KEY] = {
        "id": room.id,
        "black": black.id,
        "white": white.id,
        "rated": black_score(room) is not None,
        "rated_room": room.rated,
        "ratings": None if ratings is None else [msgspec.to_builtins(r) for r in ratings],
        "aborted": aborted(room),
        "private": room.private,
        "ended_ms": room.ended_ms,
        "time": room.time,
        "clocks": room.clocks(room.ended_ms or 0),  # stopped at the end: its final times
        "swap2": _swap2_story(room),
    }
    return _record_encoder.encode(data)  # compact UTF-8 JSON, keys in the order above


def archived_players(room: Room) -> list[str]:
    """The players whose history lists the game: the people (AI seats keep none)."""
    return [seat.id for seat in room.seats if seat is not None and not seat.bot]


def _engine_result(result: GameResult | None, size: int) -> Result | None:
    if result is None:
        return None
    winner = None if result.winner is None else Color[result.winner.upper()]
    line = None if result.line is None else tuple(parse_point(p, size) for p in result.line)
    return Result(winner, result.reason, line)


def _iso(epoch_ms: int | None) -> str | None:
    if epoch_ms is None:
        return None
    moment = datetime.datetime.fromtimestamp(epoch_ms / 1000, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- reading records back ------------------------------------------------------------


def _load(data: bytes) -> dict[str, Any]:
    try:
        loaded = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise BadRecord(f"a stored record is not JSON: {exc}") from None
    if not isinstance(loaded, dict) or not isinstance(loaded.get(GAME_KEY), dict):
        raise BadRecord("a stored record has no game facts")
    return loaded


def facts(data: bytes) -> dict[str, Any]:
    """The server's facts about a stored game (id, players' ids, rated, private, ended_ms)."""
    game: dict[str, Any] = _load(data)[GAME_KEY]
    return game


def _aborted_record(record: dict[str, Any]) -> bool:
    """:func:`aborted` for a record kept before records said it (2026-11-29)."""
    result = record.get("result") or {}
    return (
        result.get("reason") == Reason.ABANDON
        and result.get("winner") is None
        and len(record.get("moves") or ()) < ABORTED_BELOW_STONES
    )


def summary(data: bytes) -> GameSummary:
    """One line of a player's history from a stored record. Raises BadRecord."""
    record = _load(data)
    game = record[GAME_KEY]
    players = record.get("players") or {}
    try:
        fields = {
            "id": game.get("id"),
            "rule": record.get("rule"),
            "size": record.get("size"),
            "opening": record.get("opening"),
            "rated": bool(game.get("rated")),
            "black": {"id": game.get("black"), "name": players.get("black") or "?"},
            "white": {"id": game.get("white"), "name": players.get("white") or "?"},
            "result": record.get("result"),
            "moves": len(record.get("moves") or ()),
            "ended_ms": game.get("ended_ms") or 0,
            "aborted": bool(game.get("aborted", _aborted_record(record))),
            # Records kept before 2026-11-29 lack it: a game that counted was set up rated.
            "rated_room": bool(game.get("rated_room", game.get("rated"))),
            "ratings": game.get("ratings"),
        }
        return msgspec.convert(fields, GameSummary)
    except (msgspec.ValidationError, AttributeError, TypeError) as exc:
        raise BadRecord(f"a stored record does not fit a game summary: {exc}") from None


def export(data: bytes, fmt: RecordFormat) -> str:
    """The stored record as ``json`` (as kept), ``psq`` or ``moves``. Raises BadRecord."""
    if fmt == "json":
        return data.decode()
    try:
        record = record_from_dict(_load(data))
    except ValueError as exc:
        raise BadRecord(f"a stored record does not replay: {exc}") from None
    return format_psq(record) if fmt == "psq" else format_move_list(record)


def show_rating(seat: Seat, player: PlayerRating) -> None:
    """Show ``player``'s rating in ``seat``: rounded, and whether it is provisional."""
    seat.rating = round(player.rating.rating)
    seat.provisional = player.rating.provisional


def standing(rule: Rule, player: PlayerRating) -> Standing:
    """A player's standing in one rating list, as the wire shows it."""
    rating = player.rating
    return Standing(
        rule=rule,
        rating=round(rating.rating),
        rd=shown_rd(rating.rd),
        provisional=rating.provisional,
        games=player.games,
        wins=player.wins,
        losses=player.losses,
        draws=player.draws,
    )
