"""Game records: move list, PSQ and JSON export and import, and the import checks."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from engine.board import Board
from engine.errors import RecordError
from engine.notation import parse_moves, parse_point
from engine.record import (
    GameRecord,
    Players,
    TimedMove,
    format_json,
    format_move_list,
    format_psq,
    parse_json,
    parse_move_list,
    parse_psq,
    record_from_dict,
    record_to_dict,
)
from engine.types import Color, Opening, Reason, Result, Rule

BLACK_WINS = "h8 a1 i8 a3 j8 a5 k8 a7 l8"


def timed(
    moves: str, times: list[int | None] | None = None, size: int = 15
) -> tuple[TimedMove, ...]:
    points = parse_moves(moves, size)
    stamps = times if times is not None else [None] * len(points)
    return tuple(TimedMove(p, t) for p, t in zip(points, stamps, strict=True))


def test_move_list_export_and_import() -> None:
    """A move list exports spaced or compact and imports with the board's result."""
    record = parse_move_list(BLACK_WINS)
    assert format_move_list(record) == BLACK_WINS
    assert format_move_list(record, compact=True) == BLACK_WINS.replace(" ", "")
    assert record.result is not None
    assert record.result.winner is Color.BLACK
    assert record.result.reason is Reason.FIVE
    assert record.board() == Board.from_moves(BLACK_WINS)


@pytest.mark.parametrize(
    ("moves", "rule", "message"),
    [
        ("h8 i9 h8", Rule.FREESTYLE, "move 3 (h8): h8 is occupied"),
        (BLACK_WINS + " o15", Rule.FREESTYLE, "move 10 (o15): the game is over"),
        ("h8 i9 z99", Rule.FREESTYLE, "move 3: z99 is off a 15x15 board"),
        ("h8 i9 ?", Rule.FREESTYLE, "move 3: '?' is not a point like h8"),
        # Black's third stone makes two open threes at once: a renju foul.
        ("h8 a1 i8 a3 g9 a5 g10 a7 g8", Rule.RENJU, "move 9 (g8): g8 is forbidden"),
    ],
)
def test_move_list_rejects_illegal_moves(moves: str, rule: Rule, message: str) -> None:
    """Import names the first illegal move by number and point, and says why."""
    with pytest.raises(RecordError) as info:
        parse_move_list(moves, rule=rule)
    assert str(info.value).startswith(message)


def test_renju_foul_in_a_record_names_the_foul() -> None:
    """A renju record with a forbidden Black move says which foul it is."""
    with pytest.raises(RecordError, match=r"move 9 \(g8\): .*double-three"):
        parse_move_list("h8 a1 i8 a3 g9 a5 g10 a7 g8", rule=Rule.RENJU)


# -- PSQ -------------------------------------------------------------------


def test_psq_export_is_one_based_with_move_times() -> None:
    """PSQ writes the Piskvork header, 1-based x,y and the time each move took."""
    record = GameRecord(
        size=15,
        players=Players("Alice", "Bob"),
        moves=timed("h8 i9 a15 o1", [0, 1500, 1500, 4000]),
    )
    assert format_psq(record).splitlines() == [
        "Piskvorky 15x15, 11:11, 0",
        "8,8,0",
        "9,7,1500",
        "1,1,0",
        "15,15,2500",
        "Alice",
        "Bob",
        "-1",
    ]


def test_psq_import_from_piskvork() -> None:
    """A Piskvork file imports: size from the header, times summed, trailing lines
    (brain names, -1, result lines) tolerated."""
    text = (
        "Piskvorky 20x20, 11:11, 0\r\n"
        "10,10,0\r\n"
        "11,11,2000\r\n"
        "10,11,500\r\n"
        "pbrain-embryo.exe\r\n"
        "pbrain-yixin.zip\r\n"
        "-1\r\n"
        "1,Freestyle\r\n"
    )
    record = parse_psq(text)
    assert record.size == 20
    assert record.rule is Rule.FREESTYLE
    assert [m.point for m in record.moves] == parse_moves("j11 k10 j10", 20)
    assert [m.t for m in record.moves] == [0, 2000, 2500]
    assert record.players == Players("pbrain-embryo.exe", "pbrain-yixin.zip")
    assert record.result is None


def test_psq_import_without_times_or_names() -> None:
    """Moves without times and a file without trailing lines import too."""
    record = parse_psq("Piskvorky 15x15, 11:11, 0\n8,8\n9,9\n", rule=Rule.STANDARD)
    assert record.points == parse_moves("h8 i7")
    assert [m.t for m in record.moves] == [None, None]
    assert record.players == Players()
    assert record.rule is Rule.STANDARD


def test_psq_import_replays_to_the_result() -> None:
    """A PSQ game that ends in five gets the result from the board."""
    lines = ["Piskvorky 15x15, 11:11, 0"]
    lines += [f"{p.x + 1},{p.y + 1},10" for p in parse_moves(BLACK_WINS)]
    record = parse_psq("\n".join(lines))
    assert record.result == Board.from_moves(BLACK_WINS).result


def test_psq_names_that_would_not_survive_are_left_out() -> None:
    """Names a PSQ file cannot hold (numbers, several lines) are not written."""
    record = GameRecord(players=Players("123", "Bob\nSmith"), moves=timed("h8"))
    assert format_psq(record).splitlines() == ["Piskvorky 15x15, 11:11, 0", "8,8,0", "-1"]
    for name in ("7,7 fan", "9,x", " 12, the twelfth"):  # would read back as a broken move
        record = GameRecord(players=Players(name, "bob"), moves=timed("h8"))
        text = format_psq(record)
        assert text.splitlines() == ["Piskvorky 15x15, 11:11, 0", "8,8,0", "-1"], name
        assert parse_psq(text).moves == record.moves
    named = GameRecord(players=Players("7 of 9", "bob, 2nd"), moves=timed("h8"))
    assert parse_psq(format_psq(named)).players == named.players


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty PSQ file"),
        ("Gomoku 15x15\n8,8,0\n", "is not a PSQ header"),
        ("Piskvorky 20x15, 11:11, 0\n", "a 20x15 board is not square"),
        ("Piskvorky 30x30, 11:11, 0\n", "board size 30 is not between 5 and 26"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n16,1,0\n", "move 2: 16,1 is off a 15x15 board"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n", "move 2 (h8): h8 is occupied"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,-5\n", "move 2: negative time -5 ms"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,\n10,10,0\n", "line 3: '9,' is not a move"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n-1,5,0\n", "line 3: '-1,5,0' is not a move"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n5,5,x\n", "line 3: '5,5,x' is not a move"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n5;5;0\n9,9,0\n", "line 4: a move after line 3"),
        ("Piskvorky 15x15, 11:11, 0\n8\t8\t0\n9\t9\t0\n", "line 2: '8\\t8\\t0' is not a move"),
    ],
)
def test_psq_import_errors(text: str, message: str) -> None:
    """A bad PSQ file raises RecordError saying what is wrong."""
    with pytest.raises(RecordError, match=re.escape(message)):
        parse_psq(text)


# -- JSON ------------------------------------------------------------------


def test_json_export_shape() -> None:
    """The JSON record is versioned and uses h8 points and ms since the start."""
    board = Board.from_moves(BLACK_WINS)
    record = GameRecord.from_board(
        board,
        opening=Opening.SWAP2,
        players=Players("Alice", None),
        times=[0, 800, 1600, 2400, 3200, 4000, 4800, 5600, None],
        started_at="2025-06-01T12:00:00Z",
    )
    data = json.loads(format_json(record))
    assert data == {
        "format": "gomoku-arena-record",
        "version": 1,
        "rule": "freestyle",
        "size": 15,
        "opening": "swap2",
        "players": {"black": "Alice", "white": None},
        "moves": [
            {"move": "h8", "t": 0},
            {"move": "a1", "t": 800},
            {"move": "i8", "t": 1600},
            {"move": "a3", "t": 2400},
            {"move": "j8", "t": 3200},
            {"move": "a5", "t": 4000},
            {"move": "k8", "t": 4800},
            {"move": "a7", "t": 5600},
            {"move": "l8"},
        ],
        "result": {
            "winner": "black",
            "reason": "five",
            "line": ["h8", "i8", "j8", "k8", "l8"],
        },
        "started_at": "2025-06-01T12:00:00Z",
    }
    assert parse_json(format_json(record, indent=2)) == record


def test_json_keeps_a_server_result() -> None:
    """A resignation or timeout, which the board cannot see, survives the round trip."""
    board = Board.from_moves("h8 i9 j10")
    record = GameRecord.from_board(board, result=Result(Color.WHITE, Reason.RESIGN))
    assert record_to_dict(record)["result"] == {"winner": "white", "reason": "resign"}
    assert record_from_dict(record_to_dict(record)) == record


def test_json_import_fills_in_the_winning_line() -> None:
    """A result given without its line gets the line from the replay."""
    data = record_to_dict(parse_move_list(BLACK_WINS))
    del data["result"]["line"]
    record = record_from_dict(data)
    assert record.result == Board.from_moves(BLACK_WINS).result


def good_json() -> dict[str, Any]:
    return record_to_dict(parse_move_list("h8 i9 j10"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "something-else"}, "not a gomoku-arena-record"),
        ({"version": 2}, "unsupported record version 2"),
        ({"rule": "gomoku"}, "rule must be one of freestyle, standard, renju, not 'gomoku'"),
        ({"size": "15"}, "size must be an integer"),
        ({"size": 40}, "board size 40 is not between 5 and 26"),
        ({"opening": "swap9"}, "opening must be one of free, swap2"),
        ({"players": ["a", "b"]}, "players must be an object"),
        ({"players": {"black": 7}}, "players.black must be a string or null"),
        ({"moves": "h8 i9"}, "moves must be a list"),
        ({"moves": [{"move": "h8"}, {"move": "h8"}]}, r"move 2 \(h8\): h8 is occupied"),
        ({"moves": [{"move": "h8"}, {"move": "p9"}]}, "move 2: p9 is off a 15x15 board"),
        ({"moves": [{"move": 7}]}, "move 1: 7 is not a point like h8"),
        ({"moves": ["h8"]}, "move 1: expected an object"),
        ({"moves": [{"move": "h8", "t": -1}]}, "move 1: t must be a non-negative integer"),
        (
            {"moves": [{"move": "h8", "t": 900}, {"move": "i9", "t": 100}]},
            "move 2: time 100 ms is before the previous move's 900 ms",
        ),
        ({"result": {"winner": "red", "reason": "five"}}, "result.winner must be"),
        ({"result": {"winner": "black", "reason": "luck"}}, "result.reason must be one of"),
        (
            {"result": {"winner": "black", "reason": "five"}},
            "the record says black wins \\(five\\) but the moves do not end the game",
        ),
        ({"started_at": 12}, "started_at must be a string"),
    ],
)
def test_json_import_errors(change: dict[str, Any], message: str) -> None:
    """A bad JSON record raises RecordError saying which field or move is wrong."""
    data = good_json() | change
    with pytest.raises(RecordError, match=message):
        record_from_dict(data)


def test_json_result_must_match_the_moves() -> None:
    """A record claiming the wrong winner of a five is rejected."""
    data = record_to_dict(parse_move_list(BLACK_WINS))
    data["result"] = {"winner": "white", "reason": "five"}
    with pytest.raises(RecordError, match=r"says white wins \(five\) but the moves give black"):
        record_from_dict(data)


@pytest.mark.parametrize("text", ["{", "[]", '"record"', "null"])
def test_json_text_errors(text: str) -> None:
    """Text that is not a JSON record object raises RecordError, never another error."""
    with pytest.raises(RecordError):
        parse_json(text)


# -- the value type --------------------------------------------------------


def test_record_board_replays_and_checks() -> None:
    """board() replays the record; a record built by hand with a bad move says so."""
    record = GameRecord(rule=Rule.STANDARD, moves=timed("h8 i9"))
    assert record.board() == Board.from_moves("h8 i9", rule=Rule.STANDARD)
    bad = GameRecord(moves=timed("h8 i9 i9"))
    with pytest.raises(RecordError, match=r"move 3 \(i9\): i9 is occupied"):
        bad.board()


def test_record_accepts_plain_values() -> None:
    """Rule and opening given as strings and moves as a list become the proper types."""
    record = GameRecord(rule="renju", opening="swap2", moves=list(timed("h8")))  # type: ignore[arg-type]
    assert record.rule is Rule.RENJU
    assert record.opening is Opening.SWAP2
    assert record.moves == timed("h8")
    assert hash(record) == hash(
        GameRecord(rule=Rule.RENJU, opening=Opening.SWAP2, moves=timed("h8"))
    )


def test_record_rejects_bad_fields() -> None:
    """A record's size, rule, opening and times must make sense."""
    with pytest.raises(RecordError, match="board size 3"):
        GameRecord(size=3)
    with pytest.raises(RecordError, match="rule must be one of"):
        GameRecord(rule="gomoku")  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="opening must be one of"):
        GameRecord(opening="swap9")  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="move 1: negative time -1 ms"):
        GameRecord(moves=timed("h8", [-1]))


def test_from_board_needs_one_time_per_move() -> None:
    """from_board refuses a list of times of the wrong length."""
    with pytest.raises(RecordError, match="2 times given for 3 moves"):
        GameRecord.from_board(Board.from_moves("h8 i9 j10"), times=[0, 1])


def test_record_points_on_other_sizes() -> None:
    """Records work on other board sizes, with notation for that size."""
    record = parse_move_list("a19 s1 j10", size=19, rule=Rule.STANDARD)
    assert record.points == [parse_point("a19", 19), parse_point("s1", 19), parse_point("j10", 19)]
    assert record_to_dict(record)["moves"] == [{"move": "a19"}, {"move": "s1"}, {"move": "j10"}]
    assert format_psq(record).splitlines()[1:4] == ["1,1,0", "19,19,0", "10,10,0"]


@pytest.mark.parametrize("winner", [["black"], {"colour": "black"}, 1])
def test_a_winner_that_is_not_a_string_is_a_record_error(winner: object) -> None:
    """A list or an object as the winner was a TypeError (unhashable) and a traceback in
    ``gomoku review``."""
    data = record_to_dict(parse_move_list(BLACK_WINS))
    data["result"]["winner"] = winner
    with pytest.raises(RecordError, match=r"result\.winner must be"):
        record_from_dict(data)


@pytest.mark.parametrize("version", [1.0, True, "1"])
def test_the_version_is_the_integer_1(version: object) -> None:
    """1.0 and true compared equal to 1 and were read as version 1."""
    data = record_to_dict(parse_move_list(BLACK_WINS))
    data["version"] = version
    with pytest.raises(RecordError, match="unsupported record version"):
        record_from_dict(data)


def test_a_byte_order_mark_is_skipped_in_json_and_move_lists() -> None:
    """Editors on Windows write one; PSQ files already skipped it."""
    record = parse_move_list(BLACK_WINS)
    assert parse_json("\ufeff" + format_json(record)).moves == record.moves
    assert parse_move_list("\ufeff" + BLACK_WINS).moves == record.moves


def test_a_result_the_board_does_not_decide_has_no_line() -> None:
    """A resignation read with a "winning line" kept it, as if five stones had won."""
    data = record_to_dict(parse_move_list("h8 a1 i8"))
    data["result"] = {"winner": "white", "reason": "resign", "line": ["h8", "i8"]}
    record = record_from_dict(data)
    assert record.result == Result(Color.WHITE, Reason.RESIGN, None)


@pytest.mark.parametrize("read", [parse_psq, parse_move_list])
def test_an_unknown_rule_is_a_record_error(read: Callable[..., GameRecord]) -> None:
    """A reader given a rule that does not exist says so as a RecordError, as it promises."""
    with pytest.raises(RecordError, match="unknown rule 'bogus'"):
        read("Piskvorky 15x15, 11:11, 0\n8,8,0\n" if read is parse_psq else "h8", rule="bogus")


def test_a_record_takes_points_and_a_pair_of_names_as_given() -> None:
    """GameRecord takes the plain values its docstring promises: points without times
    (a Point failed on a missing ``t``) and the players as a pair of names (the JSON
    writer failed on a missing ``black``)."""
    record = GameRecord(moves=[parse_point("h8"), (8, 6)], players=("ann", "bob"))  # type: ignore[arg-type]
    assert record.moves == (TimedMove(parse_point("h8")), TimedMove(parse_point("i9")))
    assert record.players == Players("ann", "bob")
    assert '"players": {"black": "ann", "white": "bob"}' in format_json(record)
    with pytest.raises(TypeError, match=r"a record's move is a TimedMove or a Point, not 'h8'"):
        GameRecord(moves=["h8"])  # type: ignore[arg-type]


@pytest.mark.parametrize("reader", [parse_json, parse_psq, parse_move_list])
def test_a_reader_given_no_text_says_so(reader: Callable[[str], GameRecord]) -> None:
    """None passed where the text goes is a TypeError that says text was wanted."""
    with pytest.raises(TypeError, match=r"is text \(str\), not None"):
        reader(None)  # type: ignore[arg-type]


def test_a_time_too_long_for_a_number_is_a_record_error() -> None:
    """A 5,000-digit time was a plain ValueError from Python's integer limit; the reader
    promises RecordError."""
    text = '{"format": "gomoku-arena-record", "version": 1, "moves": [{"move": "h8", "t": '
    with pytest.raises(RecordError, match="not JSON"):
        parse_json(text + "9" * 5000 + "}]}")


@pytest.mark.parametrize(
    ("result", "says"),
    [
        ({"winner": None, "reason": "resign"}, "result.reason resign needs a winner"),
        ({"winner": "black", "reason": "agreement"}, "agreement is a draw"),
        ({"winner": "white", "reason": "board-full"}, "board-full is a draw"),
    ],
)
def test_a_result_that_contradicts_itself_is_refused(result: dict[str, Any], says: str) -> None:
    """A resignation nobody won, a draw agreed that someone won: no game ends so."""
    data = {"format": "gomoku-arena-record", "version": 1, "rule": "freestyle", "size": 15}
    data |= {"moves": [], "result": result}
    with pytest.raises(RecordError, match=says):
        parse_json(json.dumps(data))
