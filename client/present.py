"""Words and numbers as the screens show them: clocks, seats, status lines,
lobby rows. Pure functions of the view model and the local time, so they are
tested without a terminal and every screen says things the same way."""

from __future__ import annotations

import datetime
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence

from rich.cells import cell_len

from client.glyphs import UNICODE, Glyphs
from client.state.game import GameView, Seat
from client.state.lobby import QueueView
from client.state.model import ViewModel
from client.state.session import Link
from client.state.words import aborted, change_of, describe_time, rating_label, reason_words
from engine import Opening
from engine.notation import format_point
from engine.types import Color
from protocol.limits import MAX_BASE_MS, MAX_INC_MS
from protocol.values import (
    GameSummary,
    LeaderboardEntry,
    PlayerRef,
    RoomSummary,
    Standing,
    TimeControl,
)

LOW_CLOCK_MS = 10_000
"""A clock under this is low: it shows tenths, and the game screen draws it reversed."""


def format_clock(ms: int) -> str:
    """``4:59`` from a minute up; ``0:09.4`` with tenths in the last ten seconds."""
    ms = max(0, ms)
    if ms < LOW_CLOCK_MS:
        return f"0:{ms // 1000:02d}.{(ms % 1000) // 100}"
    total = (ms + 999) // 1000  # a clock showing 0:10 still has time, round up
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


def seat_label(
    seat: Seat | None,
    color: Color,
    glyph: str,
    now: float,
    *,
    over: bool = False,
    name_max: int = 0,
    cut: str = "…",
    rating: bool = True,
) -> str:
    """``● alice (1500)``, with ``[bot]``, and ``[offline, claim in 42s]`` when
    disconnected, counting down what is left of the grace period (a spectator has no
    question line under the board to say it; ``[offline 42s]`` read as time gone by),
    ``[offline]`` once it is over; once the game is
    ``over``, a player gone is ``[left]``: nothing is lost by leaving a finished game.
    A name longer than ``name_max`` columns (0: any) is cut short, ending in ``cut``;
    ``rating`` False leaves the rating out (a narrow screen)."""
    if seat is None:
        return f"{glyph} (empty)"
    text = f"{glyph} {shorten(seat.name, name_max, cut)}"
    if seat.rating is not None and rating:
        text += f" ({rating_label(seat.rating, seat.provisional)})"
    if seat.bot:
        text += " [bot]"
    if not seat.online and over:
        text += " [left]"
    elif not seat.online:
        left = 0.0 if seat.claim_at is None else seat.claim_at - now
        text += f" [offline, claim in {math.ceil(left)}s]" if left > 0 else " [offline]"
    return text


def low_clock_spans(first: str, game: GameView | None, now: float) -> list[tuple[int, int]]:
    """Where in ``first`` (the players' line :func:`status_lines` made at ``now``) a low
    clock of a game still on stands (start, end): the screen draws it reversed, a cue
    that holds without colour (``NO_COLOR``, a colour-blind eye) where the tenths alone
    were easy to miss. Black's clock ends before the line's ``  vs  ``, White's ends the
    line."""
    if game is None or game.clocks is None or game.state == "over":
        return []
    spans = []
    for color in (Color.BLACK, Color.WHITE):
        if game.clocks.remaining(color, now) >= LOW_CLOCK_MS:
            continue
        label = clock_label(game, color, now)
        end = first.find("  vs  ") if color is Color.BLACK else len(first)
        if end >= len(label) and first[end - len(label) : end] == label:
            spans.append((end - len(label), end))
    return spans


def clock_label(game: GameView, color: Color, now: float) -> str:
    """The time ``color`` has left; before the server sends clocks (a room waiting for
    its players), the room's starting time; ``--:--`` in a room without a clock."""
    if game.clocks is None:
        return format_clock(game.time.base_ms) if game.time is not None else "--:--"
    return format_clock(game.clocks.remaining(color, now))


def turn_label(game: GameView, me: frozenset[str]) -> str:
    """Whose turn, in the words a player expects."""
    if game.state == "waiting":
        return "waiting for an opponent"
    if game.state == "over":
        outcome = game.outcome
        if outcome is None:
            return "game over"
        if aborted(outcome.reason, outcome.winner, len(game.moves)):
            return "aborted"
        why = reason_words(outcome.reason, drawn=outcome.winner is None)
        if outcome.winner is None:
            return f"draw ({why})"
        if game.colours_unchosen:
            return f"{game.seat_name(outcome.winner)} wins ({why}, in the opening)"
        return f"{outcome.winner} wins ({why})"
    if game.state == "opening" and game.swap2 is not None:
        actor = game.swap2.to_act
        you = actor in me
        who = "you" if you else game.name_of(actor)
        doing = {  # in words, not the wire's phase names ("swap2 place3: you")
            "place3": "place 3 stones" if you else "places 3 stones",
            "place2": "place 2 more" if you else "places 2 more",
            "choose": "choose" if you else "chooses",
        }.get(game.swap2.phase, game.swap2.phase)
        return f"swap2: {who} {doing}"
    if game.to_move is None:
        return ""
    if game.sending is not None:
        return f"sending {format_point(game.sending.point, game.size)}..."
    seat = game.seat(game.to_move)
    mine = seat is not None and seat.id in me
    if mine and len(me) == 1:
        return f"your move ({game.to_move})"
    name = seat.name if seat is not None else "?"
    return f"{name} to move ({game.to_move})"


def status_lines(
    model: ViewModel, me: frozenset[str], glyphs: Glyphs, now: float, width: int = 0
) -> tuple[str, str]:
    """The two status lines of the game screen: players with clocks (long names cut
    short to keep both clocks in ``width``); then move
    number, turn, rule, watchers and connection. The second fits in ``width``
    columns (0: any width) by leaving out its least important parts whole (see
    :func:`fit_parts`), never by cutting one off in the middle."""
    game = model.room
    if game is None:
        return ("", link_label(model.session.link, now))
    over = game.state == "over"

    def players(name_max: int, detail: int) -> str:
        def side(seat: Seat | None, color: Color, glyph: str) -> str:
            text = seat_label(
                seat, color, glyph, now, over=over, name_max=name_max, cut=glyphs.cut,
                rating=detail > 1,
            )  # fmt: skip
            # Names are display names, not unique (and "ann" may be Cyrillic): "(you)"
            # says which seat is yours, as on the page (not both, in hot seat).
            if detail > 0 and seat is not None and seat.id in me and len(me) == 1:
                text += " (you)"
            return f"{text} {clock_label(game, color, now)}"

        return (
            f"{side(game.black, Color.BLACK, glyphs.black)}  vs  "
            f"{side(game.white, Color.WHITE, glyphs.white)}"
        )

    # Each clock stays on the screen (White's, last, was cut off at 40 columns): the
    # ratings go first, then long names are cut short, then "(you)" goes (the second
    # line says whose move it is), and last the names themselves.
    longest = max((cell_len(s.name) for s in (game.black, game.white) if s), default=0)
    first = ""
    for detail, cut in ((2, False), (1, False), (1, True), (0, True)):
        name_max = longest
        first = players(0, detail)
        while cut and width and cell_len(first) > width and name_max > NAME_SHORTEST:
            name_max -= 1
            first = players(name_max, detail)
        if not width or cell_len(first) <= width:
            break
    else:
        first = (
            f"{glyphs.black} {clock_label(game, Color.BLACK, now)}  vs  "
            f"{glyphs.white} {clock_label(game, Color.WHITE, now)}"
        )
    # (how much it matters: 0 always shown, the highest left out first; the text)
    parts: list[tuple[int, str]] = [
        # Over, the count is the moves played ("move 10 · black wins" after 9 moves).
        (0, plural(len(game.moves), "move") if over else f"move {game.move_number}"),
        (0, turn_label(game, me)),
        (
            2,
            f"{game.rule}"
            + ("" if game.size == 15 else f" {game.size}x{game.size}")
            + (" swap2" if game.opening is Opening.SWAP2 else ""),
        ),
        (3, "rated" if game.rated else ""),
        # A private game's code stays in sight for a friend to watch by (it was said once
        # in the log, which a few chat lines scrolled away; the page keeps it shown).
        (3, f"private, code {game.code}" if game.private and game.code else ""),
        (4, describe_time(game.time)),  # the clocks are on the first line
    ]
    watching = not any(game.color_of(p) is not None for p in me)
    if watching:
        others = game.spectators - 1
        parts.append((1, f"you and {others} more watching" if others > 0 else "you are watching"))
    elif game.spectators:
        parts.append((5, f"{game.spectators} watching"))
    if not model.session.link.online:
        parts.append((0, model.session.link.status))
    return first, fit_parts(parts, width, f" {glyphs.sep} ")


def plural(count: int, noun: str) -> str:
    """``1 move``, ``2 moves``, ``0 moves``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


NAME_SHORTEST = 4
"""The fewest columns a name on the status line is cut to, its ``cut`` mark included."""


TABLE_NAME_MAX = 16
"""Columns a name takes in a table (the lobby, the leaderboard, finished games) or a
title: 24 wide characters are 48 columns, which pushed the other columns off an
80-column screen."""


def shorten(text: str, most: int, cut: str = "…") -> str:
    """``text`` in at most ``most`` columns (0: any), its end replaced by ``cut`` when it
    had to be cut."""
    if not most or cell_len(text) <= most:
        return text
    room = most - cell_len(cut)
    kept = ""
    for char in text:
        if cell_len(kept + char) > room:
            break
        kept += char
    return kept + cut


def fit_parts(parts: list[tuple[int, str]], width: int, sep: str) -> str:
    """The non-empty ``parts`` joined by ``sep``, in their order, leaving out the least
    important (the highest number; of equals, the last) until the line fits in
    ``width`` columns (0: any). Parts that matter most (0) always stay."""
    shown = [(rank, text) for rank, text in parts if text]

    def line() -> str:
        return sep.join(text for _, text in shown)

    while width and cell_len(line()) > width:
        rank, index = max((rank, i) for i, (rank, _) in enumerate(shown))
        if rank == 0:
            break
        del shown[index]
    return line()


def link_label(link: Link, now: float) -> str:
    return link.describe(now)


def link_banner(link: Link, server: str, now: float, glyphs: Glyphs = UNICODE) -> str:
    """What the screens say while the link to ``server`` is down ('' while it is up):
    why the last attempt failed, when the next one is, and the key to stop trying."""
    if link.online:
        return ""
    if link.status == "connecting":
        return f"Connecting to {server}..."
    if link.status == "offline":
        return f"Not connected to {server}: {link.detail or 'closed'}."
    lead = "Connection lost" if link.was_online else f"Cannot connect to {server}"
    when = "trying now"
    if link.next_try_at is not None and link.next_try_at > now:
        when = f"next try in {math.ceil(link.next_try_at - now)}s"
    detail = f": {link.detail}" if link.detail else ""
    return (
        f"{lead}{detail}. {when.capitalize()} (attempt {link.attempt}) "
        f"{glyphs.sep} Esc: stop trying"
    )


def queue_label(
    queue: QueueView | None,
    now: float,
    rooms: Sequence[RoomSummary] = (),
    me: str | None = None,
    width: int = 1000,
) -> str:
    """``Looking for an opponent (freestyle, 5+3) 0:12 · AI at 0:30 - Esc to cancel``;
    past that time, ``· AI when one is free``. When rooms of ``rooms`` wait for a player
    with the same rule and clock, it says how many: quick match pairs players who search,
    not rooms, and a player waited with three such rooms in the list. Within ``width``
    columns that count is said shorter, then not at all, before the key to cancel is cut
    (it was, at 80 columns)."""
    if queue is None:
        return ""
    waited = max(0, int(now - queue.since))
    rest = f"({queue.rule}, {describe_time(queue.time)}) {waited // 60}:{waited % 60:02d}"
    if queue.ai_after_ms is not None:
        at = (queue.ai_after_ms + 999) // 1000
        # Still waiting after that time: no AI was free then; the server tries again.
        rest += " · AI when one is free" if waited > at else f" · AI at {at // 60}:{at % 60:02d}"
    alike = sum(1 for room in rooms if waits_like(room, queue, me))
    rooms_said = f" · {alike} such room{'s' if alike > 1 else ''} open"
    variants = [("Looking for an opponent", "")]
    if alike:
        variants[:0] = [
            ("Looking for an opponent", rooms_said + " in the list"),
            ("Looking for an opponent", rooms_said),
            ("Searching", rooms_said),
        ]
    for head, said in variants:
        text = f"{head} {rest}{said} - Esc to cancel"
        if cell_len(text) <= width:
            break
    return text


def waits_like(room: RoomSummary, queue: QueueView, me: str | None) -> bool:
    """Whether ``room`` waits for a player with the rule and the clock ``queue`` asks
    for (not one's own room)."""
    seated = [p for p in (room.players.black, room.players.white) if p is not None]
    return (
        room.state == "waiting"
        and room.rule == queue.rule
        and room.time == queue.time
        and len(seated) == 1
        and all(p.id != me for p in seated)
    )


def queue_change(queue: QueueView | None, now: float) -> float | None:
    """Seconds until the queue's waiting time shows another second (None: no queue)."""
    if queue is None:
        return None
    return 1.0 - (now - queue.since) % 1.0 + 0.01


def _player(ref: PlayerRef | None, name_max: int = TABLE_NAME_MAX) -> str:
    if ref is None:
        return "-"
    text = shorten(ref.name, name_max)
    if ref.rating is not None:
        text += f" {rating_label(ref.rating, ref.provisional)}"
    # Offline (a seat kept a while, a waiting room's too): one who joins may wait for them.
    return text + (" [bot]" if ref.bot else "") + ("" if ref.online else " [away]")


LOBBY_COLUMNS = ("rule", "time", "black", "white", "state", "watch")
"""The spectator count last: at 80 columns a table too wide for the screen loses it
first (the state had been cut to ``wai``, and was off the screen at 100 rooms)."""

_STATE_ORDER = {"waiting": 0, "opening": 1, "playing": 2}


def lobby_order(rooms: Mapping[str, RoomSummary]) -> list[tuple[str, RoomSummary]]:
    """The rooms as a lobby lists them: those waiting for a player first, then the games
    being played, each by room id (the server's order, random to a person: waiting
    and playing rooms were mixed over a hundred rows)."""
    return sorted(rooms.items(), key=lambda item: (_STATE_ORDER.get(item[1].state, 3), item[0]))


def lobby_row(room: RoomSummary, name_max: int = TABLE_NAME_MAX) -> tuple[str, ...]:
    """One lobby table row, in :data:`LOBBY_COLUMNS` order (the room id is the row's
    key, not a column: nobody types it), each name in at most ``name_max`` columns. The
    board's size is said after the rule when it is not 15, as in a profile's games (a
    column of its own, nearly always "15", took 6 of the 80 columns)."""
    rule = str(room.rule) + ("" if room.size == 15 else f" {room.size}x{room.size}")
    rule += " swap2" if room.opening != "free" else ""
    flags = (" rated" if room.rated else "") + (" private" if room.private else "")
    return (
        rule + flags,
        describe_time(room.time),
        _player(room.players.black, name_max),
        _player(room.players.white, name_max),
        room.state,
        str(room.spectators),
    )


TABLE_NAME_MIN = 6
"""The fewest columns a name in a table is cut to so that its rows fit the screen."""


def fitting_rows(
    labels: Sequence[str], width: int, make: Callable[[int], list[tuple[str, ...]]]
) -> list[tuple[str, ...]]:
    """The rows ``make(name_max)`` gives, with names cut shorter (from
    :data:`TABLE_NAME_MAX` down to :data:`TABLE_NAME_MIN`) while the table under
    ``labels`` would be wider than ``width`` columns: at 80 columns a swap2 room and a
    long name pushed the lobby's last column, the state, off the screen ("playi")."""
    rows: list[tuple[str, ...]] = []
    for name_max in range(TABLE_NAME_MAX, TABLE_NAME_MIN - 1, -1):
        rows = make(name_max)
        if table_width(labels, rows) <= width:
            break
    return rows


def lobby_choice(room: RoomSummary | None) -> str:
    """The lobby's line for the room the cursor is on, named in words: Enter joins
    ``tess's renju room`` (or watches ``ann vs bob``, the seats taken). The row's mark is
    a colour alone, which a screen reader and a terminal without colours do not show."""
    private = "c: a private room's code."
    if room is None:
        return "Enter joins, w watches the room; c joins a private room by its code."
    black, white = room.players.black, room.players.white
    rule = str(room.rule)
    if room.state != "waiting" or (black is not None and white is not None):
        names = [shorten(p.name, TABLE_NAME_MAX) if p is not None else "-" for p in (black, white)]
        return f"Enter watches {names[0]} vs {names[1]} ({rule}); {private}"
    seated = black or white
    whose = f"{shorten(seated.name, TABLE_NAME_MAX)}'s" if seated else "the"
    return f"Enter joins {whose} {rule} room, w watches it; {private}"


def lobby_rows(rooms: Sequence[RoomSummary], width: int) -> list[tuple[str, ...]]:
    """The lobby's rows, fitted to ``width`` columns (:func:`fitting_rows`)."""
    return fitting_rows(LOBBY_COLUMNS, width, lambda most: [lobby_row(r, most) for r in rooms])


def game_rows(
    games: Sequence[GameSummary], player: str | None, width: int
) -> list[tuple[str, ...]]:
    """A profile's finished games, fitted to ``width`` columns (:func:`fitting_rows`)."""
    return fitting_rows(
        GAME_COLUMNS, width, lambda most: [game_row(g, player, most) for g in games]
    )


def table_width(labels: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The columns a table of ``rows`` under ``labels`` takes: each column as wide as
    its widest cell, and a column of padding on either side (Textual's DataTable)."""
    return sum(
        max([cell_len(label), *(cell_len(row[i]) for row in rows)]) + 2
        for i, label in enumerate(labels)
    )


class TimeControlError(ValueError):
    """Text that is not a time control like ``5+3`` or ``none``."""


MIN_BASE_MS = 1_000
"""The shortest clock a player may ask for here (the wire takes 1 ms, for bots' tests)."""


_NUMBER = re.compile(r"\s*(\d+\.?\d*|\.\d+)\s*(s?)\s*", re.ASCII)
"""A clock's number as the web page reads it too: digits with a decimal point at most (no
sign, exponent, ``_`` or ``inf``), an ``s`` after it for seconds."""
_CLOCK = re.compile(r"\s*(\d+):([0-5]\d)\s*", re.ASCII)  # 0:30, as a clock shows it


def parse_time_control(text: str) -> TimeControl | None:
    """``"5+3"`` -> 5 minutes + 3 s increment; ``"10"`` -> 10+0; ``"30s"`` -> 30 seconds
    + 0 (how :class:`TimeControl` writes a base under a minute), as does ``"0:30"``
    (minutes:seconds, as a clock shows it); ``"none"``/``""`` -> no clock. Minutes and
    seconds may have decimals (``0.5+1``, or ``0,5+1`` as much of Europe writes them).
    Full-width digits (as a CJK keyboard types them) read as plain ones."""
    cleaned = unicodedata.normalize("NFKC", text).strip().lower().replace(",", ".")
    if cleaned in ("", "none", "-", "no", "unlimited"):
        return None
    base_text, _, inc_text = cleaned.partition("+")
    base = _NUMBER.fullmatch(base_text)
    clock = _CLOCK.fullmatch(base_text)
    inc = _NUMBER.fullmatch(inc_text.strip() or "0")  # "5+" is 5+0
    if (base is None and clock is None) or inc is None:
        raise TimeControlError(
            f"{text!r} is not a clock like 5+3 (minutes + seconds a move), 30s+0 or "
            "0:30+0 (seconds), or none."
        )
    if clock is not None:
        base_ms = (int(clock.group(1)) * 60 + int(clock.group(2))) * 1000
    else:
        assert base is not None
        base_ms = round(float(base.group(1)) * (1000 if base.group(2) else 60_000))
    inc_ms = round(float(inc.group(1)) * 1000)
    if base_ms < MIN_BASE_MS or inc_ms < 0 or base_ms > MAX_BASE_MS or inc_ms > MAX_INC_MS:
        raise TimeControlError(f"{text!r} is out of range (1 s to 24 h, increment up to 1 h).")
    return TimeControl(base_ms=base_ms, inc_ms=inc_ms)


# --- ratings and history -------------------------------------------------------------------

LEADERBOARD_COLUMNS = ("#", "player", "rating", "RD", "games")
STANDING_COLUMNS = ("rule", "rating", "RD", "games", "won", "lost", "drawn")
GAME_COLUMNS = ("ended", "rule", "black", "white", "result", "moves")


def leaderboard_row(entry: LeaderboardEntry, *, settled: bool = True) -> tuple[str, ...]:
    """A leaderboard line; one of a player not settled yet has no rank and its rating
    reads ``1742?``, as a provisional rating reads everywhere."""
    name = shorten(entry.name, TABLE_NAME_MAX)
    rank, rating = (str(entry.rank), str(entry.rating)) if settled else ("", f"{entry.rating}?")
    return (rank, name, rating, str(entry.rd), str(entry.games))


def standing_row(standing: Standing) -> tuple[str, ...]:
    """A profile's line for one rule: ``unrated`` and no RD before a rated game under
    it, as the page says (this said ``1500?`` and ``500``, figures nobody earned)."""
    rated = standing.games > 0
    return (
        str(standing.rule),
        rating_label(standing.rating, standing.provisional) if rated else "unrated",
        str(standing.rd) if rated else "-",
        str(standing.games),
        str(standing.wins),
        str(standing.losses),
        str(standing.draws),
    )


def game_result_label(game: GameSummary, player: str | None) -> str:
    """How a finished game ended, from ``player``'s side when they played it:
    ``won (five in a row)``, ``lost (resignation)``, ``draw (agreed)``; else ``black
    (five in a row)``."""
    result = game.result
    if aborted(result.reason, result.winner, game.moves):
        return "aborted"
    why = reason_words(result.reason, drawn=result.winner is None)
    if result.winner is None:
        return f"draw ({why})"
    winner = game.black if result.winner == "black" else game.white
    loser = game.white if result.winner == "black" else game.black
    if player is not None and player == winner.id:
        return f"won ({why})"
    if player is not None and player == loser.id:
        return f"lost ({reason_words(result.reason, drawn=False, lost=True)})"
    return f"{result.winner} ({why})"


def ended_label(ended_ms: int, now: datetime.datetime | None = None) -> str:
    """When a game ended, in local time: ``14 Mar 18:05`` this year (``now``'s),
    ``2025-03-14`` before it. (The whole ``2025-03-14 18:05`` on every line took four
    of the 80 columns the profile's games cut their last column for.)"""
    moment = datetime.datetime.fromtimestamp(ended_ms / 1000)
    this_year = moment.year == (now or datetime.datetime.now()).year
    return moment.strftime("%d %b %H:%M" if this_year else "%Y-%m-%d")


def game_row(
    game: GameSummary, player: str | None, name_max: int = TABLE_NAME_MAX
) -> tuple[str, ...]:
    """One line of a player's finished games, in :data:`GAME_COLUMNS` order."""
    rule = str(game.rule) + ("" if game.size == 15 else f" {game.size}x{game.size}")
    if (change := change_of(game, player)) is not None:  # rated: what it did to the rating
        rule += f" {change.after - change.before:+d}"
    else:
        rule += " rated" if game.rated else " rated, not counted" if game.rated_room else ""
    return (
        ended_label(game.ended_ms),
        rule,
        shorten(game.black.name, name_max),
        shorten(game.white.name, name_max),
        game_result_label(game, player),
        str(game.moves),
    )
