"""Sentences the client says about the game, shared by the log (:mod:`client.state.log`),
the status lines (:mod:`client.present`) and the app's notices: how a game ended, a
rating change, a clock, an error with its heading, and why something cannot be done.

Pure functions of the game's values; the log and the screens decide when to say them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine import Opening, Rule
from engine.notation import format_point
from engine.types import Color, Foul, Point, Reason
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import RatingChange
from protocol.limits import ABORTED_BELOW_STONES, RATED_MIN_STONES
from protocol.text import chat_typable
from protocol.values import GameSummary, TimeControl

if TYPE_CHECKING:
    from client.state.game import GameView, Outcome, Seat

IDENTITY_LOST = (
    "The server no longer knows you (your resume token expired, unused for its time, or "
    "it restarted without keeping its players): you are a new player there now, and "
    "your old games and rating stay with the player you were."
)
RATED_NOTE = "Rated: no hints or AI seats"
NO_HINT_RATED = "Hints are for unrated games: this game is rated."
NO_AI_RATED = "Rated games are for people: no AI seats here."

RATINGS_PENDING = (
    "Ratings: not written yet (the server cannot write just now); the profiles show "
    "them once it can."
)
"""A rated game's end whose ratings the server could not write then (a full disk)."""

HINT_REASONS = {
    "win": "it wins by force",
    "block": "it stops a threat",
    "threat": "it makes a threat",
    "positional": "a good shape",
    "lost": "the position is lost: it holds out longest",
}

# Error codes the player should read with a heading, not as a bare server sentence.
ERROR_HEADINGS: dict[str, str] = {
    ErrorCode.NO_AI_AVAILABLE: "No AI available",
    ErrorCode.AI_NOT_ALLOWED: "AI seat refused",
    ErrorCode.HINT_NOT_ALLOWED: "Hint refused",
    ErrorCode.NO_SUCH_GAME: "Game not found",
    ErrorCode.NO_SUCH_PLAYER: "Player not found",
    ErrorCode.TOO_MANY_ROOMS: "No new room",
}


def server_words(text: str) -> str:
    """A server's free text (an error's message) as the terminal may show it: control
    characters and the direction controls that reorder text become U+FFFD. Names and
    chat are checked on arrival (:mod:`protocol.text`); a message is not, and a hostile
    server's escape sequences in one cleared the screen and retitled the terminal."""
    return "".join(c if chat_typable(c) else "\ufffd" for c in text)


NOT_NOW = frozenset({ErrorCode.WRONG_PHASE, ErrorCode.THROTTLED})
"""Codes whose message says what stands in the way, and may begin with a name ("bob has
left the room"): said after "Not now:", as the web page does, the name as written."""
POINT_FIRST = frozenset({ErrorCode.OCCUPIED, ErrorCode.OFF_BOARD, ErrorCode.FORBIDDEN})
"""Codes whose message begins with a point ("h8 is occupied"), written in lower case."""


def describe_error(error: msg.Error) -> str:
    """The error as the log shows it, a sentence: a heading for the codes that need one,
    "Not now:" for those that say what stands in the way, else the server's words
    begun with a capital; a full stop after each (the log's own lines are sentences,
    and "wait 4 s before asking again" stood among them as the server wrote it)."""
    said = server_words(error.message).rstrip()
    heading = ERROR_HEADINGS.get(error.code) or ("Not now" if error.code in NOT_NOW else None)
    if heading:
        said = f"{heading}: {said}"
    elif error.code not in POINT_FIRST:
        said = said[:1].upper() + said[1:]
    return said if said.endswith((".", "!", "?")) else f"{said}."


def room_gone_text(room: str) -> str:
    return f"Room {room} is gone: the server no longer has it (it restarted, or the room expired)."


def finished_room_gone_text(room: str) -> str:
    """A finished game's room closed: the game itself is kept (a player who had just won
    read "The game is gone" as the result lost)."""
    return (
        f"Room {room} has closed (the server restarted, or the room expired). The game had "
        "ended, and is kept in its players' profiles."
    )


def room_closed_text(room: str, state: str) -> str:
    """The server closed a room whose time was up (``left`` with ``closed``): a finished
    game's, or one that waited in vain for an opponent."""
    if state == "over":
        return (
            f"Room {room} has closed: a finished game's room stays on the server for a "
            "while, and its time was up. The game is kept in its players' profiles."
        )
    if state == "waiting":
        return f"Room {room} has closed: nobody took the other seat in time."
    return f"Room {room} has closed on the server."


RESULT_WORDS = {
    Reason.FIVE: "five in a row",
    Reason.OVERLINE: "overline",
    Reason.BOARD_FULL: "board full",
    Reason.RESIGN: "resignation",
    Reason.TIMEOUT: "time",
    Reason.AGREEMENT: "agreed",
    Reason.ABANDON: "opponent gone",
}
"""The reason a game ended, as the status line says it after ``black wins``."""

DRAW_WORDS = {Reason.ABANDON: "both left"}
"""The reasons whose words differ after ``draw``: a game is drawn by ``abandon`` when
both players left it, not one."""


LOST_WORDS = {Reason.ABANDON: "you were away too long"}
"""The reasons whose words differ after ``lost``: "lost (opponent gone)" was said to the
player who had gone."""


def reason_words(reason: Reason, *, drawn: bool, lost: bool = False) -> str:
    """Why a game ended, in the words every screen of this client uses after ``black
    wins``, ``won``, ``lost`` (``lost``: said to the loser) or ``draw`` (the wire's
    codes read ``won (resign)`` in the profile where the game said ``resignation``)."""
    why = RESULT_WORDS.get(reason, str(reason))
    if drawn:
        return DRAW_WORDS.get(reason, why)
    return LOST_WORDS.get(reason, why) if lost else why


def ended_away_text(room: str) -> str:
    """A game of the player's ended while another screen was up (the lobby's line), before
    the client knows how (:func:`ended_away_result` says it once the list of games came)."""
    return f"Your game ({room}) has ended: p shows how, in your profile."


def change_of(game: GameSummary, player: str | None) -> RatingChange | None:
    """What a finished game did to ``player``'s rating, if it changed ratings."""
    return next((c for c in game.ratings or () if c.player == player), None)


def ended_away_result(game: GameSummary, me: str | None) -> str:
    """:func:`ended_away_text` once the player's list of games says how it ended: the
    opponent, the result from the player's side, and what it did to their rating."""
    mine = "black" if game.black.id == me else "white" if game.white.id == me else None
    other = game.white if mine == "black" else game.black
    result = game.result
    if game.aborted:
        how = "it was aborted"
    elif result.winner is None:
        how = f"a draw ({reason_words(result.reason, drawn=True)})"
    else:
        won = result.winner == mine
        why = reason_words(result.reason, drawn=False, lost=not won)
        how = f"you {'won' if won else 'lost'} ({why})"
    if (change := change_of(game, me)) is not None:
        how += f", rating {describe_rating_change(change)}"
    return f"Your game with {other.name} ({game.id}) has ended: {how}. p shows it in your profile."


def describe_time(time: TimeControl | None) -> str:
    return "no clock" if time is None else str(time)


def player_words(game: GameView, color: Color) -> str:
    """``alice (black)``, or just ``black`` for an empty seat."""
    seat = game.seat(color)
    return f"{seat.name} ({color})" if seat is not None else str(color)


def aborted(reason: Reason, winner: object, stones: int) -> bool:
    """Whether a game that ended with ``reason``, ``winner`` and ``stones`` on the board
    was aborted, by protocol.md's rule: ``abandon`` with no winner (nobody began, or
    both players left) before each had made two moves. An aborted game is no draw and
    counts for nothing; a later one both players left is a draw, rated like any."""
    return reason == Reason.ABANDON and winner is None and stones < ABORTED_BELOW_STONES


def describe_result(outcome: Outcome, game: GameView) -> str:
    """How the game ended, as a sentence that says why: ``bob (white) resigned: alice
    (black) wins.``"""
    winner = outcome.winner
    if winner is None:
        if outcome.reason == Reason.BOARD_FULL and len(game.moves) < game.size**2:
            return "Draw: no point is left that Black may play."  # renju: all are fouls
        if outcome.reason == Reason.ABANDON and not game.moves:
            return "Game aborted before its first stone."  # nobody began, or both left
        if aborted(outcome.reason, winner, len(game.moves)):
            return "Game aborted: both players left."
        return {
            Reason.BOARD_FULL: "Draw: the board is full.",
            Reason.AGREEMENT: "Draw agreed.",
            Reason.ABANDON: "Draw: both players left and did not come back.",
            Reason.TIMEOUT: "Draw: a flag fell, but the other side could not win.",
        }.get(outcome.reason, f"Draw ({outcome.reason}).")
    won, lost = player_words(game, winner), player_words(game, winner.other)
    if game.colours_unchosen:  # the seats are roles: say the players, not colours
        won, lost = game.seat_name(winner), game.seat_name(winner.other)
        during = " during the swap2 opening"
        return {
            Reason.RESIGN: f"{lost} resigned{during}: {won} wins.",
            Reason.TIMEOUT: f"{lost} did not place or choose in time{during}: {won} wins.",
            Reason.ABANDON: f"{lost} was away{during} and did not come back: {won} wins.",
        }.get(outcome.reason, f"{won} wins{during} ({outcome.reason}).")
    ends = line_ends(outcome, game.size)
    # Without a clock, a timeout is the move limit's: claimed from one who did not act.
    late = "ran out of time" if game.time is not None else "did not move in time"
    return {
        Reason.FIVE: f"{won} wins with five in a row{ends}.",
        Reason.OVERLINE: f"{won} wins with six or more in a row{ends}.",
        Reason.RESIGN: f"{lost} resigned: {won} wins.",
        Reason.TIMEOUT: f"{lost} {late}: {won} wins.",
        # "left" read wrong to a player whose network dropped: away is what the server saw.
        Reason.ABANDON: f"{lost} was away and did not come back in time: {won} wins.",
    }.get(outcome.reason, f"{won} wins ({outcome.reason}).")


def line_ends(outcome: Outcome, size: int) -> str:
    """`` from h8 to l12``: where the winning line runs, in words, so that it is found
    without colour (a monochrome terminal, NO_COLOR, a screen reader); empty without
    one."""
    if not outcome.line:
        return ""

    def reading_order(point: Point) -> tuple[int, int]:
        return point.x, -point.y  # left to right, then up the board (row 1 at the bottom)

    first, last = min(outcome.line, key=reading_order), max(outcome.line, key=reading_order)
    return f" from {format_point(first, size)} to {format_point(last, size)}"


def minutes_seconds(ms: int) -> str:
    """``0:20``: a span of time as the status line counts it down (whole seconds
    rounded up; none left below 0)."""
    total = max(0, (ms + 999) // 1000)
    return f"{total // 60}:{total % 60:02d}"


def away_for(grace_ms: int) -> str:
    """When an opponent may claim the win from a player who went away: ``after 1:00
    away`` (``after the grace period`` when the server did not say how long)."""
    return f"after {minutes_seconds(grace_ms)} away" if grace_ms else "after the grace period"


def claim_words(who: str, *, bot: bool, grace_ms: int, move_limit_ms: int) -> str:
    """``bob may claim the win after 1:00 away``; for the project's AI, which waits as
    long as a move may take (the move limit, or the grace period if longer: worker.seat),
    ``AI novice claims the win after 10:00 away``."""
    if bot:
        return f"{who} claims the win {away_for(max(grace_ms, move_limit_ms))}"
    return f"{who} may claim the win {away_for(grace_ms)}"


def leaving_words(
    opponent: Seat | None, grace_ms: int, now: float, *, move_limit_ms: int = 0
) -> str:
    """What going away from a running game does, as the questions before ^L and ^Q say
    it: the opponent may claim the win after the grace period (the project's AI after
    the move limit, ``move_limit_ms``, if that is longer: it waits as long as a move may
    take); but with the opponent away too, the game ends by itself (README: a game both
    players left), and the words "may claim after 0:30" were wrong (the one who stayed
    longest won at once)."""
    bot = opponent is not None and opponent.bot
    if opponent is None or opponent.online or bot:
        who = "the AI" if bot else "your opponent"
        return claim_words(who, bot=bot, grace_ms=grace_ms, move_limit_ms=move_limit_ms)
    name = opponent.name
    if opponent.claim_at is not None and now >= opponent.claim_at:
        return f"{name} has been away past the grace period, so the game ends: you win it"
    return (
        f"{name} is away too: if you both stay away past the grace period, the game is "
        "drawn by abandonment (aborted with fewer than two moves each)"
    )


def rating_label(rating: int, provisional: bool) -> str:
    """``1742``, or ``1500?`` while the rating is provisional (RD above 110)."""
    return f"{rating}?" if provisional else str(rating)


def describe_rating_change(change: RatingChange, arrow: str = "→") -> str:
    """``1500 → 1516 (+16)``; ``1500 → 1742? (+242)`` while the new rating is provisional."""
    delta = change.after - change.before
    return f"{change.before} {arrow} {rating_label(change.after, change.provisional)} ({delta:+d})"


def ratings_line(game: GameView, ratings: tuple[RatingChange, ...]) -> str:
    """``Ratings: alice 1500 → 1516 (+16), bob 1500 → 1484 (-16).``"""
    parts = [f"{game.name_of(c.player)} {describe_rating_change(c)}" for c in ratings]
    return "Ratings: " + ", ".join(parts) + "."


def not_counted_line(game: GameView, outcome: Outcome) -> str | None:
    """Why a rated game's ``game_over`` carried no rating change, by protocol.md's rule:
    a rated game that ends before its second stone does not count, nor does one both
    players left before they had made two moves each. None when neither applies (the
    rule gives no reason, so the client does not guess one)."""
    stones = len(game.moves)
    if aborted(outcome.reason, outcome.winner, stones):
        # The result line already said why ("aborted before its first stone", "aborted:
        # both players left"): a second reason after it read as another one.
        return "An aborted game does not count for ratings."
    if stones < RATED_MIN_STONES:
        return "This game did not count for ratings: it ended before its second stone."
    return None


def started_line(game: GameView) -> str:
    """``Game started: alice (black) vs bob (white), 5+3.``; in a swap2 opening, whose
    colours are not settled yet, ``Game started: alice vs bob, swap2 (colours to be
    chosen), 5+3.``"""
    b = game.black.name if game.black else "?"
    w = game.white.name if game.white else "?"
    if game.opening is Opening.SWAP2 and game.state == "opening":
        return (
            f"Game started: {b} vs {w}, swap2 (colours to be chosen), {describe_time(game.time)}."
        )
    return f"Game started: {b} (black) vs {w} (white), {describe_time(game.time)}."


HOW_TO_PLAY: tuple[str, ...] = (
    (
        "Two players take turns putting one stone of their colour on an empty point, where "
        "two lines cross; Black plays first. A stone stays where it is put: none is moved or "
        "taken."
    ),
    (
        "The first to have five of their stones in a row, with no gap, across, up and down or"
        " on a diagonal, wins. A full board with no five is a draw."
    ),
    (
        "Freestyle: five or more in a row wins. Standard: exactly five wins (six or more does"
        " not). Renju: Black may not make six or more, nor two threes or two fours with one "
        "stone (those points are marked as forbidden); White wins with five or more."
    ),
    (
        "Swap2, an opening that evens the game out: the first player places three stones; the"
        " other chooses a colour, or places two more and lets the first choose."
    ),
)
"""The game's rules for one who has never played, a paragraph each (the lobby's help;
the page keeps a copy, web/static/js/rules.js, which a test keeps equal): nothing
taught them, and "five or more wins" meant nothing to a child who did not know what
the five were."""


RULE_WORDS: dict[Rule, str] = {
    Rule.FREESTYLE: "five or more wins",
    Rule.STANDARD: "exactly five wins",
    Rule.RENJU: "Black has forbidden points",
}
"""What each rule means, in words for a player choosing one (the page keeps a copy,
web/static/js/rules.js, which a test keeps equal)."""

OPENING_WORDS: dict[Opening, str] = {
    Opening.FREE: "Black plays first",
    Opening.SWAP2: "Black's seat places 3, the other picks a colour or places 2 more",
}
"""What each opening means, in words for a player choosing one (as RULE_WORDS)."""

FOUL_WORDS: dict[str, str] = {
    Foul.DOUBLE_THREE: "two open threes at once",
    Foul.DOUBLE_FOUR: "two fours at once",
    Foul.OVERLINE: "six or more in a row",
}
"""What each renju foul is, for a player who met one and does not know the name."""


def choice_label(name: str, words: str) -> str:
    """``Renju (Black has forbidden points)``: a rule or an opening in a form's list."""
    return f"{name.capitalize()} ({words})"


def foul_text(point: str, foul: str) -> str:
    """``i8 is forbidden for Black in renju (double-three: two open threes at once).``"""
    words = FOUL_WORDS.get(foul)
    return f"{point} is forbidden for Black in renju ({foul}{f': {words}' if words else ''})."


def phase_words(phase: str, choices: Sequence[str] = ("black", "white", "place2")) -> str:
    """What the player to act does in a swap2 ``phase``; for ``choose``, from the
    ``choices`` open (after ``place2`` only the colours are)."""
    if phase == "choose":
        return "choose a colour or place two more" if "place2" in choices else "choose a colour"
    return {
        "place3": "place the first three stones (black, white, black)",
        "place2": "place two more stones (white, black)",
    }.get(phase, phase)


def choice_words(choice: str) -> str:
    """A swap2 choice as the log tells it: ``black``, ``white``, ``to place two more``."""
    return "to place two more" if choice == "place2" else choice
