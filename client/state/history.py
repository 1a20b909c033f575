"""Ratings and finished games as the client holds them: one rule's leaderboard, a
player's profile, their finished games (paged back), and one fetched record.

Each view is created by a local "requested" action the screen dispatches just before
it sends the request, and filled by the server's reply. The replies carry no hint of
which request they answer beyond their fields, so a reply that does not fit the
view on screen (a leaderboard of another rule, another player's profile) is
dropped; an error that belongs to these requests ends the wait with its message.
:func:`reduce_history` is pure, like :func:`client.state.reduce`, which calls it.
"""

from __future__ import annotations

import dataclasses

from engine.types import Rule
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.values import GameSummary, LeaderboardEntry, RecordFormat, Standing

GAMES_PAGE = 20  # finished games asked for at a time


# --- local actions ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class LeaderboardRequested:
    """The leaderboard of ``rule`` was asked for."""

    rule: Rule


@dataclasses.dataclass(frozen=True, slots=True)
class ProfileRequested:
    """The profile of ``player`` (None: your own) was asked for."""

    player: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class GamesRequested:
    """A page of ``player``'s finished games (None: yours): the newest when
    ``before_ms`` is None, else the games that ended before it (the next page)."""

    player: str | None
    before_ms: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class RecordRequested:
    """The record of finished game ``game`` was asked for, in ``format``."""

    game: str
    format: RecordFormat = "json"


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryFailed:
    """A request of this module's kind could not be sent (offline): stop waiting."""

    text: str


HistoryAction = (
    LeaderboardRequested | ProfileRequested | GamesRequested | RecordRequested | HistoryFailed
)


# --- the views ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class LeaderboardView:
    """The best established players of ``rule``, best first, and apart those whose
    rating has not settled yet (``unsettled``), best first."""

    rule: Rule
    entries: tuple[LeaderboardEntry, ...] = ()
    unsettled: tuple[LeaderboardEntry, ...] = ()
    loading: bool = True
    error: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ProfileView:
    """A player's standing under each rule; ``player`` None until the reply names
    them (a request for your own profile)."""

    player: str | None
    name: str = ""
    ratings: tuple[Standing, ...] = ()
    loading: bool = True
    error: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ArchiveView:
    """A player's finished games, newest first, as far back as paged. ``more``: the
    last page was full, so older games may exist."""

    player: str | None
    games: tuple[GameSummary, ...] = ()
    loading: bool = True
    appending: bool = False
    more: bool = False
    error: str | None = None

    @property
    def oldest_ms(self) -> int | None:
        """``before_ms`` for the next page."""
        return self.games[-1].ended_ms if self.games else None


@dataclasses.dataclass(frozen=True, slots=True)
class FetchedRecord:
    """A finished game's record: ``text`` None while it is on its way."""

    game: str
    format: RecordFormat = "json"
    text: str | None = None
    error: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryView:
    """What the ratings and history screens draw."""

    leaderboard: LeaderboardView | None = None
    profile: ProfileView | None = None
    archive: ArchiveView | None = None
    record: FetchedRecord | None = None


# Errors that end a wait, and which view they belong to (None: every waiting view).
_ERROR_OWNERS: dict[str, str | None] = {
    ErrorCode.NO_SUCH_PLAYER: "profile",
    ErrorCode.NO_SUCH_GAME: "record",
    ErrorCode.UNAVAILABLE: None,
    ErrorCode.RATE_LIMITED: None,
    ErrorCode.INTERNAL: None,
}


def reduce_history(history: HistoryView, action: object, me: str | None) -> HistoryView:
    """``history`` after ``action`` (a history action or any server message; others
    leave it as it was). ``me`` is this player's id, for replies about "me"."""
    match action:
        case LeaderboardRequested(rule=rule):
            return dataclasses.replace(history, leaderboard=LeaderboardView(rule))
        case ProfileRequested(player=player):
            return dataclasses.replace(history, profile=ProfileView(player))
        case GamesRequested(player=player, before_ms=None):
            return dataclasses.replace(history, archive=ArchiveView(player))
        case GamesRequested(player=player):
            archive = history.archive
            if archive is None or archive.player != player:
                return dataclasses.replace(history, archive=ArchiveView(player))
            return dataclasses.replace(
                history, archive=dataclasses.replace(archive, loading=True, appending=True)
            )
        case RecordRequested(game=game, format=fmt):
            return dataclasses.replace(history, record=FetchedRecord(game, fmt))
        case HistoryFailed(text=text):
            return _fail(history, None, text)
        case msg.Leaderboard(rule=rule, entries=entries, unsettled=unsettled):
            board = history.leaderboard
            if board is None or board.rule != rule:
                return history
            filled = LeaderboardView(rule, tuple(entries), tuple(unsettled), loading=False)
            return dataclasses.replace(history, leaderboard=filled)
        case msg.Profile(player=player, name=name, ratings=ratings):
            wanted = history.profile
            if wanted is None or wanted.player not in (player, None):
                return history
            if wanted.player is None and player != me:
                return history
            profile = ProfileView(player, name, tuple(ratings), loading=False)
            return dataclasses.replace(history, profile=profile)
        case msg.Games(player=player, items=items):
            archive = history.archive
            if archive is None or not archive.loading or archive.player not in (player, None):
                return history
            if archive.player is None and player != me:
                return history
            games = (*archive.games, *items) if archive.appending else tuple(items)
            more = len(items) >= GAMES_PAGE
            paged = ArchiveView(archive.player, games, loading=False, more=more)
            return dataclasses.replace(history, archive=paged)
        case msg.Record(game=game, format=fmt, text=text):
            record = history.record
            if record is None or (record.game, record.format) != (game, fmt):
                return history
            return dataclasses.replace(history, record=FetchedRecord(game, fmt, text))
        case msg.Error(code=code, message=message) if code in _ERROR_OWNERS:
            return _fail(history, _ERROR_OWNERS[code], message)
    return history


def _fail(history: HistoryView, owner: str | None, text: str) -> HistoryView:
    """End the wait of the view ``owner`` (None: of every view still waiting)."""
    board, profile, archive, record = (
        history.leaderboard,
        history.profile,
        history.archive,
        history.record,
    )
    if owner is None and board is not None and board.loading:
        board = dataclasses.replace(board, loading=False, error=text)
    if owner in (None, "profile") and profile is not None and profile.loading:
        profile = dataclasses.replace(profile, loading=False, error=text)
    if owner is None and archive is not None and archive.loading:
        archive = dataclasses.replace(archive, loading=False, error=text)
    waiting = record is not None and record.text is None and record.error is None
    if owner in (None, "record") and record is not None and waiting:
        record = dataclasses.replace(record, error=text)
    return HistoryView(board, profile, archive, record)


__all__ = [
    "GAMES_PAGE",
    "ArchiveView",
    "FetchedRecord",
    "GamesRequested",
    "HistoryAction",
    "HistoryFailed",
    "HistoryView",
    "LeaderboardRequested",
    "LeaderboardView",
    "ProfileRequested",
    "ProfileView",
    "RecordRequested",
    "reduce_history",
]
