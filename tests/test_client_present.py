"""How the client words things: clocks, time controls, the lobby row."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace
from test_client_state import summary

from client.glyphs import UNICODE
from client.present import (
    TimeControlError,
    ended_label,
    fit_parts,
    format_clock,
    game_result_label,
    game_row,
    lobby_row,
    low_clock_spans,
    parse_time_control,
    seat_label,
    status_lines,
)
from client.state.game import Seat
from client.state.model import ViewModel, reduce
from client.state.words import ended_away_result
from engine.types import Color, Opening, Reason, Rule
from protocol.events import GameOver, RatingChange
from protocol.messages import Event, Snapshot, Welcome
from protocol.values import (
    Clocks,
    GameResult,
    PlayerRef,
    RoomSummary,
    RoomView,
    Seats,
    Swap2State,
    TimeControl,
)


@pytest.mark.parametrize(
    ("ms", "shown"),
    [
        (300_000, "5:00"),
        (61_001, "1:02"),
        (10_000, "0:10"),
        (9_400, "0:09.4"),
        (0, "0:00.0"),
        (-5, "0:00.0"),
        (3_600_000, "1:00:00"),
    ],
)
def test_format_clock(ms: int, shown: str) -> None:
    """Minutes and seconds, tenths in the last ten seconds, hours when needed."""
    assert format_clock(ms) == shown


def test_parse_time_control() -> None:
    """5+3 is five minutes plus three seconds; none is no clock; nonsense is refused."""
    assert parse_time_control("5+3") == TimeControl(base_ms=300_000, inc_ms=3_000)
    assert parse_time_control(" 0.5 ") == TimeControl(base_ms=30_000, inc_ms=0)
    assert parse_time_control("none") is None
    assert parse_time_control("") is None
    with pytest.raises(TimeControlError):
        parse_time_control("five")
    with pytest.raises(TimeControlError):
        parse_time_control("0+3")
    with pytest.raises(TimeControlError, match="out of range"):
        parse_time_control("0.01")  # 0.6 s: under the 1 s the message gives as the least
    assert parse_time_control("0.02") == TimeControl(base_ms=1_200, inc_ms=0)
    for word in ("inf", "nan", "5+inf", "-inf", "1e3", "1_0", "+5", "\u0663"):
        with pytest.raises(TimeControlError, match="is not a clock like 5"):
            parse_time_control(word)  # float() reads each of them as a number
    assert parse_time_control("30s") == TimeControl(base_ms=30_000, inc_ms=0)
    assert parse_time_control("1.5 s + 2") == TimeControl(base_ms=1_500, inc_ms=2_000)
    # As a clock shows it (a bullet player typed 0:30+0 and was refused).
    assert parse_time_control("0:30+0") == TimeControl(base_ms=30_000, inc_ms=0)
    # A CJK keyboard's full-width digits, and Europe's decimal comma (both were refused).
    assert parse_time_control("\uff15+\uff13") == TimeControl(base_ms=300_000, inc_ms=3_000)
    assert parse_time_control("\uff10:\uff13\uff10+\uff10") == TimeControl(base_ms=30_000, inc_ms=0)
    assert parse_time_control("0,5+2") == TimeControl(base_ms=30_000, inc_ms=2_000)
    assert parse_time_control("1:30+1") == TimeControl(base_ms=90_000, inc_ms=1_000)
    with pytest.raises(TimeControlError, match=r"30s\+0 or 0:30\+0 \(seconds\)"):
        parse_time_control("0:75")


@pytest.mark.parametrize(
    ("base_ms", "inc_ms", "text"),
    [
        (300_000, 3_000, "5+3"),
        (90_000, 0, "1.5+0"),
        (30_000, 0, "30s+0"),  # it was 0.5+0
        (10_000, 0, "10s+0"),  # it was 0.166667+0
        (100_000, 2_000, "100s+2"),
        (86_399_950, 333, "86399.95s+0.333"),
        (86_400_000, 3_600_000, "1440+3600"),
    ],
)
def test_a_time_control_is_written_as_players_write_it(
    base_ms: int, inc_ms: int, text: str
) -> None:
    """Minutes + seconds, a base under a minute (or no short decimal of minutes) in
    seconds; what is written reads back as the same clock."""
    clock = TimeControl(base_ms=base_ms, inc_ms=inc_ms)
    assert str(clock) == text
    assert parse_time_control(text) == clock


@given(st.integers(1_000, 86_400_000), st.integers(0, 3_600_000))
def test_every_clock_written_reads_back_the_same(base_ms: int, inc_ms: int) -> None:
    clock = TimeControl(base_ms=base_ms, inc_ms=inc_ms)
    assert parse_time_control(str(clock)) == clock


ANN_WAITING: dict[str, object] = {
    "id": "r1",
    "rule": Rule.FREESTYLE,
    "size": 15,
    "opening": Opening.FREE,
    "time": None,
    "rated": False,
    "private": False,
    "players": Seats(black=PlayerRef(id="a", name="ann", rating=1500)),
    "spectators": 0,
    "state": "waiting",
}
"""A free-opening 15x15 room with no clock, unrated, ann waiting as Black: what a lobby
line and a room's view have in common."""


def room_summary(**changes: object) -> RoomSummary:
    """A lobby line: a rated free-opening 15x15 room with no clock, ann waiting as
    Black, unless ``changes`` say otherwise."""
    fields = {**ANN_WAITING, "rated": True, **changes}
    return RoomSummary(**fields)  # type: ignore[arg-type]


def test_lobby_row() -> None:
    """A lobby row names rule, size (when not 15x15) and flags, time, both players and
    the state."""
    room = room_summary(
        rule=Rule.RENJU,
        opening=Opening.SWAP2,
        time=TimeControl(base_ms=600_000, inc_ms=5_000),
        players=Seats(black=PlayerRef(id="a", name="ann", rating=1600)),
        spectators=4,
    )
    assert lobby_row(room) == ("renju swap2 rated", "10+5", "ann 1600", "-", "waiting", "4")
    assert lobby_row(room_summary(size=19))[0] == "freestyle 19x19 rated"
    away = room_summary(players=Seats(black=PlayerRef(id="a", name="ann", online=False)))
    assert lobby_row(away)[2] == "ann [away]"  # her seat kept a while: one who joins waits


def room_view(**changes: object) -> RoomView:
    """A free-opening 15x15 room, waiting, with ann as Black, unless ``changes`` say
    otherwise."""
    fields = {**ANN_WAITING, "moves": [], "to_move": None, "clocks": None, "seq": 1, **changes}
    return RoomView(**fields)  # type: ignore[arg-type]


def viewed(me: str, room: RoomView) -> ViewModel:
    """The view of ``room`` by player ``me``, welcomed and sent its snapshot."""
    welcome = Welcome(player=me, name="ann", token="t", resumed=False)
    return reduce(reduce(ViewModel(), welcome, 0.0), Snapshot(room=room), 0.0)


def header_of(me: str, width: int = 0, **changes: object) -> str:
    """The game screen's first status line, for player ``me``, of :func:`room_view`
    with ``changes``, ``width`` columns wide (0: any)."""
    first, _ = status_lines(viewed(me, room_view(**changes)), frozenset({me}), UNICODE, 0.0, width)
    return first


def test_a_clocked_room_shows_its_starting_time_before_the_game() -> None:
    """Waiting for an opponent in a 2+1 room (no clocks from the server yet): both clocks
    read 2:00, not --:--; a room without a clock still reads --:--."""
    for time, shown in ((TimeControl(base_ms=120_000, inc_ms=1_000), "2:00"), (None, "--:--")):
        first = header_of("a", time=time)
        assert first.count(shown) == 2, first


def test_a_low_clock_is_marked_where_it_stands_in_the_header() -> None:
    """The clocks in their last ten seconds are drawn reversed on the game screen (a
    cue that needs no colour): the spans cover exactly Black's and White's clock
    texts; above ten seconds, or once the game is over, nothing is marked."""
    players = Seats(
        black=PlayerRef(id="a", name="0:05.0", rating=1500),
        white=PlayerRef(id="b", name="bob", rating=1500),
    )
    both_low = Clocks(black_ms=5_000, white_ms=9_900)
    room = room_view(
        players=players,
        state="playing",
        time=TimeControl(base_ms=60_000),
        moves=["h8", "a1"],
        to_move="black",
        clocks=both_low,
    )
    model = viewed("a", room)
    first, _ = status_lines(model, frozenset({"a"}), UNICODE, 0.0)
    marked = [first[start:end] for start, end in low_clock_spans(first, model.room, 0.0)]
    assert marked == ["0:05.0", "0:09.9"], first
    white_calm = viewed("a", replace(room, clocks=Clocks(black_ms=5_000, white_ms=10_000)))
    first, _ = status_lines(white_calm, frozenset({"a"}), UNICODE, 0.0)
    assert [first[a:b] for a, b in low_clock_spans(first, white_calm.room, 0.0)] == ["0:05.0"]
    over = viewed("a", replace(room, state="over"))
    first, _ = status_lines(over, frozenset({"a"}), UNICODE, 0.0)
    assert low_clock_spans(first, over.room, 0.0) == []


def test_two_players_of_one_name_are_told_apart() -> None:
    """Names are not unique: when both seats read "ann", the header marks which is you."""
    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name="ann", rating=1742),
    )
    first = header_of("b", players=players, state="playing", to_move="black", seq=2)
    assert "ann (1500) --:--" in first
    assert "ann (1742) (you) --:--" in first


def test_a_provisional_rating_is_marked_in_the_lobby_and_the_header() -> None:
    """A new player's rating reads "1500?" (provisional, as on the profile screen), an
    established one's plain; after a rated game the header shows the new ratings."""
    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500, provisional=True),
        white=PlayerRef(id="b", name="bob", rating=1812),
    )
    row = lobby_row(room_summary(players=players, state="playing"))
    assert row[2:4] == ("ann 1500?", "bob 1812")
    first = header_of("b", players=players, state="playing", to_move="black", seq=2)
    assert "ann (1500?)" in first
    assert "bob (1812) " in first
    room = room_view(
        rated=True, players=players, state="playing", moves=["h8"], to_move="white", seq=2
    )
    model = viewed("b", room)
    changes = [
        RatingChange(player="a", before=1500, after=1690, provisional=True),
        RatingChange(player="b", before=1812, after=1790),
    ]
    over = GameOver(winner="black", reason=Reason.RESIGN, ratings=changes)
    model = reduce(model, Event(room="r1", seq=3, event=over), 0.0)
    first, _ = status_lines(model, frozenset({"b"}), UNICODE, 0.0, 0)
    assert "ann (1690?)" in first
    assert "bob (1790) " in first


def test_status_parts_left_out_to_fit_are_the_least_important_whole() -> None:
    """What does not fit is left out whole, the highest rank first (of equals the last);
    rank 0 always stays, even when the line is still too long."""
    parts = [(0, "move 9"), (0, "bob to move (white)"), (2, "renju"), (4, "5+3"), (1, "you")]
    assert fit_parts(parts, 0, " · ") == "move 9 · bob to move (white) · renju · 5+3 · you"
    assert fit_parts(parts, 45, " · ") == "move 9 · bob to move (white) · renju · you"
    assert fit_parts(parts, 40, " · ") == "move 9 · bob to move (white) · you"
    assert fit_parts(parts, 20, " · ") == "move 9 · bob to move (white)"
    assert fit_parts([(0, "a"), (3, ""), (3, "b"), (3, "c")], 4, "-") == "a-b"


def test_a_seat_gone_from_a_finished_game_has_left() -> None:
    seat = Seat("p-bob", "bob", 1500, online=False)
    assert seat_label(seat, Color.WHITE, "○", 0.0) == "○ bob (1500) [offline]"
    counting = Seat("p-bob", "bob", 1500, online=False, claim_at=20.0)  # a spectator's view
    assert seat_label(counting, Color.WHITE, "○", 2.5) == "○ bob (1500) [offline, claim in 18s]"
    assert seat_label(counting, Color.WHITE, "○", 20.0) == "○ bob (1500) [offline]"
    assert seat_label(seat, Color.WHITE, "○", 0.0, over=True) == "○ bob (1500) [left]"


def test_long_names_are_cut_short_to_keep_both_clocks_in_80_columns() -> None:
    """Two 24-character names at 80 columns: the line fits and ends with White's clock
    (it was cut off the screen's edge, on White's own screen too); short names and
    wide screens are shown whole."""
    long_black, long_white = "Maximilian-Alexander-XYZ", "Bartholomew-Fitzgerald-Q"
    players = Seats(
        black=PlayerRef(id="a", name=long_black, rating=1500),
        white=PlayerRef(id="b", name=long_white, rating=1500),
    )
    five = TimeControl(base_ms=300_000, inc_ms=0)
    for width in (80, 60):
        first = header_of("a", width, players=players, time=five)
        assert len(first) <= width, first
        assert first.endswith(" 5:00"), first
        assert first.count("5:00") == 2, first
        assert "(1500)" not in first, first  # the ratings go first
        assert "Maximilia" in first, first  # cut, not gone (and "(you)" stays)
        assert "(you)" in first, first
    assert long_black in header_of("a", 80, players=players, time=five)  # whole at 80
    assert "…" in header_of("a", 60, players=players, time=five)
    first = header_of("a", 120, players=players, time=five)
    assert long_black in first
    assert long_white in first
    short = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name=long_white, rating=1500),
    )
    first = header_of("a", 60, players=short, time=five)
    assert first.startswith("● ann (you) 5:00  vs  ○ Bartholomew-Fitzgerald-Q"), first
    assert first.endswith(" 5:00"), first


def test_a_game_both_players_left_is_aborted_early_and_drawn_later() -> None:
    """Both players gone: before each had made two moves the status line and the history
    say the game was aborted (it counts for nothing), after it a draw, as the server
    rates it; a game won by abandonment is the opponent gone, in the same words in both,
    and to its loser "you were away too long" (they read "lost (opponent gone)")."""
    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name="bob", rating=1500),
    )
    both_left = GameResult(winner=None, reason=Reason.ABANDON)
    one_left = GameResult(winner="black", reason=Reason.ABANDON)
    said = {
        (3, both_left): ("aborted", "aborted"),
        (4, both_left): ("draw (both left)", "draw (both left)"),
        (3, one_left): ("black wins (opponent gone)", "won (opponent gone)"),
    }
    for (stones, result), (status, history) in said.items():
        moves = ["h8", "a1", "h9", "a2"][:stones]
        room = room_view(players=players, state="over", moves=moves, result=result)
        _, second = status_lines(viewed("a", room), frozenset({"a"}), UNICODE, 0.0)
        assert f" · {status} · " in second, second
        game = summary(rated=True, result=result, moves=stones)
        assert game_result_label(game, "p-alice") == history
    lost = summary(rated=True, result=one_left, moves=3)
    assert game_result_label(lost, "p-bob") == "lost (you were away too long)"
    assert "you lost (you were away too long)" in ended_away_result(lost, "p-bob")


def test_a_rated_game_that_did_not_count_is_no_casual_one_in_the_history() -> None:
    """A profile's games: one that counted reads what it did to the profile's player's
    rating (or rated, kept before games said it), one set up rated that ended too early
    reads "rated, not counted" (it read as a casual game), a casual one neither."""
    base = summary(result=GameResult(winner="white", reason=Reason.RESIGN), moves=1)
    counted = summary(rated=True, rated_room=True)
    short = summary(rated_room=True, moves=1)
    assert game_row(counted, "p-alice")[1] == "freestyle rated"  # kept before it said more
    moved = [
        RatingChange(player="p-alice", before=1500, after=1516),
        RatingChange(player="p-bob", before=1500, after=1484),
    ]
    counted = summary(rated=True, rated_room=True, ratings=moved)
    assert game_row(counted, "p-alice")[1] == "freestyle +16"
    assert game_row(counted, "p-bob")[1] == "freestyle -16"
    assert game_row(short, "p-alice")[1] == "freestyle rated, not counted"
    assert game_row(base, "p-alice")[1] == "freestyle"


def test_a_private_games_code_stays_on_the_status_line() -> None:
    """A private game's invite code is on its status line, for a friend to watch by (it
    was said once in the log, which chat scrolled away); a public game has none."""
    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name="bob", rating=1500),
    )
    private = room_view(players=players, state="playing", private=True, code="P62-M8K-CRA")
    _, second = status_lines(viewed("a", private), frozenset({"a"}), UNICODE, 0.0, 80)
    assert " · private, code P62-M8K-CRA" in second, second
    public = room_view(players=players, state="playing")
    _, second = status_lines(viewed("a", public), frozenset({"a"}), UNICODE, 0.0, 80)
    assert "code" not in second, second


def test_a_swap2_opening_is_said_in_words_on_the_status_line() -> None:
    """Who does what in a swap2 opening, in words: "swap2: you place 3 stones", "swap2:
    bob chooses" (it read the wire's phase names, "swap2 place3: you")."""
    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name="bob", rating=1500),
    )
    said = {
        ("place3", "a"): "swap2: you place 3 stones",
        ("place2", "b"): "swap2: bob places 2 more",
        ("choose", "a"): "swap2: you choose",
        ("choose", "b"): "swap2: bob chooses",
    }
    for (phase, actor), words in said.items():
        room = room_view(
            players=players,
            state="opening",
            opening=Opening.SWAP2,
            swap2=Swap2State(phase=phase, to_act=actor),  # type: ignore[arg-type]
            seq=2,
        )
        _, second = status_lines(viewed("a", room), frozenset({"a"}), UNICODE, 0.0)
        assert f" · {words} · " in f" · {second} · ", second


def test_when_a_game_ended_is_short_this_year() -> None:
    """A finished game's date in the profile: day, month and time this year, the date
    alone in an earlier year (the full stamp took four of 80 columns on every line)."""
    ended = datetime.datetime(2026, 3, 14, 18, 5)
    stamp = int(ended.timestamp() * 1000)
    assert ended_label(stamp, now=datetime.datetime(2026, 11, 29)) == "14 Mar 18:05"
    assert ended_label(stamp, now=datetime.datetime(2027, 1, 2)) == "2026-03-14"


def test_a_game_over_after_one_move_says_1_move() -> None:
    """The status line of a game over counts the moves played in words: "1 move"."""
    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name="bob", rating=1500),
    )
    welcome = Welcome(player="a", name="ann", token="t", resumed=False)
    for moves, words in ((["h8"], "1 move · "), (["h8", "a1"], "2 moves · ")):
        room = RoomView(
            id="r1",
            rule=Rule.FREESTYLE,
            size=15,
            opening=Opening.FREE,
            time=None,
            rated=False,
            private=False,
            players=players,
            spectators=0,
            state="over",
            moves=moves,
            to_move=None,
            clocks=None,
            seq=5,
        )
        model = reduce(reduce(ViewModel(), welcome, 0.0), Snapshot(room=room), 0.0)
        _, second = status_lines(model, frozenset({"a"}), UNICODE, 0.0)
        assert second.startswith(words), second


@pytest.mark.parametrize("width", [50, 40, 29, 20])
def test_a_narrow_screen_keeps_both_clocks(width: int) -> None:
    """At 40 and 50 columns the line kept "(1500?) (you)" and lost White's clock, on
    White's own screen; narrower, the opponent's whole side went. Ratings, then "(you)",
    then the names go first; both clocks stay."""
    players = Seats(
        black=PlayerRef(id="a", name="vtuser", rating=1500, provisional=True),
        white=PlayerRef(id="b", name="cuser2", rating=1500, provisional=True),
    )
    two = TimeControl(base_ms=120_000, inc_ms=0)
    first = header_of("b", width, players=players, time=two)
    assert len(first) <= width, first
    assert first.count("2:00") == 2, first
    assert first.endswith(" 2:00"), first
    if width >= 40:
        assert "cuser2" in first, first  # names, when they fit without the ratings


def test_a_swap2_game_ended_before_the_choice_names_players_not_colours() -> None:
    """A resignation during the swap2 opening read "bob (white) resigned: ann (black)
    wins", colours nobody had chosen; it names the players, and says when."""
    from client.state.words import describe_result

    players = Seats(
        black=PlayerRef(id="a", name="ann", rating=1500),
        white=PlayerRef(id="b", name="bob", rating=1500),
    )
    resigned = GameResult(winner="black", reason=Reason.RESIGN)
    room = room_view(
        players=players,
        state="over",
        opening=Opening.SWAP2,
        moves=["h8", "i9", "j8"],
        result=resigned,
    )
    model = viewed("a", room)
    _, second = status_lines(model, frozenset({"a"}), UNICODE, 0.0)
    assert "ann wins (resignation, in the opening)" in second, second
    assert model.room is not None
    assert model.room.outcome is not None
    said = describe_result(model.room.outcome, model.room)
    assert said == "bob resigned during the swap2 opening: ann wins."
    settled = room_view(
        players=players,
        state="over",
        opening=Opening.SWAP2,
        moves=["h8", "i9", "j8", "k9"],
        opening_stones=3,
        result=resigned,
    )
    _, second = status_lines(viewed("a", settled), frozenset({"a"}), UNICODE, 0.0)
    assert "black wins (resignation)" in second, second
